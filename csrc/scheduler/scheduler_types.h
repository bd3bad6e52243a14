//! SchedulerType: the kinds of schedulers the registry (scheduler/registry.h) can pick for
//! a fusion, in nvFuser's vocabulary.
#pragma once

#include <fmt/format.h>

#include <string_view>

namespace mf {

//! None means "no scheduler accepted the fusion". InnerPersistent is
//! scheduler/normalization_inner.h; Reduction is declared for the reductions issue (#9).
enum class SchedulerType { None, NoOp, PointWise, Reduction, InnerPersistent };

std::string_view toString(SchedulerType t);

}  // namespace mf

template <>
struct fmt::formatter<mf::SchedulerType> : fmt::formatter<std::string_view> {
  auto format(mf::SchedulerType t, format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(mf::toString(t), ctx);
  }
};
