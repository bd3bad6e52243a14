//! SchedulerEntry, the interface every scheduler implements, and the registry that tries
//! them in priority order (nvFuser's proposeHeuristics). Every refusal carries a reason, so
//! a fusion no scheduler takes says why each one refused.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "passes/pipeline.h"
#include "scheduler/heuristic_params.h"
#include "scheduler/runtime_info.h"

namespace mf {

class Fusion;

class SchedulerEntry {
 public:
  virtual ~SchedulerEntry() = default;
  virtual SchedulerType schedulerType() const = 0;

  //! Structural checks that depend on the IR only (cacheable per fusion). On false,
  //! rejectReason() says why.
  virtual bool canScheduleCompileTime(Fusion* fusion) = 0;
  //! Checks that depend on the run-time sizes; called after canScheduleCompileTime.
  virtual bool canScheduleRunTime(Fusion* fusion, SchedulerRuntimeInfo& runtime_info) = 0;
  //! The parameters for this fusion and these sizes; needs both checks to have passed.
  virtual std::unique_ptr<HeuristicParams> computeHeuristics(
      Fusion* fusion, SchedulerRuntimeInfo& runtime_info) = 0;
  //! The fusion passes (passes/pipeline.h) this scheduler needs run on `fusion` before it
  //! applies `params`, with the facts they read (InnerPersistent: specializeExtents with the
  //! row's extents, multiplyByRowReciprocals for a block per row). None by default.
  virtual FusionPassRequest fusionPasses(Fusion* fusion, const HeuristicParams* params);
  //! Runs the requested fusion passes (fusionPasses, through runFusionPasses), then applies
  //! `params` (from this scheduler's computeHeuristics) to `fusion` (applySchedule).
  void schedule(Fusion* fusion, const HeuristicParams* params);
  //! The same, for parameters the caller may have edited since computeHeuristics: their
  //! launch parameters follow the edit first (HeuristicParams::followEditedFields).
  void schedule(Fusion* fusion, HeuristicParams* params);

  //! Why the last failed check refused (empty when none refused).
  const std::string& rejectReason() const { return reject_reason_; }

  //! nvFuser's scheduleWith: `type`'s heuristics for `args`, checked first when `validate`
  //! (canSchedule; a UserError with the scheduler's reason), applied to `fusion` (schedule),
  //! and returned.
  static std::unique_ptr<HeuristicParams> scheduleWith(Fusion* fusion, SchedulerType type,
                                                       const KernelArgumentHolder& args,
                                                       bool validate = true);

  //! A fresh scheduler of `type`; nullptr for a type no scheduler implements yet.
  static std::unique_ptr<SchedulerEntry> makeSchedulerInstance(SchedulerType type);

 protected:
  //! Applies `params` to the fusion the requested passes rewrote: caches, loop domains,
  //! parallelization and inlining.
  virtual void applySchedule(Fusion* fusion, const HeuristicParams* params) = 0;
  //! Records `reason` and returns false, so a check reads `return reject("...")`.
  bool reject(std::string reason) {
    reject_reason_ = std::move(reason);
    return false;
  }

 private:
  std::string reject_reason_;
};

//! The schedulers tried, first to last: NoOp, Reduction, Transpose, PointWise, InnerPersistent.
//! Types without an implementation are skipped.
const std::vector<SchedulerType>& schedulersInPriorityOrder();

//! The registry's answer: the first scheduler that accepted and its parameters, or
//! type None with no params; `rejections` lists every scheduler tried before (or instead)
//! with its reason.
struct HeuristicsProposal {
  SchedulerType type = SchedulerType::None;
  std::unique_ptr<HeuristicParams> params;
  std::vector<std::pair<SchedulerType, std::string>> rejections;

  bool accepted() const { return type != SchedulerType::None; }
  //! One line per rejection, each after `indent`: `pointwise: no support for reduction ops`.
  std::string rejectionsString(std::string_view indent = {}) const;
};

namespace Schedule {
//! nvFuser's: true when `type`'s scheduler passes its compile-time and run-time checks.
bool canSchedule(SchedulerType type, Fusion* fusion, SchedulerRuntimeInfo& runtime_info);
}  // namespace Schedule

//! Tries each scheduler in priority order (compile-time check, run-time check, then
//! heuristics) and returns the first that accepts.
HeuristicsProposal proposeHeuristics(Fusion* fusion, SchedulerRuntimeInfo& runtime_info);

}  // namespace mf
