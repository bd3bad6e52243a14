// The segmenter cuts where the pointwise scheduler refuses a shape op (its reasons:
// shapeOpsRejectReason, scheduler/pointwise_utils.h): each fusion below is refused whole, and
// the segments are runnable, the cut tensor crossing in global memory (an edge: an output of
// one segment, an input of a later one). Each runs through FusionExecutorCache (the CPU
// reference here; on the device with poisoned outputs in test_segmenter_gpu) and through the
// host interpreter of the lowered kernels, against the reference of the whole fusion.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "random/kernel_interpreter.h"
#include "unit/segmenter/segmentation_test_utils.h"

namespace mf {
namespace {

using ::testing::HasSubstr;

// `fusion` through FusionExecutorCache: segmented or not as `segmented` says and, off the
// GPU, its kernels on the host interpreter reproduce the reference.
void expectCacheRunsOnInterpreter(Fusion& fusion, const std::vector<Tensor>& inputs,
                                  bool segmented) {
  const std::vector<Tensor> expected = ReferenceEvaluator(&fusion).run(inputs);
  FusionExecutorCache fec(std::make_unique<Fusion>(fusion));
  fec.runFusionWithInputs(inputs);
  EXPECT_EQ(fec.getMostRecentKernelRuntime()->isSegmented(), segmented);
#ifndef MF_SEGMENTATION_ON_GPU
  std::vector<Tensor> interpreted =
      fec.getMostRecentKernelRuntime()->runOnHost(inputs, testing::interpretKernelOrThrow);
  ASSERT_EQ(interpreted.size(), expected.size());
  for (size_t o = 0; o < expected.size(); ++o)
    segtest::expectSameTensor(interpreted[o], expected[o]);
#endif
}

// Pointwise refuses the whole fusion with `reason`; the segmentation has an edge, every group
// is taken by its scheduler at these sizes, and the groups reproduce the reference on every
// path.
void expectCutAndRunnable(Fusion& fusion, const std::vector<Tensor>& inputs,
                          const std::string& reason) {
  SchedulerRuntimeInfo info(&fusion, inputs);
  HeuristicsProposal whole = proposeHeuristics(&fusion, info);
  EXPECT_FALSE(whole.accepted());
  EXPECT_THAT(whole.rejectionsString(), HasSubstr(reason));

  auto sf = SegmentCandidateFinder::segment(fusion, inputs);
  ASSERT_TRUE(sf->isSegmented()) << sf->toString();
  ASSERT_FALSE(sf->edges().empty()) << sf->toString();
  for (SegmentedEdge* edge : sf->edges()) {
    const auto& outs = edge->from->outputs();
    const auto& ins = edge->to->inputs();
    EXPECT_NE(std::find(outs.begin(), outs.end(), edge->val), outs.end());
    EXPECT_NE(std::find(ins.begin(), ins.end(), edge->val), ins.end());
  }
  SchedulerRuntimeInfo complete_info(sf->completeFusion(), inputs);
  for (SegmentedGroup* group : sf->groups()) {
    std::unique_ptr<Fusion> f = sf->makeFusion(group);
    auto group_info = sf->groupRuntimeInfo(group, f.get(), complete_info);
    EXPECT_NE(sf->computeHeuristics(group, f.get(), *group_info), nullptr) << group->toString();
  }
  const std::vector<Tensor> expected = ReferenceEvaluator(&fusion).run(inputs);
  std::vector<Tensor> by_group = segtest::runGroupByGroup(*sf, inputs);
  ASSERT_EQ(by_group.size(), expected.size());
  for (size_t o = 0; o < expected.size(); ++o) segtest::expectSameTensor(by_group[o], expected[o]);
  segtest::expectCacheMatchesReference(fusion, *sf, inputs);
  expectCacheRunsOnInterpreter(fusion, inputs, /*segmented=*/true);
}

// Each reshaped to one axis: a squeeze of the size-1 axis and a merge of the others.
const std::vector<std::vector<int64_t>> kSizes = {{2, 1, 7}, {5, 3, 13}, {1, 4, 3}};

int64_t numel(const std::vector<int64_t>& sizes) {
  return sizes[0] * sizes[1] * sizes[2];
}

// A tensor read by a reshape and by another expr: one loop nest cannot cover both. (A size-1
// axis would make the reshape read a squeeze's output instead: no refusal, one kernel; the
// next test has them.)
TEST(ShapeSegmentation, TensorReadByReshapeAndAnotherExpr) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> reshapes = {
      {{5, 13}, {65}}, {{2, 7}, {7, 2}}, {{3, 4}, {2, 6}}};
  for (const auto& [from, to] : reshapes) {
    SCOPED_TRACE(fmt::format("[{}, {}]", from[0], from[1]));
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* t0 = makeContigConcreteTensor(from);
    fusion.addInput(t0);
    TensorView* t1 = mul(t0, constFloat(3.0));  // a binary op: not copied into each reader
    fusion.addOutput(mul(reshape(t1, from, to), constFloat(2.0)));
    fusion.addOutput(add(t1, constFloat(1.0)));
    expectCutAndRunnable(fusion, {Tensor::random(from, DataType::Float, 3)},
                         "is read by the reshape");
  }
}

// A broadcast after a reshape is a new axis in the middle of the fusion: the reshape's output
// goes through global memory, and the broadcast then reads a segment input.
TEST(ShapeSegmentation, BroadcastAfterReshape) {
  for (const std::vector<int64_t>& mn : kSizes) {
    SCOPED_TRACE(fmt::format("[{}, {}, {}]", mn[0], mn[1], mn[2]));
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* t0 = makeContigConcreteTensor(mn);
    TensorView* t1 = makeContigConcreteTensor({numel(mn), 3});
    fusion.addInput(t0);
    fusion.addInput(t1);
    TensorView* flat = reshape(exp(t0), mn, {numel(mn)});
    fusion.addOutput(add(broadcast(flat, {false, true}), t1));
    expectCutAndRunnable(fusion,
                         {Tensor::random(mn, DataType::Float, 5),
                          Tensor::random({numel(mn), 3}, DataType::Float, 6)},
                         "follows the shape op");
  }
}

// A broadcast one use squeezes and another iterates (added to [m, n]): the producer's loop
// would cover the iterated axis for one consumer and drop it for the other (H200 fuzz seeds
// 127, 241). A squeeze of a broadcast nothing iterates stays in one kernel (the next test).
TEST(ShapeSegmentation, SqueezeOfAnIteratedBroadcast) {
  for (const std::vector<int64_t>& mn : {std::vector<int64_t>{1, 3}, {7, 13}, {31, 2}}) {
    SCOPED_TRACE(fmt::format("[{}, {}]", mn[0], mn[1]));
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* t0 = makeContigConcreteTensor({mn[0]});
    TensorView* t1 = makeContigConcreteTensor(mn);
    fusion.addInput(t0);
    fusion.addInput(t1);
    TensorView* b = exp(broadcast(t0, {false, true}));
    fusion.addOutput(mul(squeeze(b, std::vector<int64_t>{1}), constFloat(2.0)));
    fusion.addOutput(add(b, t1));
    expectCutAndRunnable(
        fusion,
        {Tensor::random({mn[0]}, DataType::Float, 7), Tensor::random(mn, DataType::Float, 8)},
        "which another use iterates");
  }
}

// A slice to one column of a symbolic input (a broadcast once concretized) that one use
// squeezes and another pads to three columns: the pad iterates the broadcast, so a merge with
// it is not its other input; the segmenter cuts (H200 fuzz seed 9101: validateSchedule
// refused the one-kernel schedule).
TEST(ShapeSegmentation, SqueezeOfAPaddedBroadcast) {
  for (int64_t m : {1, 7, 131}) {
    SCOPED_TRACE(m);
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* t0 = makeSymbolicTensor(2);
    fusion.addInput(t0);
    TensorView* s = slice(abs(t0), {Slice{}, Slice{constInt(2), constInt(3)}});
    fusion.addOutput(mul(squeeze(s, std::vector<int64_t>{1}), constFloat(2.0)));
    fusion.addOutput(pad(s, {constInt(1), constInt(1)}, constFloat(-2.0)));
    const std::vector<Tensor> inputs = {Tensor::random({m, 5}, DataType::Float, 17)};
    expectCacheRunsOnInterpreter(fusion, inputs, /*segmented=*/true);
  }
}

// A squeeze of a broadcast that nothing iterates, the broadcast tensor also an output: one
// kernel, the merged [m, 1] loop the same as the squeezed [m] (IdModel's trivial merge; H200
// fuzz seeds 41, 73).
TEST(ShapeSegmentation, SqueezeOfABroadcastOutputIsOneKernel) {
  for (int64_t m : {1, 13, 1031}) {
    SCOPED_TRACE(m);
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* t0 = makeContigConcreteTensor({m, 1});
    fusion.addInput(t0);
    TensorView* b = neg(t0);
    fusion.addOutput(b);
    fusion.addOutput(exp(squeeze(b, std::vector<int64_t>{1})));
    const std::vector<Tensor> inputs = {Tensor::random({m, 1}, DataType::Float, 9)};
    expectCacheRunsOnInterpreter(fusion, inputs, /*segmented=*/false);
  }
}

// A squeeze of an Iteration axis (a static reshape [1] -> [] of a symbolic input) reading a
// unary op of an input: the unary op is not forwarded (copied into each reader), so the squeeze
// is a view of a segment input rather than a group no scheduler takes (H200 fuzz seed 5433).
TEST(ShapeSegmentation, SqueezeOfIterationAxisReadsASegmentInput) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = log(t0);
  fusion.addOutput(exp(t1));
  fusion.addOutput(
      mul(reshape(t1, std::vector<int64_t>{1}, std::vector<int64_t>{}), constFloat(2.0)));
  const std::vector<Tensor> inputs = {Tensor::random({1}, DataType::Float, 16)};
  expectCacheRunsOnInterpreter(fusion, inputs, /*segmented=*/true);
}

// The cut after a reshape of symbolic sizes: the next segment reads the reshape's output,
// whose extent ( i0 * i1 ) the producer computed; there it is a plain input of a fresh
// extent (copySubgraph), bound from the tensor's size.
TEST(ShapeSegmentation, CutAfterReshapeOfSymbolicSizes) {
  for (const std::vector<int64_t>& mn :
       std::vector<std::vector<int64_t>>{{5, 13}, {1, 7}, {3, 1}}) {
    SCOPED_TRACE(fmt::format("[{}, {}]", mn[0], mn[1]));
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* t0 = makeContigTensor(2);
    TensorView* t1 = makeContigTensor(2);
    fusion.addInput(t0);
    fusion.addInput(t1);
    TensorView* flat = flatten(exp(t0));
    fusion.addOutput(mul(flat, constFloat(2.0)));
    fusion.addOutput(add(broadcast(flat, {false, true}), t1));
    const int64_t n = mn[0] * mn[1];
    const std::vector<Tensor> inputs = {Tensor::random(mn, DataType::Float, 7),
                                        Tensor::random({n, 3}, DataType::Float, 8)};
    auto sf = SegmentCandidateFinder::segment(fusion, inputs);
    for (SegmentedGroup* group : sf->groups()) {
      std::unique_ptr<Fusion> f = sf->makeFusion(group);
      for (Val* in : f->inputs()) {
        auto* tv = dynamic_cast<TensorView*>(in);
        if (tv == nullptr) continue;
        for (IterDomain* id : tv->getLogicalDomain())
          EXPECT_EQ(id->extent()->definition(), nullptr) << group->toString();
      }
    }
    expectCutAndRunnable(fusion, inputs, "follows the shape op");
  }
}

// A broadcast after a pad is refused like one after a reshape: the pad's loop is the
// schedule's only where the pad leads to the reference, and a broadcast axis inserted after
// it is not (seed 135 of test_random_shape_ops bound such a tensor to blockIdx.x unlike its
// consumer).
TEST(ShapeSegmentation, BroadcastAfterPadIsRefused) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigConcreteTensor({5});
  TensorView* t1 = makeContigConcreteTensor({7, 3});
  fusion.addInput(t0);
  fusion.addInput(t1);
  TensorView* padded = pad(exp(t0), {constInt(1), constInt(1)});
  fusion.addOutput(add(broadcast(padded, {false, true}), t1));
  const std::vector<Tensor> inputs = {Tensor::random({5}, DataType::Float, 10),
                                      Tensor::random({7, 3}, DataType::Float, 11)};
  SchedulerRuntimeInfo info(&fusion, inputs);
  HeuristicsProposal whole = proposeHeuristics(&fusion, info);
  EXPECT_FALSE(whole.accepted());
  EXPECT_THAT(whole.rejectionsString(), HasSubstr("follows the shape op"));
  EXPECT_THAT(whole.rejectionsString(), HasSubstr("pad, slice or cat is not scheduled"));
}

}  // namespace
}  // namespace mf
