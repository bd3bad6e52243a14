//! The layout op of the NVFP4 grouped-GEMM path (docs/layout_op.md).
#pragma once

#include "ir/exprs.h"
#include "ir/tensor_view.h"

namespace mf {

//! Scatters the per-group block-scale factors `input` [M, K] (rows of G groups,
//! concatenated) into the padded 128x4-swizzled layout a block-scaled grouped GEMM reads.
//! `input_offsets` and `output_offsets` are 1-D [G] of one integer dtype (Int32 or Int64)
//! holding each group's start row in the input and in the padded output. The result has
//! logical domain [M, K] and the declared allocation domain [M + 127*G, ceil(K/4)*4].
//! Element (row, col) of group e lands at flat position
//!   out_off[e]*Kp + (r/128)*Kp*128 + (col/4)*512 + (r%32)*16 + ((r%128)/32)*4 + col%4
//! with r = row - in_off[e], Kp = ceil(K/4)*4. Only a block-scaled grouped GEMM may read it.
TensorView* preprocessGroupedMatmulInputSf(
    TensorView* input, TensorView* input_offsets, TensorView* output_offsets,
    BlockScalingFactorLayout layout = BlockScalingFactorLayout::Block128x4);

// Shared with groupedBlockQuantize (ops/quantization.h), which writes its scales in this
// layout.

//! The offsets' checks at construction (UserError naming `op`): 1-D, Int32 or Int64, one
//! dtype, equal lengths when both are constant.
void checkGroupOffsets(std::string_view op, TensorView* input_offsets, TensorView* output_offsets);

//! A tensor of logical domain `logical` ([M, K]) whose declared allocation is the padded
//! buffer of `layout` for `g` groups: [M + 127*G, ceil(K/4)*4] for Block128x4.
TensorView* blockScalingFactorOutput(std::vector<IterDomain*> logical, Val* g,
                                     BlockScalingFactorLayout layout, DataType dtype);

}  // namespace mf
