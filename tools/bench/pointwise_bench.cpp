// Times minifuser's automatic pointwise path (FusionExecutorCache, device inputs) on the
// issue's four cases, checks each fusion against the CPU reference on a small problem first, and
// prints one line per case for compare_pointwise.py:
//   case <name> <median kernel us> <bytes moved>
// It also prints the host overhead of a cached run (wall time per call of a bare
// cuLaunchKernel, KernelExecutor::run and FusionExecutorCache::runFusionWithInputs of the
// same 1-element kernel, and FEC minus bare against the 3 us target) and the cold time of a
// first run (schedule, lower, NVRTC) with the disk cache off, as "overhead ..." and
// "cold ..." lines. `--overhead-only` prints the "overhead ..." line alone
// (tools/bench/python_overhead.py compares the Python frontend's execute with it).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string_view>

#include "bench_utils.h"
#include "cuda/driver.h"
#include "cuda/kernel_cache.h"
#include "cuda/module.h"
#include "minifuser/minifuser.h"

namespace {

using mf::DataType;
using mf::TensorView;
using mf::bench::medianUs;

struct Case {
  std::string name;
  std::vector<std::vector<int64_t>> shapes;
  DataType dtype;
  std::function<TensorView*(std::vector<TensorView*>&)> build;
};

std::unique_ptr<mf::Fusion> makeFusion(const Case& c) {
  auto fusion = std::make_unique<mf::Fusion>();
  mf::FusionGuard fg(fusion.get());
  std::vector<TensorView*> ins;
  for (const auto& s : c.shapes) {
    std::vector<int64_t> sym;
    for (int64_t e : s) sym.push_back(e == 1 ? 1 : -1);
    ins.push_back(mf::TensorViewBuilder().shape(sym).dtype(c.dtype).contiguity(true).build());
    fusion->addInput(ins.back());
  }
  fusion->addOutput(c.build(ins));
  return fusion;
}

TensorView* geluTanh(TensorView* x, TensorView* y) {
  TensorView* v = mf::mul(mf::castOp(DataType::Float, x), mf::castOp(DataType::Float, y));
  TensorView* cube = mf::mul(mf::mul(v, v), v);
  TensorView* inner = mf::mul(mf::add(v, mf::mul(cube, mf::constFloat(0.044715))),
                              mf::constFloat(std::sqrt(2.0 / M_PI)));
  TensorView* g =
      mf::mul(mf::mul(v, mf::constFloat(0.5)), mf::add(mf::tanh(inner), mf::constFloat(1.0)));
  return mf::castOp(DataType::BFloat16, g);
}

// The fusion's outputs on a small problem of the same shape kinds, against the reference.
bool checkSmall(const Case& c) {
  mf::FusionExecutorCache fec(makeFusion(c));
  std::vector<mf::Tensor> inputs;
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    std::vector<int64_t> small;
    for (int64_t e : c.shapes[i]) small.push_back(e == 1 ? 1 : (e > 4096 ? 1000 + 3 : e / 64));
    inputs.push_back(mf::Tensor::random(small, c.dtype, 7 + i).toDevice());
  }
  mf::Tensor out = fec.runFusionWithInputs(inputs)[0].toHost();
  mf::Tensor ref = mf::ReferenceEvaluator(fec.fusion()).run(inputs)[0];
  return mf::bench::matchesReference("pointwise_bench", c.name, out, ref, 1e-2);
}

}  // namespace

int main(int argc, char** argv) {
  const bool overhead_only = argc > 1 && std::string_view(argv[1]) == "--overhead-only";
  if (!mf::cuda::cudaAvailable()) {
    fmt::print(stderr, "pointwise_bench: no GPU ({}); nothing to time\n",
               mf::cuda::noDeviceReason());
    return 0;
  }
  const int64_t big = int64_t{128} << 20, m = 32 * 1024, n = 4 * 1024;
  std::vector<Case> cases = {
      {"add_mul_fp32",
       {{big}, {big}},
       DataType::Float,
       [](auto& in) { return mf::mul(mf::add(in[0], in[1]), mf::constFloat(2.0)); }},
      {"gelu_bf16",
       {{big}, {big}},
       DataType::BFloat16,
       [](auto& in) { return geluTanh(in[0], in[1]); }},
      {"bias_relu_fp32",
       {{m, n}, {n}},
       DataType::Float,
       [](auto& in) {
         return mf::relu(mf::add(in[0], mf::broadcast(in[1], {true, false})));
       }},
      {"col_mul_fp32",
       {{m, n}, {m, 1}},
       DataType::Float,
       [](auto& in) { return mf::mul(in[0], in[1]); }},
  };
  for (const Case& c : cases) {
    if (overhead_only) break;
    if (!checkSmall(c)) return 1;
    mf::FusionExecutorCache fec(makeFusion(c));
    std::vector<mf::Tensor> inputs;
    int64_t bytes = 0;
    for (size_t i = 0; i < c.shapes.size(); ++i) {
      inputs.push_back(mf::Tensor::random(c.shapes[i], c.dtype, 100 + i).toDevice());
      bytes += inputs.back().numel() * mf::dataTypeSize(c.dtype);
    }
    std::vector<mf::Tensor> out = fec.runFusionWithInputs(inputs);
    bytes += out[0].numel() * mf::dataTypeSize(out[0].dtype());
    const double us = medianUs([&] { fec.runFusionWithInputs(inputs); });
    fmt::print("case {} {:.2f} {}\n", c.name, us, bytes);
    std::fflush(stdout);
  }

  // Host overhead of a cached run on a 1-element problem (the kernel is tiny, so the launch
  // queue never fills and wall time is host time): wall time per call over 2000
  // back-to-back calls after 100 warm-up calls, one synchronization at the end included,
  // nothing subtracted. Three ways to launch the same kernel: the driver call alone with
  // prepacked arguments (bare), KernelExecutor::run, FusionExecutorCache::runFusionWithInputs.
  {
    constexpr double kTargetUs = 3.0;
    mf::FusionExecutorCache fec(makeFusion(cases[0]));  // symbolic extents, run at size 1
    std::vector<mf::Tensor> inputs = {mf::Tensor::random({1}, DataType::Float, 1).toDevice(),
                                      mf::Tensor::random({1}, DataType::Float, 2).toDevice()};
    fec.runFusionWithInputs(inputs);
    auto wallUs = [](const std::function<void()>& fn) {
      for (int i = 0; i < 100; ++i) fn();
      mf::cuda::timeOnStreamMs([] {});
      auto t0 = std::chrono::steady_clock::now();
      const int iters = 2000;
      for (int i = 0; i < iters; ++i) fn();
      mf::cuda::timeOnStreamMs([] {});
      return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                 .count() /
             iters;
    };
    mf::KernelExecutor* ke = fec.getMostRecentKernelRuntime()->executor();
    const double bare_us = ke->benchmarkBareLaunchUs(inputs);
    const double ke_us = wallUs([&] { ke->run(inputs); });
    const double fec_us = wallUs([&] { fec.runFusionWithInputs(inputs); });
    fmt::print(
        "overhead bare_launch_us {:.2f} kernel_executor_run_us {:.2f} fec_call_us {:.2f} "
        "fec_minus_bare_us {:.2f} target_us {:.2f} {}\n",
        bare_us, ke_us, fec_us, fec_us - bare_us, kTargetUs,
        fec_us - bare_us <= kTargetUs ? "met" : "missed");
    std::fflush(stdout);
  }
  if (overhead_only) return 0;

  // Cold first run (schedule, lower, codegen, NVRTC) with the disk cache off.
  {
    mf::OptionsGuard guard;
    guard.get().cache_dir.clear();
    Case c = cases[1];
    c.shapes = {{4096}, {4096}};
    auto fusion = makeFusion(c);
    std::vector<mf::Tensor> inputs = {mf::Tensor::random({4096}, DataType::BFloat16, 1).toDevice(),
                                      mf::Tensor::random({4096}, DataType::BFloat16, 2).toDevice()};
    mf::cuda::clearMemoryCache();
    auto t0 = std::chrono::steady_clock::now();
    mf::FusionExecutorCache fec(std::move(fusion));
    fec.runFusionWithInputs(inputs)[0].toHost();
    fmt::print(
        "cold first_run_ms {:.1f}\n",
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return 0;
}
