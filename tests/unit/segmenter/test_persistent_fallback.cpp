// When a normalization's row does not fit in registers, InnerPersistent refuses at run time
// and the segmenter falls back to Reduction groups and a PointWise group (nvFuser: softmax
// becomes max | sub, exp, sum | div). Needs the Reduction scheduler (issue 9 section 3, branch
// redsched): not in tests/CMakeLists.txt until both are merged; then add it to
// test_persistent_scheduler's SOURCES.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "minifuser.h"
#include "unit/scheduler/normalization_fusions.h"
#include "unit/scheduler/scheduler_test_utils.h"
#include "unit/segmenter/segmentation_test_utils.h"

namespace mf {
namespace {

using ::testing::HasSubstr;

// fp32 softmax over rows of 32768: x and exp(x - max) would take 256 KiB of registers per
// row, over the 128 KiB budget.
TEST(PersistentFallback, SoftmaxWhoseRowDoesNotFitIsReductionThenPointwise) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  testing::buildSoftmax(fusion, DataType::Float);
  std::vector<Tensor> in = {Tensor::random({4, 32768}, DataType::Float, 1)};
  auto sf = SegmentCandidateFinder::segment(fusion, in);
  ASSERT_GE(sf->groups().size(), 2u) << sf->toString();
  for (SegmentedGroup* g : sf->groups())
    EXPECT_NE(g->schedulerType(), SchedulerType::InnerPersistent) << sf->toString();
  EXPECT_EQ(sf->groups().front()->schedulerType(), SchedulerType::Reduction) << sf->toString();
  EXPECT_EQ(sf->groups().back()->schedulerType(), SchedulerType::PointWise) << sf->toString();
  segtest::expectSameTensor(segtest::runGroupByGroup(*sf, in)[0],
                            ReferenceEvaluator(&fusion).run(in)[0]);
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
