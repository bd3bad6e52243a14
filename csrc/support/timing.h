//! Wall-clock timing of compile phases (KernelExecutor::compileTimes,
//! FusionKernelRuntime::compileProfile).
#pragma once

#include <chrono>

namespace mf {

using SteadyClock = std::chrono::steady_clock;

//! Milliseconds from `start` to now.
inline double msSince(SteadyClock::time_point start) {
  return std::chrono::duration<double, std::milli>(SteadyClock::now() - start).count();
}

}  // namespace mf
