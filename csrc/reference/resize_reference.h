//! The CPU reference of the resize ops (pad, slice, cat): element copies, bit for bit.
#pragma once

#include <vector>

#include "tensor/tensor.h"

namespace mf {

//! `in` widened along each axis by left[a] elements before and right[a] after (negative
//! crops): element i reads in at i - left, and an index outside `in` is `value` (converted
//! to `dtype`, in's dtype). A contiguous result. Pad and slice (left = -start, right = stop -
//! extent) both evaluate to this.
Tensor referenceResize(const Tensor& in, const std::vector<int64_t>& left,
                       const std::vector<int64_t>& right, const ScalarValue& value);

//! The concatenation of the padded `inputs` (each of the output's sizes): along `dim`, index i
//! takes input k's element where offsets[k] <= i < offsets[k] + extents[k].
Tensor referenceCat(const std::vector<const Tensor*>& inputs, const std::vector<int64_t>& offsets,
                    const std::vector<int64_t>& extents, int64_t dim);

}  // namespace mf
