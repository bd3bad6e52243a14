// Outputs that are views of inputs on the GPU (segmenter/alias_analysis.h): no kernel is
// launched for them and they share the caller's storage, the device's for device inputs and
// the host's for host inputs (never a staged copy); computed outputs beside them run as
// usual, with poisoned outputs, against the CPU reference. Sizes 1, primes, non-divisible.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/ranges.h>
#include <cmath>

#include <algorithm>
#include <functional>

#include "cuda/driver.h"
#include "minifuser.h"

namespace mf {
namespace {

class ViewOutputsGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::cudaAvailable()) GTEST_SKIP() << cuda::noDeviceReason();
  }
};

void expectMatches(const Tensor& got, const Tensor& ref, const std::string& what) {
  Tensor g = got.toHost();
  ASSERT_EQ(g.sizes(), ref.sizes()) << what;
  for (int64_t i = 0; i < ref.numel(); ++i) {
    const double a = g.item(i), b = ref.item(i);
    if (std::isnan(b)) {
      ASSERT_TRUE(std::isnan(a)) << what << " element " << i;
      continue;
    }
    ASSERT_LE(std::abs(a - b), 1e-5 * (1 + std::abs(b)))
        << what << " element " << i << ": " << a << " vs " << b;
  }
}

// Runs the fusion built by `build` from host and from device inputs of each of `shapes`
// (one input, then a second of the same shape when `two_inputs`): outputs `views` are
// views of input 0 (same storage, on the same device), every output equals the reference,
// and the runtime compiled `kernels` kernels.
void runViews(const std::function<void(Fusion&)>& build,
              const std::vector<std::vector<int64_t>>& shapes, bool two_inputs,
              const std::vector<size_t>& views, int64_t kernels) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    build(*fusion);
  }
  FusionExecutorCache fec(std::move(fusion));
  uint64_t seed = 1;
  for (const std::vector<int64_t>& shape : shapes) {
    for (bool device : {false, true}) {
      const std::string what =
          fmt::format("[{}] from {} inputs", fmt::join(shape, ", "), device ? "device" : "host");
      std::vector<Tensor> in = {Tensor::random(shape, DataType::Float, seed++)};
      if (two_inputs) in.push_back(Tensor::random(shape, DataType::Float, seed++));
      const std::vector<Tensor> ref = ReferenceEvaluator(fec.fusion()).run(in);
      if (device)
        for (Tensor& t : in) t = t.toDevice();
      std::vector<Tensor> out = fec.runFusionWithInputs(in, {.poison_outputs = true});
      EXPECT_EQ(fec.getMostRecentKernelRuntime()->kernelCount(), kernels) << what;
      ASSERT_EQ(out.size(), ref.size()) << what;
      for (size_t o = 0; o < out.size(); ++o) {
        expectMatches(out[o], ref[o], what + fmt::format(", output {}", o));
        if (std::find(views.begin(), views.end(), o) == views.end()) continue;
        EXPECT_EQ(out[o].isCuda(), device) << what;
        EXPECT_EQ(out[o].dataPtr(), in[0].dataPtr()) << what << ", output " << o;
      }
    }
  }
}

const std::vector<std::vector<int64_t>> kShapes = {{1, 1}, {7, 13}, {131, 1000}, {4099, 3}};

TEST_F(ViewOutputsGpu, SetAndBroadcastShareTheInputsStorage) {
  runViews(
      [](Fusion& f) {
        TensorView* t0 = makeContigTensor(2);
        f.addInput(t0);
        f.addOutput(set(t0));
        f.addOutput(broadcast(t0, {false, true, false}));
      },
      kShapes, false, {0, 1}, 0);
}

TEST_F(ViewOutputsGpu, ViewBesideComputedOutputs) {
  runViews(
      [](Fusion& f) {
        TensorView* t0 = makeContigTensor(2);
        TensorView* t1 = makeContigTensor(2);
        f.addInput(t0);
        f.addInput(t1);
        TensorView* b = broadcast(t0, {true, false, false});
        f.addOutput(add(b, broadcast(t1, {true, false, false})));
        f.addOutput(set(b));
      },
      kShapes, true, {1}, 1);
}

}  // namespace
}  // namespace mf
