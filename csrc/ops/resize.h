//! The resize ops: pad, slice and cat (nvFuser's semantics). Each output's resized axes are
//! Resize exprs of a root that copies the input's logical domain (ir/resize_exprs.h); the
//! pointwise scheduler runs them in one kernel. docs/resize_ops.md has the indexing and
//! predicate rules.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/tensor_view.h"

namespace mf {

//! `x` padded with `value` (default 0, converted to x's dtype). `pad_widths` holds (left,
//! right) pairs in PyTorch order, innermost axis first: {1, 2} pads the last axis by 1
//! before and 2 after, {1, 2, 3, 4} also the axis before it by 3 and 4. Axes not named are
//! left alone. A negative width crops. A resized axis is Iteration when its extent is a
//! constant other than 1 or the widths are constants summing to more than 1, Broadcast when
//! the extent is the constant 1, else Symbolic until concretized. UserErrors: an odd number
//! of widths, more than two per axis, a non-integer width, a constant width that leaves a
//! negative extent.
TensorView* pad(TensorView* x, const std::vector<Val*>& pad_widths, Val* value = nullptr);

//! One axis's range of a slice: null start is 0, null stop the extent, null step 1.
struct Slice {
  Val* start = nullptr;
  Val* stop = nullptr;
  Val* step = nullptr;
};

//! `x[start:stop]` along each axis (one range per logical axis). Negative start and stop
//! count from the end; both are then clamped to [0, extent], and a stop before start gives
//! an empty axis (Python's rules). The step must be 1 (or null): other steps are a
//! UserError. An axis with the whole range is not resized.
TensorView* slice(TensorView* x, const std::vector<Slice>& ranges);
//! slice() with constant starts and stops (steps 1).
TensorView* slice(TensorView* x, const std::vector<int64_t>& starts,
                  const std::vector<int64_t>& stops);

//! `inputs` concatenated along `dim` (negative counts from the end). Each input is padded
//! to the output's extent along dim (by the extents before it and after it) and a CatOp
//! selects, at each index along dim, the input whose range holds it. The inputs must have
//! one rank and dtype and agree on every other axis (UserError naming both tensors); an
//! input of extent 0 along dim is allowed. A single input is returned as is.
TensorView* cat(const std::vector<TensorView*>& inputs, int64_t dim);

}  // namespace mf
