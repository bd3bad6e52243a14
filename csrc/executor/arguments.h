//! Binding real tensors to a fusion: input checks, extents, and the memory layout of each
//! output as its allocation domain says.
#pragma once

#include <vector>

#include "ir/expr_evaluator.h"
#include "ir/fusion.h"
#include "tensor/tensor.h"

namespace mf {

//! Checks `inputs` against `fusion`'s inputs (count, dtype, rank, sizes, strides vs declared
//! contiguity; 0-dim tensors for scalar inputs) and binds their sizes and values into `ee`.
//! Each violation is an mf::UserError naming the tensor and expected vs actual.
void bindInputs(const Fusion& fusion, const std::vector<Tensor>& inputs, ExpressionEvaluator& ee);

//! The shape of a tensor in memory: logical sizes, allocation sizes and contiguous
//! allocation strides, and logical strides into that allocation.
struct TensorLayout {
  std::vector<int64_t> sizes;
  std::vector<int64_t> alloc_sizes;
  std::vector<int64_t> alloc_strides;
  std::vector<int64_t> logical_strides;
  bool declared_allocation = false;  //!< padded buffer not derived from logical (layout op)
  int64_t allocNumel() const;
};

//! Layout of `tv` (an output or global intermediate) from its evaluated domains.
TensorLayout layoutOf(TensorView* tv, ExpressionEvaluator& ee);

//! A host tensor with that layout (the layout op's: logical [M, K] over the padded buffer).
Tensor allocateHost(TensorView* tv, const TensorLayout& layout);

}  // namespace mf
