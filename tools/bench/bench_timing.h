// Timing helpers the automatic-path benchmarks share (pointwise_bench, reduction_bench): the
// median of CUDA-event-timed calls, taken the way compare_*.py times PyTorch.
#pragma once

#include <algorithm>
#include <functional>
#include <vector>

#include "cuda/module.h"

namespace mf::bench {

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

//! Median of `iters` timed calls of `fn` (CUDA events around each call, after a warm-up).
inline double medianUs(const std::function<void()>& fn, int warmup = 10, int iters = 100) {
  for (int i = 0; i < warmup; ++i) fn();
  std::vector<double> us;
  for (int i = 0; i < iters; ++i) us.push_back(1000.0 * mf::cuda::timeOnStreamMs(fn));
  return median(us);
}

}  // namespace mf::bench
