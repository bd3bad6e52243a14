//! The argument layer: real tensors meeting a fusion. One set of input checks (and messages)
//! for everyone who runs a fusion — the CPU reference, the KernelExecutor, FusionKernelRuntime
//! and FusionExecutorCache — and the memory layout each output gets from its allocation domain.
//!
//!   inputs --bindFusionInputs--> ExpressionEvaluator (extents, scalar values)
//!   output TensorView --layoutOf--> TensorLayout --allocateOutput--> host or device Tensor
#pragma once

#include <string_view>
#include <vector>

#include "tensor/tensor.h"

namespace mf {

class ExpressionEvaluator;
class Fusion;
class TensorView;

//! Checks `inputs` against `fusion`'s inputs and binds their sizes (and scalar values) into
//! `ee`: count, rank, dtype, non-negative sizes, constant extents, one size per shared
//! extent, strides against declared contiguity (a contiguous axis is dense with the next
//! non-broadcast axis of the allocation domain, which must be a permutation of the logical
//! domain). A scalar input is a 0-dim tensor
//! (host or device). Tensors may live on the host or the device. Errors are mf::UserErrors
//! prefixed with `who` and naming the input as the IR printer shows it.
void bindFusionInputs(const Fusion& fusion, const std::vector<Tensor>& inputs,
                      ExpressionEvaluator& ee, std::string_view who);

//! What every entry point that runs a fusion checks of the fusion alone: it has an output
//! ("<who>: the fusion has no outputs, so a run computes nothing; add one with
//! fusion.addOutput(tv)") and every tensor its outputs need is an input or computed
//! (verifyFusionInputs, ir/verifier.h). UserErrors prefixed with `who`.
void verifyRunnable(const Fusion& fusion, std::string_view who);

//! The input check of every entry point that runs a fusion (FusionExecutorCache,
//! KernelExecutor, ReferenceEvaluator, SegmentCandidateFinder::segment): verifyRunnable,
//! bindFusionInputs, then validateOperandExtents (the operands of each expr agree on their
//! extents for these inputs). Every message is prefixed with `who`, so one mistake reads the
//! same from each:
//! "<who>: `T2_g_float[..] = T0 + T1`: operands T0 and T1 disagree on axis 1: 3 vs 4".
void checkAndBindInputs(const Fusion& fusion, const std::vector<Tensor>& inputs,
                        ExpressionEvaluator& ee, std::string_view who);

//! For each allocation axis of input `tv` (reductions dropped), the logical axis it is. An
//! input's allocation domain must be a permutation of its logical domain (UserError
//! otherwise, prefixed with `who`); without one, the identity.
std::vector<int64_t> allocationPermutation(const TensorView* tv,
                                           std::string_view who = "KernelExecutor");
//! `t`'s strides in `tv`'s allocation order: what the kernel's Tensor argument holds.
std::vector<int64_t> allocationStrides(const TensorView* tv, const Tensor& t);

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

//! Layout of `tv` (an output or global intermediate) from its evaluated domains. An element
//! count past int64 is a UserError naming `tv` and its sizes.
TensorLayout layoutOf(TensorView* tv, ExpressionEvaluator& ee);

//! A tensor with that layout, uninitialized on the device, zero-filled on the host (the
//! layout op's: logical [M, K] over the padded buffer).
Tensor allocateOutput(TensorView* tv, const TensorLayout& layout, Device device);

//! Rows of the padded buffer a layout op actually uses: out_off[G-1] + roundup(M -
//! in_off[G-1], 128), or 0 without groups (docs/layout_op.md, "Shapes"). Offsets on the host.
int64_t layoutUsedRows(const Tensor& input_offsets, const Tensor& output_offsets, int64_t m);

}  // namespace mf
