// Helpers shared by the benchmarks (pointwise, reduction, persistent, shape, layout op,
// quantize): the median of CUDA-event-timed calls, taken the way the PyTorch comparison
// scripts (compare_*.py) time theirs, the check against the reference, and grouped offsets.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <random>
#include <utility>
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

//! Random group sizes summing to m (some groups may be empty) as the layout op's offsets:
//! {input_offsets, output_offsets} (each group's start, and its start rounded up to 128-row
//! tiles in the padded output), Int32 host tensors of g entries.
inline std::pair<mf::Tensor, mf::Tensor> groupOffsets(int64_t g, int64_t m, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> cuts = {0, m};
  for (int64_t i = 1; i < g; ++i) cuts.push_back(static_cast<int64_t>(rng() % (m + 1)));
  std::sort(cuts.begin(), cuts.end());
  std::vector<int32_t> in_off, out_off;
  int64_t out_row = 0;
  for (int64_t e = 0; e < g; ++e) {
    in_off.push_back(static_cast<int32_t>(cuts[e]));
    out_off.push_back(static_cast<int32_t>(out_row));
    out_row += (cuts[e + 1] - cuts[e] + 127) / 128 * 128;
  }
  return {mf::Tensor::fromVector(in_off, {g}), mf::Tensor::fromVector(out_off, {g})};
}

}  // namespace mf::bench
