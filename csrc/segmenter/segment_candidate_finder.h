//! SegmentCandidateFinder: cuts a fusion no single scheduler takes into segments, each
//! taken by one scheduler (nvFuser's fusion_segmenter). The schedulers' canSchedule checks
//! are the only merge oracle; the algorithm is written out in docs/segmenter.md.
//!
//!   T1 = exp(T0)   [10, 20]            group 0 (pointwise): T1 = exp(T0)
//!   T3 = neg(T2)   [15]          ->    group 1 (pointwise): T3 = neg(T2)
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "segmenter/segmented_fusion.h"
#include "tensor/tensor.h"

namespace mf {

struct SegmentCandidateFinderOptions {
  //! After merging neighbours, try every remaining pair of groups (producer and consumer or
  //! unrelated) until no merge is accepted.
  bool run_final_merge = true;
  //! Consulted before the oracle for every candidate merge, with the exprs of the two
  //! groups: false keeps them apart. A scheduler must still accept the union. For tests and
  //! experiments (e.g. never merge: one group per expr, except a unary chain off a fusion
  //! input, which is copied into each group reading it). When set, the segmenter does not
  //! first try the whole fusion as one group (that would merge every expr without asking
  //! the hook), as nvFuser's segment() with options starts from one group per expr.
  std::function<bool(const std::vector<Expr*>&, const std::vector<Expr*>&)>
      custom_should_merge_groups;
};

class SegmentCandidateFinder {
 public:
  //! Segments `fusion` for inputs of these sizes, dtypes and strides (host tensors do:
  //! only their metadata is read). The result owns a copy of `fusion`, without the exprs whose
  //! results reach no output (removeDeadExprs). Deterministic: the same fusion and metadata give
  //! the same groups, in the same order, in every process. The inputs are checked as the executors
  //! check them (tensor/arguments.h's checkAndBindInputs, messages prefixed
  //! "SegmentCandidateFinder::segment"): count, rank, dtype, sizes, strides against declared
  //! contiguity, operand extents, a tensor never added as an input. Throws mf::UserError when an
  //! expr alone is refused by every scheduler.
  static std::unique_ptr<SegmentedFusion> segment(const Fusion& fusion,
                                                  const std::vector<Tensor>& inputs,
                                                  SegmentCandidateFinderOptions options = {});
  //! The same from a run-time info of `fusion` (the runtime's, with its device; its inputs
  //! were checked when it was made from tensors). The fusion must be runnable
  //! (verifyRunnable).
  static std::unique_ptr<SegmentedFusion> segment(const Fusion& fusion,
                                                  const SchedulerRuntimeInfo& runtime_info,
                                                  SegmentCandidateFinderOptions options = {});
};

}  // namespace mf
