//! The shape ops: reshape (static and dynamic), flatten, squeeze, unsqueeze, permute,
//! transpose and expand (docs/shape_ops.md). Each creates a fresh output TensorView in the
//! current fusion; the IR they build is described in ir/shape_exprs.h.
#pragma once

#include <vector>

#include "ir/tensor_view.h"

namespace mf {

//! Static reshape: `x` has the sizes `original_sizes` (checked against its constant extents);
//! the result has `new_sizes` (one -1 allowed, inferred). The split/merge pattern is known
//! here (analyzeView): squeeze -> ViewOp -> broadcast. Element counts that differ are a
//! UserError "Total element counts across view operation must match: ...".
TensorView* reshape(TensorView* x, const std::vector<int64_t>& original_sizes,
                    const std::vector<int64_t>& new_sizes);
//! Reshape to sizes given as integer scalars. Static (as above) when `x`'s extents and every
//! size are constants; otherwise dynamic: a ViewOp whose output axes are Symbolic with the
//! given extents, until concretized. A constant -1 is inferred from the element count; a
//! symbolic size that evaluates to -1 is an error ("Values of -1 passed to reshape must be
//! constant at definition").
TensorView* reshape(TensorView* x, const std::vector<Val*>& new_sizes);
//! Merges axes [start_dim, end_dim] (negative counts from the end) into one.
TensorView* flatten(TensorView* x, int64_t start_dim = 0, int64_t end_dim = -1);
//! Removes the axes `dims`; each must be a Broadcast axis (or Symbolic, checked when
//! concretized), else a UserError naming the axis and its extent.
TensorView* squeeze(TensorView* x, const std::vector<int64_t>& dims);
//! Inserts a Broadcast axis at `dim` (in [-rank-1, rank]).
TensorView* unsqueeze(TensorView* x, int64_t dim);
//! Output axis i is input axis new2old[i]: a LoadStoreOp Set whose output's root is a copy of
//! x's logical domain and whose logical domain is that root permuted.
TensorView* permute(TensorView* x, const std::vector<int64_t>& new2old);
//! Swaps axes dim0 and dim1 (a permute).
TensorView* transpose(TensorView* x, int64_t dim0, int64_t dim1);
//! Expands Broadcast axes to `expanded_sizes` (one integer scalar per axis; -1 keeps the axis).
//! A non-broadcast axis keeps its extent; a constant size that differs from it is a UserError.
TensorView* expand(TensorView* x, const std::vector<Val*>& expanded_sizes);

}  // namespace mf
