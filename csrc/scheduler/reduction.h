//! The reduction scheduler: one or more reductions over the same axes of same-shaped tensors,
//! pointwise ops before them, and pointwise ops after them that stay in the reduced shape.
//! Any set of reduced axes: the schedule merges the iteration axes into one and the reduced
//! axes into another. Inner reductions (the innermost non-broadcast axis reduced) tile a row
//! per block (or per warp group, several rows per block), outer reductions a column per
//! thread of a block that also spans the reduced axis. The rules are written out in
//! docs/reductions.md "The reduction scheduler".
#pragma once

#include "scheduler/registry.h"

namespace mf {

//! What the reduction heuristics decide (nvFuser's ReductionParams, reduced to the two
//! schedules written here). The scheduled reduction tensor has the merged iteration axis I
//! and the merged reduction axis R:
//!   inner: [I/bdimy: BIDx, bdimy: TIDy | (gy: BIDy), bdimx: TIDx || serial, u: Unroll, v]
//!   outer: [I/v/bdimx: BIDx, bdimx: TIDx | (gy: BIDy), bdimy: TIDy || serial, u: Unroll | v]
//! The part right of `||` is rfactored: each thread reduces its serial, unrolled and (inner)
//! vector elements, then a block reduction across threadIdx.x (inner) or threadIdx.y (outer),
//! then, when cross_block, a grid reduction across the gy blocks of blockIdx.y. The outer
//! vector v is an iteration axis inside the reduction loops: each thread keeps v running sums
//! of adjacent columns, and the block and grid reductions reduce the v values in one call.
class ReductionParams : public HeuristicParams {
 public:
  ReductionParams() : HeuristicParams(SchedulerType::Reduction) {}

  //! True: the innermost non-broadcast axis (allocation order) is reduced, so threadIdx.x
  //! runs along the merged reduced axes. False: along the merged iteration axes.
  bool inner_reduction = true;
  //! Elements per vector load of the full-shaped inputs: along the reduced axis (inner; it
  //! divides the innermost run of reduced axes, innerReducedRun) or along the iteration axis
  //! (outer; it divides innerIterationRun, and the outputs are stored as vectors too).
  int64_t vectorization_factor = 1;
  //! Serial steps per thread unrolled into one loop body (loads in flight).
  int64_t unroll_factor = 1;
  //! Threads along the reduced axis (inner) or the iteration axis (outer: each thread takes
  //! vectorization_factor columns).
  int64_t bdimx = 32;
  //! Rows per block (inner) or threads along the reduced axis (outer).
  int64_t bdimy = 1;
  //! True when one output is reduced by grid_y blocks (blockIdx.y) and a grid reduction:
  //! too few outputs to fill the SMs, and rows long enough to share.
  bool cross_block = false;
  //! Blocks per output along the reduced axis (1 unless cross_block).
  int64_t grid_y = 1;
  //! More blocks along the iteration axis than gridDim.x allows (kMaxGridDimX): BIDx takes
  //! chunks of kMaxGridDimX blocks and a serial loop, outermost, the rest.
  bool split_grid_x = false;

  std::string toString() const override;
  size_t hash() const override;
  bool sameAs(const HeuristicParams* other) const override;
  std::unique_ptr<HeuristicParams> clone() const override;
};

class ReductionScheduler : public SchedulerEntry {
 public:
  SchedulerType schedulerType() const override { return SchedulerType::Reduction; }
  //! Accepts one reduction pattern (reductionPatternRejectReason) whose post-reduction
  //! tensors have no concrete axis the reduction output lacks (a broadcast back to the
  //! input's shape is InnerPersistent's or the segmenter's job); refuses the common rules
  //! (commonScheduleRejectReason) and a fusion without a tensor output.
  bool canScheduleCompileTime(Fusion* fusion) override;
  //! Refuses reductions whose inputs differ in a run-time extent.
  bool canScheduleRunTime(Fusion* fusion, SchedulerRuntimeInfo& runtime_info) override;
  //! ReductionParams from the run-time extents and the inputs' layout (docs/reductions.md).
  std::unique_ptr<HeuristicParams> computeHeuristics(Fusion* fusion,
                                                     SchedulerRuntimeInfo& runtime_info) override;

 protected:
  //! Stages inputs and outputs through register copies, transforms the first reduction as
  //! ReductionParams says, propagates that to every tensor, rfactors every reduction's
  //! per-thread part, vectorizes the full-shaped input copies and inlines everything.
  void applySchedule(Fusion* fusion, const HeuristicParams* params) override;
};

}  // namespace mf
