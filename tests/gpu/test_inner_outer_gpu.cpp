// The inner-outer persistent scheduler on the GPU: layer norm and RMS norm backward (dx and
// the column sums dw, db) through FusionExecutorCache against the CPU reference, with fresh
// random inputs (host and device), poisoned outputs, fp32 and bf16, rows of 1 to 16Ki
// elements (primes and lengths that are no multiple of the vector), 1 row and more rows than
// the grid's blocks take at once; a second run gives bitwise the same column sums (the grid
// reduction adds the blocks' partial sums in a fixed order). Rows whose registers do not fit
// (16Ki) run as the segmenter's fallback kernels, checked the same way.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

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
  std::vector<int64_t> lengths;  //!< row lengths, each at 1, 7 and 1031 rows
};

class InnerOuterGpu : public ::testing::TestWithParam<GpuCase> {
 protected:
  void SetUp() override {
    if (!cuda::cudaAvailable()) GTEST_SKIP() << cuda::noDeviceReason();
  }
};

std::vector<Tensor> inputs(const GpuCase& c, int64_t m, int64_t n, uint64_t& seed) {
  std::vector<Tensor> in = {Tensor::random({m, n}, c.dtype, seed++),
                            Tensor::random({m, n}, c.dtype, seed++)};
  if (c.build == testing::buildLayerNormBackward)
    in.push_back(Tensor::random({m}, DataType::Float, seed++));
  in.push_back(Tensor::random({m}, DataType::Float, seed++));
  in.push_back(Tensor::random({n}, c.dtype, seed++));
  return in;
}

// dx in bf16: two bf16 ulps of the reference's (rounded once); float dx: 1e-5 relative plus
// the row sums' rounding; the column sums add m products in another order.
double tolerance(DataType t, size_t output, int64_t m, int64_t n) {
  if (output == 0) return t == DataType::BFloat16 ? 1.0 / 64 : 1e-5 + 1e-7 * static_cast<double>(n);
  return 1e-5 + 1e-7 * static_cast<double>(m);
}

TEST_P(InnerOuterGpu, MatchesReference) {
  const GpuCase& c = GetParam();
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    c.build(*fusion, c.dtype);
  }
  FusionExecutorCache fec(std::move(fusion));
  uint64_t seed = 1;
  for (int64_t n : c.lengths) {
    for (int64_t m : {1, 7, 1031}) {
      for (bool device : {false, true}) {
        std::vector<Tensor> in = inputs(c, m, n, seed);
        std::vector<Tensor> ref = ReferenceEvaluator(fec.fusion()).run(in);
        if (device)
          for (Tensor& t : in) t = t.toDevice();
        std::vector<Tensor> out = fec.runFusionWithInputs(in, {.poison_outputs = true});
        FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
        // Longer rows need more registers than a row may take (24 bytes per element for
        // layer norm, 20 for RMS norm): the segmenter's fallback kernels.
        if (n <= 4096) {
          ASSERT_FALSE(rt->isSegmented()) << rt->fusionSegments()->toString();
          ASSERT_EQ(rt->heuristics().at(0)->schedulerType(), SchedulerType::InnerOuterPersistent);
        }
        ASSERT_EQ(out.size(), ref.size());
        for (size_t o = 0; o < ref.size(); ++o) {
          Tensor got = out[o].toHost();
          ASSERT_EQ(got.sizes(), ref[o].sizes());
          const double tol = tolerance(c.dtype, o, m, n);
          for (int64_t i = 0; i < ref[o].numel(); ++i) {
            const double a = got.item(i), b = ref[o].item(i);
            ASSERT_LE(std::abs(a - b), tol * (1 + std::abs(b)))
                << c.name << " [" << m << ", " << n << "] device=" << device << " output " << o
                << " element " << i << ": " << a << " vs " << b << "\n"
                << rt->heuristics().at(0)->toString();
          }
        }
        // Deterministic: a second run's column sums are bitwise the first's.
        std::vector<Tensor> again = fec.runFusionWithInputs(in, {.poison_outputs = true});
        for (size_t o = 1; o < out.size(); ++o) {
          Tensor a = out[o].toHost(), b = again[o].toHost();
          ASSERT_EQ(std::memcmp(a.rawData(), b.rawData(), static_cast<size_t>(a.nbytes())), 0)
              << c.name << " [" << m << ", " << n << "] output " << o << " differs between runs";
        }
      }
    }
  }
}

// Rows of 1; 31, 129 and 1031 (primes: element-wise loads, idle threads); 1000 (no multiple of
// 16 bytes of bf16); 4096 (the benchmark's); 16384 (falls back to segments).
INSTANTIATE_TEST_SUITE_P(Backward, InnerOuterGpu,
                         ::testing::Values(GpuCase{"layer_norm_float",
                                                   testing::buildLayerNormBackward,
                                                   DataType::Float,
                                                   {1, 31, 1031, 4096, 16384}},
                                           GpuCase{"layer_norm_bf16",
                                                   testing::buildLayerNormBackward,
                                                   DataType::BFloat16,
                                                   {1, 129, 1000, 4096, 16384}},
                                           GpuCase{"rms_norm_float",
                                                   testing::buildRmsNormBackward,
                                                   DataType::Float,
                                                   {1, 129, 1000, 4096, 16384}},
                                           GpuCase{"rms_norm_bf16",
                                                   testing::buildRmsNormBackward,
                                                   DataType::BFloat16,
                                                   {1, 31, 1031, 4096, 16384}}),
                         [](const ::testing::TestParamInfo<GpuCase>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace mf
