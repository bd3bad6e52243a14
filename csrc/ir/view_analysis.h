//! analyzeView: how a reshape from one shape to another decomposes into size-1 axes removed,
//! merges and splits of the remaining axes, and size-1 axes inserted (nvFuser's
//! transform_view). ops/shape.h's static reshape and the concretization of a dynamic reshape
//! (helper dyn) both build the static form with applyViewTransforms.
//!   [4, 3] -> [3, 4]:        merge(0) -> [12]; split(0, 3) -> [3, 4]
//!   [4, 1, 3] -> [2, 6, 1]:  squeeze {1}; split(0, 2) -> [2, 2, 3]; merge(1); broadcast {2}
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/tensor_view.h"

namespace mf {

//! One transform of a view, applied to the current list of axes (the squeezed input first).
//! Merge: axes `axis` and `axis + 1` become one. Split: axis `axis` becomes (outer, inner)
//! by an outer split whose outer extent is `factor`, the output size at that position (the
//! outer axis is final: it is output axis `axis` of the non-broadcast output axes).
struct ViewStep {
  enum class Kind { Merge, Split };
  Kind kind = Kind::Merge;
  int64_t axis = 0;
  int64_t factor = 0;  //!< Split only: the outer extent; 0 for a Merge
  //! Kind, axis and factor: [3,4]->[4,3] (merge(0), split(0, 4)) equals [2,8]->[4,4] and
  //! differs from [3,4]->[2,6] (merge(0), split(0, 2)).
  bool operator==(const ViewStep& other) const {
    return kind == other.kind && axis == other.axis && factor == other.factor;
  }
  std::string toString() const;
};

struct AnalyzeViewResult {
  //! One flag per input axis: removed before the transforms (its size is 1).
  std::vector<bool> squeeze_axes;
  //! The ordered merges and splits of the remaining axes.
  std::vector<ViewStep> steps;
  //! One flag per output axis: inserted after the transforms as a Broadcast (size 1).
  std::vector<bool> broadcast_axes;

  //! The flags and the steps, factors included.
  bool operator==(const AnalyzeViewResult& other) const {
    return squeeze_axes == other.squeeze_axes && steps == other.steps &&
           broadcast_axes == other.broadcast_axes;
  }
  bool operator!=(const AnalyzeViewResult& other) const { return !(*this == other); }
  //! Consistent with operator==.
  size_t hash() const;
  //! "squeeze {false, true} steps {merge(0), split(0, 3)} broadcast {false, false}".
  std::string toString() const;
};

//! `out_sizes` with its one -1 (if any) replaced by what makes the element counts match.
//! UserError for two -1s, a negative size other than -1, a -1 whose other sizes multiply to 0,
//! or element counts that differ ("Total element counts across view operation must match:
//! ..."), naming both shapes.
std::vector<int64_t> inferViewShape(const std::vector<int64_t>& in_sizes,
                                    const std::vector<int64_t>& out_sizes);

//! The decomposition of a reshape from `in_sizes` to `out_sizes` (a -1 is resolved with
//! inferViewShape; its errors apply). Size-1 input axes are squeezed and size-1 output axes
//! broadcast; the rest is merged and split left to right. An empty (0-element) reshape is a
//! UserError: remove empty tensors first (RemoveEmpty) or keep the dynamic form.
AnalyzeViewResult analyzeView(const std::vector<int64_t>& in_sizes,
                              const std::vector<int64_t>& out_sizes);
//! analyzeView for a reshape of `in` (nvFuser's rule for size-1 axes): only a size-1 axis
//! that is a Broadcast, or Symbolic (it concretizes to one), is squeezed. An Iteration axis
//! that is 1 (a symbolic input extent that is 1 in this run, or that original_sizes says is
//! 1) is merged into a neighbour instead: a squeeze of an Iteration axis is no pointwise op,
//! and the concretizer requires a squeezed axis to be a Broadcast.
AnalyzeViewResult analyzeView(const TensorView* in, const std::vector<int64_t>& in_sizes,
                              const std::vector<int64_t>& out_sizes);

//! The static form of a reshape of `x` as `view` says: a SqueezeOp (when an axis is
//! squeezed), a ViewOp (when there is a step), a BroadcastOp (when an axis is inserted), or
//! a plain set when there is nothing to do; returns the last tensor (always a new one).
//! `out_sizes`, when given (one Val per output axis, as a dynamic reshape's sizes), supplies
//! the split factors instead of the constants in `view` (each evaluates to its constant).
TensorView* applyViewTransforms(TensorView* x, const AnalyzeViewResult& view,
                                const std::vector<Val*>& out_sizes = {});

}  // namespace mf
