//! KernelSummary: what the rest of the compiler needs to know about a lowered kernel without
//! walking its IR (nvFuser's KernelSummary). Lowering fills it (the analyzeKernel pass);
//! codegen prints the signature from it and the executor binds arguments, sizes the launch
//! and reads the error flag from it, so the two cannot disagree.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/iter_domain.h"

namespace mf {

class ExpressionEvaluator;
class TensorView;

//! One kernel parameter. Inputs, outputs, global intermediates, the error flag, and a grid
//! reduction's work buffer and semaphores.
struct KernelParameter {
  enum class Kind { Input, Output, Intermediate, ErrorFlag, GridWork, GridSemaphores };
  Kind kind;
  //! A TensorView or a scalar of the kernel container; null for the error flag.
  Val* val = nullptr;
  //! Position among the fusion's inputs (Input) or outputs (Output); -1 otherwise.
  int64_t index = -1;
};

//! The outputs of `ir`'s grid reductions (a reduction axis bound to a block dimension), in
//! expr order.
std::vector<TensorView*> gridReductions(const Fusion& ir);

//! The block dimension a grid reduction's output `out` reduces across (BIDx or BIDy; Serial
//! when it has none).
ParallelType gridReductionDim(const TensorView* out);

//! The runtime calls `grids` (gridReductions) lower to in the returning form: one per group of
//! groupReductions, one per reduction outside a group.
int64_t gridReductionCalls(const std::vector<TensorView*>& grids);

//! Whether the grid reductions of `ir` finish in place: each writes a fusion output nothing
//! reads, and the returning form (the blocks that do not finish the reduction return from
//! the kernel, so it must be the kernel's only work after it) would not do: there are
//! several, or the kernel has other outputs. Then every block goes on past each grid
//! reduction, and only the last block to arrive writes its output.
bool gridReductionsFinishInPlace(const Fusion& ir);

//! An in-place grid reduction combines a grid column's blocks in a two-level tree
//! (runtime/block_reduction.cuh, mf_gridReduceInPlaceY): groups of kGridTreeGroup blocks, then
//! the groups. Per grid column and reduction it needs gridTreeRows(gridDim.y) rows of work
//! slots (the blocks', then the groups') and gridTreeSemaphores(gridDim.y) semaphores.
constexpr int64_t kGridTreeGroup = 16;
inline int64_t gridTreeRows(int64_t grid_y) {
  return grid_y + (grid_y + kGridTreeGroup - 1) / kGridTreeGroup;
}
inline int64_t gridTreeSemaphores(int64_t grid_y) {
  return (grid_y + kGridTreeGroup - 1) / kGridTreeGroup + 1;
}

//! One hardware dimension (TIDx..BIDz) and the loop extents bound to it. The launch size is
//! the largest of them: narrower loops are guarded by insertPredicates.
struct ParallelDimension {
  ParallelType type;
  std::vector<Val*> extents;  //!< distinct as printed, in the order tensors bind them
  //! The launch size when every extent is a constant (their largest), else nullopt.
  std::optional<int64_t> constant_size;
};

//! A global tensor read or written with whole-vector copies.
struct VectorizedAccess {
  TensorView* tv;
  int64_t width;  //!< elements per vector
};

//! An output of the layout op: how many rows of its padded buffer hold data follows from two
//! fusion inputs, the offsets (positions among the fusion inputs).
struct PaddedOutput {
  int64_t output;
  int64_t input_offsets;
  int64_t output_offsets;
};

struct KernelSummary {
  //! In signature order: fusion inputs, outputs that are not inputs (an input that is also an
  //! output is passed once, as the input), global intermediates, then the error flag.
  std::vector<KernelParameter> params;
  //! Shared memory: constant-size shared tensors are static arrays (their bytes, each
  //! rounded up to 16, are reported here); the others are carved, in kernel order, from the
  //! dynamic shared memory the launch passes (`dynamic_smem_bytes`, an expression of the
  //! launch's extents), each at `dynamic_smem_offsets[tv]` bytes, 16-byte aligned. The block
  //! reduction's 32-word scratch is static inside runtime/block_reduction.cuh.
  int64_t static_smem_bytes = 0;
  Val* dynamic_smem_bytes = nullptr;
  std::vector<std::pair<const TensorView*, Val*>> dynamic_smem_offsets;
  //! The hardware dimensions the kernel uses, in TIDx, TIDy, TIDz, BIDx, BIDy, BIDz order.
  std::vector<ParallelDimension> parallel_dims;
  std::vector<VectorizedAccess> vectorized;
  //! A layout op reports bad offsets through an int* parameter (bit 1: a position fell outside
  //! the padded buffer, 2: bad input offsets, 4: bad output offsets).
  bool has_error_flag = false;
  //! The op the error flag reports for (preprocessGroupedMatmulInputSf, groupedBlockQuantize).
  std::string error_op = "preprocessGroupedMatmulInputSf";
  std::vector<PaddedOutput> padded_outputs;
  //! Compute capability the kernel needs: NVRTC compiles for sm_90 unless told otherwise.
  std::pair<int, int> min_compute_capability{9, 0};

  //! A grid reduction (a reduction axis bound to blockIdx.x or .y, grid_reduction_dim; the
  //! grid's columns are its blocks that differ in that index only): every block writes
  //! grid_reduction_group values per thread to a global work buffer of blocks *
  //! grid_reduction_group * threads elements of this dtype (the accumulator's), and counts
  //! itself in its column's semaphore (unsigned, zero before the launch; the last block
  //! resets its own). Null when the kernel has none (then neither parameter exists).
  std::optional<DataType> grid_reduction_dtype;
  //! The block dimension the kernel's grid reductions reduce across (one for all of them).
  ParallelType grid_reduction_dim = ParallelType::BIDy;
  //! Values each thread of a grid reduction reduces in one call: the product of the extents
  //! of the iteration axes nested inside its reduction axes (the vector of an outer
  //! reduction), 1 without such axes.
  int64_t grid_reduction_group = 1;
  //! Grid reductions in the kernel; with finish_in_place, each one's work buffer part
  //! (blocks * its group * threads slots) and its columns' semaphores follow the
  //! previous one's in expr order, and grid_reduction_group is the sum of their groups.
  int64_t grid_reductions = 0;
  //! gridReductionsFinishInPlace: every block goes on after each grid reduction and only the
  //! last one to arrive writes the result (else the others return from the kernel).
  bool grid_reductions_finish_in_place = false;

  //! The block's thread count when every thread dimension has a constant_size (an unused one
  //! counts 1) and the kernel binds at least one; else nullopt. Codegen declares it as
  //! __launch_bounds__, so that ptxas keeps the registers per thread within what that many
  //! threads may use: without it a 512-thread outer reduction grouping several values per
  //! thread was compiled to more registers than 512 threads have, and failed to launch
  //! (random fusion seed 4327 on the H200).
  std::optional<int64_t> block_threads;
  //! The blocks per SM __launch_bounds__ asks ptxas to leave room for (its second argument),
  //! when a kernel needs that occupancy: the layout op's tile form, whose blocks are short
  //! and latency-bound, takes 1536 / block_threads (12 blocks of 128 threads: measured on the
  //! H200, 1.25-1.4x faster than the 88 registers ptxas picks unbounded, and 1536 faster than
  //! 2048, which spills).
  std::optional<int64_t> min_blocks_per_sm;
  //! The kernel reduces across threadIdx.x (then its thread extents are constants:
  //! validateSchedule). Codegen tells nvcc each thread dimension's constant_size
  //! (`__builtin_assume(threadIdx.x < 128)`, `blockDim.x == 128`): it then folds
  //! `(i * 128 + threadIdx.x) / 128` to `i`, so a register array read at such an index (a
  //! persistent buffer read by another loop over the row) stays in registers instead of
  //! local memory, and the runtime's loops over warps (mf_blockAllReduceX) are constant and
  //! unrolled.
  bool assume_block_size = false;

  //! The dimension `p`, or null when the kernel does not use it.
  const ParallelDimension* dimension(ParallelType p) const;
  //! Launch size of each used dimension (the largest of its extents, evaluated with the
  //! inputs bound in `ee`), in parallel_dims order. Sizes past the hardware's limits
  //! (1024 threads per block, 65535 blocks in y and z) are a UserError.
  std::vector<int64_t> launchSizes(ExpressionEvaluator& ee) const;
  //! The message for a non-zero error flag read back after a launch.
  std::string describeError(int flag) const;
  //! Multi-line text (the `kernel_summary` dump).
  std::string toString() const;
};

//! Throws a UserError when `sizes` (one per entry of `dims`, in the same order) cannot be
//! launched. `what` says where the sizes come from ("constant extents", "these inputs").
void checkLaunchLimits(const std::vector<ParallelDimension>& dims,
                       const std::vector<int64_t>& sizes, std::string_view what);

}  // namespace mf
