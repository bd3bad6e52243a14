// Times minifuser's inner persistent scheduler (FusionExecutorCache, device inputs) on the
// issue's normalizations of bf16 [32Ki, 4Ki]: softmax over the last axis and RMS norm
// x * rsqrt(mean(x^2) + eps) * w. Each fusion is first checked against the CPU reference on
// [1000, 4096], and must run as one InnerPersistent kernel. Prints, for compare_persistent.py:
//   case <name> <median kernel us> <bytes moved>
// where the bytes are the inputs read once and the output written once.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>

#include "bench_utils.h"
#include "cuda/driver.h"
#include "minifuser/minifuser.h"
#include "unit/scheduler/normalization_fusions.h"

namespace {

using mf::DataType;

struct Case {
  std::string name;
  void (*build)(mf::Fusion&, DataType);
};

void softmax(mf::Fusion& f, DataType t) {
  mf::testing::buildSoftmax(f, t);
}
void rmsNorm(mf::Fusion& f, DataType t) {
  mf::testing::buildRmsNorm(f, t);
}

std::unique_ptr<mf::Fusion> makeFusion(const Case& c) {
  auto fusion = std::make_unique<mf::Fusion>();
  mf::FusionGuard fg(fusion.get());
  c.build(*fusion, DataType::BFloat16);
  return fusion;
}

// The row and, for the RMS norm, the weight: bf16, on the device.
std::vector<mf::Tensor> inputs(mf::Fusion& fusion, int64_t rows, int64_t row, uint64_t seed) {
  std::vector<mf::Tensor> in = {
      mf::Tensor::random({rows, row}, DataType::BFloat16, seed).toDevice()};
  if (fusion.inputs().size() > 1)
    in.push_back(mf::Tensor::random({row}, DataType::BFloat16, seed + 1).toDevice());
  return in;
}

// One InnerPersistent kernel whose outputs match the reference (two bf16 ulps) on [1000, row].
bool checkSmall(const Case& c, int64_t row) {
  mf::FusionExecutorCache fec(makeFusion(c));
  std::vector<mf::Tensor> in = inputs(*fec.fusion(), 1000, row, 7);
  mf::Tensor out = fec.runFusionWithInputs(in)[0].toHost();
  mf::Tensor ref = mf::ReferenceEvaluator(fec.fusion()).run(in)[0];
  mf::FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
  if (rt->isSegmented() ||
      rt->heuristics().at(0)->schedulerType() != mf::SchedulerType::InnerPersistent) {
    fmt::print(stderr, "persistent_bench: {} is not one InnerPersistent kernel\n", c.name);
    return false;
  }
  return mf::bench::matchesReference("persistent_bench", c.name, out, ref, 1.0 / 64);
}

}  // namespace

int main() {
  if (!mf::cuda::cudaAvailable()) {
    fmt::print(stderr, "persistent_bench: no GPU ({}); nothing to time\n",
               mf::cuda::noDeviceReason());
    return 0;
  }
  const int64_t m = 32 * 1024, n = 4 * 1024;
  for (const Case& c : {Case{"softmax_bf16", softmax}, Case{"rms_norm_bf16", rmsNorm}}) {
    if (!checkSmall(c, n)) return 1;
    mf::FusionExecutorCache fec(makeFusion(c));
    std::vector<mf::Tensor> in = inputs(*fec.fusion(), m, n, 100);
    std::vector<mf::Tensor> out = fec.runFusionWithInputs(in);
    int64_t bytes = out[0].numel() * mf::dataTypeSize(out[0].dtype());
    for (const mf::Tensor& t : in) bytes += t.numel() * mf::dataTypeSize(t.dtype());
    const double us = mf::bench::medianUs([&] { fec.runFusionWithInputs(in); });
    fmt::print(stderr, "{}: {}\n", c.name,
               fec.getMostRecentKernelRuntime()->heuristics().at(0)->toString());
    fmt::print("case {} {:.2f} {}\n", c.name, us, bytes);
    std::fflush(stdout);
  }
  return 0;
}
