// hoistCommonScalars: a ScalarDef at the start of each printed scope for every computed
// scalar used twice in it; ScalarKeys, the identity both it and codegen use.
#include "lower/hoist_common_scalars.h"

#include <cmath>
#include <unordered_set>

#include "ir/builder.h"
#include "ir/exprs.h"
#include "ir/scalar_ops.h"
#include "lower/passes.h"

namespace mf {

ScalarKeys::ScalarKeys(const KernelSummary& summary) {
  for (const KernelParameter& p : summary.params) {
    auto* tv = dynamic_cast<TensorView*>(p.val);
    if (tv == nullptr) continue;
    const auto logical = TensorDomain::noReductions(tv->getLogicalDomain());
    for (size_t i = 0; i < logical.size(); ++i) {
      Val* e = logical[i]->extent();
      if (!e->isConst() && e->definition() == nullptr)
        extent_names_.try_emplace(e, fmt::format("T{}.size[{}]", tv->name(), i));
    }
  }
}

const std::string* ScalarKeys::extentName(const Val* v) const {
  auto it = extent_names_.find(v);
  return it == extent_names_.end() ? nullptr : &it->second;
}

bool ScalarKeys::isCompound(const Val* v) const {
  if (v->isConst() || v->definition() == nullptr || v->isFusionInput()) return false;
  if (extent_names_.count(v)) return false;
  auto* s = dynamic_cast<const Scalar*>(v);
  return s == nullptr || s->codeName().empty();
}

const std::string& ScalarKeys::key(const Val* v) {
  if (auto it = keys_.find(v); it != keys_.end()) return it->second;
  std::string k = compute(v);
  return keys_.emplace(v, std::move(k)).first->second;
}

namespace {

// A float constant as codegen prints it: single precision unless Double, one NaN.
std::string floatKey(double v, DataType t) {
  const bool f32 = t != DataType::Double;
  if (std::isnan(v)) return f32 ? "f32:nan" : "f64:nan";
  return fmt::format("{}:{}", f32 ? "f32" : "f64",
                     f32 ? static_cast<double>(static_cast<float>(v)) : v);
}

}  // namespace

std::string ScalarKeys::compute(const Val* v) {
  if (auto c = v->constValue()) {
    if (std::holds_alternative<double>(*c)) return floatKey(std::get<double>(*c), v->dtype());
    if (std::holds_alternative<bool>(*c)) return std::get<bool>(*c) ? "true" : "false";
    return fmt::format("{}", std::get<int64_t>(*c));
  }
  if (const std::string* name = extentName(v)) return "$" + *name;
  if (auto* s = dynamic_cast<const Scalar*>(v); s && !s->codeName().empty())
    return "$" + s->codeName();
  Expr* def = v->definition();
  if (def == nullptr || v->isFusionInput()) return "$" + v->toString();
  if (auto* b = dynamic_cast<const BinaryOp*>(def)) {
    const BinaryOpType t = b->opType();
    if (t == BinaryOpType::Maximum || t == BinaryOpType::Minimum)
      if (DataType compute = computeType(b); isFloatingType(compute))
        return fmt::format("({}<{}> {} {})", toString(t), compute, operandKey(b->lhs(), compute),
                           operandKey(b->rhs(), compute));
    return fmt::format("({} {} {})", toString(t), key(b->lhs()), key(b->rhs()));
  }
  if (auto* u = dynamic_cast<const UnaryOp*>(def)) {
    if (u->opType() == UnaryOpType::Cast)
      return fmt::format("(cast<{}> {})", v->dtype(), key(u->in()));
    return fmt::format("({} {})", toString(u->opType()), key(u->in()));
  }
  if (auto* t = dynamic_cast<const TernaryOp*>(def); t && t->opType() == TernaryOpType::Where)
    return fmt::format("(where {} {} {})", key(t->input(0)), key(t->input(1)), key(t->input(2)));
  MF_ASSERT(false, "cannot print scalar {} in generated code", v->toInlineString());
}

std::string ScalarKeys::operandKey(const Val* v, DataType to) {
  if (auto c = v->constValue(); c && isFloatingType(to)) {
    std::string literal = floatKey(asDouble(castScalar(*c, to)), to);
    return isNarrowFloat(to) ? fmt::format("(cast<{}> {})", to, literal) : literal;
  }
  if (v->dtype() == to) return key(v);
  return fmt::format("(cast<{}> {})", to, key(v));
}

namespace {

// A computed scalar seen in a scope, by key.
struct Candidate {
  Val* val;  // the first one seen: its name is the declared name
  int uses;
  bool available;  // reads no index of a serial loop opened inside the scope
};

class Hoister {
 public:
  explicit Hoister(Kernel& kernel) : kernel_(kernel), keys_(kernel.summary()) {}

  void hoist(Scope& scope) {
    const std::unordered_set<std::string> outer = hoisted_;
    candidates_.clear();
    position_.clear();
    for (Expr* e : scope.exprs()) collectExpr(e);
    std::vector<Expr*> defs;
    for (const Candidate& c : candidates_) {
      if (c.uses < 2 || !c.available) continue;
      defs.push_back(IrBuilder::createIn<ScalarDef>(&kernel_.ir(), c.val));
      hoisted_.insert(keys_.key(c.val));
    }
    scope.exprs().insert(scope.exprs().begin(), defs.begin(), defs.end());
    for (Expr* e : scope.exprs()) hoistInside(e);
    hoisted_ = outer;
  }

 private:
  // The scopes inside `e` that codegen prints as blocks of their own.
  void hoistInside(Expr* e) {
    if (auto* loop = dynamic_cast<ForLoop*>(e)) {
      std::vector<const ForLoop*> group;
      if (kernel_.groupedReduction(loop, group) != nullptr) return;  // one runtime call
      if (loop->isSerial()) return hoist(loop->body());
      for (Expr* b : loop->body().exprs()) hoistInside(b);  // a thread index: no block
    } else if (auto* ite = dynamic_cast<IfThenElse*>(e)) {
      hoist(ite->thenBody());
      if (!ite->elseBody().empty()) hoist(ite->elseBody());
    }
  }

  void collectExpr(Expr* e) {
    if (auto* loop = dynamic_cast<ForLoop*>(e)) {
      collectVal(loop->stop());
      if (loop->isSerial()) closed_.insert(loop->index());
      for (Expr* b : loop->body().exprs()) collectExpr(b);
      if (loop->isSerial()) closed_.erase(loop->index());
    } else if (auto* ite = dynamic_cast<IfThenElse*>(e)) {
      collectVal(ite->cond());
      for (Expr* b : ite->thenBody().exprs()) collectExpr(b);
      for (Expr* b : ite->elseBody().exprs()) collectExpr(b);
    } else if (auto* a = dynamic_cast<Allocate*>(e)) {
      collectVal(a->size());
    } else {
      for (Val* v : e->inputs()) collectVal(v);
      for (Val* v : e->outputs()) collectVal(v);
    }
  }

  // Counts `v` and, at its first use, its subexpressions (post-order: subexpressions before
  // their users). Returns whether `v` can be computed at the scope's start.
  bool collectVal(Val* v) {
    if (auto* ti = dynamic_cast<TensorIndex*>(v)) return collectVal(ti->index());
    if (v->kind() == ValKind::TensorView) return true;
    if (!keys_.isCompound(v)) return !closed_.count(v);
    const std::string& key = keys_.key(v);
    if (hoisted_.count(key)) return true;
    if (auto it = position_.find(key); it != position_.end()) {
      // Its subexpressions were counted with its first use: they are not used again here.
      ++candidates_[it->second].uses;
      return candidates_[it->second].available;
    }
    bool available = true;
    for (Val* in : v->definition()->inputs()) available = collectVal(in) && available;
    position_.emplace(key, candidates_.size());
    candidates_.push_back({v, 1, available});
    return available;
  }

  Kernel& kernel_;
  ScalarKeys keys_;
  std::unordered_set<std::string> hoisted_;  // keys declared in the enclosing scopes
  // The scope being collected.
  std::vector<Candidate> candidates_;
  std::unordered_map<std::string, size_t> position_;
  std::unordered_set<const Val*> closed_;  // indices of serial loops opened inside it
};

}  // namespace

void hoistCommonScalars(Kernel& kernel) {
  Hoister(kernel).hoist(kernel.body());
}

}  // namespace mf
