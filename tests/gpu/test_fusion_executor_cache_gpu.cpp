// FusionExecutorCache on the GPU: automatically scheduled fusions (1-D and 2-D pointwise,
// inner and outer broadcasts, permuted and strided inputs, the layout op) against the CPU
// reference, with host and device inputs, fresh random data and poisoned outputs, at sizes
// 1, primes and non-divisible extents; runtime reuse across sizes; threads on one cache.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "cuda/driver.h"
#include "minifuser.h"

namespace mf {
namespace {

class FecGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::cudaAvailable()) GTEST_SKIP() << cuda::noDeviceReason();
  }
};

void expectMatches(const std::vector<Tensor>& got, const std::vector<Tensor>& ref, double tol,
                   const std::string& what) {
  ASSERT_EQ(got.size(), ref.size());
  for (size_t o = 0; o < ref.size(); ++o) {
    Tensor g = got[o].toHost();
    ASSERT_EQ(g.sizes(), ref[o].sizes()) << what;
    for (int64_t i = 0; i < ref[o].numel(); ++i) {
      double a = g.item(i), b = ref[o].item(i);
      if (std::isnan(b)) {
        ASSERT_TRUE(std::isnan(a)) << what << " output " << o << " element " << i;
        continue;
      }
      ASSERT_LE(std::abs(a - b), tol * (1 + std::abs(b)))
          << what << " output " << o << " element " << i << ": " << a << " vs " << b;
    }
  }
}

using Builder = std::function<void(Fusion&)>;
using Inputs = std::function<std::vector<Tensor>(int64_t n, uint64_t seed)>;

// Runs the fusion through one cache at every size, host inputs then device inputs.
void runSizes(const Builder& build, const Inputs& inputs, double tol,
              RunOptions options = {.poison_outputs = true}) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    build(*fusion);
  }
  FusionExecutorCache fec(std::move(fusion));
  uint64_t seed = 1;
  for (int64_t n : {1, 7, 131, 1000, 4099}) {
    for (bool device : {false, true}) {
      std::vector<Tensor> in = inputs(n, seed++);
      std::vector<Tensor> ref = ReferenceEvaluator(fec.fusion()).run(in);
      if (device)
        for (Tensor& t : in) t = t.toDevice();
      std::vector<Tensor> out = fec.runFusionWithInputs(in, options);
      for (const Tensor& t : out) EXPECT_EQ(t.isCuda(), device);
      expectMatches(out, ref, tol, fmt::format("n={} device={}", n, device));
    }
  }
}

std::vector<Tensor> randoms(const std::vector<std::vector<int64_t>>& shapes, DataType t,
                            uint64_t seed) {
  std::vector<Tensor> out;
  for (const auto& s : shapes) out.push_back(Tensor::random(s, t, seed++));
  return out;
}

TEST_F(FecGpu, OneDimensionalChain) {
  runSizes(
      [](Fusion& f) {
        TensorView* x = makeContigTensor(2);
        TensorView* y = makeContigTensor(2);
        f.addInput(x);
        f.addInput(y);
        f.addOutput(mul(add(x, y), constFloat(2.0)));
      },
      [](int64_t n, uint64_t s) {
        return randoms({{n, 3 * n % 97 + 1}, {n, 3 * n % 97 + 1}}, DataType::Float, s);
      },
      0);
}

TEST_F(FecGpu, InnerBroadcastBiasRelu) {
  runSizes(
      [](Fusion& f) {
        TensorView* x = makeContigTensor(2);
        TensorView* b = makeContigTensor(1);
        f.addInput(x);
        f.addInput(b);
        f.addOutput(relu(add(x, broadcast(exp(b), {true, false}))));
      },
      [](int64_t n, uint64_t s) {
        return randoms({{n, 515}, {515}}, DataType::Float, s);
      },
      1e-6);
}

TEST_F(FecGpu, OuterBroadcastColumn) {
  runSizes(
      [](Fusion& f) {
        TensorView* x = makeContigTensor(2);
        TensorView* c = TensorViewBuilder().shape({-1, 1}).contiguity(true).build();
        f.addInput(x);
        f.addInput(c);
        f.addOutput(mul(x, c));
        f.addOutput(neg(c));
      },
      [](int64_t n, uint64_t s) {
        return randoms({{n, 257}, {n, 1}}, DataType::Float, s);
      },
      0);
}

TEST_F(FecGpu, Bf16Gelu) {
  runSizes(
      [](Fusion& f) {
        TensorView* x = makeContigTensor(1, DataType::BFloat16);
        f.addInput(x);
        TensorView* v = castOp(DataType::Float, x);
        f.addOutput(castOp(DataType::BFloat16, mul(v, sigmoid(mul(v, constFloat(1.702))))));
      },
      [](int64_t n, uint64_t s) { return randoms({{n * 8 + 3}}, DataType::BFloat16, s); }, 1e-2);
}

TEST_F(FecGpu, PermutedAndStridedInputsPermutedOutput) {
  runSizes(
      [](Fusion& f) {
        TensorView* a = makeContigTensor(2);
        a->setAllocationDomain({a->axis(1), a->axis(0)}, true);
        TensorView* b = makeSymbolicTensor(2);
        f.addInput(a);
        f.addInput(b);
        TensorView* out = sub(a, b);
        f.addOutput(out);
        out->setAllocationDomain({out->axis(1), out->axis(0)}, true);
      },
      [](int64_t n, uint64_t s) {
        // a: column-major; b: rows padded by 3 elements.
        Tensor a = Tensor::random({37, n}, DataType::Float, s).asStrided({n, 37}, {1, n}, 0);
        Tensor b = Tensor::random({n, 40}, DataType::Float, s + 1).asStrided({n, 37}, {40, 1}, 0);
        return std::vector<Tensor>{a, b};
      },
      0);
}

TEST_F(FecGpu, LayoutOpThroughThePointwiseScheduler) {
  runSizes(
      [](Fusion& f) {
        TensorView* in = makeContigTensor(2);
        TensorView* in_off = makeContigTensor(1, DataType::Int32);
        TensorView* out_off = makeContigTensor(1, DataType::Int32);
        f.addInput(in);
        f.addInput(in_off);
        f.addInput(out_off);
        f.addOutput(preprocessGroupedMatmulInputSf(abs(in), in_off, out_off));
      },
      [](int64_t n, uint64_t s) {
        int32_t a = static_cast<int32_t>(n / 3), b = static_cast<int32_t>(n / 3);
        int32_t ob = (a + 127) / 128 * 128, oc = ob + (b + 127) / 128 * 128;
        return std::vector<Tensor>{Tensor::random({n, 9}, DataType::Float, s),
                                   Tensor::fromVector<int32_t>({0, a, a + b}, {3}),
                                   Tensor::fromVector<int32_t>({0, ob, oc}, {3})};
      },
      // Poisoned, then pads zeroed (the reference fills them with 0): every buffer element
      // the logical view covers is compared.
      0, {.poison_outputs = true, .zero_fill_layout_pads = true});
}

// A new size with the same heuristics reuses the runtime (nothing recompiled).
TEST_F(FecGpu, ReuseAcrossSizes) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* x = makeContigTensor(1);
    fusion->addInput(x);
    fusion->addOutput(sin(x));
  }
  FusionExecutorCache fec(std::move(fusion));
  for (int64_t n : {100, 104, 108}) {
    std::vector<Tensor> in = {Tensor::random({n}, DataType::Float, n).toDevice()};
    expectMatches(fec.runFusionWithInputs(in), ReferenceEvaluator(fec.fusion()).run(in), 1e-6,
                  fmt::format("n={}", n));
  }
  EXPECT_EQ(fec.countRuntimes(), 1);
  EXPECT_EQ(fec.countKernelsCompiled(), 1);
}

TEST_F(FecGpu, ThreadsShareOneCache) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* x = makeContigTensor(2);
    fusion->addInput(x);
    fusion->addOutput(add(x, x));
  }
  FusionExecutorCache fec(std::move(fusion));
  std::vector<std::thread> threads;
  std::vector<int> ok(6, 0);
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < 5; ++r) {
        std::vector<Tensor> in = {Tensor::random({17 + t, 33}, DataType::Float, t * 10 + r)};
        std::vector<Tensor> ref = ReferenceEvaluator(fec.fusion()).run(in);
        Tensor got = fec.runFusionWithInputs({in[0].toDevice()})[0].toHost();
        bool same = true;
        for (int64_t i = 0; i < got.numel(); ++i) same = same && got.item(i) == ref[0].item(i);
        ok[t] += same;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok, std::vector<int>(6, 5));
}

// The hot path: a cached run patches new data pointers into its prepared launch. Every run
// gets fresh random inputs (new blocks: the earlier ones are still held) and poisoned
// outputs; all but the first are served from the launch cache.
TEST_F(FecGpu, CachedRunsPatchNewPointers) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* x = makeContigTensor(2);
    TensorView* y = makeContigTensor(2);
    fusion->addInput(x);
    fusion->addInput(y);
    fusion->addOutput(mul(add(x, y), constFloat(2.0)));
  }
  FusionExecutorCache fec(std::move(fusion));
  std::vector<std::vector<Tensor>> held;
  for (uint64_t run = 0; run < 4; ++run) {
    std::vector<Tensor> in = randoms({{129, 1000}, {129, 1000}}, DataType::Float, 10 * run);
    std::vector<Tensor> ref = ReferenceEvaluator(fec.fusion()).run(in);
    for (Tensor& t : in) t = t.toDevice();
    expectMatches(fec.runFusionWithInputs(in, {.poison_outputs = true}), ref, 1e-6,
                  fmt::format("run {}", run));
    held.push_back(in);
  }
  KernelExecutor* ke = fec.getMostRecentKernelRuntime()->executor();
  EXPECT_EQ(ke->launchCacheSize(), 1);
  EXPECT_EQ(ke->launchCacheHits(), 3);
  // The launch is the heuristics' for these sizes.
  auto params = fec.getMostRecentKernelRuntime()->heuristicsFor(held[0], DeviceDescription{});
  ASSERT_TRUE(params.has_value());
  EXPECT_EQ(ke->lastLaunch().grid_x, params->at(0)->lparams.getDim(ParallelType::BIDx));
}

// Strides and storage offsets changing between runs of one kernel: each stride pattern has
// its own prepared launch (never a stale one), an offset only moves the patched pointer.
TEST_F(FecGpu, StridesChangingBetweenRunsAreNotServedStale) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  fusion.addOutput(t1);
  t1->axis(0)->parallelize(ParallelType::BIDx);
  t1->axis(1)->parallelize(ParallelType::TIDx);
  KernelExecutor ke;
  ke.compile(&fusion);
  struct View {
    std::vector<int64_t> strides;
    int64_t offset;
  };
  const std::vector<View> views = {{{8, 1}, 0}, {{16, 1}, 0}, {{8, 1}, 3},
                                   {{1, 4}, 0}, {{16, 1}, 5}, {{8, 1}, 0}};
  uint64_t seed = 1;
  for (const View& v : views) {
    Tensor storage = Tensor::random({80}, DataType::Float, seed++);
    Tensor in = storage.asStrided({4, 8}, v.strides, v.offset);
    std::vector<Tensor> ref = ReferenceEvaluator(&fusion).run({in});
    Tensor dev = storage.toDevice().asStrided({4, 8}, v.strides, v.offset);
    expectMatches(ke.run({dev}, {.poison_outputs = true}), ref, 0,
                  fmt::format("strides [{}] offset {}", fmt::join(v.strides, ", "), v.offset));
  }
  EXPECT_EQ(ke.launchCacheSize(), 3);
  EXPECT_EQ(ke.launchCacheHits(), 3);
}

// A floating scalar is rewritten into the cached arguments by every run.
TEST_F(FecGpu, CachedRunsTakeNewScalarValues) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  Val* s = newScalar(DataType::Double);
  fusion.addInput(t0);
  fusion.addInput(s);
  TensorView* out = mul(t0, s);
  fusion.addOutput(out);
  out->axis(0)->parallelize(ParallelType::TIDx);
  KernelExecutor ke;
  ke.compile(&fusion);
  const Tensor x = Tensor::random({64}, DataType::Float, 3);
  for (double value : {2.5, -1.5, 0.75}) {
    std::vector<Tensor> in = {x, Tensor::full({}, DataType::Double, value)};
    std::vector<Tensor> ref = ReferenceEvaluator(&fusion).run(in);
    in[0] = in[0].toDevice();
    expectMatches(ke.run(in, {.poison_outputs = true}), ref, 1e-6, fmt::format("s={}", value));
  }
  EXPECT_EQ(ke.launchCacheSize(), 1);
  EXPECT_EQ(ke.launchCacheHits(), 2);
}

// A 0-dim tensor: a kernel without loops, one thread, from host and from device inputs.
TEST_F(FecGpu, ZeroDimTensor) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* x = makeContigTensor(0);
    fusion->addInput(x);
    fusion->addOutput(mul(neg(x), constFloat(3.0)));
  }
  FusionExecutorCache fec(std::move(fusion));
  for (bool device : {false, true}) {
    Tensor in = Tensor::full({}, DataType::Float, 2.5);
    std::vector<Tensor> out =
        fec.runFusionWithInputs({device ? in.toDevice() : in}, {.poison_outputs = true});
    EXPECT_EQ(out.at(0).toHost().item(0), -7.5) << (device ? "device" : "host");
  }
}

}  // namespace
}  // namespace mf
