//! The CPU reference of a ReductionOp: the exact result, rounded once to the output dtype.
//! Floating sums are exact (Shewchuk's error-free partials, as Python's math.fsum), integer
//! sums and products wrap in 64 bits as PyTorch's do, max/min are exact and propagate NaN;
//! floating products are computed in double (docs/numerics.md).
#pragma once

#include <vector>

#include "ir/exprs.h"
#include "tensor/tensor.h"

namespace mf {

//! Reduces `in` with `op` (Add, Mul, Maximum, Minimum) over the axes where `reduced` is true
//! (one flag per axis of `in`), starting from `init` (the op's identity), giving a contiguous
//! `dtype` tensor of the kept axes; `in` has `dtype` too (the op functions cast before).
Tensor referenceReduction(BinaryOpType op, const Tensor& in, const std::vector<bool>& reduced,
                          DataType dtype, const ScalarValue& init);

}  // namespace mf
