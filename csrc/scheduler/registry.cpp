#include "scheduler/registry.h"

#include <fmt/format.h>

#include "scheduler/no_op.h"
#include "scheduler/normalization_inner.h"
#include "scheduler/normalization_inner_outer.h"
#include "scheduler/pointwise.h"
#include "scheduler/reduction.h"
#include "scheduler/transpose.h"

namespace mf {

std::unique_ptr<SchedulerEntry> SchedulerEntry::makeSchedulerInstance(SchedulerType type) {
  switch (type) {
    case SchedulerType::NoOp:
      return std::make_unique<NoOpScheduler>();
    case SchedulerType::PointWise:
      return std::make_unique<PointWiseScheduler>();
    case SchedulerType::Reduction:
      return std::make_unique<ReductionScheduler>();
    case SchedulerType::InnerPersistent:
      return std::make_unique<InnerPersistentScheduler>();
    case SchedulerType::InnerOuterPersistent:
      return std::make_unique<InnerOuterPersistentScheduler>();
    case SchedulerType::Transpose:
      return std::make_unique<TransposeScheduler>();
    case SchedulerType::None:
    case SchedulerType::ExprEval:  // views, made by the runtime (segmenter/alias_analysis.h)
      return nullptr;
  }
  return nullptr;
}

FusionPassRequest SchedulerEntry::fusionPasses(Fusion*, const HeuristicParams*) {
  return {};
}

void SchedulerEntry::schedule(Fusion* fusion, HeuristicParams* params) {
  if (params != nullptr) params->followEditedFields();
  schedule(fusion, static_cast<const HeuristicParams*>(params));
}

void SchedulerEntry::schedule(Fusion* fusion, const HeuristicParams* params) {
  MF_ASSERT(fusion != nullptr && params != nullptr, "{} scheduler: nothing to schedule",
            schedulerType());
  runFusionPasses(*fusion, fusionPasses(fusion, params));
  applySchedule(fusion, params);
}

const std::vector<SchedulerType>& schedulersInPriorityOrder() {
  // Transpose before PointWise: the pointwise scheduler also takes every fusion it takes.
  static const std::vector<SchedulerType> order = {SchedulerType::NoOp,
                                                   SchedulerType::Reduction,
                                                   SchedulerType::Transpose,
                                                   SchedulerType::PointWise,
                                                   SchedulerType::InnerPersistent,
                                                   SchedulerType::InnerOuterPersistent};
  return order;
}

std::string HeuristicsProposal::rejectionsString(std::string_view indent) const {
  std::string s;
  for (const auto& [type, reason] : rejections)
    s += fmt::format("{}{}: {}\n", indent, type, reason);
  return s;
}

HeuristicsProposal proposeHeuristics(Fusion* fusion, SchedulerRuntimeInfo& runtime_info) {
  MF_CHECK(fusion != nullptr, "proposeHeuristics: fusion is null");
  HeuristicsProposal proposal;
  for (SchedulerType type : schedulersInPriorityOrder()) {
    std::unique_ptr<SchedulerEntry> scheduler = SchedulerEntry::makeSchedulerInstance(type);
    if (scheduler == nullptr) continue;
    if (!scheduler->canScheduleCompileTime(fusion) ||
        !scheduler->canScheduleRunTime(fusion, runtime_info)) {
      proposal.rejections.emplace_back(type, scheduler->rejectReason());
      continue;
    }
    proposal.type = type;
    proposal.params = scheduler->computeHeuristics(fusion, runtime_info);
    MF_ASSERT(proposal.params != nullptr && proposal.params->schedulerType() == type,
              "{} scheduler returned no or foreign heuristics", type);
    return proposal;
  }
  return proposal;
}

std::unique_ptr<HeuristicParams> SchedulerEntry::scheduleWith(Fusion* fusion, SchedulerType type,
                                                              const KernelArgumentHolder& args,
                                                              bool validate) {
  std::unique_ptr<SchedulerEntry> scheduler = makeSchedulerInstance(type);
  MF_CHECK(scheduler != nullptr, "scheduleWith: no {} scheduler is implemented", toString(type));
  SchedulerRuntimeInfo runtime_info(fusion, args);
  if (validate)
    MF_CHECK(scheduler->canScheduleCompileTime(fusion) &&
                 scheduler->canScheduleRunTime(fusion, runtime_info),
             "scheduleWith: the {} scheduler refuses the fusion: {}", toString(type),
             scheduler->rejectReason());
  std::unique_ptr<HeuristicParams> params = scheduler->computeHeuristics(fusion, runtime_info);
  scheduler->schedule(fusion, params.get());
  return params;
}

namespace Schedule {
bool canSchedule(SchedulerType type, Fusion* fusion, SchedulerRuntimeInfo& runtime_info) {
  std::unique_ptr<SchedulerEntry> scheduler = SchedulerEntry::makeSchedulerInstance(type);
  return scheduler != nullptr && scheduler->canScheduleCompileTime(fusion) &&
         scheduler->canScheduleRunTime(fusion, runtime_info);
}
}  // namespace Schedule

}  // namespace mf
