// The transpose scheduler on the GPU: the fusions of tests/unit/scheduler/transpose_fusions.h
// (permutes of rank 2 to 4 in fp32, bf16 and fp8 e4m3, pointwise ops before and after,
// outputs of both layouts) through FusionExecutorCache against the CPU reference, with fresh
// random inputs (host and device) and poisoned outputs. The sizes include 1, primes and
// extents that are not multiples of the tile (where smaller than a tile, the pointwise
// scheduler takes them); the registry's sizes run the transpose schedule.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "cuda/driver.h"
#include "minifuser.h"
#include "unit/scheduler/transpose_fusions.h"

namespace mf {
namespace {

using testing::TransposeCase;

class TransposeGpu : public ::testing::TestWithParam<TransposeCase> {
 protected:
  void SetUp() override {
    if (!cuda::cudaAvailable()) GTEST_SKIP() << cuda::noDeviceReason();
  }
};

// The kernels compute what the reference computes, in the same order and precision; the
// device's exp and sin may differ from the host's by an ulp (of float; then one rounding of
// the output's dtype the other way): float 1e-6 and bf16 1/64 relative, fp8 (whose cases
// only multiply and subtract) exact.
double tolerance(DataType t) {
  return t == DataType::Float ? 1e-6 : t == DataType::BFloat16 ? 1.0 / 64 : 0.0;
}

TEST_P(TransposeGpu, MatchesReference) {
  const TransposeCase& c = GetParam();
  std::vector<std::vector<std::vector<int64_t>>> runs = c.sizes;
  runs.push_back(c.registry_sizes);
  for (DataType t : c.dtypes) {
    auto fusion = std::make_unique<Fusion>();
    {
      FusionGuard fg(fusion.get());
      c.build(*fusion, t);
    }
    FusionExecutorCache fec(std::move(fusion));
    uint64_t seed = 1;
    for (size_t run = 0; run < runs.size(); ++run) {
      for (bool device : {false, true}) {
        std::vector<Tensor> in;
        for (const std::vector<int64_t>& sizes : runs[run])
          in.push_back(Tensor::random(sizes, t, seed++));
        std::vector<Tensor> ref = ReferenceEvaluator(fec.fusion()).run(in);
        if (device)
          for (Tensor& x : in) x = x.toDevice();
        std::vector<Tensor> out = fec.runFusionWithInputs(in, {.poison_outputs = true});
        FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
        ASSERT_FALSE(rt->isSegmented());
        if (run + 1 == runs.size()) {
          EXPECT_EQ(rt->heuristics().at(0)->schedulerType(), SchedulerType::Transpose);
        }
        ASSERT_EQ(out.size(), ref.size());
        for (size_t o = 0; o < ref.size(); ++o) {
          Tensor got = out[o].toHost();
          ASSERT_EQ(got.sizes(), ref[o].sizes());
          for (int64_t i = 0; i < ref[o].numel(); ++i)
            ASSERT_LE(std::abs(got.item(i) - ref[o].item(i)),
                      tolerance(t) * (1 + std::abs(ref[o].item(i))))
                << c.name << " " << toString(t) << " run " << run << " device=" << device
                << " output " << o << " element " << i << "\n"
                << rt->heuristics().at(0)->toString();
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fusions, TransposeGpu, ::testing::ValuesIn(testing::transposeCases()),
                         [](const ::testing::TestParamInfo<TransposeCase>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace mf
