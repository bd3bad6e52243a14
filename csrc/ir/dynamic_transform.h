//! DynamicTransform: concretization of a fusion's dynamic shapes (nvFuser's dynamic_transform.h;
//! docs/concretization.md). A fusion is dynamic when its structure depends on run-time sizes:
//! a reshape to sizes that are not constants (its output's logical axes are
//! IterType::Symbolic), a resize (pad, slice, cat) whose output extent is not a constant, an
//! expand to a non-constant size, or an extent that may be 0 (an empty tensor). Three steps,
//! each a public API users unit-test:
//!   DynamicTransform::getInitialInfo(fusion)   once per definition: what is dynamic;
//!   DynamicTransformConcretizationInfo(&initial, &ee)   per run, with the inputs bound: the
//!       structure those sizes give (compared by structure, not by size: the cache key);
//!   DynamicTransform::concretizeFusion(fusion, &info)   the IR mutator pass that rewrites the
//!       fusion into its static form for that structure.
//! FusionExecutorCache runs the three on a copy of the user's fusion and keys its runtimes by
//! the concretization info.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ir/iter_domain.h"
#include "ir/view_analysis.h"

namespace mf {

class ExpressionEvaluator;
class Fusion;
class IrCloner;
class TensorView;

//! True when a squeeze of `id` is checked in each run to be of extent 1: a Symbolic axis,
//! or an Iteration axis of symbolic extent (a static reshape whose original_sizes say 1).
inline bool isSqueezeCheckedPerRun(const IterDomain* id) {
  return !id->isBroadcast() && !id->extent()->isConst();
}

//! What is dynamic in one fusion definition. Holds pointers into that fusion; cloneTo gives
//! the same info for a copy of it.
class DynamicTransformInitialInfo {
 public:
  Fusion* fusion() const { return fusion_; }
  //! True when some run-time size can change the fusion's structure: a dynamic reshape,
  //! resize or expand, or an extent that may be 0.
  bool isDynamic() const;
  //! True when some extent is not a constant (so a run may make it 0).
  bool hasPossibleEmptyTensor() const { return !maybe_zero_extents_.empty(); }

  //! Outputs of dynamic reshapes (ViewOp::isDynamic), in topological order.
  const std::vector<TensorView*>& getDynamicReshapedTensorViews() const { return reshaped_tvs_; }
  //! Outputs of Resize exprs that are IterType::Symbolic (pad, slice, cat by non-constants).
  const std::vector<IterDomain*>& getDynamicResizedIterDomains() const { return resized_ids_; }
  //! Outputs of expands with an axis that is Symbolic, or whose input axis is.
  const std::vector<TensorView*>& getDynamicExpandedTensorViews() const { return expanded_tvs_; }
  //! Outputs of squeezes of an axis isSqueezeCheckedPerRun (each run checks it is 1).
  const std::vector<TensorView*>& getDynamicSqueezedTensorViews() const { return squeezed_tvs_; }
  //! Every non-constant extent of a logical or root axis, each once: the extents a run may
  //! make 0 (concretization then substitutes the constant 0).
  const std::vector<Val*>& getMaybeZeroExtents() const { return maybe_zero_extents_; }
  //! The symbolic scalars without a definition that the dynamic ops' sizes depend on.
  const std::vector<Val*>& getRootDynamicVals() const { return root_dynamic_vals_; }
  //! The fusion's scalar inputs among getRootDynamicVals(): the scalar inputs whose values
  //! can change the concretization (nvFuser feeds these to its input-id lookup).
  const std::vector<Val*>& scalarInputsAffectingConcretization() const {
    return scalar_inputs_affecting_concretization_;
  }

  //! The same info for `cloner.to()`, a copy of fusion() made with `cloner`.
  DynamicTransformInitialInfo cloneTo(IrCloner& cloner) const;
  std::string toString() const;

 private:
  friend class DynamicTransform;
  Fusion* fusion_ = nullptr;
  std::vector<TensorView*> reshaped_tvs_;
  std::vector<IterDomain*> resized_ids_;
  std::vector<TensorView*> expanded_tvs_;
  std::vector<TensorView*> squeezed_tvs_;
  std::vector<Val*> maybe_zero_extents_;
  std::vector<Val*> root_dynamic_vals_;
  std::vector<Val*> scalar_inputs_affecting_concretization_;
};

//! The structure one run's sizes give a dynamic fusion. It holds indices into the initial
//! info's lists and structural results only (view steps with their split factors, IterTypes,
//! flags, which extents are 0), so operator== and hash() compare structure, not sizes:
//! reshape [3, 4] -> [4, 3] equals [2, 8] -> [4, 4] (merge, then split with outer extent 4)
//! and differs from [3, 4] -> [2, 6] (outer extent 2).
class DynamicTransformConcretizationInfo {
 public:
  //! Evaluates every dynamic size with `ee` (the run's inputs bound). Extents not bound are
  //! first inferred through exact maps (ExpressionEvaluator::propagateBoundValuesThroughExactMaps).
  //! UserErrors: a reshape size of -1 ("Values of -1 passed to reshape must be constant at
  //! definition"), element counts that differ ("Total element counts across view operation
  //! must match: ..."), a squeezed axis of size other than 1 ("... must concretize to
  //! IterType::Broadcast but found ..."), an expand of an axis that is not of size 1
  //! ("Mismatch in sizes when concretizing expand. ..."), a size that cannot be evaluated.
  DynamicTransformConcretizationInfo(const DynamicTransformInitialInfo* initial_info,
                                     ExpressionEvaluator* ee);

  const DynamicTransformInitialInfo* initialInfo() const { return initial_info_; }
  //! Points this info at `initial_info`, the initial info of a copy of the fusion
  //! (DynamicTransformInitialInfo::cloneTo): the indices hold for the copy.
  void setInitialInfo(const DynamicTransformInitialInfo* initial_info);

  //! (index into getDynamicReshapedTensorViews(), view analysis) of each non-empty reshape.
  const std::vector<std::pair<int64_t, AnalyzeViewResult>>& getReshapeTransforms() const {
    return reshape_transforms_;
  }
  //! (index, output sizes as 0, 1 or -1 for any other) of each reshape of an empty tensor: it
  //! keeps its dynamic form, with axes of extent 0, Broadcast axes and Iteration axes.
  const std::vector<std::pair<int64_t, std::vector<int64_t>>>& getEmptyReshapes() const {
    return empty_reshapes_;
  }
  //! (index into getDynamicResizedIterDomains(), Broadcast for extent 1 else Iteration).
  const std::vector<std::pair<int64_t, IterType>>& getResizeIterTypes() const {
    return resize_itertypes_;
  }
  //! (index into getDynamicExpandedTensorViews(), per logical axis: true when it expands).
  const std::vector<std::pair<int64_t, std::vector<bool>>>& getExpandAxes() const {
    return expand_axes_;
  }
  //! Indices into getMaybeZeroExtents() of the extents that are 0 in this run.
  const std::vector<int64_t>& getEmptyExtents() const { return empty_extents_; }
  //! True when concretization changes nothing (no dynamic op and no empty extent).
  bool isTrivial() const;

  bool operator==(const DynamicTransformConcretizationInfo& other) const;
  bool operator!=(const DynamicTransformConcretizationInfo& other) const {
    return !(*this == other);
  }
  //! Consistent with operator==.
  size_t hash() const;
  std::string toString() const;

 private:
  const DynamicTransformInitialInfo* initial_info_;
  std::vector<std::pair<int64_t, AnalyzeViewResult>> reshape_transforms_;
  std::vector<std::pair<int64_t, std::vector<int64_t>>> empty_reshapes_;
  std::vector<std::pair<int64_t, IterType>> resize_itertypes_;
  std::vector<std::pair<int64_t, std::vector<bool>>> expand_axes_;
  std::vector<int64_t> empty_extents_;
};

class DynamicTransform {
 public:
  //! Records what is dynamic in `fusion` (walks everything its outputs need).
  static DynamicTransformInitialInfo getInitialInfo(Fusion* fusion);

  //! The concretization pass: an IR mutator (ir/mutator.h) that rewrites `fusion` (the
  //! fusion of info->initialInfo()) into the static form `info` describes. Each dynamic
  //! reshape is replaced by its static form (applyViewTransforms with the reshape's size
  //! Vals as factors), each empty extent by the constant 0, each Symbolic axis by an
  //! Iteration or Broadcast axis: resized and expanded axes as `info` says, the others
  //! from their producers (Iteration when one is, else Broadcast) and across each tensor's
  //! root -> logical exprs. Every use of a replaced node is rebuilt by the mutator's one
  //! generic mechanism: all four domains of every TensorDomain (a declared allocation
  //! domain, the layout op's padded buffer, included), every extent expression and every
  //! Expr operand. Guarantees: no Symbolic axis anywhere (hasDynamicTransform() is false);
  //! the fusion's inputs are unchanged. Errors of a squeeze are checked again (UserError);
  //! after a UserError the fusion is partly rewritten: concretize a copy.
  //!   before: T1[?S3{i5}, ?S4{i6}] = reshape(T0[iS0{i0}, iS1{i1}]); T2 = T1 + 1.0
  //!   after:  T3[iS9{i5}, iS10{i6}] = reshape(T0) (merge, split by i5); T2 = T3 + 1.0
  static void concretizeFusion(Fusion* fusion, const DynamicTransformConcretizationInfo* info);
};

}  // namespace mf

template <>
struct std::hash<mf::DynamicTransformConcretizationInfo> {
  size_t operator()(const mf::DynamicTransformConcretizationInfo& info) const noexcept {
    return info.hash();
  }
};
