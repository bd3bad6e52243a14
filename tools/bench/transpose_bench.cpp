// Times minifuser's transpose scheduler (FusionExecutorCache, device inputs) on the issue's
// workloads: fp32 x.t().contiguous() * 2 on [32Ki, 4Ki] and bf16
// (q.permute(0, 2, 1, 3) * 0.5).contiguous() on [8, 4096, 32, 128], and the bf16
// permute(0, 3, 2, 1) of the same q (its innermost axis moves). Each fusion is first checked
// against the CPU reference at a small size. The registry picks the scheduler (the permute
// (0, 2, 1, 3) keeps the innermost axis, so it goes to the pointwise scheduler), printed on
// stderr with its parameters. Prints, for compare_transpose.py:
//   case <name> <median kernel us> <bytes moved>
// where the bytes are the input read once and the output written once.
#include <fmt/format.h>

#include <cstdio>

#include "bench_utils.h"
#include "cuda/driver.h"
#include "minifuser/minifuser.h"
#include "unit/scheduler/transpose_fusions.h"

namespace {

using mf::DataType;

struct Case {
  std::string name;
  void (*build)(mf::Fusion&, DataType);
  DataType dtype;
  std::vector<int64_t> sizes;        // timed
  std::vector<int64_t> small_sizes;  // checked against the reference
};

std::unique_ptr<mf::Fusion> makeFusion(const Case& c) {
  auto fusion = std::make_unique<mf::Fusion>();
  mf::FusionGuard fg(fusion.get());
  c.build(*fusion, c.dtype);
  return fusion;
}

bool checkSmall(const Case& c) {
  mf::FusionExecutorCache fec(makeFusion(c));
  std::vector<mf::Tensor> in = {mf::Tensor::random(c.small_sizes, c.dtype, 7).toDevice()};
  mf::Tensor out = fec.runFusionWithInputs(in)[0].toHost();
  mf::Tensor ref = mf::ReferenceEvaluator(fec.fusion()).run(in)[0];
  return mf::bench::matchesReference("transpose_bench", c.name, out, ref, 0.0);
}

}  // namespace

int main() {
  if (!mf::cuda::cudaAvailable()) {
    fmt::print(stderr, "transpose_bench: no GPU ({}); nothing to time\n",
               mf::cuda::noDeviceReason());
    return 0;
  }
  const std::vector<Case> cases = {
      {"transpose_fp32", mf::testing::transpose2d, DataType::Float, {32768, 4096}, {1000, 520}},
      {"permute0213_bf16",
       mf::testing::permute0213,
       DataType::BFloat16,
       {8, 4096, 32, 128},
       {2, 100, 32, 128}},
      {"permute0321_bf16",
       mf::testing::permute4d,
       DataType::BFloat16,
       {8, 4096, 32, 128},
       {2, 100, 3, 128}},
  };
  for (const Case& c : cases) {
    if (!checkSmall(c)) return 1;
    mf::FusionExecutorCache fec(makeFusion(c));
    std::vector<mf::Tensor> in = {mf::Tensor::random(c.sizes, c.dtype, 100).toDevice()};
    std::vector<mf::Tensor> out = fec.runFusionWithInputs(in);
    const int64_t bytes = 2 * in[0].numel() * mf::dataTypeSize(c.dtype);
    const double us = mf::bench::medianUs([&] { fec.runFusionWithInputs(in); });
    mf::FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
    fmt::print(stderr, "{}: {} segment(s), {}\n", c.name, rt->isSegmented() ? "several" : "one",
               rt->heuristics().at(0)->toString());
    fmt::print("case {} {:.2f} {}\n", c.name, us, bytes);
    std::fflush(stdout);
  }
  return 0;
}
