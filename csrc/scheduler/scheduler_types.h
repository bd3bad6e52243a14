//! SchedulerType: the kinds of schedulers the registry (scheduler/registry.h) can pick for
//! a fusion, in nvFuser's vocabulary.
#pragma once

#include <fmt/format.h>

#include <string_view>

namespace mf {

//! None means "no scheduler accepted the fusion". Reduction is scheduler/reduction.h,
//! InnerPersistent scheduler/normalization_inner.h, InnerOuterPersistent
//! scheduler/normalization_inner_outer.h, Transpose scheduler/transpose.h. ExprEval is no
//! scheduler of the registry: the segmenter gives it to a group of outputs that are views of
//! inputs (segmenter/alias_analysis.h), which the runtime makes on the host without a kernel.
enum class SchedulerType {
  None,
  NoOp,
  PointWise,
  Reduction,
  InnerPersistent,
  InnerOuterPersistent,
  Transpose,
  ExprEval
};

std::string_view toString(SchedulerType t);

}  // namespace mf

template <>
struct fmt::formatter<mf::SchedulerType> : fmt::formatter<std::string_view> {
  auto format(mf::SchedulerType t, format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(mf::toString(t), ctx);
  }
};
