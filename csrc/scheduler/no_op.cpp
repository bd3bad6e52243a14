#include "scheduler/no_op.h"

#include <fmt/ranges.h>

#include "ir/fusion.h"
#include "scheduler/registry_utils.h"

namespace mf {
namespace {

// True when some logical extent of `tv` may be zero at run time.
bool mayBeEmpty(const TensorView* tv) {
  for (IterDomain* id : tv->getLogicalDomain()) {
    std::optional<int64_t> c = id->extent()->constInt();
    if (!id->isReduction() && (!c || *c == 0)) return true;
  }
  return false;
}

}  // namespace

bool NoOpScheduler::canScheduleCompileTime(Fusion* fusion) {
  if (std::optional<std::string> why = commonScheduleRejectReason(fusion)) return reject(*why);
  for (Val* out : fusion->outputs()) {
    if (out->isFusionInput()) continue;
    auto* tv = out->as<TensorView>();  // outputs are tensors (Fusion::addOutput)
    if (!mayBeEmpty(tv))
      return reject(fmt::format("output {} has constant non-zero extents", tv->toString()));
  }
  return true;
}

bool NoOpScheduler::canScheduleRunTime(Fusion* fusion, SchedulerRuntimeInfo& runtime_info) {
  for (Val* out : fusion->outputs()) {
    if (out->isFusionInput()) continue;
    auto* tv = out->as<TensorView>();
    std::vector<int64_t> sizes;
    int64_t numel = 1;
    for (IterDomain* id : tv->getLogicalDomain()) {
      if (id->isReduction()) continue;
      sizes.push_back(runtime_info.extent(id));
      numel *= sizes.back();
    }
    if (numel != 0)
      return reject(fmt::format("output {} has {} elements (sizes [{}])", tv->toInlineString(),
                                numel, fmt::join(sizes, ", ")));
  }
  return true;
}

std::unique_ptr<HeuristicParams> NoOpScheduler::computeHeuristics(
    Fusion*, SchedulerRuntimeInfo& runtime_info) {
  auto params = std::make_unique<HeuristicParams>(SchedulerType::NoOp);
  params->index_type = runtime_info.indexType();
  return params;
}

void NoOpScheduler::applySchedule(Fusion*, const HeuristicParams* params) {
  MF_ASSERT(params != nullptr && params->schedulerType() == SchedulerType::NoOp,
            "NoOpScheduler::schedule: expected no_op heuristics");
}

}  // namespace mf
