//! The inner-outer persistent scheduler: an inner reduction (over each row) and an outer
//! reduction (over the rows, per column) of the same [M, N] rows in one kernel, as in the
//! backward of layer norm and RMS norm (nvFuser's InnerOuterPersistentScheduler). Each block
//! keeps its rows in registers one at a time, computes the inner reductions and the row
//! outputs, accumulates its columns' partial sums over its rows, and the last block of a
//! grid reduction finishes the column sums. Rules and heuristics: docs/reductions.md ("The
//! inner-outer persistent scheduler").
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "scheduler/registry.h"

namespace mf {

//! The pattern: every reduction reduces axis 1 (inner) or axis 0 (outer) of a tensor of one
//! shape [M, N] (the reference, without broadcast axes), with at least one of each.
struct InnerOuterNormalization {
  //! The first inner reduction's input.
  TensorView* reference = nullptr;
  std::vector<TensorView*> inner_reductions;  //!< [M, rN], topological order
  std::vector<TensorView*> outer_reductions;  //!< [rM, N]: fusion outputs nothing else reads
  //! Register bytes per row element: the full-shaped persistent buffers (all of them: an
  //! upper bound of what is live at once), the row buffers (a weight, as float) and one
  //! accumulator per outer reduction.
  int64_t bytes_per_element = 0;
};

//! The pattern of `fusion`, or why it is not one (a sentence naming the tensor or expr):
//! only pointwise, cast, set, broadcast and reduction ops; every reduction over axis 1 or 0
//! of tensors exactly mapped to the reference; the outer reductions' results are fusion
//! outputs nothing reads; every other output has the reference's shape; every tensor input
//! has the reference's shape, the row's ([N], a weight) or the rows' ([M], a mean or rstd).
std::variant<InnerOuterNormalization, std::string> analyzeInnerOuterNormalization(Fusion* fusion);

//! What the inner-outer heuristics decide. The row -> [TIDx = threads_per_row,
//! persistent_batch, vector] as in the inner persistent schedule; the rows ->
//! [BIDy = grid_blocks, serial, TIDy = rows_per_block]: each block walks a contiguous chunk
//! of rows, rows_per_block at a time.
class InnerOuterPersistentParams : public HeuristicParams {
 public:
  InnerOuterPersistentParams() : HeuristicParams(SchedulerType::InnerOuterPersistent) {}

  //! The row's extent N (a constant of the kernel, as for InnerPersistent).
  int64_t row_extent = 1;
  //! Elements per vector load and store of the [M, N] tensors.
  int64_t vectorization_factor = 1;
  //! Vectors of the row each thread keeps in registers.
  int64_t persistent_batch = 1;
  //! Threads sharing a row (TIDx, a power of two of at least a warp).
  int64_t threads_per_row = 32;
  //! Rows a block holds at once (TIDy).
  int64_t rows_per_block = 1;
  //! Blocks along the rows (BIDy): the grid reduction's partial sums per column.
  int64_t grid_blocks = 1;
  //! nvFuser's projection of persistent buffers to the inputs: the row's values computed
  //! from the inputs (as float) are recomputed after the row's inner reductions, so only the
  //! inputs' register copies (in their own dtype) stay live across them. Off by default until
  //! timed on a GPU (docs/reductions.md).
  bool project_to_inputs = false;
  //! Each thread's running column sums in shared memory (a padded row per thread) instead of
  //! registers: fewer registers per thread, for more blocks per SM (min_blocks_per_sm). A
  //! UserError when they do not fit the static shared memory. Off by default until timed.
  bool sums_in_shared = false;

  std::string toString() const override;
  size_t hash() const override;
  bool sameAs(const HeuristicParams* other) const override;
  std::unique_ptr<HeuristicParams> clone() const override;
};

class InnerOuterPersistentScheduler : public SchedulerEntry {
 public:
  SchedulerType schedulerType() const override { return SchedulerType::InnerOuterPersistent; }
  //! Accepts analyzeInnerOuterNormalization's pattern that the common rules allow.
  bool canScheduleCompileTime(Fusion* fusion) override;
  //! Refuses empty tensors and rows whose registers exceed kMaxPersistentBytesPerRow (the
  //! segmenter then falls back to other schedulers).
  bool canScheduleRunTime(Fusion* fusion, SchedulerRuntimeInfo& runtime_info) override;
  std::unique_ptr<HeuristicParams> computeHeuristics(Fusion* fusion,
                                                     SchedulerRuntimeInfo& runtime_info) override;
  //! specializeExtents: the row's extent becomes a constant.
  FusionPassRequest fusionPasses(Fusion* fusion, const HeuristicParams* params) override;

 protected:
  //! Stages inputs and the full-shaped outputs through registers, splits the first inner
  //! reduction into [BIDy, serial, TIDy, TIDx, batch, vector], propagates it, rFactors the
  //! inner reductions' [batch, vector] (then a block all-reduce over TIDx) and the outer
  //! reductions' serial rows (each thread's running column sums; then a block reduction over
  //! TIDy and a grid reduction over BIDy, grouped over [batch, vector], into the output).
  void applySchedule(Fusion* fusion, const HeuristicParams* params) override;
};

}  // namespace mf
