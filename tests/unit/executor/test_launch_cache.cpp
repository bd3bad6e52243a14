// KernelExecutor's launch cache on the CPU: run() prepares (and caches) the launch for an
// input signature before it needs the device, so the signature's keying, the cache's
// bound and the launch dims taken from the heuristics are all testable without a GPU (the
// run then stops with the no-device error; on a GPU it launches, and the counters agree).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cuda/driver.h"
#include "minifuser/minifuser.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// Runs `ke`: without a device the prepared launch is cached and the run says why it stops.
void runOnce(KernelExecutor& ke, const std::vector<Tensor>& inputs, uint64_t token = 0) {
  if (cuda::cudaAvailable()) {
    ke.run(inputs, {}, nullptr, token);
    return;
  }
  EXPECT_THAT([&] { ke.run(inputs, {}, nullptr, token); },
              ThrowsMessage<UserError>(HasSubstr("no CUDA device available")));
}

// neg(T0) over a [BIDx, TIDx] grid; T0 may have any strides.
void negOfSymbolic(Fusion& fusion) {
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  fusion.addOutput(t1);
  t1->axis(0)->parallelize(ParallelType::BIDx);
  t1->axis(1)->parallelize(ParallelType::TIDx);
}

// A [4, 8] float view at `offset` elements into fresh random storage, rows `row_stride` apart.
Tensor view(int64_t row_stride, int64_t offset, uint64_t seed) {
  Tensor storage = Tensor::random({offset + 4 * row_stride}, DataType::Float, seed);
  return storage.asStrided({4, 8}, {row_stride, 1}, offset);
}

// Same sizes, strides and dtype hit the entry made for them, whatever the data; other
// strides or sizes get their own; the storage offset of an input read without vectors
// does not matter (its pointer is patched per run).
TEST(LaunchCache, KeyedBySizesAndStrides) {
  Fusion fusion;
  negOfSymbolic(fusion);
  KernelExecutor ke;
  ke.compile(&fusion);
  runOnce(ke, {view(8, 0, 1)});
  EXPECT_EQ(ke.launchCacheSize(), 1);
  EXPECT_EQ(ke.launchCacheHits(), 0);
  runOnce(ke, {view(8, 0, 2)});
  EXPECT_EQ(ke.launchCacheSize(), 1);
  EXPECT_EQ(ke.launchCacheHits(), 1);
  runOnce(ke, {view(8, 3, 3)});  // offset 3, not read with vectors
  EXPECT_EQ(ke.launchCacheHits(), 2);
  runOnce(ke, {view(16, 0, 4)});  // row stride 16
  EXPECT_EQ(ke.launchCacheSize(), 2);
  runOnce(ke, {Tensor::random({8, 4}, DataType::Float, 5).asStrided({4, 8}, {1, 4}, 0)});
  EXPECT_EQ(ke.launchCacheSize(), 3);
  runOnce(ke, {Tensor::random({5, 8}, DataType::Float, 6)});
  EXPECT_EQ(ke.launchCacheSize(), 4);
  runOnce(ke, {view(16, 0, 7)});
  EXPECT_EQ(ke.launchCacheSize(), 4);
  EXPECT_EQ(ke.launchCacheHits(), 3);
}

// A signature token (FusionKernelRuntime passes its exact-signature entry's id) reuses the
// last launch without computing the signature, counted as a hit; another token computes it.
// A run that fails its checks leaves no token behind.
TEST(LaunchCache, SignatureTokenReusesTheLastLaunch) {
  Fusion fusion;
  negOfSymbolic(fusion);
  KernelExecutor ke;
  ke.compile(&fusion);
  runOnce(ke, {view(8, 0, 1)}, 7);
  runOnce(ke, {view(8, 0, 2)}, 7);
  EXPECT_EQ(ke.launchCacheSize(), 1);
  EXPECT_EQ(ke.launchCacheHits(), 1);
  runOnce(ke, {view(16, 0, 3)}, 8);  // other strides under another token: a new entry
  EXPECT_EQ(ke.launchCacheSize(), 2);
  runOnce(ke, {view(8, 0, 4)}, 7);  // token 7 again after 8: found by its signature
  runOnce(ke, {view(8, 0, 5)}, 7);
  EXPECT_EQ(ke.launchCacheSize(), 2);
  EXPECT_EQ(ke.launchCacheHits(), 3);
  EXPECT_EQ(ke.lastLaunch().grid_x, 4);
  const Tensor bad = Tensor::random({4, 8}, DataType::Double, 6);
  for (int i = 0; i < 2; ++i)
    EXPECT_THAT([&] { ke.run({bad}, {}, nullptr, 9); },
                ThrowsMessage<UserError>(HasSubstr("expected dtype float, got double")));
  runOnce(ke, {view(16, 0, 7)}, 9);
  EXPECT_EQ(ke.launchCacheSize(), 2);
  EXPECT_EQ(ke.launchCacheHits(), 4);
}

// Inputs that fail the checks leave nothing behind, and fail again on the next run.
TEST(LaunchCache, BadInputsAreNotCached) {
  Fusion fusion;
  negOfSymbolic(fusion);
  KernelExecutor ke;
  ke.compile(&fusion);
  const Tensor bad = Tensor::random({4, 8}, DataType::Double, 1);
  for (int i = 0; i < 2; ++i)
    EXPECT_THAT([&] { ke.run({bad}); },
                ThrowsMessage<UserError>(HasSubstr("expected dtype float, got double")));
  EXPECT_EQ(ke.launchCacheSize(), 0);
}

// A vectorized input's alignment class is part of the key: offsets of whole vectors share
// the aligned entry; a misaligned offset is the alignment UserError, not a stale hit.
TEST(LaunchCache, KeyedByAlignmentOfVectorizedInputs) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = set(t0);
  TensorView* t2 = set(t1);
  fusion.addOutput(t2);
  for (TensorView* tv : {t1, t2}) {
    tv->merge(0)->split(0, 4)->split(0, 128);
    tv->axis(0)->parallelize(ParallelType::BIDx);
    tv->axis(1)->parallelize(ParallelType::TIDx);
  }
  t1->axis(2)->parallelize(ParallelType::Vectorize);
  inlineMost();
  KernelExecutor ke;
  ke.compile(&fusion);
  runOnce(ke, {view(8, 0, 1)});
  runOnce(ke, {view(8, 4, 2)});  // 16 bytes in: still aligned
  EXPECT_EQ(ke.launchCacheSize(), 1);
  EXPECT_EQ(ke.launchCacheHits(), 1);
  EXPECT_THAT([&] { ke.run({view(8, 2, 3)}); },
              ThrowsMessage<UserError>(HasSubstr("needs its first element aligned to 16 bytes")));
  EXPECT_EQ(ke.launchCacheSize(), 1);
  EXPECT_EQ(ke.launchCacheHits(), 1);
}

// An integer scalar (it may be an extent) is keyed by value and dtype; a floating scalar
// is rewritten into the arguments by every run, so its value shares one entry.
TEST(LaunchCache, IntegerScalarsAreKeyedFloatingScalarsPatched) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  Val* s = newScalar(DataType::Double);
  Val* n = newScalar(DataType::Index);
  fusion.addInput(t0);
  fusion.addInput(s);
  fusion.addInput(n);
  for (TensorView* out : {mul(t0, s), sub(t0, n)}) {
    fusion.addOutput(out);
    out->axis(0)->parallelize(ParallelType::BIDx);
    out->axis(1)->parallelize(ParallelType::TIDx);
  }
  KernelExecutor ke;
  ke.compile(&fusion);
  const Tensor x = Tensor::random({4, 8}, DataType::Float, 1);
  auto scalar = [](DataType t, double v) { return Tensor::full({}, t, v); };
  runOnce(ke, {x, scalar(DataType::Double, 2.5), scalar(DataType::Int64, 10)});
  runOnce(ke, {x, scalar(DataType::Double, -1.5), scalar(DataType::Int64, 10)});
  EXPECT_EQ(ke.launchCacheSize(), 1);
  EXPECT_EQ(ke.launchCacheHits(), 1);
  runOnce(ke, {x, scalar(DataType::Double, 2.5), scalar(DataType::Int64, 11)});
  EXPECT_EQ(ke.launchCacheSize(), 2);
  runOnce(ke, {x, scalar(DataType::Double, 2.5), scalar(DataType::Int32, 10)});
  EXPECT_EQ(ke.launchCacheSize(), 3);
  EXPECT_EQ(ke.launchCacheHits(), 1);
}

// An Index scalar is the kernel's mf_index_t: with 32-bit indices its value must fit.
TEST(LaunchCache, IndexScalarPastInt32IsUserError) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  Val* n = newScalar(DataType::Index);
  fusion.addInput(t0);
  fusion.addInput(n);
  TensorView* out = sub(t0, n);
  fusion.addOutput(out);
  out->axis(0)->parallelize(ParallelType::TIDx);
  KernelExecutor ke;
  ke.compile(&fusion, {}, {.index_type = DataType::Int32});
  const Tensor x = Tensor::random({8}, DataType::Float, 1);
  EXPECT_THAT(
      [&] {
        ke.run({x, Tensor::fromVector<int64_t>({int64_t{1} << 40}, {})});
      },
      ThrowsMessage<UserError>(
          HasSubstr("was compiled with 32-bit indices but its scalar input i1 is 1099511627776")));
  runOnce(ke, {x, Tensor::fromVector<int64_t>({7}, {})});
  EXPECT_EQ(ke.launchCacheSize(), 1);
}

// The cache keeps at most kCapacity signatures; a new one replaces the least recently used.
TEST(LaunchCache, BoundedLeastRecentlyUsed) {
  Fusion fusion;
  negOfSymbolic(fusion);
  KernelExecutor ke;
  ke.compile(&fusion);
  const int64_t capacity = static_cast<int64_t>(LaunchCache::kCapacity);
  auto row = [](int64_t n) {
    return std::vector<Tensor>{Tensor::random({1, n}, DataType::Float, 1)};
  };
  for (int64_t n = 1; n <= capacity; ++n) runOnce(ke, row(n));
  runOnce(ke, row(1));  // now the most recent: n = 2 is the least recently used
  EXPECT_EQ(ke.launchCacheHits(), 1);
  runOnce(ke, row(capacity + 1));
  EXPECT_EQ(ke.launchCacheSize(), capacity);
  runOnce(ke, row(1));
  EXPECT_EQ(ke.launchCacheHits(), 2);
  runOnce(ke, row(2));  // evicted: prepared again
  EXPECT_EQ(ke.launchCacheHits(), 2);
  EXPECT_EQ(ke.launchCacheSize(), capacity);
}

// The signature itself: per-field differences change the key; what the launch does not
// depend on does not.
TEST(LaunchSignature, FieldsThatMatter) {
  auto key = [](const std::vector<Tensor>& inputs, std::vector<SignatureInput> rules) {
    std::vector<int64_t> k;
    launchSignature(inputs, rules, k);
    return k;
  };
  const Tensor a = Tensor::random({4, 8}, DataType::Float, 1);
  const std::vector<SignatureInput> plain(1), vec16(1, {.vector_bytes = 16});
  EXPECT_EQ(key({a}, plain), key({Tensor::random({4, 8}, DataType::Float, 2)}, plain));
  EXPECT_NE(key({a}, plain), key({Tensor::random({4, 8}, DataType::Half, 1)}, plain));
  EXPECT_NE(key({a}, plain), key({Tensor::random({8, 4}, DataType::Float, 1)}, plain));
  EXPECT_NE(key({a}, plain), key({view(16, 0, 1)}, plain));
  EXPECT_NE(key({a}, plain), key({a, a}, plain));
  EXPECT_EQ(key({a}, plain), key({view(8, 1, 1)}, plain));
  EXPECT_EQ(key({a}, vec16), key({view(8, 4, 1)}, vec16));
  EXPECT_NE(key({a}, vec16), key({view(8, 2, 1)}, vec16));
  EXPECT_NE(key({view(8, 1, 1)}, vec16), key({view(8, 2, 1)}, vec16));
  const std::vector<SignatureInput> scalar(1, {.scalar = true});
  auto full = [](DataType t, double v) { return Tensor::full({}, t, v); };
  EXPECT_NE(key({full(DataType::Int64, 3)}, scalar), key({full(DataType::Int64, 4)}, scalar));
  EXPECT_EQ(key({full(DataType::Float, 3)}, scalar), key({full(DataType::Float, 4)}, scalar));
}

// The launch takes the heuristics' grid and block (checked against the kernel's extents):
// (x + y) * 2 over [1024, 1024] runs 2048 blocks of 128 threads by 4 floats, divided by
// the unroll factor; the runtime reused for [1024, 1040] launches with that size's
// heuristics, not its own.
TEST(LaunchParamsFromHeuristics, PointwiseLaunchIsTheHeuristics) {
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
  auto inputs = [](int64_t cols) {
    return std::vector<Tensor>{Tensor::random({1024, cols}, DataType::Float, 1),
                               Tensor::random({1024, cols}, DataType::Float, 2)};
  };
  for (int64_t cols : {1024, 1040}) {
    SCOPED_TRACE(cols);
    fec.runFusionWithInputs(inputs(cols));
    FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
    auto params = rt->heuristicsFor(inputs(cols), DeviceDescription{});
    ASSERT_TRUE(params.has_value());
    auto* p = dynamic_cast<const PointwiseParams*>(params->at(0).get());
    ASSERT_NE(p, nullptr);
    ASSERT_EQ(p->vectorization_factor, 4);
    const std::vector<LaunchParams> lparams = {p->lparams};
    if (cuda::cudaAvailable())
      rt->run(inputs(cols), {}, lparams);
    else
      EXPECT_THAT([&] { rt->run(inputs(cols), {}, lparams); },
                  ThrowsMessage<UserError>(HasSubstr("no CUDA device available")));
    const cuda::LaunchDims& dims = rt->executor()->lastLaunch();
    const int64_t blocks = 1024 * cols / (4 * 128);
    EXPECT_EQ(dims.block_x, 128u);
    EXPECT_EQ(dims.grid_x, (blocks + p->unroll_factor_inner - 1) / p->unroll_factor_inner);
    EXPECT_EQ(dims.grid_x, p->lparams.getDim(ParallelType::BIDx));
  }
  EXPECT_EQ(fec.countRuntimes(), 1);
}

}  // namespace
}  // namespace mf
