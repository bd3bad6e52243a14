//! The CPU reference of the shape ops (ops/shape.h): each result is a fresh contiguous
//! tensor whatever the input's strides (PyTorch's reshape-as-copy semantics), copied bit for
//! bit. `what` names the expr in error messages.
#pragma once

#include <string_view>
#include <vector>

#include "tensor/tensor.h"

namespace mf {

//! The elements of `in` in row-major order, laid out as `out_sizes` (the element counts must
//! match: UserError "Total element counts across view operation must match: ...").
Tensor referenceReshape(const Tensor& in, const std::vector<int64_t>& out_sizes,
                        std::string_view what);
//! `in` without the axes flagged in `squeeze` (each must have size 1).
Tensor referenceSqueeze(const Tensor& in, const std::vector<bool>& squeeze, std::string_view what);
//! Output axis i is input axis new2old[i].
Tensor referencePermute(const Tensor& in, const std::vector<int64_t>& new2old);
//! `in` with each size-1 axis i of `expandable` (its IR axis is a Broadcast) repeated
//! `sizes[i]` times; -1, and any size of another axis, keeps the axis (which must then match).
Tensor referenceExpand(const Tensor& in, const std::vector<int64_t>& sizes,
                       const std::vector<bool>& expandable, std::string_view what);

}  // namespace mf
