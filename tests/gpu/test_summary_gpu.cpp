// GPU: the executor launches and binds arguments from the kernel summary.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cuda/driver.h"
#include "minifuser/minifuser.h"

namespace mf {
namespace {

// Regression: a fusion input that is also an output gave a kernel with T0 twice in its
// signature (an NVRTC error). The output is the input, as the reference returns it, and the
// other output is computed.
TEST(SummaryGpu, InputThatIsAnOutput) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  fusion.addOutput(t1);
  fusion.addOutput(t0);
  t1->split(0, 128);
  t1->axis(0)->parallelize(ParallelType::BIDx);
  t1->axis(1)->parallelize(ParallelType::TIDx);
  const std::vector<Tensor> inputs = {Tensor::random({1000}, DataType::Float, 7)};
  KernelExecutor ke;
  ke.compile(&fusion, inputs);
  if (!cuda::cudaAvailable()) GTEST_SKIP() << cuda::noDeviceReason();
  const std::vector<Tensor> out = ke.run(inputs, {.poison_outputs = true});
  const std::vector<Tensor> ref = ReferenceEvaluator(&fusion).run(inputs);
  ASSERT_EQ(out.size(), 2u);
  for (int64_t i = 0; i < 1000; ++i) {
    EXPECT_EQ(out[0].item(i), -inputs[0].item(i)) << i;
    EXPECT_EQ(out[1].item(i), ref[1].item(i)) << i;
  }
  EXPECT_EQ(ke.lastLaunch().grid_x, 8u);
  EXPECT_EQ(ke.lastLaunch().block_x, 128u);
}

// Two loops bound to TIDx with extents 32 and i1: the block is as wide as the wider, and
// the narrower loop is guarded.
TEST(SummaryGpu, LaunchIsTheWidestExtent) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  TensorView* t1 = makeContigConcreteTensor({32});
  fusion.addInput(t0);
  fusion.addInput(t1);
  TensorView* t2 = neg(t0);  // exact, so the comparison can be
  TensorView* t3 = abs(t1);
  fusion.addOutput(t2);
  fusion.addOutput(t3);
  t2->axis(0)->parallelize(ParallelType::TIDx);
  t3->axis(0)->parallelize(ParallelType::TIDx);
  const std::vector<Tensor> inputs = {Tensor::random({300}, DataType::Float, 3),
                                      Tensor::random({32}, DataType::Float, 4)};
  KernelExecutor ke;
  ke.compile(&fusion, inputs);
  if (!cuda::cudaAvailable()) GTEST_SKIP() << cuda::noDeviceReason();
  const std::vector<Tensor> out = ke.run(inputs, {.poison_outputs = true});
  const std::vector<Tensor> ref = ReferenceEvaluator(&fusion).run(inputs);
  EXPECT_EQ(ke.lastLaunch().block_x, 300u);
  for (size_t o = 0; o < 2; ++o)
    for (int64_t i = 0; i < ref[o].numel(); ++i)
      EXPECT_EQ(out[o].item(i), ref[o].item(i)) << "output " << o << " element " << i;
}

}  // namespace
}  // namespace mf
