// compile_scale [N ...]: what a FusionExecutorCache's first run costs as fusions grow (the
// compile-time issue's benchmark; no GPU needed). Three shapes on [64, 1000] floats, built
// from N ops each:
//   chain    mul by a constant, add the input, neg, in turn (one pointwise kernel)
//   reduce   the same, with a sum over the last axis broadcast back and added every 10 ops
//            (one persistent kernel)
//   segset   the chain with a segment_set every 5 ops (N / 5 groups; the math repeats every 15
//            ops, so 3 distinct kernels)
// For each shape (default all three; name some to pick them) and N (default 50 100 200 400 800) it
// prints the first run's wall time, the phases of making its runtime
// (FusionKernelRuntime::compileProfile: size passes, segmentation, heuristics, scheduling,
// lowering, codegen, NVRTC), the kernels NVRTC compiled and those the kernel cache served, and the
// CPU reference's time for the same inputs; then, per shape, each phase's growth per doubling of N.
// The disk kernel cache is off (MINIFUSER_CACHE_DIR=), so every run compiles what it has not
// compiled in this process. With a GPU it then times the cached run of the 80-group segset chain (N
// = 400) on device inputs: the host time of one runFusionWithInputs (wall time of the call, the
// stream synchronized between calls, median of 200), per segment, against the host time of a bare
// launch of its first kernel (KernelExecutor::benchmarkBareLaunchUs, as many launches as
// segments from a drained stream, not waiting for them; median of 21) and the target
// of a bare launch + 0.5 us per segment.
// `compile_scale chain 800` measures one shape at one size (for a profiler); `compile_scale
// hot` only the hot path, over 20,000 calls.
// Each row is the median of three runs (each with its own constant, so each compiles anew).
// `compile_scale 8` runs as a ctest smoke test (no timing asserted).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "bench_utils.h"
#include "cuda/driver.h"
#include "cuda/module.h"
#include "executor/launch_cache.h"
#include "minifuser/minifuser.h"
#include "support/timing.h"

namespace {

using Clock = mf::SteadyClock;
using mf::msSince;
using mf::bench::median;

// The shape's fusion of n ops on one [64, 1000] float input; `variant` changes the constant
// (so each repetition compiles its own kernels).
std::unique_ptr<mf::Fusion> build(const std::string& shape, int n, int variant = 0) {
  auto fusion = std::make_unique<mf::Fusion>();
  mf::FusionGuard fg(fusion.get());
  mf::TensorView* x = mf::makeSymbolicTensor(2);
  fusion->addInput(x);
  mf::TensorView* t = x;
  for (int i = 0; i < n; ++i) {
    switch (i % 3) {
      case 0:
        t = mf::mul(t, mf::constFloat(1.0001 + 1e-6 * variant));
        break;
      case 1:
        t = mf::add(t, x);
        break;
      default:
        t = mf::neg(t);
        break;
    }
    if (shape == "reduce" && i % 10 == 9)
      t = mf::add(t, mf::broadcast(mf::sum(t, {1}), {false, true}));
    if (shape == "segset" && i % 5 == 4 && i + 1 < n) t = mf::segment_set(t);
  }
  fusion->addOutput(t);
  return fusion;
}

struct Row {
  double first_run, passes, segment, heuristics, schedule, lower, codegen, nvrtc, reference;
  size_t groups, compiled, reused;
};

Row measure(const std::string& shape, int n, const std::vector<mf::Tensor>& inputs, int variant) {
  Row r{};
  mf::FusionExecutorCache fec(build(shape, n, variant));
  Clock::time_point start = Clock::now();
  fec.runFusionWithInputs(inputs);
  r.first_run = msSince(start);
  const auto& p = fec.getMostRecentKernelRuntime()->compileProfile();
  r.passes = p.passes_ms;
  r.segment = p.segment_ms;
  r.heuristics = p.heuristics_ms;
  r.schedule = p.schedule_ms;
  r.lower = p.lower_ms;
  r.codegen = p.codegen_ms;
  r.nvrtc = p.nvrtc_ms;
  r.groups = p.groups;
  r.compiled = p.kernels_compiled;
  r.reused = p.kernels_reused;
  start = Clock::now();
  mf::ReferenceEvaluator(fec.fusion()).run(inputs);
  r.reference = msSince(start);
  return r;
}

// The host cost of a cached run of the segset chain of n ops on the GPU.
void measureHotPath(int n, int calls) {
  mf::FusionExecutorCache fec(build("segset", n));
  const std::vector<mf::Tensor> inputs = {
      mf::Tensor::random({64, 1000}, mf::DataType::Float, 1).toDevice()};
  const mf::Tensor out = fec.runFusionWithInputs(inputs)[0].toHost();
  const mf::Tensor ref = mf::ReferenceEvaluator(fec.fusion()).run(inputs)[0];
  if (!mf::bench::matchesReference("compile_scale", "hot", out, ref, 1e-3)) return;
  mf::FusionKernelRuntime* runtime = fec.getMostRecentKernelRuntime();
  const size_t groups = runtime->compileProfile().groups;
  std::vector<double> us;
  constexpr int kWarmup = 200;  // steady state: caches, clocks and the allocator warm
  for (int i = 0; i < calls + kWarmup; ++i) {
    mf::cuda::timeOnStreamMs([] {});  // the stream drained: the call's time is the host's
    const Clock::time_point start = Clock::now();
    fec.runFusionWithInputs(inputs);
    if (i >= kWarmup) us.push_back(1000.0 * msSince(start));
  }
  mf::cuda::timeOnStreamMs([] {});
  const double host_us = median(us);
  // 80 launches from a drained stream, timed until the last returns: the host's part, as
  // the calls above are timed.
  std::vector<double> bare;
  for (int i = 0; i < 21; ++i)
    bare.push_back(runtime->executor()->benchmarkBareLaunchUs(inputs, 20, static_cast<int>(groups),
                                                              /*wait_for_kernels=*/false));
  const double bare_us = median(bare);
  // The same launches through KernelExecutor::run (the checks, the launch cache, the output
  // allocation): where a segment's cost beyond a bare launch goes.
  std::vector<double> ke;
  for (int i = 0; i < 21; ++i) {
    mf::cuda::timeOnStreamMs([] {});
    const Clock::time_point start = Clock::now();
    for (size_t g = 0; g < groups; ++g) runtime->executor()->run(inputs);
    ke.push_back(1000.0 * msSince(start) / static_cast<double>(groups));
  }
  mf::cuda::timeOnStreamMs([] {});
  fmt::print("hot: KernelExecutor::run of the first segment {:.2f} us per launch\n", median(ke));
  // The pieces of a segment's host work, each alone, per call (hot mode only).
  if (calls > 1000) {
    auto perCall = [](auto&& fn) {
      for (int i = 0; i < 1000; ++i) fn();
      const Clock::time_point start = Clock::now();
      for (int i = 0; i < 100000; ++i) fn();
      return 1000.0 * msSince(start) / 100000.0;
    };
    const mf::Tensor& x = inputs[0];
    const double alloc_us = perCall([] {
      mf::Tensor t = mf::Tensor::emptyStrided({64, 1000}, {1000, 1}, 64000, mf::DataType::Float,
                                              mf::Device::Cuda);
    });
    const double copy_us = perCall([&] { mf::Tensor c = x; });
    std::vector<int64_t> key;
    const std::vector<mf::Tensor> two = {x, x};
    const double sig_us = perCall([&] { mf::launchSignature(two, {}, key); });
    fmt::print(
        "hot: pieces (us per call): device tensor alloc+free {:.3f}, tensor copy {:.3f}, "
        "launch signature of 2 inputs {:.3f}\n",
        alloc_us, copy_us, sig_us);
  }
  const double per_segment = host_us / static_cast<double>(groups);
  fmt::print(
      "hot segset N={}: {} groups, cached call host {:.1f} us ({:.2f} us per segment), bare "
      "launch {:.2f} us, overhead {:.2f} us per segment beyond a bare launch (target 0.5: "
      "{})\n",
      n, groups, host_us, per_segment, bare_us, per_segment - bare_us,
      per_segment - bare_us <= 0.5 ? "met" : "missed");
}

}  // namespace

int main(int argc, char** argv) {
  setenv("MINIFUSER_CACHE_DIR", "", 1);  // before minifuser reads its options
  std::vector<int> sizes;
  std::vector<std::string> shapes;
  bool hot = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "hot") {  // only the hot path, 20,000 calls (for a profiler)
      hot = true;
    } else if (arg == "chain" || arg == "reduce" || arg == "segset") {
      shapes.push_back(arg);
    } else if (const int n = std::atoi(arg.c_str()); n > 0) {
      sizes.push_back(n);
    } else {
      fmt::print(stderr, "usage: compile_scale [hot] [chain|reduce|segset ...] [N ...]\n");
      return 2;
    }
  }
  if (sizes.empty()) sizes = {50, 100, 200, 400, 800};
  if (shapes.empty()) shapes = {"chain", "reduce", "segset"};
  const std::vector<mf::Tensor> inputs = {mf::Tensor::random({64, 1000}, mf::DataType::Float, 1)};
  fmt::print("{:<7} {:>5} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>6} {:>8}\n",
             "shape", "N", "first ms", "passes", "segment", "heurist", "schedule", "lower",
             "codegen", "nvrtc", "reference", "groups", "kernels");
  for (const std::string& shape : hot ? std::vector<std::string>{} : shapes) {
    std::map<int, Row> rows;
    for (int n : sizes) {
      // The median of three runs, phase by phase (a 2-core machine's timings are noisy).
      std::vector<Row> runs;
      for (int variant = 0; variant < 3; ++variant)
        runs.push_back(measure(shape, n, inputs, variant));
      Row r = runs[0];
      for (double Row::*field :
           {&Row::first_run, &Row::passes, &Row::segment, &Row::heuristics, &Row::schedule,
            &Row::lower, &Row::codegen, &Row::nvrtc, &Row::reference}) {
        r.*field = median({runs[0].*field, runs[1].*field, runs[2].*field});
      }
      rows[n] = r;
      fmt::print(
          "{:<7} {:>5} {:>9.1f} {:>8.1f} {:>8.1f} {:>8.1f} {:>8.1f} {:>8.1f} {:>8.1f} {:>8.1f} "
          "{:>9.1f} {:>6} {:>3}+{:<3}\n",
          shape, n, r.first_run, r.passes, r.segment, r.heuristics, r.schedule, r.lower, r.codegen,
          r.nvrtc, r.reference, r.groups, r.compiled, r.reused);
      std::fflush(stdout);
    }
    // Growth per doubling of N between the smallest and the largest size.
    if (rows.size() < 2) continue;
    const Row& a = rows.begin()->second;
    const Row& b = rows.rbegin()->second;
    const double doublings = std::log2(static_cast<double>(rows.rbegin()->first) /
                                       static_cast<double>(rows.begin()->first));
    auto growth = [&](double x, double y) {
      return x > 0 && y > 0 ? std::pow(y / x, 1.0 / doublings) : 0.0;
    };
    fmt::print(
        "{:<7} {:>5} {:>9.2f} {:>8.2f} {:>8.2f} {:>8.2f} {:>8.2f} {:>8.2f} {:>8.2f} {:>8.2f} "
        "{:>9.2f}   (growth per doubling of N)\n",
        shape, "x2", growth(a.first_run, b.first_run), growth(a.passes, b.passes),
        growth(a.segment, b.segment), growth(a.heuristics, b.heuristics),
        growth(a.schedule, b.schedule), growth(a.lower, b.lower), growth(a.codegen, b.codegen),
        growth(a.nvrtc, b.nvrtc), growth(a.reference, b.reference));
  }
  if (mf::cuda::cudaAvailable()) measureHotPath(400, hot ? 20000 : 200);
  return 0;
}
