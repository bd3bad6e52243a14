#include "scheduler/scheduler_types.h"

namespace mf {

std::string_view toString(SchedulerType t) {
  switch (t) {
    case SchedulerType::None:
      return "none";
    case SchedulerType::NoOp:
      return "no_op";
    case SchedulerType::PointWise:
      return "pointwise";
    case SchedulerType::Reduction:
      return "reduction";
    case SchedulerType::InnerPersistent:
      return "inner_persistent";
    case SchedulerType::InnerOuterPersistent:
      return "inner_outer_persistent";
    case SchedulerType::Transpose:
      return "transpose";
    case SchedulerType::ExprEval:
      return "expr_eval";
  }
  return "unknown";
}

}  // namespace mf
