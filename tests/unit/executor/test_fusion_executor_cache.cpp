// FusionExecutorCache on the CPU: every run schedules, lowers and compiles its kernel with
// NVRTC, then computes the outputs with the reference (no GPU here). What these tests pin:
// the chosen heuristics, the scheduled IR and kernel, runtime reuse across sizes, NoOp, the
// messages of bad inputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "minifuser.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

std::unique_ptr<Fusion> addMul() {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* x = makeContigTensor(2);
  TensorView* y = makeContigTensor(2);
  fusion->addInput(x);
  fusion->addInput(y);
  fusion->addOutput(mul(add(x, y), constFloat(2.0)));
  return fusion;
}

const PointwiseParams& pointwiseParams(FusionExecutorCache& fec) {
  FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
  EXPECT_NE(rt, nullptr);
  EXPECT_FALSE(rt->isSegmented());
  EXPECT_EQ(rt->heuristics().size(), 1u);
  auto* p = dynamic_cast<const PointwiseParams*>(rt->heuristics().at(0));
  EXPECT_NE(p, nullptr);
  return *p;
}

void expectEqual(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.sizes(), b.sizes());
  for (int64_t i = 0; i < a.numel(); ++i) ASSERT_EQ(a.item(i), b.item(i)) << "element " << i;
}

// (x + y) * 2 over fp32 [1024, 1024]: pointwise, 4 floats per vector, one kernel.
TEST(FusionExecutorCache, PointwiseChainVectorizesByFour) {
  FusionExecutorCache fec(addMul());
  std::vector<Tensor> in = {Tensor::random({1024, 1024}, DataType::Float, 1),
                            Tensor::random({1024, 1024}, DataType::Float, 2)};
  std::vector<Tensor> out = fec.runFusionWithInputs(in);
  expectEqual(out[0], ReferenceEvaluator(fec.fusion()).run(in)[0]);
  EXPECT_EQ(pointwiseParams(fec).vectorization_factor, 4);
  EXPECT_EQ(fec.countRuntimes(), 1);
  EXPECT_EQ(fec.countKernelsCompiled(), 1);
  EXPECT_THAT(fec.getMostRecentCode(), HasSubstr("mf_vectorCopy<float, 4>"));
  EXPECT_THAT(fec.getMostRecentScheduledIr(), HasSubstr("ithreadIdx.x"));
}

// A second size with the same heuristics reuses the runtime: nothing is compiled again.
// Another dtype is another signature: a second runtime.
TEST(FusionExecutorCache, ReusesRuntimeAcrossSizes) {
  FusionExecutorCache fec(addMul());
  auto run = [&](int64_t m, int64_t n, DataType t) {
    fec.runFusionWithInputs({Tensor::random({m, n}, t, 3), Tensor::random({m, n}, t, 4)});
  };
  run(64, 96, DataType::Float);
  const int64_t vect = pointwiseParams(fec).vectorization_factor;
  run(64, 96, DataType::Float);  // exact hit
  EXPECT_EQ(fec.countRuntimes(), 1);
  run(80, 96, DataType::Float);  // new size, same heuristics
  EXPECT_EQ(pointwiseParams(fec).vectorization_factor, vect);
  EXPECT_EQ(fec.countRuntimes(), 1);
  EXPECT_EQ(fec.countKernelsCompiled(), 1);
  EXPECT_THAT([&] { run(64, 96, DataType::Double); },
              ThrowsMessage<UserError>(HasSubstr(
                  "FusionExecutorCache: input 0 T0_g_float[iS0{i0}, iS1{i1}]: expected dtype "
                  "float, got double")));
}

// A fusion with no work (its output is empty) is NoOp: no kernel is compiled.
TEST(FusionExecutorCache, EmptyOutputIsNoOp) {
  FusionExecutorCache fec(addMul());
  std::vector<Tensor> out = fec.runFusionWithInputs(
      {Tensor::random({0, 5}, DataType::Float, 1), Tensor::random({0, 5}, DataType::Float, 2)});
  EXPECT_EQ(out[0].sizes(), (std::vector<int64_t>{0, 5}));
  EXPECT_EQ(fec.getMostRecentKernelRuntime()->heuristics().at(0)->schedulerType(),
            SchedulerType::NoOp);
  EXPECT_EQ(fec.countKernelsCompiled(), 0);
}

// Several threads on one cache: each gets its own correct result, one runtime in all.
TEST(FusionExecutorCache, ConcurrentRuns) {
  FusionExecutorCache fec(addMul());
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      std::vector<Tensor> in = {Tensor::random({33, 17}, DataType::Float, 10 + t),
                                Tensor::random({33, 17}, DataType::Float, 20 + t)};
      std::vector<Tensor> out = fec.runFusionWithInputs(in);
      Tensor ref = ReferenceEvaluator(fec.fusion()).run(in)[0];
      ok[t] = out[0].item(5) == ref.item(5) && out[0].item(560) == ref.item(560);
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok, (std::vector<int>{1, 1, 1, 1}));
  EXPECT_EQ(fec.countRuntimes(), 1);
}

// The dumps of the automatic path print what they name.
TEST(FusionExecutorCache, Dumps) {
  OptionsGuard guard;
  for (DumpOption o :
       {DumpOption::FusionIrPresched, DumpOption::SchedulerVerbose, DumpOption::SchedulerParams,
        DumpOption::FusionIrScheduled, DumpOption::FecCache})
    guard.enableDump(o);
  ::testing::internal::CaptureStdout();
  FusionExecutorCache fec(addMul());
  std::vector<Tensor> in = {Tensor::random({8, 8}, DataType::Float, 1),
                            Tensor::random({8, 8}, DataType::Float, 2)};
  fec.runFusionWithInputs(in);
  fec.runFusionWithInputs(in);
  std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_THAT(out, HasSubstr("=== fusion_ir_presched (pointwise) ==="));
  EXPECT_THAT(out, HasSubstr("pointwise: accepted"));
  EXPECT_THAT(out, HasSubstr("PointwiseParams(vectorization_factor = "));
  EXPECT_THAT(out, HasSubstr("=== fusion_ir_scheduled (pointwise) ==="));
  EXPECT_THAT(out, ::testing::ContainsRegex("fec_cache: miss; new runtime \\(1 group; kernels: "
                                            "(1 compiled, 0|0 compiled, 1) from the cache\\)"));
  EXPECT_THAT(out, HasSubstr("fec_cache: hit"));
}

// Outputs of unrelated shapes no scheduler takes as one kernel: the segmenter cuts them into
// two pointwise kernels, and the runtime runs both.
TEST(FusionExecutorCache, SegmentsWhatNoSchedulerTakesWhole) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* a = makeContigTensor(2);
    TensorView* b = makeContigTensor(1);
    fusion->addInput(a);
    fusion->addInput(b);
    fusion->addOutput(neg(a));
    fusion->addOutput(exp(b));
  }
  FusionExecutorCache fec(std::move(fusion));
  std::vector<Tensor> in = {Tensor::random({10, 20}, DataType::Float, 1),
                            Tensor::random({15}, DataType::Float, 2)};
  std::vector<Tensor> out = fec.runFusionWithInputs(in);
  std::vector<Tensor> ref = ReferenceEvaluator(fec.fusion()).run(in);
  expectEqual(out[0], ref[0]);
  expectEqual(out[1], ref[1]);
  FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
  EXPECT_TRUE(rt->isSegmented());
  EXPECT_EQ(rt->heuristics().size(), 2u);
  EXPECT_EQ(rt->fusionSegments()->groups().size(), 2u);
  EXPECT_EQ(fec.countKernelsCompiled(), 2);
}

// The layout op whose offsets are computed in the fusion: the offsets' producer is an
// earlier kernel, the offsets reach the layout op's kernel through global memory.
TEST(FusionExecutorCache, LayoutOpWithComputedOffsetsRunsAsTwoKernels) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* in = makeContigTensor(2);
    TensorView* in_off_minus_1 = makeContigTensor(1, DataType::Int32);
    TensorView* out_off = makeContigTensor(1, DataType::Int32);
    fusion->addInput(in);
    fusion->addInput(in_off_minus_1);
    fusion->addInput(out_off);
    fusion->addOutput(preprocessGroupedMatmulInputSf(
        mul(in, constFloat(2.0)), add(in_off_minus_1, constInt(1, DataType::Int32)), out_off));
  }
  FusionExecutorCache fec(std::move(fusion));
  // Groups of 100, 150 and 262 rows: input offsets {0, 100, 250}, given minus one.
  std::vector<Tensor> in = {Tensor::random({512, 9}, DataType::Float, 1),
                            Tensor::fromVector<int32_t>({-1, 99, 249}, {3}),
                            Tensor::fromVector<int32_t>({0, 128, 384}, {3})};
  Tensor out = fec.runFusionWithInputs(in)[0];
  Tensor ref = ReferenceEvaluator(fec.fusion()).run(in)[0];
  for (int64_t p = 0; p < ref.allocationNumel(); ++p)
    ASSERT_EQ(out.allocationItem(p), ref.allocationItem(p)) << "position " << p;
  FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
  EXPECT_TRUE(rt->isSegmented());
  EXPECT_EQ(fec.countKernelsCompiled(), 2);
  EXPECT_THAT(rt->fusionSegments()->toString(), HasSubstr("edge group 0 -> group 1: T3"));
  EXPECT_THAT(fec.getMostRecentCode(), HasSubstr("mf_preprocessGroupedMatmulInputSf"));
}

// A consumer of the layout op's output is cut into a later kernel, whose construction
// refuses it before anything runs.
TEST(FusionExecutorCache, LayoutOpOutputWithAConsumerIsAUserError) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* in = makeContigTensor(2);
    TensorView* in_off = makeContigTensor(1, DataType::Int32);
    TensorView* out_off = makeContigTensor(1, DataType::Int32);
    fusion->addInput(in);
    fusion->addInput(in_off);
    fusion->addInput(out_off);
    fusion->addOutput(relu(preprocessGroupedMatmulInputSf(in, in_off, out_off)));
  }
  FusionExecutorCache fec(std::move(fusion));
  std::vector<Tensor> in = {Tensor::random({10, 4}, DataType::Float, 1),
                            Tensor::fromVector<int32_t>({0, 2, 5}, {3}),
                            Tensor::fromVector<int32_t>({0, 128, 256}, {3})};
  EXPECT_THAT([&] { fec.runFusionWithInputs(in); },
              ThrowsMessage<UserError>(
                  HasSubstr("unsafe use of the output of preprocessGroupedMatmulInputSf: ")));
}

// 1-D outputs [M] beside the 2-D reference [M, N] (group 1 of a random segmentation that
// once failed to lower): the [M] tensors take the reference's thread bindings (their loops
// are split like the merged reference's, not mapped to it), and a broadcast of the [M]
// input takes its loop from its [M, N] consumer, so it is inlined, not a buffer of symbolic
// size.
TEST(FusionExecutorCache, OneDimensionalOutputsBesideATwoDimensionalReference) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* x = makeContigTensor(2);
    TensorView* v = makeContigTensor(1);
    fusion->addInput(v);
    fusion->addInput(x);
    TensorView* d = sub(sub(x, broadcast(v, {false, true})), broadcast(v, {false, true}));
    fusion->addOutput(neg(d));
    TensorView* nv = neg(v);
    fusion->addOutput(nv);
    fusion->addOutput(add(v, nv));
    TensorView* half = mul(nv, constFloat(0.5));
    fusion->addOutput(sub(x, broadcast(mul(half, constFloat(0.5)), {false, true})));
    fusion->addOutput(add(nv, half));
  }
  FusionExecutorCache fec(std::move(fusion));
  std::vector<Tensor> inputs = {Tensor::random({7}, DataType::Float, 1),
                                Tensor::random({7, 5}, DataType::Float, 2)};
  std::vector<Tensor> outs = fec.runFusionWithInputs(inputs);
  EXPECT_FALSE(fec.getMostRecentKernelRuntime()->isSegmented());
  std::vector<Tensor> ref = ReferenceEvaluator(fec.fusion()).run(inputs);
  ASSERT_EQ(outs.size(), ref.size());
  for (size_t o = 0; o < ref.size(); ++o)
    for (int64_t i = 0; i < ref[o].numel(); ++i) EXPECT_EQ(outs[o].item(i), ref[o].item(i));
  // Every loop axis of every tensor (as the math section prints them) is bound to
  // blockIdx.x or threadIdx.x.
  const std::string ir = fec.getMostRecentScheduledIr();
  const std::string math = ir.substr(0, ir.find("%kernel_transforms"));
  EXPECT_THAT(math, HasSubstr("[iblockIdx.x"));
  EXPECT_THAT(math, ::testing::Not(HasSubstr("[iS"))) << math;
  EXPECT_THAT(math, ::testing::Not(HasSubstr(", iS"))) << math;
}

// A 0-dim tensor (a scalar held as a tensor) through the cache: one pointwise kernel with no
// loops.
TEST(FusionExecutorCache, ZeroDimTensor) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* x = makeContigTensor(0);
    fusion->addInput(x);
    fusion->addOutput(neg(x));
  }
  FusionExecutorCache fec(std::move(fusion));
  std::vector<Tensor> out = fec.runFusionWithInputs({Tensor::full({}, DataType::Float, 2.5)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dim(), 0);
  EXPECT_EQ(out[0].item(0), -2.5);
  EXPECT_EQ(fec.countKernelsCompiled(), 1);
}

}  // namespace
}  // namespace mf
