//! The NoOp scheduler: fusions with no work to launch, where every output is empty or is
//! a fusion input. Its heuristics are the base HeuristicParams and its schedule does
//! nothing; the runtime allocates the (empty) outputs or forwards the inputs.
#pragma once

#include "scheduler/registry.h"

namespace mf {

class NoOpScheduler : public SchedulerEntry {
 public:
  SchedulerType schedulerType() const override { return SchedulerType::NoOp; }
  //! Refuses what commonScheduleRejectReason refuses, and an output (not an input) whose
  //! extents are all non-zero constants.
  bool canScheduleCompileTime(Fusion* fusion) override;
  //! Refuses when a computed output has elements at these sizes.
  bool canScheduleRunTime(Fusion* fusion, SchedulerRuntimeInfo& runtime_info) override;
  std::unique_ptr<HeuristicParams> computeHeuristics(Fusion* fusion,
                                                     SchedulerRuntimeInfo& runtime_info) override;

 protected:
  void applySchedule(Fusion* fusion, const HeuristicParams* params) override;
};

}  // namespace mf
