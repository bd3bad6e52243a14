// Times minifuser's layout-op kernels (preprocessGroupedMatmulInputSf) on docs/layout_op.md's
// benchmark cases, fp8 (byte) scale factors, in two schedules: scatter (nvFuser's
// ManualKernel: loops over logical [M, K], one row per block, one element per thread) and
// gather (loops over the padded buffer, 16 bytes per thread, 256 threads per block). Prints
// one line per case:
//   case <scatter|gatherN> G M K median_us
// tools/bench/run_benchmarks.sh feeds these lines to compare_layout_op.py, which times
// memcpy, PyTorch eager and torch.compile on the same device and prints the ratios.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "cuda/driver.h"
#include "minifuser/minifuser.h"

namespace {

struct Case {
  int64_t g, m, k;
};

// Random group sizes summing to m (some groups may be empty), with their offsets.
std::pair<mf::Tensor, mf::Tensor> offsets(int64_t g, int64_t m, uint64_t seed) {
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

double median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main() {
  if (!mf::cuda::cudaAvailable()) {
    fmt::print(stderr, "layout_op_bench: no GPU ({}); nothing to time\n",
               mf::cuda::noDeviceReason());
    return 0;
  }
  const Case cases[] = {{8, 8192, 448}, {32, 65536, 448}, {128, 262144, 448}, {8, 1 << 20, 512}};
  // Forms: scatter, then gather with 256 threads per block (128 and 1024 measured no better:
  // docs/layout_op.md).
  for (int threads : {0, 256})
    for (const Case& c : cases) {
      const bool gather = threads > 0;
      mf::Fusion fusion;
      mf::FusionGuard fg(&fusion);
      mf::TensorView* in = mf::makeContigTensor(2, mf::DataType::Float8_e4m3fn);
      mf::TensorView* in_off = mf::makeContigTensor(1, mf::DataType::Int32);
      mf::TensorView* out_off = mf::makeContigTensor(1, mf::DataType::Int32);
      fusion.addInput(in);
      fusion.addInput(in_off);
      fusion.addInput(out_off);
      mf::TensorView* out = mf::preprocessGroupedMatmulInputSf(in, in_off, out_off);
      fusion.addOutput(out);
      if (gather) {
        // Loops over the padded buffer: 16 bytes per thread.
        out->setLoopDomain(out->getMaybeAllocationDomain());
        out->merge(0)->split(0, 16)->split(0, threads);
        out->axis(2)->parallelize(mf::ParallelType::Vectorize);
      }
      out->axis(0)->parallelize(mf::ParallelType::BIDx);
      out->axis(1)->parallelize(mf::ParallelType::TIDx);
      auto [io, oo] = offsets(c.g, c.m, 7);
      std::vector<mf::Tensor> inputs = {
          mf::Tensor::random({c.m, c.k}, mf::DataType::Float8_e4m3fn, 1), io, oo};
      mf::KernelExecutor ke;
      ke.compile(&fusion, inputs);
      // Correctness before speed: every logical element must match the CPU reference.
      mf::Tensor gpu = ke.run(inputs, {.zero_fill_layout_pads = true})[0];
      mf::Tensor ref = mf::ReferenceEvaluator(&fusion).run(inputs)[0];
      for (int64_t p = 0; p < ref.allocationNumel(); ++p)
        if (gpu.allocationItem(p) != ref.allocationItem(p) &&
            !(std::isnan(gpu.allocationItem(p)) && std::isnan(ref.allocationItem(p)))) {
          fmt::print(stderr, "layout_op_bench: G={} M={} K={}: wrong result at {}\n", c.g, c.m, c.k,
                     p);
          return 1;
        }
      double us = 1000.0 * median(ke.benchmark(inputs, 10, 100));
      std::string form = gather ? fmt::format("gather{}", threads) : "scatter";
      fmt::print("case {} {} {} {} {:.2f}\n", form, c.g, c.m, c.k, us);
      std::fflush(stdout);
    }
  return 0;
}
