//! Op traits: what the schedulers, the segmenter, inlining, caching, indexing and the
//! run-time extent check ask of an expr, instead of naming its class. A new Expr class states
//! its traits in op_traits.cpp (one case per trait), and no asking phase grows a branch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mf {

class Expr;
class Val;
class TensorView;

//! True when `e`'s runtime function reads `operand` whole from global memory, at its base
//! pointer (the layout op's input_offsets and output_offsets; every tensor operand of the
//! block quantizations). Such an operand is a fusion
//! input of its kernel: it is not staged through registers, not inlined, not a pointwise
//! operand of the schedule, and its kernel gets the bare pointer (no per-element index).
bool readsOperandWhole(const Expr* e, const Val* operand);

//! True when some use of `v` reads it whole (readsOperandWhole).
bool isReadWhole(const Val* v);

//! True when `e`'s outputs are written by its runtime function at positions the function
//! computes itself, and no other expr may read them (the layout op: only a block-scaled
//! grouped GEMM reads its padded, swizzled layout; the block quantizations, whose float4
//! values no kernel reads). Schedulers do not stage them through registers.
bool outputWrittenByRuntimeFunction(const Expr* e);

//! The API name of such an op: preprocessGroupedMatmulInputSf, blockQuantize, ...
std::string_view runtimeFunctionOpName(const Expr* e);

//! True for blockQuantize's and groupedBlockQuantize's exprs (outputs {block_scales,
//! quantized}, input 0 the values).
bool isBlockQuantization(const Expr* e);
//! Their values per block (16); an internal error for another expr.
int64_t blockQuantizationBlockSize(const Expr* e);

//! The one message for an output of `e` (outputWrittenByRuntimeFunction) that `use` reads:
//! `unsafe use of the output of preprocessGroupedMatmulInputSf: T3_g[..] is read by T4_g[..],
//! but only ...`. The scheduler registry, validateSchedule and the segmenter all say it.
std::string readOfRuntimeFunctionOutputMessage(const Expr* e, const Expr* use);

//! True when `e` is a resize op (pad, slice, cat): its output axes are Resize exprs of its
//! input's (a cat's inputs are pads), which only the pointwise scheduler runs.
bool isResizeOp(const Expr* e);

//! True when `e` is a squeeze of an Iteration axis (one the concretization info checks to be 1
//! in each run: a static reshape's size-1 claim): no kernel scheduler takes it, so it is a
//! view of its input, which must then be a segment input.
bool squeezesIterationAxis(const Expr* e);

//! How the extents of `e`'s tensor operands relate to its output's, as the run-time extent
//! check (validateOperandExtents) compares them: the `aligned` operands agree axis by axis
//! over the first `rank` logical axes (reduction axes left out, broadcast axes skipped), and
//! no other operand is compared. Pointwise ops, set and reductions align every tensor
//! operand (a reduction over all its logical axes, the reduced ones too); a broadcast
//! compares nothing; the layout op has one aligned operand, its input (the offsets have G
//! entries), and the block quantizations none (their input's last extent must be a multiple
//! of the block size). An op relating extents otherwise (cat: all
//! axes but the concatenated one; pad, slice: none position by position) states its rule
//! here.
struct OperandExtentRule {
  std::vector<TensorView*> aligned;
  size_t rank = 0;
  //! Operands whose last logical extent must be a multiple of the number (a block
  //! quantization's input: of its block size).
  std::vector<std::pair<TensorView*, int64_t>> last_extent_multiple_of;
};
OperandExtentRule operandExtentRule(const Expr* e);

}  // namespace mf
