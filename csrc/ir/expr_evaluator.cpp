#include "ir/expr_evaluator.h"

#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/id_model.h"
#include "ir/scalar_ops.h"
#include "ir/tensor_view.h"

namespace mf {

void ExpressionEvaluator::bind(const Val* v, const ScalarValue& value) {
  ScalarValue cast = castScalar(value, v->dtype());
  if (auto c = v->constValue()) {
    MF_CHECK(asDouble(*c) == asDouble(cast), "{} is the constant {}, but was given {}",
             v->toInlineString(), toString(*c), toString(value));
    return;
  }
  auto [it, inserted] = known_.emplace(v, cast);
  MF_CHECK(inserted || asDouble(it->second) == asDouble(cast), "{} was bound to {} and then to {}",
           v->toInlineString(), toString(it->second), toString(value));
}

void ExpressionEvaluator::bindTensorSizes(const TensorView* tv, std::span<const int64_t> sizes) {
  const auto& logical = tv->getLogicalDomain();
  MF_CHECK(logical.size() == sizes.size(), "tensor {}: expected rank {}, got rank {}",
           tv->toString(), logical.size(), sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    const Val* extent = logical[i]->extent();
    std::optional<ScalarValue> known = evaluate(extent);
    MF_CHECK(!known || asInt(*known) == sizes[i],
             "tensor {}: size of axis {} ({}) must be {}, got {}", tv->toString(), i,
             logical[i]->toString(), asInt(*known), sizes[i]);
    if (!known) {
      MF_CHECK(extent->definition() == nullptr,
               "tensor {}: axis {} has the derived extent {}, which cannot be bound",
               tv->toString(), i, extent->toInlineString());
      bind(extent, int64_t{sizes[i]});
    }
  }
}

void ExpressionEvaluator::propagateBoundValuesThroughExactMaps(const Fusion& fusion) {
  const IdModel model(fusion);
  std::vector<std::vector<IterDomain*>> groups;
  {
    std::unordered_map<const IterDomain*, bool> grouped;
    for (TensorView* tv : fusion.allTvs())
      for (IterDomain* id : tv->domain()->allIds()) {
        if (id->isSymbolic() || grouped[id]) continue;
        std::vector<IterDomain*> group;
        for (IterDomain* member : model.group(id, IdMappingMode::Exact)) {
          grouped[member] = true;
          if (!member->isSymbolic()) group.push_back(member);
        }
        if (group.size() > 1) groups.push_back(std::move(group));
      }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (const std::vector<IterDomain*>& group : groups) {
      std::optional<ScalarValue> value;
      for (IterDomain* id : group)
        if ((value = evaluate(id->extent()))) break;
      if (!value) continue;
      for (IterDomain* id : group) {
        const Val* extent = id->extent();
        if (extent->definition() != nullptr || evaluate(extent)) continue;
        bind(extent, *value);
        changed = true;
      }
    }
  }
}

std::optional<ScalarValue> ExpressionEvaluator::evaluate(const Val* v) {
  if (auto c = v->constValue()) return c;
  if (auto it = known_.find(v); it != known_.end()) return it->second;
  Expr* def = v->definition();
  if (def == nullptr) return std::nullopt;
  std::vector<ScalarValue> ins;
  for (Val* in : def->inputs()) {
    if (in->kind() != ValKind::Scalar) return std::nullopt;
    std::optional<ScalarValue> x = evaluate(in);
    if (!x) return std::nullopt;
    ins.push_back(*x);
  }
  ScalarValue result;
  if (auto* u = dynamic_cast<const UnaryOp*>(def)) {
    result = evalUnary(u->opType(), v->dtype(), ins[0]);
  } else if (auto* b = dynamic_cast<const BinaryOp*>(def)) {
    result = evalBinary(b->opType(), v->dtype(), computeType(b), ins[0], ins[1]);
  } else if (auto* t = dynamic_cast<const TernaryOp*>(def)) {
    result = evalTernary(t->opType(), v->dtype(), ins[0], ins[1], ins[2]);
  } else {
    return std::nullopt;
  }
  known_[v] = result;
  return result;
}

int64_t ExpressionEvaluator::evaluateInt(const Val* v, std::string_view what) {
  std::optional<ScalarValue> x = evaluate(v);
  MF_CHECK(x.has_value(), "cannot evaluate {} ({}): it depends on an unbound value", what,
           v->toInlineString());
  return asInt(*x);
}

}  // namespace mf

#include "ir/fusion.h"
#include "ir/op_traits.h"

namespace mf {

void validateOperandExtents(const Fusion& fusion, ExpressionEvaluator& ee) {
  for (Expr* e : fusion.exprs()) {
    // Each op states which operand axes must agree (cat, pad and slice relate them otherwise).
    const OperandExtentRule rule = operandExtentRule(e);
    for (const auto& [tv, multiple] : rule.last_extent_multiple_of) {
      const std::vector<IterDomain*> ids = TensorDomain::noReductions(tv->getLogicalDomain());
      const int64_t n =
          ee.evaluateInt(ids.back()->extent(), fmt::format("extent of {}", tv->toString()));
      MF_CHECK(n % multiple == 0, "`{}`: the last extent of {} must be a multiple of {}, got {}",
               e->toString(), tv->toInlineString(), multiple, n);
    }
    for (size_t i = 0; i < rule.rank; ++i) {
      std::optional<int64_t> expected;
      TensorView* first = nullptr;
      for (TensorView* tv : rule.aligned) {
        const std::vector<IterDomain*> ids = TensorDomain::noReductions(tv->getLogicalDomain());
        if (i >= ids.size() || ids[i]->isBroadcast()) continue;
        int64_t n = ee.evaluateInt(ids[i]->extent(), fmt::format("extent of {}", tv->toString()));
        if (!expected) {
          expected = n;
          first = tv;
          continue;
        }
        MF_CHECK(*expected == n, "`{}`: operands {} and {} disagree on axis {}: {} vs {}",
                 e->toString(), first->toInlineString(), tv->toInlineString(), i, *expected, n);
      }
    }
  }
}

}  // namespace mf
