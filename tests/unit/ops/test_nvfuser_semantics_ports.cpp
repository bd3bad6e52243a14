// nvFuser-parity semantics (#21) beyond the spellings: normalizations over every axis through
// FusionExecutorCache, their kernels run on the host interpreter (on the device with a GPU).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "cuda/driver.h"
#include "minifuser.h"
#include "random/kernel_interpreter.h"

namespace mf {
namespace {

std::vector<Tensor> runKernels(FusionExecutorCache& fec, const std::vector<Tensor>& in) {
  std::vector<Tensor> out = fec.runFusionWithInputs(in);
  if (cuda::cudaAvailable()) {
    for (Tensor& t : out) t = t.toHost();
    return out;
  }
  return fec.getMostRecentKernelRuntime()->runOnHost(in, testing::interpretKernelOrThrow);
}

// A normalization over every axis (no rows to spread over blocks): the inner persistent
// scheduler refuses it with its reason and the segmenter falls back to Reduction and
// PointWise segments, whose kernels (host interpreter, or the device) compute softmax of a
// 1-D tensor, x / sum(x) over a 2-D one, x - mean(x) with the mean's division by i0 * i1 in
// a segment without x, layer_norm over both axes and the unbiased variance of all elements.
TEST(WholeTensorReduction, FallsBackToSegments) {
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{100003}, {129, 257}, {1, 1}}) {
    const bool one_d = shape.size() == 1;
    auto fusion = std::make_unique<Fusion>();
    {
      FusionGuard fg(fusion.get());
      TensorView* x = makeContigTensor(static_cast<int64_t>(shape.size()));
      fusion->addInput(x);
      if (one_d) {
        fusion->addOutput(softmax(x, -1));
      } else {
        fusion->addOutput(div(x, sum(x, {0, 1}, /*keep_dim=*/true)));
        fusion->addOutput(sub(x, mean(x, {}, /*keepdim=*/true)));
        fusion->addOutput(layer_norm(x, 2, nullptr, nullptr, constFloat(1e-5)).output);
        fusion->addOutput(variance(x, {}, true, false));
      }
    }
    FusionExecutorCache fec(std::move(fusion));
    const std::vector<Tensor> in = {Tensor::random(shape, DataType::Float, 5)};
    const std::vector<Tensor> got = runKernels(fec, in);
    FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
    if (shape[0] > 1) {
      EXPECT_TRUE(rt->isSegmented());
      for (const HeuristicParams* p : rt->heuristics())
        EXPECT_NE(p->schedulerType(), SchedulerType::InnerPersistent);
    }
    // The same in double.
    const int64_t n = in[0].numel();
    double m = -INFINITY, s = 0, se = 0, d2 = 0;
    for (int64_t i = 0; i < n; ++i) m = std::max(m, in[0].item(i)), s += in[0].item(i);
    for (int64_t i = 0; i < n; ++i) se += std::exp(in[0].item(i) - m);
    const double mu = s / static_cast<double>(n);
    for (int64_t i = 0; i < n; ++i) d2 += (in[0].item(i) - mu) * (in[0].item(i) - mu);
    auto near = [](double got, double want, double tol) {
      return std::abs(got - want) <= tol * (1 + std::abs(want));
    };
    for (int64_t i = 0; i < n; ++i) {
      const double x = in[0].item(i);
      if (one_d) {
        ASSERT_TRUE(near(got[0].item(i), std::exp(x - m) / se, 1e-5)) << i;
        continue;
      }
      // x / sum(x) is ill-conditioned where the sum is near 0: compare it scaled by the sum.
      ASSERT_TRUE(near(got[0].item(i) * s, x, 1e-4)) << i;
      ASSERT_TRUE(near(got[1].item(i), x - mu, 1e-5)) << i;
      ASSERT_TRUE(near(got[2].item(i), (x - mu) / std::sqrt(d2 / n + 1e-5), 1e-4)) << i;
    }
    if (!one_d) {
      EXPECT_TRUE(n == 1 ? std::isnan(got[3].item(0)) : near(got[3].item(0), d2 / (n - 1), 1e-5));
    }
  }
}

}  // namespace
}  // namespace mf
