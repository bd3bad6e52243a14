// GPU: nvFuser's hand-scheduled reduction tests, ported (unit/lower/nvfuser_lowering_schedules.h:
// grid reductions across blockIdx.x and .y, block reductions over any blockDim.x, thread-bound
// iteration axes after reduction axes, Unswitch, Group and groupReductions) on the device
// against the CPU reference, with poisoned outputs and a second run bitwise equal (the grid
// reductions are deterministic). The CPU suite runs the same schedules on the host interpreter.
#include <gtest/gtest.h>

#include "cuda/driver.h"
#include "unit/lower/nvfuser_lowering_schedules.h"

namespace mf {
namespace {

class LoweringPortsGpu : public ::testing::TestWithParam<testing::LoweringPort> {
 protected:
  void SetUp() override {
    if (!cuda::cudaAvailable()) GTEST_SKIP() << cuda::noDeviceReason();
  }
};

TEST_P(LoweringPortsGpu, MatchesReference) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  GetParam().build(fusion);
  std::vector<Tensor> in;
  uint64_t seed = 11;
  int64_t terms = 1;
  for (const auto& s : GetParam().sizes) {
    in.push_back(Tensor::random(s, DataType::Float, seed++));
    for (int64_t n : s) terms = std::max(terms, n);
  }
  const std::vector<Tensor> want = ReferenceEvaluator(testing::definedFusion().get()).run(in);
  KernelExecutor ke;
  ke.compile(&fusion, in);
  const std::vector<Tensor> first = ke.run(in, {.poison_outputs = true});
  const std::vector<Tensor> second = ke.run(in, {.poison_outputs = true});
  for (size_t i = 0; i < want.size(); ++i) {
    const Tensor got = first.at(i).toHost();
    const Tensor again = second.at(i).toHost();
    testing::checkAgainstReference(got, want[i], terms, fmt::format("output {}", i));
    for (int64_t k = 0; k < got.numel(); ++k) ASSERT_EQ(got.item(k), again.item(k)) << k;
  }
}

INSTANTIATE_TEST_SUITE_P(, LoweringPortsGpu, ::testing::ValuesIn(testing::loweringPorts()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace mf
