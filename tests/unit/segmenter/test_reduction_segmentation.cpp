// Segmentation of fusions with reductions (CPU), in the style of nvFuser's test_gpu2.cpp
// segment tests: the groups, their scheduler types and what they compute; each fusion's groups
// run one after another on the reference reproduce the whole fusion, and the fusion goes
// through FusionExecutorCache (every group scheduled, lowered and compiled with NVRTC; the
// outputs from the reference, compared with the unsegmented reference's).
// tests/gpu/test_reduction_scheduler_gpu.cpp runs the same fusions on the device.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "unit/segmenter/reduction_fusions.h"
#include "unit/segmenter/segmentation_test_utils.h"

namespace mf {
namespace {

using segtest::computed;
using ::testing::ElementsAre;

std::vector<SchedulerType> schedulerTypes(const SegmentedFusion& sf) {
  std::vector<SchedulerType> types;
  for (SegmentedGroup* g : sf.groups()) types.push_back(g->schedulerType());
  return types;
}

// Segments `rf` for its inputs, runs the groups on the reference, and runs it through
// FusionExecutorCache; returns the segmentation.
std::unique_ptr<SegmentedFusion> segmentAndRun(const redtest::ReductionFusion& rf,
                                               const std::vector<Tensor>& inputs) {
  auto sf = SegmentCandidateFinder::segment(*rf.fusion, inputs);
  std::vector<Tensor> expected = ReferenceEvaluator(rf.fusion.get()).run(inputs);
  std::vector<Tensor> grouped = segtest::runGroupByGroup(*sf, inputs);
  EXPECT_EQ(grouped.size(), expected.size());
  for (size_t i = 0; i < expected.size() && i < grouped.size(); ++i)
    segtest::expectSameTensor(grouped[i], expected[i]);

  // On a device a sum's rounding depends on its order: 1e-6 per term of the longest input.
  int64_t terms = 1;
  for (const Tensor& t : inputs) terms = std::max(terms, t.numel());
  segtest::expectCacheMatchesReference(*rf.fusion, *sf, inputs, 1e-6 * static_cast<double>(terms));
  return sf;
}

// add -> max over axis 0 -> add a [N] vector -> add a [M, N] tensor: the [N] add stays with
// the reduction (no broadcast), the [M, N] add broadcasts the result back: a PointWise group.
TEST(ReductionSegmentation, ReduceThenPointwise) {
  redtest::ReductionFusion rf = redtest::reducePointwise();
  auto sf = segmentAndRun(rf, rf.inputs(31, 17, 1));
  ASSERT_EQ(sf->groups().size(), 2u) << sf->toString();
  EXPECT_THAT(schedulerTypes(*sf), ElementsAre(SchedulerType::Reduction, SchedulerType::PointWise));
  // The broadcast of the [N] result goes with the reduction (its output crosses as [1, N]).
  EXPECT_THAT(
      computed(sf->groups()[0]),
      ::testing::IsSupersetOf({rf.names.at("add"), rf.names.at("max"), rf.names.at("vector_add")}));
  EXPECT_THAT(computed(sf->groups()[1]), ElementsAre(rf.outputs.at(0)));
  EXPECT_EQ(sf->edges().size(), 1u);
}

// Four chained sums of the last axis, then an add with a second input: each sum reduces a
// different shape, so each is its own Reduction group; the add joins the last one.
TEST(ReductionSegmentation, FourChainedSums) {
  redtest::ReductionFusion rf = redtest::fourChainedSums();
  auto sf = segmentAndRun(rf, rf.inputs(3, 5, 2));
  EXPECT_LE(sf->groups().size(), 4u) << sf->toString();
  for (SchedulerType t : schedulerTypes(*sf)) EXPECT_EQ(t, SchedulerType::Reduction);
  EXPECT_THAT(computed(sf->groups().back()), ::testing::Contains(rf.outputs.back()));
}

// Scalar inputs used before and after reductions: two groups (the sum of axis 1 and the sum
// of axis 0 of the result cannot share a loop nest), the scalars are inputs of the groups
// that use them, never groups of their own.
TEST(ReductionSegmentation, ScalarsBeforeAndAfterReductions) {
  redtest::ReductionFusion rf = redtest::scalarsAroundReductions();
  auto sf = segmentAndRun(rf, rf.inputs(9, 33, 3));
  ASSERT_EQ(sf->groups().size(), 2u) << sf->toString();
  EXPECT_THAT(schedulerTypes(*sf), ElementsAre(SchedulerType::Reduction, SchedulerType::Reduction));
  for (SegmentedGroup* g : sf->groups()) {
    for (Expr* e : g->exprs()) EXPECT_NE(e->output(0)->kind(), ValKind::Scalar);
    EXPECT_EQ(segtest::names(g->inputs()).back(), rf.fusion->inputs().back()->toInlineString());
  }
}

// Sums of different axes of one input (an inner and an outer reduction): one group each.
TEST(ReductionSegmentation, DifferentAxesOfOneInput) {
  redtest::ReductionFusion rf = redtest::differentAxes();
  auto sf = segmentAndRun(rf, rf.inputs(13, 29, 4));
  ASSERT_EQ(sf->groups().size(), 2u) << sf->toString();
  EXPECT_THAT(schedulerTypes(*sf), ElementsAre(SchedulerType::Reduction, SchedulerType::Reduction));
  EXPECT_TRUE(sf->edges().empty());
}

// Islands: two independent reductions of two inputs of different shapes.
TEST(ReductionSegmentation, TwoIndependentReductions) {
  redtest::ReductionFusion rf = redtest::islands();
  auto sf = segmentAndRun(rf, rf.inputs(11, 7, 5));
  ASSERT_EQ(sf->groups().size(), 2u) << sf->toString();
  EXPECT_THAT(schedulerTypes(*sf), ElementsAre(SchedulerType::Reduction, SchedulerType::Reduction));
  EXPECT_TRUE(sf->edges().empty());
}

// Two reductions of one input over the same axes, with a pointwise op before and one after
// each: one Reduction kernel.
TEST(ReductionSegmentation, SameAxesShareOneKernel) {
  redtest::ReductionFusion rf = redtest::sumAndMaxOfRows();
  auto sf = segmentAndRun(rf, rf.inputs(6, 100, 6));
  ASSERT_EQ(sf->groups().size(), 1u) << sf->toString();
  EXPECT_EQ(sf->groups()[0]->schedulerType(), SchedulerType::Reduction);
}

}  // namespace
}  // namespace mf
