// Segmentation on the CPU (nothing is compiled or run on a device), in the style of
// nvFuser's test_segmentation.cpp: build a fusion, segment it for some input sizes, and
// assert the groups, their schedulers, their exprs and the edges between them. Where a
// test also runs the groups, it runs each group's fusion on the CPU reference in run order
// and compares with the whole fusion's reference outputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "unit/segmenter/segmentation_test_utils.h"

namespace mf {
namespace {

using segtest::computed;
using segtest::edgeStrings;
using segtest::names;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// The whole fusion's reference outputs equal those of its groups run one after another,
// and FusionExecutorCache cuts the fusion the same way and computes the same outputs.
void expectGroupsReproduceFusion(Fusion& fusion, const SegmentedFusion& sf,
                                 const std::vector<Tensor>& inputs) {
  std::vector<Tensor> expected = ReferenceEvaluator(&fusion).run(inputs);
  std::vector<Tensor> actual = segtest::runGroupByGroup(sf, inputs);
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) segtest::expectSameTensor(actual[i], expected[i]);
  segtest::expectCacheMatchesReference(fusion, sf, inputs);
}

// A segment_set prints by its name and the reference evaluates it as a copy.
TEST(SegmentSet, PrintsAndEvaluatesAsCopy) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = segment_set(t0);
  fusion.addOutput(t1);
  EXPECT_TRUE(isSegmentSet(t1->definition()));
  EXPECT_THAT(t1->definition()->toString(), HasSubstr("= segment_set(T0)"));
  Tensor in = Tensor::random({7}, DataType::Float, 3);
  segtest::expectSameTensor(ReferenceEvaluator(&fusion).run({in})[0], in);
}

// Two unrelated pointwise subgraphs of shapes [10, 20] and [15]: no output covers the other's
// axes, so no scheduler takes the whole; each becomes a group, with no edge between them.
TEST(Segmentation, DisjointSubgraphsWithIncompatibleShapes) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  TensorView* t1 = makeContigTensor(1);
  fusion.addInput(t0);
  fusion.addInput(t1);
  fusion.addOutput(exp(t0));  // T2
  fusion.addOutput(neg(t1));  // T3
  std::vector<Tensor> inputs = {Tensor::random({10, 20}, DataType::Float, 1),
                                Tensor::random({15}, DataType::Float, 2)};

  auto sf = SegmentCandidateFinder::segment(fusion, inputs);
  ASSERT_EQ(sf->groups().size(), 2u) << sf->toString();
  EXPECT_TRUE(sf->isSegmented());
  SegmentedGroup* g0 = sf->groups()[0];
  SegmentedGroup* g1 = sf->groups()[1];
  EXPECT_EQ(g0->schedulerType(), SchedulerType::PointWise);
  EXPECT_EQ(g1->schedulerType(), SchedulerType::PointWise);
  EXPECT_THAT(computed(g0), ElementsAre("T2"));
  EXPECT_THAT(names(g0->inputs()), ElementsAre("T0"));
  EXPECT_THAT(computed(g1), ElementsAre("T3"));
  EXPECT_THAT(names(g1->inputs()), ElementsAre("T1"));
  EXPECT_TRUE(sf->edges().empty());
  expectGroupsReproduceFusion(fusion, *sf, inputs);
  // The runtime's overload, from its run-time info, segments the same way.
  SchedulerRuntimeInfo info(&fusion, inputs);
  EXPECT_EQ(SegmentCandidateFinder::segment(fusion, info)->toString(), sf->toString());
}

// One fusion a scheduler takes whole is one group holding every expr.
TEST(Segmentation, WholeFusionIsOneGroup) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = mul(t0, constFloat(2.0));
  fusion.addOutput(exp(t1));
  auto sf = SegmentCandidateFinder::segment(fusion, {Tensor::random({4, 5}, DataType::Float, 1)});
  ASSERT_EQ(sf->groups().size(), 1u);
  EXPECT_FALSE(sf->isSegmented());
  EXPECT_EQ(sf->groups()[0]->schedulerType(), SchedulerType::PointWise);
  EXPECT_THAT(computed(sf->groups()[0]), ElementsAre("T1", "T2"));
}

// A shared input feeds outputs broadcast to rank 2 ([N, M]) and rank 3 ([N, M, K]) with
// unrelated M axes: no output covers both, so the fusion splits into two pointwise groups,
// one per output, and the shared value crosses the boundary.
TEST(Segmentation, OutputsBroadcastToDifferentRanks) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  TensorView* t1 = makeContigTensor(2);
  TensorView* t2 = makeContigTensor(3);
  fusion.addInput(t0);
  fusion.addInput(t1);
  fusion.addInput(t2);
  TensorView* t3 = mul(t0, constFloat(2.0));
  TensorView* out2d = add(broadcast(t3, {false, true}), t1);
  TensorView* out3d = add(broadcast(t3, {false, true, true}), t2);
  fusion.addOutput(out2d);
  fusion.addOutput(out3d);
  std::vector<Tensor> inputs = {Tensor::random({6}, DataType::Float, 1),
                                Tensor::random({6, 5}, DataType::Float, 2),
                                Tensor::random({6, 4, 3}, DataType::Float, 3)};

  auto sf = SegmentCandidateFinder::segment(fusion, inputs);
  ASSERT_EQ(sf->groups().size(), 2u) << sf->toString();
  auto group_of = [&](Val* v) {
    for (SegmentedGroup* g : sf->groups())
      for (Expr* e : g->exprs())
        if (e->output(0)->toInlineString() == v->toInlineString()) return g->id();
    return int64_t{-1};
  };
  EXPECT_EQ(group_of(out2d), 0);
  EXPECT_EQ(group_of(out3d), 1);
  for (SegmentedGroup* g : sf->groups()) EXPECT_EQ(g->schedulerType(), SchedulerType::PointWise);
  ASSERT_FALSE(sf->edges().empty());
  for (SegmentedEdge* e : sf->edges()) {
    EXPECT_EQ(e->from->id(), 0);
    EXPECT_EQ(e->to->id(), 1);
  }
  expectGroupsReproduceFusion(fusion, *sf, inputs);
}

// T1 = exp(T0); T2 = segment_set(T1); T3 = neg(T2): the hint ends the segment of its
// producer; neg starts the next one and T2 crosses in global memory.
TEST(Segmentation, SegmentSetInTheMiddleOfAChain) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = exp(t0);
  TensorView* t2 = segment_set(t1);
  fusion.addOutput(neg(t2));
  std::vector<Tensor> inputs = {Tensor::random({8, 3}, DataType::Float, 4)};

  auto sf = SegmentCandidateFinder::segment(fusion, inputs);
  ASSERT_EQ(sf->groups().size(), 2u) << sf->toString();
  SegmentedGroup* g0 = sf->groups()[0];
  SegmentedGroup* g1 = sf->groups()[1];
  EXPECT_EQ(g0->schedulerType(), SchedulerType::PointWise);
  EXPECT_EQ(g1->schedulerType(), SchedulerType::PointWise);
  EXPECT_THAT(computed(g0), ElementsAre("T1", "T2"));
  EXPECT_THAT(names(g0->outputs()), ElementsAre("T2"));
  EXPECT_THAT(computed(g1), ElementsAre("T3"));
  EXPECT_THAT(edgeStrings(*sf), ElementsAre("0 -> 1: T2"));
  ASSERT_EQ(g1->producerEdges().size(), 1u);
  EXPECT_EQ(g1->producerEdges()[0], g0->consumerEdges().at(0));

  // In its segment the hint is a plain copy: the boundary it asked for is there.
  std::unique_ptr<Fusion> f0 = sf->makeFusion(g0);
  EXPECT_THAT(f0->mathString(), HasSubstr("= set(T1)"));
  EXPECT_THAT(f0->mathString(), ::testing::Not(HasSubstr("segment_set")));
  expectGroupsReproduceFusion(fusion, *sf, inputs);
}

// The whole segmentation prints deterministically: groups in run order, then edges.
TEST(Segmentation, ToStringListsGroupsAndEdges) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = exp(t0);
  TensorView* t2 = segment_set(t1);
  TensorView* t3 = neg(t2);
  fusion.addOutput(t3);
  auto sf = SegmentCandidateFinder::segment(fusion, {Tensor::random({9}, DataType::Float, 4)});
  const std::string expected =
      "Segmented fusion: 2 groups\n"
      "group 0 (pointwise)\n"
      "  inputs: T0\n"
      "  outputs: T2\n"
      "  " +
      t1->definition()->toString() + "\n" + "  " + t2->definition()->toString() + "\n" +
      "group 1 (pointwise)\n"
      "  inputs: T2\n"
      "  outputs: T3\n"
      "  " +
      t3->definition()->toString() + "\n" + "edge group 0 -> group 1: T2\n";
  EXPECT_EQ(sf->toString(), expected);
}

// A segment_set whose output is also a fusion output: the hint's segment writes it once,
// for the caller and for the consumer's segment.
TEST(Segmentation, SegmentSetOutputIsAlsoAFusionOutput) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = exp(t0);
  TensorView* t2 = segment_set(t1);
  fusion.addOutput(t2);
  fusion.addOutput(neg(t2));  // T3
  std::vector<Tensor> inputs = {Tensor::random({5, 7}, DataType::Float, 5)};

  auto sf = SegmentCandidateFinder::segment(fusion, inputs);
  ASSERT_EQ(sf->groups().size(), 2u) << sf->toString();
  EXPECT_THAT(computed(sf->groups()[0]), ElementsAre("T1", "T2"));
  EXPECT_THAT(names(sf->groups()[0]->outputs()), ElementsAre("T2"));
  EXPECT_THAT(computed(sf->groups()[1]), ElementsAre("T3"));
  EXPECT_THAT(edgeStrings(*sf), ElementsAre("0 -> 1: T2"));
  expectGroupsReproduceFusion(fusion, *sf, inputs);
}

// Two segment_sets of one tensor both end their producer's segment; their consumer reads
// both through two edges.
TEST(Segmentation, TwoSegmentSetsOfOneTensor) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = exp(t0);
  TensorView* t2 = segment_set(t1);
  TensorView* t3 = segment_set(t1);
  fusion.addOutput(add(t2, t3));  // T4
  std::vector<Tensor> inputs = {Tensor::random({4, 6}, DataType::Float, 6)};

  auto sf = SegmentCandidateFinder::segment(fusion, inputs);
  ASSERT_EQ(sf->groups().size(), 2u) << sf->toString();
  EXPECT_THAT(computed(sf->groups()[0]), ElementsAre("T1", "T2", "T3"));
  EXPECT_THAT(computed(sf->groups()[1]), ElementsAre("T4"));
  EXPECT_THAT(edgeStrings(*sf), ElementsAre("0 -> 1: T2", "0 -> 1: T3"));
  expectGroupsReproduceFusion(fusion, *sf, inputs);
}

// A unary chain off a fusion input (cast, neg) never becomes a segment of its own, even
// when nothing may merge: it is copied into the group that reads its end.
TEST(Segmentation, ForwardedInputChainIsNotASegment) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2, DataType::Half);
  fusion.addInput(t0);
  TensorView* t1 = castOp(DataType::Float, t0);
  TensorView* t2 = neg(t1);
  fusion.addOutput(segment_set(t2));  // T3
  std::vector<Tensor> inputs = {Tensor::random({3, 5}, DataType::Half, 7)};

  SegmentCandidateFinderOptions never_merge;
  never_merge.custom_should_merge_groups = [](const auto&, const auto&) { return false; };
  auto sf = SegmentCandidateFinder::segment(fusion, inputs, never_merge);
  ASSERT_EQ(sf->groups().size(), 1u) << sf->toString();
  EXPECT_THAT(computed(sf->groups()[0]), ElementsAre("T1", "T2", "T3"));
  EXPECT_THAT(names(sf->groups()[0]->inputs()), ElementsAre("T0"));
  expectGroupsReproduceFusion(fusion, *sf, inputs);
}

// custom_should_merge_groups is asked before the whole fusion is taken at once: a fusion
// the pointwise scheduler takes whole still gives one group per expr when it says no (it
// used to give one group), and one group when it says yes.
TEST(Segmentation, NeverMergeGivesOneGroupPerExprEvenWhenOneSchedulerTakesAll) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  TensorView* t1 = makeContigTensor(2);
  fusion.addInput(t0);
  fusion.addInput(t1);
  fusion.addOutput(mul(add(t0, t1), t0));  // T2 = T0 + T1, T3 = T2 * T0
  std::vector<Tensor> inputs = {Tensor::random({4, 5}, DataType::Float, 1),
                                Tensor::random({4, 5}, DataType::Float, 2)};
  ASSERT_EQ(SegmentCandidateFinder::segment(fusion, inputs)->groups().size(), 1u);

  SegmentCandidateFinderOptions never_merge;
  never_merge.custom_should_merge_groups = [](const auto&, const auto&) { return false; };
  auto sf = SegmentCandidateFinder::segment(fusion, inputs, never_merge);
  ASSERT_EQ(sf->groups().size(), 2u) << sf->toString();
  EXPECT_THAT(computed(sf->groups()[0]), ElementsAre("T2"));
  EXPECT_THAT(computed(sf->groups()[1]), ElementsAre("T3"));
  EXPECT_THAT(edgeStrings(*sf), ElementsAre("0 -> 1: T2"));
  std::vector<Tensor> expected = ReferenceEvaluator(&fusion).run(inputs);
  segtest::expectSameTensor(segtest::runGroupByGroup(*sf, inputs)[0], expected[0]);

  SegmentCandidateFinderOptions always_merge;
  int asked = 0;
  always_merge.custom_should_merge_groups = [&](const auto&, const auto&) {
    ++asked;
    return true;
  };
  EXPECT_EQ(SegmentCandidateFinder::segment(fusion, inputs, always_merge)->groups().size(), 1u);
  EXPECT_GT(asked, 0);
}

// The chain's end is read by two groups that cannot merge: each gets its own copy of the
// chain, so its end never goes through global memory.
TEST(Segmentation, ForwardedInputChainIsCopiedIntoEachConsumer) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1, DataType::Half);
  TensorView* t1 = makeContigTensor(2);
  TensorView* t2 = makeContigTensor(3);
  fusion.addInput(t0);
  fusion.addInput(t1);
  fusion.addInput(t2);
  TensorView* t3 = neg(castOp(DataType::Float, t0));  // T3 = cast, T4 = neg
  fusion.addOutput(add(broadcast(t3, {false, true}), t1));
  fusion.addOutput(add(broadcast(t3, {false, true, true}), t2));
  std::vector<Tensor> inputs = {Tensor::random({6}, DataType::Half, 1),
                                Tensor::random({6, 5}, DataType::Float, 2),
                                Tensor::random({6, 4, 3}, DataType::Float, 3)};

  auto sf = SegmentCandidateFinder::segment(fusion, inputs);
  ASSERT_EQ(sf->groups().size(), 2u) << sf->toString();
  for (SegmentedGroup* g : sf->groups()) {
    std::vector<std::string> c = computed(g);
    ASSERT_GE(c.size(), 2u);
    EXPECT_EQ(c[0], "T3");
    EXPECT_EQ(c[1], "T4");
    EXPECT_EQ(names(g->inputs())[0], "T0");
  }
  EXPECT_TRUE(sf->edges().empty());
  expectGroupsReproduceFusion(fusion, *sf, inputs);
}

// The layout op whose input offsets are computed (in_off + 1): the add lands in an earlier
// segment and its result reaches the layout op's segment through global memory; the data
// input's producer (x * 2) stays with the layout op.
TEST(Segmentation, LayoutOpWithComputedOffsets) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* in = makeContigTensor(2);
  TensorView* in_off = makeContigTensor(1, DataType::Int32);
  TensorView* out_off = makeContigTensor(1, DataType::Int32);
  fusion.addInput(in);
  fusion.addInput(in_off);
  fusion.addInput(out_off);
  TensorView* in_off1 = add(in_off, constInt(1, DataType::Int32));           // T3
  TensorView* data = mul(in, constFloat(2.0));                               // T4
  fusion.addOutput(preprocessGroupedMatmulInputSf(data, in_off1, out_off));  // T5
  std::vector<Tensor> inputs = {Tensor::random({300, 16}, DataType::Float, 1),
                                Tensor::fromVector<int32_t>({-1, 99, 199}, {3}),
                                Tensor::fromVector<int32_t>({0, 128, 256}, {3})};

  OptionsGuard guard;
  guard.enableDump(DumpOption::SegmenterLogging);
  ::testing::internal::CaptureStdout();
  auto sf = SegmentCandidateFinder::segment(fusion, inputs);
  std::string log = ::testing::internal::GetCapturedStdout();
  ASSERT_EQ(sf->groups().size(), 2u) << sf->toString();
  SegmentedGroup* g0 = sf->groups()[0];
  SegmentedGroup* g1 = sf->groups()[1];
  EXPECT_EQ(g0->schedulerType(), SchedulerType::PointWise);
  EXPECT_EQ(g1->schedulerType(), SchedulerType::PointWise);
  EXPECT_THAT(computed(g0), ElementsAre("T3"));
  EXPECT_THAT(computed(g1), ElementsAre("T4", "T5"));
  EXPECT_THAT(names(g1->inputs()), ElementsAre("T0", "T3", "T2"));
  EXPECT_THAT(edgeStrings(*sf), ElementsAre("0 -> 1: T3"));
  // Why: the whole fusion and the union of both groups break the offsets rule.
  EXPECT_THAT(log, HasSubstr("pointwise: preprocessGroupedMatmulInputSf: the offsets T3 must be "
                             "a fusion input (its runtime function reads them from global "
                             "memory)"));
  EXPECT_THAT(log, HasSubstr("segmenter: merge {T3} + {T4, T5}: refused, no scheduler takes "
                             "the union:\n"));
  // The layout op's segment is a fusion the pointwise scheduler takes.
  std::unique_ptr<Fusion> f1 = sf->makeFusion(g1);
  auto info = sf->groupRuntimeInfo(g1, f1.get(), SchedulerRuntimeInfo(&fusion, inputs));
  EXPECT_NE(sf->computeHeuristics(g1, f1.get(), *info), nullptr);
  segtest::expectCacheMatchesReference(fusion, *sf, inputs);
}

// The layout op's output read by relu: relu is cut into a later segment, and building that
// segment fails naming the op and the consumer, before anything could run.
TEST(Segmentation, LayoutOpOutputWithAConsumerIsAUserError) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* in = makeContigTensor(2);
  TensorView* in_off = makeContigTensor(1, DataType::Int32);
  TensorView* out_off = makeContigTensor(1, DataType::Int32);
  fusion.addInput(in);
  fusion.addInput(in_off);
  fusion.addInput(out_off);
  TensorView* out = preprocessGroupedMatmulInputSf(in, in_off, out_off);  // T3
  TensorView* r = relu(out);                                              // T4
  fusion.addOutput(r);
  std::vector<Tensor> inputs = {Tensor::random({256, 8}, DataType::Float, 1),
                                Tensor::fromVector<int32_t>({0, 128}, {2}),
                                Tensor::fromVector<int32_t>({0, 128}, {2})};

  auto sf = SegmentCandidateFinder::segment(fusion, inputs);
  ASSERT_EQ(sf->groups().size(), 2u) << sf->toString();
  EXPECT_THAT(computed(sf->groups()[0]), ElementsAre("T3"));
  EXPECT_THAT(computed(sf->groups()[1]), ElementsAre("T4"));
  EXPECT_THAT(edgeStrings(*sf), ElementsAre("0 -> 1: T3"));
  EXPECT_NO_THROW(sf->makeFusion(sf->groups()[0]));
  // The same message as the scheduler registry's and validateSchedule's, plus the segment.
  EXPECT_THAT([&] { sf->makeFusion(sf->groups()[1]); },
              ThrowsMessage<UserError>(HasSubstr(
                  "unsafe use of the output of preprocessGroupedMatmulInputSf: " + out->toString() +
                  " is read by " + r->toString() +
                  ", but only a block-scaled grouped GEMM can read the padded, swizzled layout; do "
                  "not use it in the fusion (segment 1)")));
}

// T4 = T0 * 3 shares only an input with the hint's segment: no edge joins them, so only the
// final merge (which tries unrelated pairs) puts them in one kernel.
TEST(Segmentation, FinalMergeJoinsUnrelatedGroups) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  fusion.addInput(t0);
  fusion.addOutput(neg(segment_set(exp(t0))));  // T1, T2, T3
  fusion.addOutput(mul(t0, constFloat(3.0)));   // T4
  std::vector<Tensor> inputs = {Tensor::random({6, 7}, DataType::Float, 9)};

  auto merged = SegmentCandidateFinder::segment(fusion, inputs);
  ASSERT_EQ(merged->groups().size(), 2u) << merged->toString();
  EXPECT_THAT(computed(merged->groups()[0]), ElementsAre("T1", "T2", "T4"));
  EXPECT_THAT(computed(merged->groups()[1]), ElementsAre("T3"));
  expectGroupsReproduceFusion(fusion, *merged, inputs);

  SegmentCandidateFinderOptions no_final;
  no_final.run_final_merge = false;
  auto unmerged = SegmentCandidateFinder::segment(fusion, inputs, no_final);
  ASSERT_EQ(unmerged->groups().size(), 3u) << unmerged->toString();
  EXPECT_THAT(computed(unmerged->groups()[0]), ElementsAre("T1", "T2"));
  EXPECT_THAT(computed(unmerged->groups()[1]), ElementsAre("T3"));
  EXPECT_THAT(computed(unmerged->groups()[2]), ElementsAre("T4"));
}

// The regions between segment_sets are asked whole first: a chain of 40 ops with a
// segment_set every 5 is 8 groups of 5 ops (the last without a hint), each taken at once
// (the log has no producer-consumer merge), in chain order.
TEST(Segmentation, RegionsBetweenSegmentSetsAreTakenWhole) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* x = makeSymbolicTensor(2);
  fusion.addInput(x);
  TensorView* t = x;
  for (int i = 0; i < 40; ++i) {
    t = i % 3 == 0 ? mul(t, constFloat(1.5)) : i % 3 == 1 ? add(t, x) : neg(t);
    if (i % 5 == 4 && i + 1 < 40) t = segment_set(t);
  }
  fusion.addOutput(t);
  std::vector<Tensor> inputs = {Tensor::random({5, 7}, DataType::Float, 2)};
  OptionsGuard guard;
  guard.enableDump(DumpOption::SegmenterLogging);
  ::testing::internal::CaptureStdout();
  auto sf = SegmentCandidateFinder::segment(fusion, inputs);
  const std::string log = ::testing::internal::GetCapturedStdout();
  ASSERT_EQ(sf->groups().size(), 8u) << sf->toString();
  for (size_t g = 0; g < 8; ++g) {
    EXPECT_EQ(sf->groups()[g]->exprs().size(), g < 7 ? 6u : 5u) << sf->toString();
    EXPECT_EQ(sf->groups()[g]->schedulerType(), SchedulerType::PointWise);
  }
  size_t regions = 0;
  for (size_t at = log.find("between segment_sets is taken by pointwise"); at != std::string::npos;
       at = log.find("between segment_sets is taken by pointwise", at + 1))
    ++regions;
  EXPECT_EQ(regions, 8u) << log;
  EXPECT_THAT(log, ::testing::Not(HasSubstr(": accepted by"))) << log;
  expectGroupsReproduceFusion(fusion, *sf, inputs);
}

// Regions that read each other in a cycle (a reads b's segment_set, b reads a's) are not
// kept whole (one group each would be a cycle): the exprs are grouped one by one and the
// groups run in an order.
TEST(Segmentation, RegionsInACycleAreGroupedExprByExpr) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* x = makeContigTensor(2);
  fusion.addInput(x);
  TensorView* a = add(x, x);               // T1: region A (a binary op: not forwarded)
  TensorView* b = exp(segment_set(a));     // T2 (A), T3: region B
  TensorView* d = add(a, segment_set(b));  // T4 (B), T5 (A)
  fusion.addOutput(d);
  std::vector<Tensor> inputs = {Tensor::random({4, 9}, DataType::Float, 6)};
  OptionsGuard guard;
  guard.enableDump(DumpOption::SegmenterLogging);
  ::testing::internal::CaptureStdout();
  auto sf = SegmentCandidateFinder::segment(fusion, inputs);
  const std::string log = ::testing::internal::GetCapturedStdout();
  EXPECT_THAT(log, HasSubstr("segmenter: the regions read each other in a cycle\n")) << log;
  ASSERT_GE(sf->groups().size(), 2u) << sf->toString();
  expectGroupsReproduceFusion(fusion, *sf, inputs);
}

// Scalar math (s * 2 on a scalar input) is no segment: each group that needs it gets its
// definition and the scalar input, and it crosses no edge.
TEST(Segmentation, ScalarExprsAreCopiedIntoEachGroup) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  Val* s = newScalar(DataType::Double);
  fusion.addInput(t0);
  fusion.addInput(s);
  Val* s2 = mul(s, constFloat(2.0));
  TensorView* t1 = mul(t0, s2);
  fusion.addOutput(add(segment_set(t1), s2));
  std::vector<Tensor> inputs = {Tensor::random({11}, DataType::Float, 8),
                                Tensor::full({}, DataType::Double, 1.5)};

  auto sf = SegmentCandidateFinder::segment(fusion, inputs);
  ASSERT_EQ(sf->groups().size(), 2u) << sf->toString();
  for (SegmentedGroup* g : sf->groups()) {
    EXPECT_EQ(names(g->inputs()).back(), s->toInlineString());
    for (Expr* e : g->exprs()) EXPECT_NE(e->output(0)->kind(), ValKind::Scalar);
  }
  EXPECT_EQ(sf->edges().size(), 1u);
  EXPECT_THAT(sf->makeFusion(sf->groups()[1])->mathString(), HasSubstr("* 2.0"));
  expectGroupsReproduceFusion(fusion, *sf, inputs);
}

// A reduction of a middle axis, which no scheduler took before the Reduction scheduler
// canonicalized any axis set (the segmenter's "no scheduler takes `...` alone" error named
// it), is now one Reduction segment with its producer (a segment_set at the output cuts
// nothing off), scheduled and compiled through FusionExecutorCache.
TEST(Segmentation, MiddleAxisReductionIsAReductionSegment) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(3);
  fusion.addInput(t0);
  fusion.addOutput(segment_set(sum(neg(t0), {1})));
  std::vector<Tensor> inputs = {Tensor::random({3, 4, 5}, DataType::Float, 1)};
  auto sf = SegmentCandidateFinder::segment(fusion, inputs);
  ASSERT_EQ(sf->groups().size(), 1u) << sf->toString();
  EXPECT_EQ(sf->groups()[0]->schedulerType(), SchedulerType::Reduction);
  expectGroupsReproduceFusion(fusion, *sf, inputs);
  FusionExecutorCache fec(std::make_unique<Fusion>(fusion));
  EXPECT_EQ(fec.runFusionWithInputs(inputs).at(0).sizes(), std::vector<int64_t>({3, 5}));
  EXPECT_THAT(fec.getMostRecentCode(), HasSubstr("mf_blockAllReduceY<float>"));
}

// Misuse of the API is reported with what went wrong.
TEST(SegmentationErrors, ForeignRuntimeInfoAndGroup) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  fusion.addOutput(neg(segment_set(mul(t0, constFloat(2.0)))));
  std::vector<Tensor> inputs = {Tensor::random({5}, DataType::Float, 1)};
  Fusion other(fusion);
  SchedulerRuntimeInfo other_info(&other, inputs);
  EXPECT_THAT([&] { SegmentCandidateFinder::segment(fusion, other_info); },
              ThrowsMessage<UserError>(HasSubstr(
                  "SegmentCandidateFinder::segment: the run-time info is of another fusion")));

  auto sf = SegmentCandidateFinder::segment(fusion, inputs);
  auto sf2 = SegmentCandidateFinder::segment(fusion, inputs);
  EXPECT_THAT([&] { sf->makeFusion(sf2->groups()[0]); },
              ThrowsMessage<UserError>(
                  HasSubstr("makeFusion: the group is not one of this segmented fusion's")));
}

}  // namespace
}  // namespace mf
