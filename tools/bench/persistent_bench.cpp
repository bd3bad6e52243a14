// Times minifuser's persistent schedulers (FusionExecutorCache, device inputs) on the
// issue's normalizations of bf16 [32Ki, 4Ki]: softmax over the last axis, RMS norm
// x * rsqrt(mean(x^2) + eps) * w and residual add + RMS norm (h = x + r and rms_norm(h) * w,
// InnerPersistent), and layer norm backward (dx, dw, db from dy, x, mean, rstd, w;
// InnerOuterPersistent). Each fusion is first checked against the CPU reference on
// [1000, 4096], and must run as one kernel of its scheduler. Prints, for
// compare_persistent.py:
//   case <name> <median kernel us> <bytes moved>
// where the bytes are the inputs read once and the outputs written once.
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
  mf::SchedulerType scheduler;
};

void softmax(mf::Fusion& f, DataType t) {
  mf::testing::buildSoftmax(f, t);
}
void rmsNorm(mf::Fusion& f, DataType t) {
  mf::testing::buildRmsNorm(f, t);
}
void residualRmsNorm(mf::Fusion& f, DataType t) {
  mf::testing::buildResidualRmsNorm(f, t);
}

std::unique_ptr<mf::Fusion> makeFusion(const Case& c) {
  auto fusion = std::make_unique<mf::Fusion>();
  mf::FusionGuard fg(fusion.get());
  c.build(*fusion, DataType::BFloat16);
  return fusion;
}

// Random device inputs shaped by rank: [rows, row] in bf16; a rank-1 input is the row's
// weight (bf16), or a per-row float (layer norm backward's mean and rstd).
std::vector<mf::Tensor> inputs(mf::Fusion& fusion, int64_t rows, int64_t row, uint64_t seed) {
  std::vector<mf::Tensor> in;
  for (mf::Val* v : fusion.inputs()) {
    auto* tv = v->as<mf::TensorView>();
    const bool per_row = tv->dtype() == DataType::Float;
    std::vector<int64_t> shape = tv->nDims() == 2 ? std::vector<int64_t>{rows, row}
                                 : per_row        ? std::vector<int64_t>{rows}
                                                  : std::vector<int64_t>{row};
    in.push_back(mf::Tensor::random(shape, tv->dtype(), seed++).toDevice());
  }
  return in;
}

// One kernel of the case's scheduler whose outputs match the reference on [1000, row] (two
// bf16 ulps; the column sums of 1000 rows alike).
bool checkSmall(const Case& c, int64_t row) {
  mf::FusionExecutorCache fec(makeFusion(c));
  std::vector<mf::Tensor> in = inputs(*fec.fusion(), 1000, row, 7);
  std::vector<mf::Tensor> out = fec.runFusionWithInputs(in);
  std::vector<mf::Tensor> ref = mf::ReferenceEvaluator(fec.fusion()).run(in);
  mf::FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
  if (rt->isSegmented() || rt->heuristics().at(0)->schedulerType() != c.scheduler) {
    fmt::print(stderr, "persistent_bench: {} is not one {} kernel\n", c.name, c.scheduler);
    return false;
  }
  for (size_t i = 0; i < ref.size(); ++i)
    if (!mf::bench::matchesReference("persistent_bench", c.name, out[i].toHost(), ref[i], 1.0 / 64))
      return false;
  return true;
}

}  // namespace

int main() {
  if (!mf::cuda::cudaAvailable()) {
    fmt::print(stderr, "persistent_bench: no GPU ({}); nothing to time\n",
               mf::cuda::noDeviceReason());
    return 0;
  }
  const int64_t m = 32 * 1024, n = 4 * 1024;
  using mf::SchedulerType;
  for (const Case& c :
       {Case{"softmax_bf16", softmax, SchedulerType::InnerPersistent},
        Case{"rms_norm_bf16", rmsNorm, SchedulerType::InnerPersistent},
        Case{"residual_rms_norm_bf16", residualRmsNorm, SchedulerType::InnerPersistent},
        Case{"layer_norm_bwd_bf16", mf::testing::buildLayerNormBackward,
             SchedulerType::InnerOuterPersistent}}) {
    if (!checkSmall(c, n)) return 1;
    mf::FusionExecutorCache fec(makeFusion(c));
    std::vector<mf::Tensor> in = inputs(*fec.fusion(), m, n, 100);
    std::vector<mf::Tensor> out = fec.runFusionWithInputs(in);
    int64_t bytes = 0;
    for (const mf::Tensor& t : out) bytes += t.numel() * mf::dataTypeSize(t.dtype());
    for (const mf::Tensor& t : in) bytes += t.numel() * mf::dataTypeSize(t.dtype());
    const double us = mf::bench::medianUs([&] { fec.runFusionWithInputs(in); });
    fmt::print(stderr, "{}: {}\n", c.name,
               fec.getMostRecentKernelRuntime()->heuristics().at(0)->toString());
    fmt::print("case {} {:.2f} {}\n", c.name, us, bytes);
    std::fflush(stdout);
  }
  return 0;
}
