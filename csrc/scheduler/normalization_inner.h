//! The inner persistent (normalization) scheduler: softmax, layer norm, RMS norm and the
//! NVFP4 block-scale pattern `x / max(|x|)` as one kernel that reads each row from global
//! memory once, keeps it in registers across its reductions (the persistent buffers) and
//! writes the result with vector stores. The rules are written out in docs/reductions.md
//! ("The inner persistent scheduler"); the pattern analysis is scheduler/normalization_utils.h.
#pragma once

#include <vector>

#include "scheduler/registry.h"

namespace mf {

//! What the inner persistent heuristics decide (nvFuser's ReductionParams with
//! persistent_kernel set, reduced to the fields this schedule uses). Two forms:
//!   - a block per row group: row -> [persistent_batch, TIDx = threads_per_row, vector],
//!     rows -> [BIDx, TIDy = rows_per_block]; a serial then a block all-reduce;
//!   - a thread per row (threads_per_row == 1): rows -> [BIDx, TIDx = rows_per_block],
//!     row -> [persistent_batch, vector]; serial reductions only.
//! The row's extents are constants of the kernel: register buffers and the block reduction's
//! width must be constants in minifuser's lowering, so a kernel serves one row length
//! (sameAs compares them) and any number of rows (the grid is not compared).
class PersistentParams : public HeuristicParams {
 public:
  PersistentParams() : HeuristicParams(SchedulerType::InnerPersistent) {}

  //! The run-time extents of the reduced (row) axes, outer to inner.
  std::vector<int64_t> row_extents;
  //! Elements per vector load and store (power of two, at most 16 bytes).
  int64_t vectorization_factor = 1;
  //! Vectors of the row each thread keeps in registers.
  int64_t persistent_batch = 1;
  //! Threads sharing one row (TIDx; a multiple of 32), or 1 for a thread per row.
  int64_t threads_per_row = 1;
  //! Rows per block: TIDy with threads_per_row > 1, TIDx with a thread per row.
  int64_t rows_per_block = 1;

  int64_t rowElements() const;
  std::string toString() const override;
  size_t hash() const override;
  bool sameAs(const HeuristicParams* other) const override;
  std::unique_ptr<HeuristicParams> clone() const override;
};

//! Bytes of persistent registers one row may take (nvFuser's register budget for persistent
//! buffers: half of an SM's 256 KiB register file). A longer row is refused at run time, so
//! the segmenter falls back to Reduction and PointWise kernels.
constexpr int64_t kMaxPersistentBytesPerRow = 128 * 1024;
//! A row whose persistent buffers take at most this many bytes (64 registers) is held by one
//! thread; a longer one is spread over a block.
constexpr int64_t kMaxThreadRowBytes = 256;

class InnerPersistentScheduler : public SchedulerEntry {
 public:
  SchedulerType schedulerType() const override { return SchedulerType::InnerPersistent; }
  //! Accepts an inner normalization (analyzeInnerNormalization) that the common rules allow
  //! (commonScheduleRejectReason); the reason otherwise is the analysis's sentence.
  bool canScheduleCompileTime(Fusion* fusion) override;
  //! Refuses empty rows and rows whose persistent buffers exceed kMaxPersistentBytesPerRow.
  bool canScheduleRunTime(Fusion* fusion, SchedulerRuntimeInfo& runtime_info) override;
  //! PersistentParams from the run-time sizes, strides and alignments (docs/reductions.md).
  std::unique_ptr<HeuristicParams> computeHeuristics(Fusion* fusion,
                                                     SchedulerRuntimeInfo& runtime_info) override;
  //! specializeExtents for the row's axes (their extents become params' row_extents), then
  //! multiplyByRowReciprocals when a block shares a row (threads_per_row > 1).
  FusionPassRequest fusionPasses(Fusion* fusion, const HeuristicParams* params) override;

 protected:
  //! Stages inputs and outputs (the row extents fixed) through register copies, splits the
  //! first reduction as the params say, propagates that to every tensor, rFactors the serial
  //! part of each reduction (block form), vectorizes the copies and inlines everything as
  //! deep as it goes: the tensors read on both sides of a reduction stay in registers.
  void applySchedule(Fusion* fusion, const HeuristicParams* params) override;
};

}  // namespace mf
