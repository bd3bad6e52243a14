// The shape-op fusions of tests/unit/scheduler/shape_fusions.h on the GPU through
// FusionExecutorCache, host and device inputs, outputs poisoned, against the CPU reference bit
// for bit (the ops copy and the math is exact in both); the benchmark fusion at a larger size.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cuda/driver.h"
#include "minifuser.h"
#include "unit/scheduler/shape_fusions.h"

namespace mf {
namespace {

void expectSame(const std::vector<Tensor>& got, const std::vector<Tensor>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < want.size(); ++o) {
    Tensor g = got[o].toHost();
    ASSERT_EQ(g.sizes(), want[o].sizes()) << "output " << o;
    for (int64_t i = 0; i < want[o].numel(); ++i)
      ASSERT_EQ(g.item(i), want[o].item(i)) << "output " << o << " element " << i;
  }
}

class ShapeOpsGpu : public ::testing::TestWithParam<ShapeCase> {
 protected:
  void SetUp() override {
    if (!cuda::cudaAvailable()) GTEST_SKIP() << cuda::noDeviceReason();
  }
};

TEST_P(ShapeOpsGpu, MatchesReference) {
  const ShapeCase& c = GetParam();
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    c.build(*fusion);
  }
  FusionExecutorCache fec(std::move(fusion));
  for (bool device : {false, true}) {
    std::vector<Tensor> in = randomInputs(c, device ? 11 : 3);
    std::vector<Tensor> want = ReferenceEvaluator(fec.fusion()).run(in);
    if (device) {
      for (Tensor& t : in) t = t.toDevice();
    }
    expectSame(fec.runFusionWithInputs(in, {.poison_outputs = true}), want);
    if (c.refused.empty()) {
      EXPECT_FALSE(fec.getMostRecentKernelRuntime()->isSegmented());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fusions, ShapeOpsGpu, ::testing::ValuesIn(shapeCases()),
                         [](const auto& info) { return info.param.name; });

// reshape(x * 2, [M, N] -> [4M, N/4]) + bias[N/4] at sizes with a non-divisible grid.
TEST(ShapeOpsGpuBenchmark, ReshapeBiasAdd) {
  if (!cuda::cudaAvailable()) GTEST_SKIP() << cuda::noDeviceReason();
  for (auto [m, n] : std::vector<std::pair<int64_t, int64_t>>{{4096, 1024}, {1031, 4096}}) {
    auto fusion = std::make_unique<Fusion>();
    {
      FusionGuard fg(fusion.get());
      TensorView* x = makeContigTensor(2);
      TensorView* bias = makeContigTensor(1);
      fusion->addInput(x);
      fusion->addInput(bias);
      TensorView* y = reshape(mul(x, constFloat(2.0)), {m, n}, {4 * m, n / 4});
      fusion->addOutput(add(y, broadcast(bias, {true, false})));
    }
    FusionExecutorCache fec(std::move(fusion));
    std::vector<Tensor> in = {Tensor::random({m, n}, DataType::Float, 1).toDevice(),
                              Tensor::random({n / 4}, DataType::Float, 2).toDevice()};
    std::vector<Tensor> want =
        ReferenceEvaluator(fec.fusion()).run({in[0].toHost(), in[1].toHost()});
    expectSame(fec.runFusionWithInputs(in, {.poison_outputs = true}), want);
    EXPECT_FALSE(fec.getMostRecentKernelRuntime()->isSegmented());
    EXPECT_THAT(fec.getMostRecentCode(), ::testing::HasSubstr("mf_vectorCopy"));
  }
}

}  // namespace
}  // namespace mf
