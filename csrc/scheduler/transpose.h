//! The transpose scheduler (nvFuser's TransposeScheduler): pointwise fusions whose inputs and
//! outputs disagree on the innermost allocation axis (a permute, an output with a permuted
//! allocation domain). The tensors are grouped by their innermost axis; each block takes one
//! tile of the two innermost axes, reads and writes both groups along their own innermost
//! axis (coalesced, vectorized) and exchanges the tile through padded shared memory. The
//! rules are written out in docs/scheduler.md, "The transpose scheduler".
#pragma once

#include "scheduler/registry.h"

namespace mf {

//! What the transpose heuristics decide. Group 1 is the reference's: the inputs and outputs
//! whose innermost allocation axis is the reference's innermost axis (axis 1), accessed
//! directly. Group 2 is the others, whose innermost axis is axis 2: their tiles pass through
//! shared memory. A block covers tile_size2 x tile_size1 elements of (axis 2, axis 1).
class TransposeParams : public HeuristicParams {
 public:
  TransposeParams() : HeuristicParams(SchedulerType::Transpose) {}

  //! Tile extents along axis 1 and axis 2 (powers of two).
  int64_t tile_size1 = 32;
  int64_t tile_size2 = 32;
  //! Elements per vectorized access of group 1 (along axis 1) and of group 2 (along axis 2).
  int64_t vectorize_factor1 = 1;
  int64_t vectorize_factor2 = 1;
  //! Elements of a tile each thread moves: the block has tile_size1 * tile_size2 /
  //! elements_per_thread threads (TIDx).
  int64_t elements_per_thread = 8;
  //! More than kMaxGridDimX tiles: BIDx takes chunks of them, a serial loop the rest.
  bool split_grid_x = false;

  int64_t blockSize() const { return tile_size1 * tile_size2 / elements_per_thread; }
  std::string toString() const override;
  size_t hash() const override;
  bool sameAs(const HeuristicParams* other) const override;
  std::unique_ptr<HeuristicParams> clone() const override;
};

class TransposeScheduler : public SchedulerEntry {
 public:
  SchedulerType schedulerType() const override { return SchedulerType::Transpose; }
  //! Refuses, with the reason: what the pointwise scheduler refuses (no outputs, reductions,
  //! the common rules, no reference), exprs other than pointwise ops, broadcasts and
  //! permutes, and a fusion whose full-rank inputs and outputs agree on their innermost
  //! allocation axis (nothing is transposed) or disagree on more than two.
  bool canScheduleCompileTime(Fusion* fusion) override;
  //! Refuses transposed extents smaller than the tile (the pointwise scheduler takes them)
  //! and tiles that do not fit the static shared memory.
  bool canScheduleRunTime(Fusion* fusion, SchedulerRuntimeInfo& runtime_info) override;
  //! TransposeParams from the dtypes, sizes, strides and alignments. A fusion the
  //! compile-time check refuses is a UserError naming the reason.
  std::unique_ptr<HeuristicParams> computeHeuristics(Fusion* fusion,
                                                     SchedulerRuntimeInfo& runtime_info) override;

 protected:
  //! Stages group-2 inputs through registers then a padded shared tile, and group-2 outputs
  //! through a padded shared tile then registers; tiles the reference (group 1's loops) and
  //! propagates it, schedules group 2's copies along axis 2, and inlines.
  void applySchedule(Fusion* fusion, const HeuristicParams* params) override;
};

}  // namespace mf
