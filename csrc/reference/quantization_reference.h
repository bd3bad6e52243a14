//! The CPU reference of NVFP4 block quantization (blockQuantize, groupedBlockQuantize),
//! evaluated by reference_evaluator.cpp; docs/numerics.md states the arithmetic, which
//! support/numerics.h shares with the kernels' runtime/fp4.cuh.
#pragma once

#include <string_view>

#include "tensor/tensor.h"

namespace mf {

class Val;

struct QuantizedTensors {
  Tensor block_scales;  //!< [.., K / block_size] Float8_e4m3fn
  Tensor quantized;     //!< [.., K] Float4_e2m1fn, packed
};

//! Quantizes `in` (its last axis in blocks of `block_size`); `global_scale` is a 0-dim tensor
//! or null (1). A last extent that is not a multiple of the block size is a UserError naming
//! `op` and `in_val`.
QuantizedTensors quantizeBlocks(std::string_view op, const Val* in_val, const Tensor& in,
                                const Tensor* global_scale, int64_t block_size);

}  // namespace mf
