//! The CPU reference of the layout op, evaluated by reference_evaluator.cpp, and its
//! run-time offset checks, which the executor also runs before a launch whose offsets are
//! host tensors (docs/layout_op.md defines both).
#pragma once

#include "reference/reference_evaluator.h"
#include "tensor/tensor.h"

namespace mf {

class PreprocessGroupedMatmulInputSf;
class GroupedBlockQuantizationOp;
class Val;
enum class BlockScalingFactorLayout;

//! What the scatter and its checks name in their messages: the op and its operands.
struct LayoutOperands {
  std::string_view op;
  const Val* in;
  const Val* input_offsets;
  const Val* output_offsets;
  BlockScalingFactorLayout layout;
};
LayoutOperands layoutOperands(const PreprocessGroupedMatmulInputSf* op);
//! groupedBlockQuantize writes its [M, K/16] scales as the layout op would.
LayoutOperands layoutOperands(const GroupedBlockQuantizationOp* op);

//! Scatters `in` [M, K] into a Tensor::withAllocation([M, K], [M + 127*G, ceil(K/4)*4]):
//! element (row, col) of group e goes to out_off[e]*Kp + (r/128)*Kp*128 + (col/4)*512 +
//! (r%32)*16 + ((r%128)/32)*4 + col%4, r = row - in_off[e], copied bit for bit. Pads get
//! `options.layout_pad_fill`. Checks every offset first (UserError naming `op`'s operands):
//! equal lengths, G > 0 unless M = 0, in_off starts at 0, never decreases, never passes M,
//! and out_off is exactly each group's start rounded up to 128 rows. Sets usedRows().
//! The op's run-time preconditions on its offsets (UserError naming `op`'s operands): equal
//! lengths, G > 0 unless M = 0, in_off starts at 0, never decreases, never passes `m`, and
//! out_off is exactly each group's start rounded up to 128 rows. Host tensors.
void checkLayoutOffsets(const LayoutOperands& op, int64_t m, const Tensor& input_offsets,
                        const Tensor& output_offsets);
void checkLayoutOffsets(const PreprocessGroupedMatmulInputSf* op, int64_t m,
                        const Tensor& input_offsets, const Tensor& output_offsets);

//! The scatter above for any op writing this layout (evalLayoutOp is the layout op's).
Tensor scatterToLayout(const LayoutOperands& op, const Tensor& in, const Tensor& input_offsets,
                       const Tensor& output_offsets, const ReferenceOptions& options);

Tensor evalLayoutOp(const PreprocessGroupedMatmulInputSf* op, const Tensor& in,
                    const Tensor& input_offsets, const Tensor& output_offsets,
                    const ReferenceOptions& options);

}  // namespace mf
