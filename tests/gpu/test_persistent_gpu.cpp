// The inner persistent scheduler on the GPU: softmax, log-softmax, RMS norm, layer norm and
// NVFP4's block scaling through FusionExecutorCache against the CPU reference, with fresh
// random inputs (host and device), poisoned outputs, one row and many, prime row lengths (no
// vectors, idle threads), rows that take one thread and rows longer than a block's threads.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "cuda/driver.h"
#include "minifuser.h"
#include "unit/scheduler/normalization_fusions.h"

namespace mf {
namespace {

using BuildFn = void (*)(Fusion&, DataType);

struct GpuCase {
  std::string name;
  BuildFn build;
  DataType dtype;
  //! Row lengths to run, each at 1, 7 and 131 rows; for the block scale ([M, G, 16], rows of
  //! 16) the numbers of groups G.
  std::vector<int64_t> lengths;
  bool block_scale = false;
};

void softmax(Fusion& f, DataType t) {
  testing::buildSoftmax(f, t);
}
void rmsNorm(Fusion& f, DataType t) {
  testing::buildRmsNorm(f, t);
}
void layerNorm(Fusion& f, DataType t) {
  testing::buildLayerNorm(f, t);
}

class PersistentGpu : public ::testing::TestWithParam<GpuCase> {
 protected:
  void SetUp() override {
    if (!cuda::cudaAvailable()) GTEST_SKIP() << cuda::noDeviceReason();
  }
};

// bf16 outputs: within two bf16 ulps of the reference (rounded once from exact math); float:
// 1e-5 relative plus the sums' rounding over the row.
double tolerance(DataType t, int64_t row) {
  return t == DataType::BFloat16 ? 1.0 / 64 : 1e-5 + 1e-7 * static_cast<double>(row);
}

TEST_P(PersistentGpu, MatchesReference) {
  const GpuCase& c = GetParam();
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    c.build(*fusion, c.dtype);
  }
  FusionExecutorCache fec(std::move(fusion));
  uint64_t seed = 1;
  for (int64_t row : c.lengths) {
    for (int64_t m : {1, 7, 131}) {
      for (bool device : {false, true}) {
        std::vector<int64_t> shape =
            c.block_scale ? std::vector<int64_t>{m, row, 16} : std::vector<int64_t>{m, row};
        std::vector<Tensor> in = {Tensor::random(shape, c.dtype, seed++)};
        for (size_t i = 1; i < fec.fusion()->inputs().size(); ++i)
          in.push_back(Tensor::random({shape.back()}, c.dtype, seed++));
        std::vector<Tensor> ref = ReferenceEvaluator(fec.fusion()).run(in);
        if (device)
          for (Tensor& t : in) t = t.toDevice();
        std::vector<Tensor> out = fec.runFusionWithInputs(in, {.poison_outputs = true});
        FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
        ASSERT_FALSE(rt->isSegmented());
        ASSERT_EQ(rt->heuristics().at(0)->schedulerType(), SchedulerType::InnerPersistent);
        Tensor got = out.at(0).toHost();
        ASSERT_EQ(got.sizes(), ref[0].sizes());
        const double tol = tolerance(c.dtype, shape.back());
        for (int64_t i = 0; i < ref[0].numel(); ++i) {
          const double a = got.item(i), b = ref[0].item(i);
          ASSERT_LE(std::abs(a - b), tol * (1 + std::abs(b)))
              << c.name << " [" << m << ", " << row << "] device=" << device << " element " << i
              << ": " << a << " vs " << b << "\n"
              << rt->heuristics().at(0)->toString();
        }
      }
    }
  }
}

// Row lengths: 1; 13 and 16 (a thread per row); 127 and 1031 (primes: element-wise loads,
// idle threads); 4096 (a block of 128 threads x 4 vectors); 16384 (1024 threads).
INSTANTIATE_TEST_SUITE_P(
    Normalizations, PersistentGpu,
    ::testing::Values(
        GpuCase{"softmax_float", softmax, DataType::Float, {1, 13, 127, 1031, 4096, 16384}},
        GpuCase{"softmax_bf16", softmax, DataType::BFloat16, {16, 1031, 4096, 16384}},
        GpuCase{"log_softmax_float", testing::buildLogSoftmax, DataType::Float, {13, 1031, 4096}},
        GpuCase{"rms_norm_bf16", rmsNorm, DataType::BFloat16, {16, 127, 4096}},
        GpuCase{"rms_norm_float", rmsNorm, DataType::Float, {1, 1031, 8192}},
        GpuCase{"layer_norm_bf16", layerNorm, DataType::BFloat16, {13, 768, 4096}},
        GpuCase{"block_scale_bf16",
                testing::buildBlockScale,
                DataType::BFloat16,
                {1, 5, 512},
                /*block_scale=*/true},
        GpuCase{"block_scale_float",
                testing::buildBlockScale,
                DataType::Float,
                {3, 64},
                /*block_scale=*/true}),
    [](const ::testing::TestParamInfo<GpuCase>& info) { return info.param.name; });

}  // namespace
}  // namespace mf
