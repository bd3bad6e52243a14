#include "ir/dynamic_transform.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <unordered_set>

#include "ir/cloner.h"
#include "ir/expr_evaluator.h"
#include "ir/fusion.h"
#include "ir/shape_exprs.h"
#include "ir/traversal.h"
#include "support/hash.h"

namespace mf {
namespace {

bool anySymbolic(const std::vector<IterDomain*>& ids) {
  return std::any_of(ids.begin(), ids.end(), [](IterDomain* id) { return id->isSymbolic(); });
}

// The symbolic scalars without a definition that `v` depends on, added to `out` once each.
void addLeaves(Val* v, std::vector<Val*>& out, std::unordered_set<Val*>& seen) {
  for (Statement* s : getStmts({v}, /*members=*/false)) {
    auto* leaf = dynamic_cast<Scalar*>(s);
    if (leaf != nullptr && leaf->definition() == nullptr && !leaf->isConst() &&
        leaf->codeName().empty() && seen.insert(leaf).second)
      out.push_back(leaf);
  }
}

template <typename T>
std::vector<T*> cloneAll(IrCloner& cloner, const std::vector<T*>& v) {
  std::vector<T*> out;
  for (T* x : v) out.push_back(cloner.clone(x));
  return out;
}

std::string names(const std::vector<TensorView*>& tvs) {
  std::vector<std::string> s;
  for (TensorView* tv : tvs) s.push_back(tv->toInlineString());
  return fmt::format("{}", fmt::join(s, ", "));
}

}  // namespace

bool DynamicTransformInitialInfo::isDynamic() const {
  return hasPossibleEmptyTensor() || !reshaped_tvs_.empty() || !resized_ids_.empty() ||
         !expanded_tvs_.empty() || !squeezed_tvs_.empty();
}

DynamicTransformInitialInfo DynamicTransformInitialInfo::cloneTo(IrCloner& cloner) const {
  DynamicTransformInitialInfo c;
  c.fusion_ = cloner.to();
  c.reshaped_tvs_ = cloneAll(cloner, reshaped_tvs_);
  c.resized_ids_ = cloneAll(cloner, resized_ids_);
  c.expanded_tvs_ = cloneAll(cloner, expanded_tvs_);
  c.squeezed_tvs_ = cloneAll(cloner, squeezed_tvs_);
  c.maybe_zero_extents_ = cloneAll(cloner, maybe_zero_extents_);
  c.root_dynamic_vals_ = cloneAll(cloner, root_dynamic_vals_);
  c.scalar_inputs_affecting_concretization_ =
      cloneAll(cloner, scalar_inputs_affecting_concretization_);
  return c;
}

std::string DynamicTransformInitialInfo::toString() const {
  std::vector<std::string> ids, zero, roots;
  for (IterDomain* id : resized_ids_) ids.push_back(id->toString());
  for (Val* v : maybe_zero_extents_) zero.push_back(v->toInlineString());
  for (Val* v : root_dynamic_vals_) roots.push_back(v->toInlineString());
  return fmt::format(
      "DynamicTransformInitialInfo\n  reshaped: {}\n  resized: {}\n  expanded: {}\n  squeezed: "
      "{}\n  maybe zero extents: {}\n  root dynamic vals: {}\n",
      names(reshaped_tvs_), fmt::join(ids, ", "), names(expanded_tvs_), names(squeezed_tvs_),
      fmt::join(zero, ", "), fmt::join(roots, ", "));
}

DynamicTransformInitialInfo DynamicTransform::getInitialInfo(Fusion* fusion) {
  MF_CHECK(fusion != nullptr, "DynamicTransform::getInitialInfo: the fusion is null");
  DynamicTransformInitialInfo info;
  info.fusion_ = fusion;
  std::unordered_set<Val*> zero_seen, leaf_seen;
  std::vector<Val*> dynamic_sizes;  // what the dynamic ops' structure depends on
  for (TensorView* tv : fusion->allTvs()) {
    TensorDomain* td = tv->domain();
    for (const std::vector<IterDomain*>* ids : {&td->maybeRoot(), &td->logical()})
      for (IterDomain* id : *ids) {
        Val* extent = id->extent();
        if (!extent->isConst() && zero_seen.insert(extent).second)
          info.maybe_zero_extents_.push_back(extent);
      }
    for (Expr* e : td->allTransforms()) {
      auto* resize = dynamic_cast<Resize*>(e);
      if (resize == nullptr || !resize->out()->isSymbolic()) continue;
      info.resized_ids_.push_back(resize->out());
      dynamic_sizes.push_back(resize->out()->extent());
    }
    Expr* def = tv->definition();
    if (auto* view = dynamic_cast<ViewOp*>(def); view != nullptr && view->isDynamic()) {
      info.reshaped_tvs_.push_back(tv);
      for (IterDomain* id : view->in()->as<TensorView>()->getLogicalDomain())
        dynamic_sizes.push_back(id->extent());
      for (IterDomain* id : tv->getLogicalDomain()) dynamic_sizes.push_back(id->extent());
    } else if (auto* expand = dynamic_cast<ExpandOp*>(def)) {
      auto* in = expand->in()->as<TensorView>();
      if (anySymbolic(tv->getLogicalDomain()) || anySymbolic(in->getLogicalDomain())) {
        info.expanded_tvs_.push_back(tv);
        for (Val* size : expand->expandedSizes()) dynamic_sizes.push_back(size);
        for (IterDomain* id : in->getLogicalDomain()) dynamic_sizes.push_back(id->extent());
      }
    } else if (auto* squeeze = dynamic_cast<SqueezeOp*>(def)) {
      const std::vector<IterDomain*> in_ids =
          TensorDomain::noReductions(squeeze->in()->as<TensorView>()->getLogicalDomain());
      for (size_t i = 0; i < in_ids.size(); ++i)
        if (squeeze->isSqueezeDims().at(i) && isSqueezeCheckedPerRun(in_ids[i])) {
          info.squeezed_tvs_.push_back(tv);
          break;
        }
    }
  }
  // Empty extents matter only when they are symbolic leaves or derived from them.
  for (Val* v : dynamic_sizes) addLeaves(v, info.root_dynamic_vals_, leaf_seen);
  for (Val* v : info.maybe_zero_extents_) addLeaves(v, info.root_dynamic_vals_, leaf_seen);
  for (Val* v : info.root_dynamic_vals_)
    if (v->isFusionInput()) info.scalar_inputs_affecting_concretization_.push_back(v);
  return info;
}

namespace {

constexpr std::string_view kWho = "concretization";

int64_t evaluateSize(ExpressionEvaluator& ee, Val* v, std::string_view what) {
  std::optional<ScalarValue> x = ee.evaluate(v);
  MF_CHECK(x.has_value(),
           "{}: cannot evaluate {} ({}): bind it, or the input extents and scalars it depends on",
           kWho, what, v->toInlineString());
  return asInt(*x);
}

std::vector<int64_t> evaluateExtents(ExpressionEvaluator& ee, const TensorView* tv) {
  std::vector<int64_t> sizes;
  for (IterDomain* id : TensorDomain::noReductions(tv->getLogicalDomain()))
    sizes.push_back(evaluateSize(ee, id->extent(), fmt::format("an extent of {}", tv->toString())));
  return sizes;
}

}  // namespace

DynamicTransformConcretizationInfo::DynamicTransformConcretizationInfo(
    const DynamicTransformInitialInfo* initial_info, ExpressionEvaluator* ee)
    : initial_info_(initial_info) {
  MF_CHECK(initial_info != nullptr && ee != nullptr,
           "DynamicTransformConcretizationInfo: the initial info and the evaluator must not be "
           "null");
  if (!initial_info->isDynamic()) return;
  // A run binds every input extent and scalar (the cache's case): nothing to infer, and no
  // IdModel to build on the way to a new runtime.
  const std::vector<Val*>& leaves = initial_info->getRootDynamicVals();
  if (!std::all_of(leaves.begin(), leaves.end(), [&](Val* v) { return ee->evaluate(v); }))
    ee->propagateBoundValuesThroughExactMaps(*initial_info->fusion());

  const auto& reshaped = initial_info->getDynamicReshapedTensorViews();
  for (size_t i = 0; i < reshaped.size(); ++i) {
    TensorView* out = reshaped[i];
    auto* in = out->definition()->as<ViewOp>()->in()->as<TensorView>();
    const std::vector<int64_t> in_sizes = evaluateExtents(*ee, in);
    const std::vector<int64_t> out_sizes = evaluateExtents(*ee, out);
    MF_CHECK(std::find(out_sizes.begin(), out_sizes.end(), -1) == out_sizes.end(),
             "reshape of {} to {}: got sizes [{}]. Values of -1 passed to reshape must be "
             "constant at definition; pass the size itself, or a constant -1",
             in->toString(), out->toString(), fmt::join(out_sizes, ", "));
    // Checks the element counts ("Total element counts across view operation must match").
    inferViewShape(in_sizes, out_sizes);
    int64_t numel = 1;
    for (int64_t s : in_sizes) numel *= s;
    if (numel == 0) {
      std::vector<int64_t> structure;
      for (int64_t s : out_sizes) structure.push_back(s == 0 || s == 1 ? s : -1);
      empty_reshapes_.emplace_back(static_cast<int64_t>(i), std::move(structure));
    } else {
      reshape_transforms_.emplace_back(static_cast<int64_t>(i),
                                       analyzeView(in, in_sizes, out_sizes));
    }
  }

  const auto& resized = initial_info->getDynamicResizedIterDomains();
  for (size_t i = 0; i < resized.size(); ++i) {
    const int64_t extent = evaluateSize(*ee, resized[i]->extent(),
                                        fmt::format("the extent of {}", resized[i]->toString()));
    MF_CHECK(extent >= 0, "{}: resized axis {} has the negative extent {}", kWho,
             resized[i]->toString(), extent);
    resize_itertypes_.emplace_back(static_cast<int64_t>(i),
                                   extent == 1 ? IterType::Broadcast : IterType::Iteration);
  }

  const auto& expanded = initial_info->getDynamicExpandedTensorViews();
  for (size_t i = 0; i < expanded.size(); ++i) {
    auto* expand = expanded[i]->definition()->as<ExpandOp>();
    auto* in = expand->in()->as<TensorView>();
    const std::vector<IterDomain*> in_ids = TensorDomain::noReductions(in->getLogicalDomain());
    const std::vector<Val*> sizes = expand->expandedSizes();
    std::vector<bool> flags;
    for (size_t d = 0; d < sizes.size(); ++d) {
      const IterDomain* out_id = expanded[i]->getLogicalDomain().at(d);
      if (!in_ids[d]->isSymbolic() && !out_id->isSymbolic()) {
        flags.push_back(false);
        continue;
      }
      const int64_t in_extent = evaluateSize(*ee, in_ids[d]->extent(), "an expanded extent");
      const int64_t size = evaluateSize(*ee, sizes[d], "an expand size");
      const bool expands = size != -1 && size != in_extent;
      MF_CHECK(!expands || in_extent == 1,
               "Mismatch in sizes when concretizing expand. Axis {} of {} has extent {} and "
               "cannot be expanded to {}; only an axis of size 1 (a broadcast) can be",
               d, in->toString(), in_extent, size);
      flags.push_back(expands);
    }
    expand_axes_.emplace_back(static_cast<int64_t>(i), std::move(flags));
  }

  for (TensorView* out : initial_info->getDynamicSqueezedTensorViews()) {
    auto* squeeze = out->definition()->as<SqueezeOp>();
    auto* in = squeeze->in()->as<TensorView>();
    const std::vector<IterDomain*> in_ids = TensorDomain::noReductions(in->getLogicalDomain());
    for (size_t d = 0; d < in_ids.size(); ++d) {
      if (!squeeze->isSqueezeDims().at(d) || in_ids[d]->isBroadcast()) continue;
      const int64_t extent = evaluateSize(*ee, in_ids[d]->extent(), "a squeezed extent");
      MF_CHECK(extent == 1,
               "squeeze: axis {} ({}) of {} must concretize to IterType::Broadcast but found "
               "IterType::Iteration of extent {}; only a size-1 axis can be squeezed",
               d, in_ids[d]->toString(), in->toString(), extent);
    }
  }

  const auto& maybe_zero = initial_info->getMaybeZeroExtents();
  for (size_t i = 0; i < maybe_zero.size(); ++i) {
    std::optional<ScalarValue> v = ee->evaluate(maybe_zero[i]);
    if (v && asInt(*v) == 0) empty_extents_.push_back(static_cast<int64_t>(i));
  }
}

void DynamicTransformConcretizationInfo::setInitialInfo(
    const DynamicTransformInitialInfo* initial_info) {
  MF_ASSERT(
      initial_info != nullptr &&
          initial_info->getDynamicReshapedTensorViews().size() ==
              initial_info_->getDynamicReshapedTensorViews().size() &&
          initial_info->getMaybeZeroExtents().size() == initial_info_->getMaybeZeroExtents().size(),
      "setInitialInfo: the initial info is not that of a copy of this info's fusion");
  initial_info_ = initial_info;
}

bool DynamicTransformConcretizationInfo::isTrivial() const {
  return reshape_transforms_.empty() && empty_reshapes_.empty() && resize_itertypes_.empty() &&
         expand_axes_.empty() && empty_extents_.empty();
}

bool DynamicTransformConcretizationInfo::operator==(
    const DynamicTransformConcretizationInfo& other) const {
  return reshape_transforms_ == other.reshape_transforms_ &&
         empty_reshapes_ == other.empty_reshapes_ && resize_itertypes_ == other.resize_itertypes_ &&
         expand_axes_ == other.expand_axes_ && empty_extents_ == other.empty_extents_;
}

size_t DynamicTransformConcretizationInfo::hash() const {
  uint64_t h = 0x9e3779b97f4a7c15ULL;
  auto mix = [&h](uint64_t x) { h = hashCombine(h, x); };
  for (const auto& [i, view] : reshape_transforms_) {
    mix(static_cast<uint64_t>(i));
    mix(view.hash());
  }
  mix(0xe1);
  for (const auto& [i, sizes] : empty_reshapes_) {
    mix(static_cast<uint64_t>(i));
    for (int64_t s : sizes) mix(static_cast<uint64_t>(s));
  }
  mix(0xe2);
  for (const auto& [i, t] : resize_itertypes_)
    mix(static_cast<uint64_t>(i) * 4 + static_cast<uint64_t>(t));
  mix(0xe3);
  for (const auto& [i, flags] : expand_axes_) {
    mix(static_cast<uint64_t>(i));
    for (bool f : flags) mix(f ? 1 : 2);
  }
  mix(0xe4);
  for (int64_t i : empty_extents_) mix(static_cast<uint64_t>(i));
  return static_cast<size_t>(h);
}

std::string DynamicTransformConcretizationInfo::toString() const {
  std::string s = "DynamicTransformConcretizationInfo\n";
  const DynamicTransformInitialInfo& init = *initial_info_;
  for (const auto& [i, view] : reshape_transforms_)
    s += fmt::format("  reshape {}: {}\n",
                     init.getDynamicReshapedTensorViews()[i]->toInlineString(), view.toString());
  for (const auto& [i, sizes] : empty_reshapes_)
    s += fmt::format("  empty reshape {}: [{}]\n",
                     init.getDynamicReshapedTensorViews()[i]->toInlineString(),
                     fmt::join(sizes, ", "));
  for (const auto& [i, t] : resize_itertypes_)
    s += fmt::format("  resize {}: {}\n", init.getDynamicResizedIterDomains()[i]->toString(),
                     mf::toString(t));
  for (const auto& [i, flags] : expand_axes_)
    s += fmt::format("  expand {}: {}\n", init.getDynamicExpandedTensorViews()[i]->toInlineString(),
                     fmt::join(flags, ", "));
  std::vector<std::string> empty;
  for (int64_t i : empty_extents_) empty.push_back(init.getMaybeZeroExtents()[i]->toInlineString());
  if (!empty.empty()) s += fmt::format("  empty extents: {}\n", fmt::join(empty, ", "));
  return s;
}

}  // namespace mf
