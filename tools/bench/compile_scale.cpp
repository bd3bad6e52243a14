// compile_scale [N ...]: what a FusionExecutorCache's first run costs as fusions grow (the
// compile-time issue's benchmark; no GPU needed). Three shapes on [64, 1000] floats, built
// from N ops each:
//   chain    mul by a constant, add the input, neg, in turn (one pointwise kernel)
//   reduce   the same, with a sum over the last axis broadcast back and added every 10 ops
//            (one persistent kernel)
//   segset   the chain with a segment_set every 5 ops (N / 5 groups; the math repeats every 15
//            ops, so 3 distinct kernels)
// For each shape and N (default 50 100 200 400 800) it prints the first run's wall time, the
// phases of making its runtime (FusionKernelRuntime::compileProfile: size passes,
// segmentation, heuristics, scheduling, lowering, codegen, NVRTC), the kernels NVRTC compiled
// and those the kernel cache served, and the CPU reference's time for the same inputs; then,
// per shape, each phase's growth per doubling of N. The disk kernel cache is off
// (MINIFUSER_CACHE_DIR=), so every run compiles what it has not compiled in this process.
// `compile_scale 8` runs as a ctest smoke test (no timing asserted).
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "minifuser/minifuser.h"

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// The shape's fusion of n ops on one [64, 1000] float input.
std::unique_ptr<mf::Fusion> build(const std::string& shape, int n) {
  auto fusion = std::make_unique<mf::Fusion>();
  mf::FusionGuard fg(fusion.get());
  mf::TensorView* x = mf::makeSymbolicTensor(2);
  fusion->addInput(x);
  mf::TensorView* t = x;
  for (int i = 0; i < n; ++i) {
    switch (i % 3) {
      case 0:
        t = mf::mul(t, mf::constFloat(1.0001));
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

Row measure(const std::string& shape, int n, const std::vector<mf::Tensor>& inputs) {
  Row r{};
  mf::FusionExecutorCache fec(build(shape, n));
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

}  // namespace

int main(int argc, char** argv) {
  setenv("MINIFUSER_CACHE_DIR", "", 1);  // before minifuser reads its options
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {50, 100, 200, 400, 800};
  const std::vector<mf::Tensor> inputs = {mf::Tensor::random({64, 1000}, mf::DataType::Float, 1)};
  fmt::print("{:<7} {:>5} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>6} {:>8}\n",
             "shape", "N", "first ms", "passes", "segment", "heurist", "schedule", "lower",
             "codegen", "nvrtc", "reference", "groups", "kernels");
  for (const std::string shape : {"chain", "reduce", "segset"}) {
    std::map<int, Row> rows;
    for (int n : sizes) {
      const Row r = measure(shape, n, inputs);
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
  return 0;
}
