// When a normalization's row does not fit in registers, InnerPersistent refuses at run time
// and the segmenter falls back to Reduction groups and a PointWise group (nvFuser: softmax
// becomes max | sub, exp, sum | div); buffers held one at a time share registers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "minifuser.h"
#include "unit/scheduler/normalization_fusions.h"
#include "unit/scheduler/scheduler_test_utils.h"
#include "unit/segmenter/segmentation_test_utils.h"

namespace mf {
namespace {

using ::testing::HasSubstr;

// fp32 softmax over rows of 65536: x alone would take 256 KiB of registers per row, over the
// 128 KiB budget, so no persistent kernel takes any part.
TEST(PersistentFallback, SoftmaxWhoseRowDoesNotFitIsReductionThenPointwise) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  testing::buildSoftmax(fusion, DataType::Float);
  std::vector<Tensor> in = {Tensor::random({4, 65536}, DataType::Float, 1)};
  auto sf = SegmentCandidateFinder::segment(fusion, in);
  ASSERT_GE(sf->groups().size(), 2u) << sf->toString();
  for (SegmentedGroup* g : sf->groups())
    EXPECT_NE(g->schedulerType(), SchedulerType::InnerPersistent) << sf->toString();
  EXPECT_EQ(sf->groups().front()->schedulerType(), SchedulerType::Reduction) << sf->toString();
  EXPECT_EQ(sf->groups().back()->schedulerType(), SchedulerType::PointWise) << sf->toString();
  segtest::expectSameTensor(segtest::runGroupByGroup(*sf, in)[0],
                            ReferenceEvaluator(&fusion).run(in)[0]);
  segtest::expectCacheMatchesReference(fusion, *sf, in);
}

// fp32 softmax over rows of 32768: x and exp(x - max) together would take 256 KiB per row,
// but the kernel holds them one at a time (x across the max, exp(x - max) across the sum),
// 128 KiB: the whole softmax is one persistent kernel.
TEST(PersistentFallback, SoftmaxWhoseBuffersFitOneAtATimeIsOnePersistentKernel) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  testing::buildSoftmax(fusion, DataType::Float);
  std::vector<Tensor> in = {Tensor::random({4, 32768}, DataType::Float, 1)};
  auto sf = SegmentCandidateFinder::segment(fusion, in);
  ASSERT_EQ(sf->groups().size(), 1u) << sf->toString();
  EXPECT_EQ(sf->groups().front()->schedulerType(), SchedulerType::InnerPersistent)
      << sf->toString();
  segtest::expectSameTensor(segtest::runGroupByGroup(*sf, in)[0],
                            ReferenceEvaluator(&fusion).run(in)[0]);
  segtest::expectCacheMatchesReference(fusion, *sf, in);
}

// The contract between the two schedulers: Reduction (tried first) refuses a fusion that
// broadcasts a reduction's result back (findBroadcastAfterReduction), with a reason that says
// so; InnerPersistent then takes it.
TEST(PersistentFallback, ReductionRefusesWhatInnerPersistentTakes) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  testing::buildSoftmax(fusion, DataType::Float);
  HeuristicsProposal p = schedtest::propose(fusion, {schedtest::contiguous({8, 1024})});
  EXPECT_EQ(p.type, SchedulerType::InnerPersistent) << p.rejectionsString();
  EXPECT_THAT(p.rejectionsString(), HasSubstr("reduction: "));
  EXPECT_THAT(p.rejectionsString(), HasSubstr("broadcast"));
}

}  // namespace
}  // namespace mf
