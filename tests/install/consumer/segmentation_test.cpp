// docs/segmenter.md's "Unit-testing segmentation" example, built against the installed
// package as a user's test would be: <minifuser/testing/segmentation.h> and GoogleTest.
// run_consumer_test.sh runs it. Keep the two in step.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <minifuser/minifuser.h>
#include <minifuser/testing/segmentation.h>

using namespace mf;
using ::testing::ElementsAre;

// T1 = exp(T0); T2 = segment_set(T1); T3 = neg(T2): two pointwise segments, T2 between them.
TEST(UserSegmentation, SegmentSetSplitsAChain) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  fusion.addInput(t0);
  fusion.addOutput(neg(segment_set(exp(t0))));
  const std::vector<Tensor> inputs = {Tensor::random({8, 3}, DataType::Float, 4)};

  auto sf = SegmentCandidateFinder::segment(fusion, inputs);
  ASSERT_EQ(sf->groups().size(), 2u) << sf->toString();
  EXPECT_EQ(sf->groups()[0]->schedulerType(), SchedulerType::PointWise);
  EXPECT_THAT(segtest::computed(sf->groups()[0]), ElementsAre("T1", "T2"));
  EXPECT_THAT(segtest::edgeStrings(*sf), ElementsAre("0 -> 1: T2"));
  // The groups, run one after another on the CPU reference, give the fusion's outputs.
  const Tensor expected = ReferenceEvaluator(&fusion).run(inputs).at(0);
  EXPECT_EQ(segtest::tensorDifference(segtest::runGroupByGroup(*sf, inputs).at(0), expected), "");
}
