// Helpers shared by the benchmarks (pointwise, reduction, persistent, shape): the median of
// CUDA-event-timed calls, taken the way the PyTorch comparison scripts (compare_*.py) time theirs,
// and the check against the reference.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <vector>

#include "cuda/module.h"
#include "tensor/tensor.h"

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

//! Wall time per call of `fn` over 2000 back-to-back calls after 100 warm-up calls, one
//! synchronization at the end included, nothing subtracted: host time where the kernel is
//! short (the launch queue never fills), the kernel's time where it is long.
inline double wallUsPerCall(const std::function<void()>& fn) {
  for (int i = 0; i < 100; ++i) fn();
  mf::cuda::timeOnStreamMs([] {});
  const auto t0 = std::chrono::steady_clock::now();
  const int iters = 2000;
  for (int i = 0; i < iters; ++i) fn();
  mf::cuda::timeOnStreamMs([] {});
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
         iters;
}

//! True when every element of `out` is within `tol * (1 + |ref|)` of `ref`; otherwise prints
//! the first that is not (`<bench>: <name>: wrong result at ...`) and returns false.
inline bool matchesReference(const char* bench, const std::string& name, const mf::Tensor& out,
                             const mf::Tensor& ref, double tol) {
  for (int64_t i = 0; i < ref.numel(); ++i)
    if (std::abs(out.item(i) - ref.item(i)) > tol * (1 + std::abs(ref.item(i)))) {
      fmt::print(stderr, "{}: {}: wrong result at {}: {} vs {}\n", bench, name, i, out.item(i),
                 ref.item(i));
      return false;
    }
  return true;
}

}  // namespace mf::bench
