#include "scheduler/heuristic_params.h"

#include "support/error.h"
#include "support/hash.h"

namespace mf {

size_t LaunchParams::slot(ParallelType p) {
  switch (p) {
    case ParallelType::BIDx:
      return 0;
    case ParallelType::BIDy:
      return 1;
    case ParallelType::BIDz:
      return 2;
    case ParallelType::TIDx:
      return 3;
    case ParallelType::TIDy:
      return 4;
    case ParallelType::TIDz:
      return 5;
    default:
      MF_ASSERT(false, "LaunchParams: {} is not a grid or block dimension", mf::toString(p));
  }
  return 0;
}

LaunchParams::LaunchParams(int64_t gdimx, int64_t gdimy, int64_t gdimz, int64_t bdimx,
                           int64_t bdimy, int64_t bdimz) {
  const std::array<std::pair<int64_t, ParallelType>, 6> dims = {{{gdimx, ParallelType::BIDx},
                                                                 {gdimy, ParallelType::BIDy},
                                                                 {gdimz, ParallelType::BIDz},
                                                                 {bdimx, ParallelType::TIDx},
                                                                 {bdimy, ParallelType::TIDy},
                                                                 {bdimz, ParallelType::TIDz}}};
  for (auto [value, p] : dims) {
    MF_CHECK(value == kUnbound || value >= 1,
             "LaunchParams: {} must be >= 1, or -1 to leave it unbound; got {}", mf::toString(p),
             value);
    if (value != kUnbound) bind(value, p);
  }
}

void LaunchParams::bind(int64_t value, ParallelType p) {
  MF_ASSERT(value >= 1, "LaunchParams: binding {} to {}", mf::toString(p), value);
  dims_[slot(p)] = value;
}

int64_t LaunchParams::nThreads() const {
  return getDimOrOne(ParallelType::TIDx) * getDimOrOne(ParallelType::TIDy) *
         getDimOrOne(ParallelType::TIDz);
}

std::string LaunchParams::toString() const {
  auto dim = [&](ParallelType p) {
    return hasDim(p) ? fmt::format("{}", getDim(p)) : std::string("-");
  };
  return fmt::format("LaunchParams(grid = [{}, {}, {}], block = [{}, {}, {}])",
                     dim(ParallelType::BIDx), dim(ParallelType::BIDy), dim(ParallelType::BIDz),
                     dim(ParallelType::TIDx), dim(ParallelType::TIDy), dim(ParallelType::TIDz));
}

std::string HeuristicParams::toString() const {
  return fmt::format("{} heuristics: index_type = {}, {}{}", schedulerType(), index_type,
                     lparams.toString(), minBlocksString());
}

std::string HeuristicParams::minBlocksString() const {
  return min_blocks_per_sm ? fmt::format(", min_blocks_per_sm = {}", *min_blocks_per_sm) : "";
}

size_t HeuristicParams::hash() const {
  uint64_t h = hashCombine(kFnvOffset, static_cast<uint64_t>(scheduler_type));
  h = hashCombine(h, static_cast<uint64_t>(index_type));
  h = hashCombine(h, static_cast<uint64_t>(min_blocks_per_sm.value_or(0)));
  for (ParallelType p : {ParallelType::TIDx, ParallelType::TIDy, ParallelType::TIDz})
    h = hashCombine(h, static_cast<uint64_t>(lparams.getDim(p)));
  return h;
}

bool HeuristicParams::sameAs(const HeuristicParams* other) const {
  if (other == nullptr || other->schedulerType() != schedulerType() ||
      other->index_type != index_type || other->min_blocks_per_sm != min_blocks_per_sm)
    return false;
  for (ParallelType p : {ParallelType::TIDx, ParallelType::TIDy, ParallelType::TIDz})
    if (other->lparams.getDim(p) != lparams.getDim(p)) return false;
  return true;
}

std::unique_ptr<HeuristicParams> HeuristicParams::clone() const {
  return std::unique_ptr<HeuristicParams>(new HeuristicParams(*this));
}

}  // namespace mf
