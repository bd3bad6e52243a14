//! The pointwise scheduler: fusions of unary, binary, ternary, cast, set and broadcast ops
//! (and the layout op) over tensors, scheduled around one reference output as a 1-D or,
//! with broadcasts, a 2-D grid of vectorized, unrolled threads. The rules are written out
//! in docs/scheduler.md.
#pragma once

#include <array>
#include <optional>

#include "scheduler/registry.h"

namespace mf {

//! The schedules the pointwise scheduler applies (nvFuser splits its pointwise scheduler
//! the same way: pointwise_non_tma, pointwise_tma); the heuristics pick one.
enum class PointwiseScheduleKind {
  //! The reference merged left and right of a break point: a 1-D or 2-D grid of
  //! vectorized, unrolled threads.
  BreakPointGrid,
  //! The layout op alone, in its tile form (docs/layout_op.md): the padded buffer merged and
  //! split into [BIDx, TIDx = block_size, Vectorize = vectorization_factor]; a block stages
  //! the input rows of a slab of a 128-row tile in shared memory and writes the slab.
  LayoutTile,
  //! A block quantization alone (blockQuantize, groupedBlockQuantize): the scales merged and
  //! split into [BIDx, TIDx = block_size], one 16-value block per thread (the quantized
  //! output alike, its 16 values in an axis the call covers).
  BlockQuantize,
};

//! What the pointwise heuristics decide (nvFuser's PointwiseParams), in
//! pointwise_heuristics.cpp. The BreakPointGrid schedule merges the reference's axes (in
//! allocation order) left and right of `break_point` (all into one when 0) and splits the
//! inner (right) one into [BIDx, (unroll), TIDx, Vectorize].
class PointwiseParams : public HeuristicParams {
 public:
  PointwiseParams() : HeuristicParams(SchedulerType::PointWise) {}

  //! Which schedule applies these parameters.
  PointwiseScheduleKind schedule_kind = PointwiseScheduleKind::BreakPointGrid;
  //! Elements per vectorized access of each vectorizable input and output (power of two,
  //! at most 16 bytes).
  int64_t vectorization_factor = 1;
  //! Vectors per thread along the inner (right) and the outer (left, 2-D only) side.
  int64_t unroll_factor_inner = 1;
  int64_t unroll_factor_outer = 1;
  //! 0: one merged axis (1-D). Otherwise the number of reference axes (in allocation
  //! order) left of the split between the grid's two dimensions.
  int64_t break_point = 0;
  //! 2-D: the block also spans the left side (TIDy = block_size / TIDx).
  bool split_block = false;
  //! 2-D: the side bound to BIDy has more than 65535 blocks; split it by 65535 and loop.
  bool split_grid_y = false;
  //! The side bound to BIDx (the merged axis in 1-D) has more than kMaxGridDimX blocks;
  //! split it by kMaxGridDimX and loop (the launch limit of gridDim.x).
  bool split_grid_x = false;
  //! 2-D: bind the left side to BIDx and the right side to BIDy (outer broadcasts whose
  //! right side does not fit in half of L2), instead of the reverse.
  bool flip_grid_binding = false;
  //! Threads per block.
  int64_t block_size = 128;
  //! With a layout op: which form writes it and why (`tile: ...` or `per element: ...`);
  //! with a block quantization, how it writes its scales. Printed by scheduler_params. Not
  //! part of the identity (the other fields decide it).
  std::string layout_form;

  std::string toString() const override;
  size_t hash() const override;
  bool sameAs(const HeuristicParams* other) const override;
  std::unique_ptr<HeuristicParams> clone() const override;
  //! The grid (BIDx, BIDy) follows vectorization, unroll, break point, block and grid
  //! splits: when one of them changed since computeHeuristics, the grid is left to the
  //! kernel's extents (as nvFuser's pointwise heuristics always do), and the block too when
  //! block_size, break_point or split_block changed.
  void followEditedFields() override;
  //! Records the fields the launch parameters were computed from (computeHeuristics).
  void noteLaunchBasis() { launch_basis_ = launchBasis(); }

 private:
  //! The fields the block (break_point, block_size, split_block) and, with those, the grid
  //! (vectorization, unrolls, grid splits and binding) follow.
  struct LaunchBasis {
    std::array<int64_t, 3> block;
    std::array<int64_t, 6> grid;
    bool operator==(const LaunchBasis&) const = default;
  };
  LaunchBasis launchBasis() const;
  std::optional<LaunchBasis> launch_basis_;
};

class PointWiseScheduler : public SchedulerEntry {
 public:
  SchedulerType schedulerType() const override { return SchedulerType::PointWise; }
  //! Refuses a fusion without outputs (scalar-only work), a reduction axis, one that breaks
  //! the common rules (commonScheduleRejectReason: segment_set, the layout op's global
  //! buffers), and a fusion without a reference tensor (findReferenceTensor).
  bool canScheduleCompileTime(Fusion* fusion) override;
  //! Refuses an empty reference tensor when another output has elements (a schedule over
  //! the reference would never write it).
  bool canScheduleRunTime(Fusion* fusion, SchedulerRuntimeInfo& runtime_info) override;
  //! PointwiseParams from the run-time sizes, strides and alignments (docs/scheduler.md).
  std::unique_ptr<HeuristicParams> computeHeuristics(Fusion* fusion,
                                                     SchedulerRuntimeInfo& runtime_info) override;

 protected:
  //! Moves broadcasts next to the inputs, stages inputs and outputs through register
  //! copies, transforms the reference (allocation order, merge, split as the params say,
  //! parallelize), propagates that to every tensor, vectorizes the copies of the
  //! vectorizable inputs and outputs, and inlines everything as deep as it goes.
  void applySchedule(Fusion* fusion, const HeuristicParams* params) override;
};

}  // namespace mf
