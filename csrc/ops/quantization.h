//! NVFP4 block quantization: the producer of the layout op's scales in the MoE grouped-GEMM
//! path (docs/numerics.md states the arithmetic bit for bit; docs/layout_op.md the layout).
#pragma once

#include <cstdint>

#include "ir/block_scaling_factor_layout.h"
#include "ir/dtype.h"

namespace mf {

class TensorView;

//! The two results of a block quantization, in nvFuser's order, so structured bindings work:
//! `auto [q, scales] = blockQuantize(x);`.
struct BlockQuantizationResults {
  TensorView* quantized_tensor;  //!< [.., K] Float4_e2m1fn, two per byte
  TensorView* block_scales;      //!< [.., K / block_size] Float8_e4m3fn
};

//! Per block of `block_size` values along the last axis of `input` (Float, BFloat16 or Half):
//!   amax = max |x|, s = clamp(amax / 6 * global_scale, 2^-6, 448) rounded to e4m3,
//!   quantized = e2m1(clamp(x / (s / global_scale), -6, 6)),
//! in float. `global_scaling_factor` is a 0-dim floating tensor (none: 1). Only block_size 16,
//! out_dtype Float4_e2m1fn and unswizzled scales (swizzle_scales = false) are supported; the
//! swizzled layout comes with groupedBlockQuantize. The last extent must be a multiple of 16.
BlockQuantizationResults blockQuantize(TensorView* input,
                                       TensorView* global_scaling_factor = nullptr,
                                       int64_t block_size = 16, bool swizzle_scales = false,
                                       DataType out_dtype = DataType::Float4_e2m1fn);

//! blockQuantize of a grouped input [M, K] (rows of G groups, concatenated, as the layout
//! op's), with `block_scales` of logical shape [M, K/16] written in `layout`: the allocation
//! and positions of preprocessGroupedMatmulInputSf(scales, input_offsets, output_offsets).
//! Only a block-scaled grouped GEMM may read the scales.
BlockQuantizationResults groupedBlockQuantize(TensorView* input, TensorView* input_offsets,
                                              TensorView* output_offsets,
                                              BlockScalingFactorLayout layout,
                                              TensorView* global_scaling_factor = nullptr,
                                              int64_t block_size = 16,
                                              DataType out_dtype = DataType::Float4_e2m1fn);

}  // namespace mf
