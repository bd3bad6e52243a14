// The layout op through the automatic path (nvFuser's tests/cpp/test_layout_op.cpp, ported,
// and ours; docs/layout_op.md). Kernels run on the host kernel interpreter, which runs the
// layout op's runtime functions themselves (tests/random/layout_runtime_host.h), so CI checks
// the tile form's values, its zero pads and its bounds without a GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "executor/kernel_executor.h"
#include "minifuser.h"
#include "random/kernel_interpreter.h"
#include "random/layout_runtime_host.h"
#include "scheduler/pointwise.h"
#include "unit/ops/layout_test_utils.h"
#include "unit/scheduler/scheduler_test_utils.h"

namespace mf {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// in [M, K] (symbolic) -> layout op -> output; `pre` may put ops between the input and the op.
std::unique_ptr<Fusion> layoutFusion(DataType dtype, DataType offset_dtype,
                                     TensorView* (*pre)(TensorView*) = nullptr) {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* in = makeSymbolicTensor(2, pre ? DataType::Float : dtype);
  TensorView* in_off = makeSymbolicTensor(1, offset_dtype);
  TensorView* out_off = makeSymbolicTensor(1, offset_dtype);
  fusion->addInput(in);
  fusion->addInput(in_off);
  fusion->addInput(out_off);
  fusion->addOutput(preprocessGroupedMatmulInputSf(pre ? pre(in) : in, in_off, out_off));
  return fusion;
}

struct CacheRun {
  std::vector<Tensor> outputs;       // from the kernels, on the interpreter
  std::vector<std::string> params;   // each group's heuristics
  std::vector<SchedulerType> types;  // each group's scheduler
};

// Through a FusionExecutorCache, its kernels run on the host interpreter.
CacheRun runOnInterpreter(FusionExecutorCache& fec, const std::vector<Tensor>& inputs) {
  fec.runFusionWithInputs(inputs);
  FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
  CacheRun run;
  run.outputs = rt->runOnHost(inputs, testing::interpretKernelOrThrow);
  for (const HeuristicParams* p : rt->heuristics()) run.params.push_back(p->toString());
  for (SegmentedGroup* g : rt->fusionSegments()->groups()) run.types.push_back(g->schedulerType());
  return run;
}

// nvFuser's data: [512, 9] floats in groups of 100, 150 and 262 rows.
const std::vector<int64_t> kTokens = {100, 150, 262};

// LayoutOpTest.ManualKernel: inp -> set -> layout op, axis 0 on BIDx and axis 1 on TIDx,
// through KernelExecutor (no scheduler), on arange(512 * 9).
TEST(LayoutOpTest, ManualKernel) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* inp = makeSymbolicTensor(2);
  TensorView* in_off = makeSymbolicTensor(1, DataType::Int32);
  TensorView* out_off = makeSymbolicTensor(1, DataType::Int32);
  fusion.addInput(inp);
  fusion.addInput(in_off);
  fusion.addInput(out_off);
  TensorView* cache = set(inp);
  TensorView* out = preprocessGroupedMatmulInputSf(cache, in_off, out_off);
  fusion.addOutput(out);
  for (TensorView* tv : {inp, cache, out}) {
    tv->axis(0)->parallelize(ParallelType::BIDx);
    tv->axis(1)->parallelize(ParallelType::TIDx);
  }
  auto [io, oo] = testing::layoutOffsets(kTokens);
  std::vector<Tensor> inputs = {Tensor::arange({512, 9}, DataType::Float),
                                testing::layoutOffsetTensor(io, DataType::Int32),
                                testing::layoutOffsetTensor(oo, DataType::Int32)};
  KernelExecutor ke;
  ke.compile(&fusion, inputs);
  EXPECT_THAT(ke.kernelCode(), HasSubstr("mf_preprocessGroupedMatmulInputSf<float, int>"));
  Tensor got = testing::interpretKernelOrThrow(ke.kernel(), inputs)[0];
  testing::expectGroupedLayout(got, inputs[0], io, oo, /*pads_zero=*/false);
}

// LayoutOpTest.SchedulerKernel: the op alone through the automatic path is one PointWise
// kernel in the tile form (9 floats per row: 3 column quads, so 128 threads x 4 floats per
// block), every logical element at its swizzled position and the pads of the used rows 0.
TEST(LayoutOpTest, SchedulerKernel) {
  FusionExecutorCache fec(layoutFusion(DataType::Float, DataType::Int32));
  auto [io, oo] = testing::layoutOffsets(kTokens);
  std::vector<Tensor> inputs = {Tensor::random({512, 9}, DataType::Float, 3),
                                testing::layoutOffsetTensor(io, DataType::Int32),
                                testing::layoutOffsetTensor(oo, DataType::Int32)};
  CacheRun run = runOnInterpreter(fec, inputs);
  EXPECT_FALSE(fec.getMostRecentKernelRuntime()->isSegmented());
  EXPECT_THAT(run.types, ::testing::ElementsAre(SchedulerType::PointWise));
  EXPECT_THAT(run.params[0], HasSubstr("layout op: tile: 128 threads x 4 elements per block"));
  EXPECT_THAT(fec.getMostRecentCode(), HasSubstr("mf_layoutOpTile<float, int, 4, 128>"));
  testing::expectGroupedLayout(run.outputs[0], inputs[0], io, oo, /*pads_zero=*/true);
}

// The tile form's shape follows K and the dtype: 16-byte vectors and 256 threads when the
// slab's 8 column quads divide the row (fp8, K = 448), fewer threads or narrower vectors
// otherwise; rows whose stride is not a multiple of the vector are loaded element by element.
TEST(LayoutOpTest, TileShapeFollowsKAndDtype) {
  struct Case {
    DataType dtype;
    int64_t k;
    std::string form;
  };
  const std::vector<Case> cases = {
      {DataType::Float8_e4m3fn, 448,
       "tile: 128 threads x 16 elements per block (4 column quads of a 128-row tile, 1 vectors "
       "of 16 per thread), input rows loaded as whole vectors"},
      {DataType::Float8_e4m3fn, 16, "tile: 128 threads x 16 elements per block (4 column quads"},
      {DataType::Float8_e4m3fn, 9, "tile: 128 threads x 4 elements per block (1 column quads"},
      {DataType::BFloat16, 512, "tile: 128 threads x 8 elements per block (2 column quads"},
      {DataType::Float, 5,
       "tile: 128 threads x 4 elements per block (1 column quads of a 128-row tile, 1 vectors of "
       "4 per thread), input rows loaded element by element (row stride 5, storage offset 0)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(fmt::format("{} K = {}", toString(c.dtype), c.k));
    FusionExecutorCache fec(layoutFusion(c.dtype, DataType::Int32));
    auto [io, oo] = testing::layoutOffsets({3, 130});
    std::vector<Tensor> inputs = {Tensor::random({133, c.k}, c.dtype, 5),
                                  testing::layoutOffsetTensor(io, DataType::Int32),
                                  testing::layoutOffsetTensor(oo, DataType::Int32)};
    CacheRun run = runOnInterpreter(fec, inputs);
    EXPECT_THAT(run.params[0], HasSubstr(c.form));
    testing::expectGroupedLayout(run.outputs[0], inputs[0], io, oo, /*pads_zero=*/true);
  }
}

// At the benchmark's sizes (fp8, docs/layout_op.md): the largest slab that keeps 4 blocks
// per SM: 256 threads of two 16-byte vectors (16 of K = 448's 112 column quads per block),
// or 128 threads of two when the grid would be too small (G = 8, M = 8192: 504 blocks of
// 256 x 32 for 132 SMs).
TEST(LayoutOpTest, TileVectorsPerThreadFollowTheSize) {
  struct Case {
    int64_t g, m, k;
    std::string form;
  };
  const std::vector<Case> cases = {
      {8, 8192, 448, "128 threads x 32 elements per block (8 column quads"},
      {32, 65536, 448,
       "256 threads x 32 elements per block (16 column quads of a 128-row "
       "tile, 2 vectors of 16 per thread)"},
      {128, 262144, 448, "256 threads x 32 elements per block (16 column quads"},
      {8, 1 << 20, 512, "256 threads x 32 elements per block (16 column quads"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(fmt::format("G = {} M = {} K = {}", c.g, c.m, c.k));
    std::unique_ptr<Fusion> fusion = layoutFusion(DataType::Float8_e4m3fn, DataType::Int32);
    PointwiseParams params = schedtest::pointwiseParams(
        *fusion, {TensorMetadata::contiguous(DataType::Float8_e4m3fn, {c.m, c.k}),
                  TensorMetadata::contiguous(DataType::Int32, {c.g}),
                  TensorMetadata::contiguous(DataType::Int32, {c.g})});
    EXPECT_EQ(params.schedule_kind, PointwiseScheduleKind::LayoutTile);
    EXPECT_THAT(params.layout_form, HasSubstr(c.form));
  }
}

// The tile form by hand on the interpreter: 1 to 8 vectors per thread, 128 and 256 threads,
// slabs that divide the row and (N = 64 at K = 448: 32 column quads of 112) slabs that do
// not, which every thread then writes in the gather form.
TEST(LayoutOpTest, TileFormByHand) {
  for (int64_t k : {448, 512})
    for (int64_t threads : {128, 256})
      for (int64_t n : {16, 32, 64, 112, 128}) {
        SCOPED_TRACE(fmt::format("K = {}, {} threads x {}", k, threads, n));
        std::unique_ptr<Fusion> fusion = layoutFusion(DataType::Float8_e4m3fn, DataType::Int64);
        FusionGuard fg(fusion.get());
        auto* out = fusion->outputs()[0]->as<TensorView>();
        out->setLoopDomain(out->getMaybeAllocationDomain());
        out->merge(0)->split(0, n)->split(0, threads);
        out->axis(0)->parallelize(ParallelType::BIDx);
        out->axis(1)->parallelize(ParallelType::TIDx);
        out->axis(2)->parallelize(ParallelType::Vectorize);
        out->definition()->as<PreprocessGroupedMatmulInputSf>()->setForm(LayoutOpForm::Tile);
        auto [io, oo] = testing::layoutOffsets({3, 0, 130, 128, 41});
        std::vector<Tensor> inputs = {Tensor::random({302, k}, DataType::Float8_e4m3fn, n + k),
                                      testing::layoutOffsetTensor(io, DataType::Int64),
                                      testing::layoutOffsetTensor(oo, DataType::Int64)};
        std::unique_ptr<Kernel> kernel = lowerFusion(*fusion);
        // Short latency-bound blocks: the kernel asks ptxas for 12 blocks of 128 threads.
        EXPECT_EQ(kernel->summary().min_blocks_per_sm, 1536 / threads);
        EXPECT_THAT(
            kernel->summary().toString(),
            HasSubstr(fmt::format("  blocks per SM: {} (launch bounds)\n", 1536 / threads)));
        Tensor got = testing::interpretKernelOrThrow(*kernel, inputs)[0];
        testing::expectGroupedLayout(got, inputs[0], io, oo, /*pads_zero=*/true);
      }
}

// The tile form on random group sizes (empty groups, groups of exactly 128 and 256 rows, one
// row, and 300 groups: more than a block's threads, so a block votes for its group in three
// rounds), K at 1, primes, multiples of 4 and 16, four dtypes (fp8, bf16, fp32, fp64) and both
// offset dtypes.
TEST(LayoutOpTest, TileFormOnRandomGroups) {
  std::mt19937_64 rng(17);
  std::vector<std::vector<int64_t>> groups = {{1},        {128},     {0, 128, 0, 256, 1},
                                              {127, 129}, {0, 0, 5}, {2, 3, 5}};
  std::vector<int64_t>& many = groups.emplace_back();
  for (int i = 0; i < 300; ++i)
    many.push_back(static_cast<int64_t>(rng() % 3 == 0 ? 0 : rng() % 9));
  // Double: 8-byte elements, a vector of 2 is half a column quad (mf_LayoutTile's pieces).
  const DataType dtypes[] = {DataType::Float8_e4m3fn, DataType::BFloat16, DataType::Float,
                             DataType::Double};
  const int64_t ks[] = {1, 4, 5, 7, 16, 36, 64};
  int64_t n = 0;
  for (const std::vector<int64_t>& rows : groups)
    for (int64_t k : ks) {
      const DataType dtype = dtypes[n % 4];
      const DataType off = n % 2 ? DataType::Int64 : DataType::Int32;
      ++n;
      SCOPED_TRACE(fmt::format("{} K = {}, {} groups", toString(dtype), k, rows.size()));
      FusionExecutorCache fec(layoutFusion(dtype, off));
      int64_t m = 0;
      for (int64_t r : rows) m += r;
      auto [io, oo] = testing::layoutOffsets(rows);
      std::vector<Tensor> inputs = {Tensor::random({m, k}, dtype, rng()),
                                    testing::layoutOffsetTensor(io, off),
                                    testing::layoutOffsetTensor(oo, off)};
      CacheRun run = runOnInterpreter(fec, inputs);
      EXPECT_THAT(run.params[0], HasSubstr("layout op: tile"));
      testing::expectGroupedLayout(run.outputs[0], inputs[0], io, oo, /*pads_zero=*/true);
    }
}

// A cast before the op fuses into the same kernel, written per element (the tile form
// stages a fusion input), and scheduler_params says why.
TEST(LayoutOpTest, CastBeforeTheOpFusesPerElement) {
  FusionExecutorCache fec(layoutFusion(DataType::Float8_e4m3fn, DataType::Int32, [](TensorView* x) {
    return castOp(DataType::Float8_e4m3fn, mul(x, constFloat(0.5)));
  }));
  auto [io, oo] = testing::layoutOffsets({5, 0, 131});
  std::vector<Tensor> inputs = {Tensor::random({136, 12}, DataType::Float, 9),
                                testing::layoutOffsetTensor(io, DataType::Int32),
                                testing::layoutOffsetTensor(oo, DataType::Int32)};
  CacheRun run = runOnInterpreter(fec, inputs);
  EXPECT_THAT(run.types, ::testing::ElementsAre(SchedulerType::PointWise));
  EXPECT_THAT(
      run.params[0],
      HasSubstr("layout op: per element: its input T4 is computed in the kernel (UnaryOp)"));
  // The per-element form leaves the pads as they were (poisoned): every other position of
  // the used rows equals the reference's.
  Tensor expected = ReferenceEvaluator(fec.fusion()).run(inputs)[0];
  const int64_t used = *expected.usedRows() * 12;
  ASSERT_EQ(run.outputs[0].allocationSizes(), expected.allocationSizes());
  int64_t written = 0;
  for (int64_t p = 0; p < used; ++p) {
    if (std::isnan(run.outputs[0].allocationItem(p))) continue;  // a pad, left as it was
    ++written;
    ASSERT_EQ(run.outputs[0].allocationItem(p), expected.allocationItem(p)) << "position " << p;
  }
  EXPECT_GE(written, 136 * 12);
}

// LayoutOpTest.SchedulerKernelWithOffsetsProducer: offsets computed in the fusion (+1 on
// both) are cut into an earlier kernel and reach the layout op's kernel through global
// memory; four groups, the last empty (offsets [0, 100, 250, 512] and [0, 128, 384, 768]).
TEST(LayoutOpTest, SchedulerKernelWithOffsetsProducer) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* inp = makeSymbolicTensor(2);
    TensorView* offsets = makeSymbolicTensor(1, DataType::Int32);
    TensorView* rounded = makeSymbolicTensor(1, DataType::Int32);
    fusion->addInput(inp);
    fusion->addInput(offsets);
    fusion->addInput(rounded);
    fusion->addOutput(preprocessGroupedMatmulInputSf(inp,
                                                     add(offsets, constInt(1, DataType::Int32)),
                                                     add(rounded, constInt(1, DataType::Int32))));
  }
  FusionExecutorCache fec(std::move(fusion));
  std::vector<Tensor> inputs = {Tensor::random({512, 9}, DataType::Float, 4),
                                Tensor::fromVector<int32_t>({-1, 99, 249, 511}, {4}),
                                Tensor::fromVector<int32_t>({-1, 127, 383, 767}, {4})};
  CacheRun run = runOnInterpreter(fec, inputs);
  // The two offsets' producers (one kernel each: nothing connects them), then the op.
  EXPECT_THAT(run.types, ::testing::Each(SchedulerType::PointWise));
  ASSERT_EQ(run.types.size(), 3u);
  EXPECT_THAT(fec.getMostRecentKernelRuntime()->fusionSegments()->toString(),
              AllOf(HasSubstr("edge group 0 -> group 2"), HasSubstr("edge group 1 -> group 2")));
  EXPECT_THAT(run.params.back(), HasSubstr("layout op: tile"));
  EXPECT_EQ(run.outputs[0].allocationSizes(), (std::vector<int64_t>{1020, 12}));
  testing::expectGroupedLayout(run.outputs[0], inputs[0], {0, 100, 250, 512}, {0, 128, 384, 768},
                               /*pads_zero=*/true);
}

// LayoutOpTest.SchedulerKernelWithExplicitQuantizationPattern: per-16 block maxima of a
// [512, 144] input (reshape, max) scale it (output 0) and go through the layout op (output 1):
// two segments, as nvFuser's: one inner persistent kernel (the input read once through its
// reshape, a thread per block of 16, the scaled blocks written through the merging reshape,
// the maxima written as a per-row output) and the layout op's tile kernel reading the maxima
// from global memory; both outputs, computed by the kernels on the host interpreter, equal
// the reference.
TEST(LayoutOpTest, SchedulerKernelWithExplicitQuantizationPattern) {
  const int64_t m = 512, k = 144;
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    const schedtest::LayoutInputs l = schedtest::layoutInputs(*fusion);
    TensorView* r = reshape(l.in, {m, k}, {m, k / 16, 16});
    TensorView* sf = max(abs(r), {2});
    fusion->addOutput(
        reshape(div(r, broadcast(sf, {false, false, true})), {m, k / 16, 16}, {m, k}));
    fusion->addOutput(preprocessGroupedMatmulInputSf(sf, l.in_off, l.out_off));
  }
  FusionExecutorCache fec(std::move(fusion));
  auto [io, oo] = testing::layoutOffsets(kTokens);
  std::vector<Tensor> inputs = {Tensor::random({m, k}, DataType::Float, 6),
                                testing::layoutOffsetTensor(io, DataType::Int32),
                                testing::layoutOffsetTensor(oo, DataType::Int32)};
  CacheRun run = runOnInterpreter(fec, inputs);
  EXPECT_THAT(run.types,
              ::testing::ElementsAre(SchedulerType::InnerPersistent, SchedulerType::PointWise));
  EXPECT_THAT(run.params.back(), HasSubstr("layout op: tile"));
  EXPECT_THAT(fec.getMostRecentKernelRuntime()->fusionSegments()->toString(),
              HasSubstr("edge group 0 -> group 1: T5"));
  EXPECT_THAT(run.params.front(), HasSubstr("row_extents = [16]"));
  const std::vector<Tensor> ref = ReferenceEvaluator(fec.fusion()).run(inputs);
  for (int64_t i = 0; i < ref[0].numel(); ++i)
    ASSERT_NEAR(run.outputs[0].item(i), ref[0].item(i), 1e-6 * (1 + std::abs(ref[0].item(i))))
        << "output 0 element " << i;
  // The block maxima (the reference's), laid out.
  Tensor sf = Tensor::empty({m, k / 16}, DataType::Float);
  for (int64_t row = 0; row < m; ++row)
    for (int64_t b = 0; b < k / 16; ++b) {
      double mx = 0;
      for (int64_t j = 0; j < 16; ++j) mx = std::max(mx, std::abs(inputs[0].at({row, b * 16 + j})));
      sf.data<float>()[row * (k / 16) + b] = static_cast<float>(mx);
    }
  testing::expectGroupedLayout(run.outputs[1], sf, io, oo, /*pads_zero=*/true);
}

// Bad offsets on the host are refused before the launch with the reference's message; the
// kernel's own checks (the flag) stay for device offsets, and on the interpreter.
TEST(LayoutOpTest, HostOffsetsAreCheckedBeforeTheLaunch) {
  std::unique_ptr<Fusion> fusion = layoutFusion(DataType::Float, DataType::Int32);
  std::vector<Tensor> inputs = {Tensor::random({300, 5}, DataType::Float, 5),
                                Tensor::fromVector<int32_t>({0, 250, 100}, {3}),
                                Tensor::fromVector<int32_t>({0, 256, 384}, {3})};
  FusionExecutorCache fec(std::move(fusion));
  // The kernels' run on the interpreter raises the flag (the host check is the executor's).
  std::vector<Tensor> good = {inputs[0], Tensor::fromVector<int32_t>({0, 100, 250}, {3}),
                              Tensor::fromVector<int32_t>({0, 128, 384}, {3})};
  fec.runFusionWithInputs(good);
  EXPECT_THAT(
      [&] { fec.getMostRecentKernelRuntime()->runOnHost(inputs, testing::interpretKernelOrThrow); },
      ThrowsMessage<UserError>(
          AllOf(HasSubstr("preprocessGroupedMatmulInputSf"), HasSubstr("input_offsets"))));
  KernelExecutor* ke = fec.getMostRecentKernelRuntime()->executor();
  ASSERT_NE(ke, nullptr);
  EXPECT_THAT([&] { ke->run(inputs); },
              ThrowsMessage<UserError>(HasSubstr(
                  "preprocessGroupedMatmulInputSf: input_offsets T1 must be non-decreasing: entry "
                  "2 is 100 but entry 1 is 250")));
}

// The tile form by hand needs the gather loops [BIDx, TIDx, Vectorize]; another schedule is a
// UserError naming what it needs.
TEST(LayoutOpTest, TileFormNeedsItsLoops) {
  std::unique_ptr<Fusion> fusion = layoutFusion(DataType::Float, DataType::Int32);
  FusionGuard fg(fusion.get());
  auto* out = fusion->outputs()[0]->as<TensorView>();
  out->setLoopDomain(out->getMaybeAllocationDomain());
  out->merge(0)->split(0, 4)->split(0, 96);
  out->axis(0)->parallelize(ParallelType::BIDx);
  out->axis(1)->parallelize(ParallelType::TIDx);
  out->axis(2)->parallelize(ParallelType::Vectorize);
  out->definition()->as<PreprocessGroupedMatmulInputSf>()->setForm(LayoutOpForm::Tile);
  EXPECT_THAT(
      [&] { lowerFusion(*fusion); },
      ThrowsMessage<UserError>(
          AllOf(HasSubstr("is scheduled in the tile form, which needs the loop domain [BIDx, TIDx, "
                          "Vectorize]"),
                HasSubstr("got 96 threads of 4 elements"))));
}

// The same pattern on one block ([1, 16]): the reshape's size-1 axes are broadcasts, so there
// are no rows to spread and the layout op shares a pointwise kernel with the scaled output;
// it is then the per-element form, which says why (the reference tensor is not the op's
// output) and leaves pads uninitialized, as nvFuser. Both outputs equal the reference.
TEST(LayoutOpTest, ExplicitQuantizationPatternOfOneBlockIsPerElement) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    const schedtest::LayoutInputs l = schedtest::layoutInputs(*fusion);
    TensorView* r = reshape(l.in, {1, 16}, {1, 1, 16});
    TensorView* sf = max(abs(r), {2});
    fusion->addOutput(reshape(div(r, broadcast(sf, {false, false, true})), {1, 1, 16}, {1, 16}));
    fusion->addOutput(preprocessGroupedMatmulInputSf(sf, l.in_off, l.out_off));
  }
  FusionExecutorCache fec(std::move(fusion));
  auto [io, oo] = testing::layoutOffsets({1});
  std::vector<Tensor> inputs = {Tensor::random({1, 16}, DataType::Float, 6),
                                testing::layoutOffsetTensor(io, DataType::Int32),
                                testing::layoutOffsetTensor(oo, DataType::Int32)};
  CacheRun run = runOnInterpreter(fec, inputs);
  EXPECT_THAT(run.params, Contains(HasSubstr("layout op: per element: the reference tensor is")));
  const std::vector<Tensor> ref = ReferenceEvaluator(fec.fusion()).run(inputs);
  for (int64_t i = 0; i < 16; ++i)
    ASSERT_NEAR(run.outputs[0].item(i), ref[0].item(i), 1e-6 * (1 + std::abs(ref[0].item(i))))
        << "output 0 element " << i;
  Tensor sf = Tensor::empty({1, 1}, DataType::Float);
  double mx = 0;
  for (int64_t j = 0; j < 16; ++j) mx = std::max(mx, std::abs(inputs[0].at({0, j})));
  sf.data<float>()[0] = static_cast<float>(mx);
  testing::expectGroupedLayout(run.outputs[1], sf, io, oo, /*pads_zero=*/false);
}

// The layout's element writer given four columns (the four scales of one 4-byte word of the
// swizzled layout, as a call covering four blocks passes them), run as compiled for the host:
// the same bytes as four one-column calls, at the last quad of a row cut at K (K = 10), for
// 1- and 4-byte elements; a bad output offset is flagged and the rows it covers not written.
TEST(LayoutOpTest, ScatterOfFourColumnsEqualsFourScatters) {
  const int64_t m = 300, k = 10, g = 3, kp = 12;
  const std::vector<int32_t> in_off = {0, 100, 250};
  for (int64_t elem : {1, 4}) {
    for (bool bad : {false, true}) {
      // Groups of 100, 150 and 50 rows start at output rows 0, 128 and 384 (or a wrong 300).
      const std::vector<int32_t> out_off = {0, 128, bad ? 300 : 384};
      const int64_t numel = (m + 127 * g) * kp;
      std::vector<std::byte> four(static_cast<size_t>(numel * elem), std::byte{0xEE});
      std::vector<std::byte> one = four;
      int flag_four = 0, flag_one = 0;
      testing::LayoutCall c;
      c.out_numel = numel;
      c.in_off = in_off.data();
      c.out_off = out_off.data();
      c.elem_bytes = elem;
      c.m = m;
      c.k = k;
      c.g = g;
      std::mt19937 rng(7);
      for (int64_t row = 0; row < m; ++row) {
        for (int64_t col = 0; col < k; col += 4) {
          std::vector<std::byte> values(static_cast<size_t>(4 * elem));
          for (std::byte& b : values) b = static_cast<std::byte>(rng());
          c.out = four.data();
          c.error_flag = &flag_four;
          testing::runLayoutScatter(c, values.data(), 4, row, col);
          c.out = one.data();
          c.error_flag = &flag_one;
          for (int64_t i = 0; i < 4; ++i)
            testing::runLayoutScatter(c, values.data() + i * elem, 1, row, col + i);
        }
      }
      EXPECT_EQ(flag_four, flag_one) << elem;
      EXPECT_EQ(flag_four != 0, bad) << elem;
      EXPECT_EQ(four, one) << "element bytes " << elem << (bad ? ", bad offsets" : "");
      // Columns 10 and 11 (past K) are never written; column 9 of row 0 is.
      EXPECT_EQ(four[static_cast<size_t>((2 * 512 + 2) * elem)], std::byte{0xEE});
      EXPECT_NE(four[static_cast<size_t>((2 * 512 + 1) * elem)], std::byte{0xEE});
    }
  }
}

}  // namespace
}  // namespace mf
