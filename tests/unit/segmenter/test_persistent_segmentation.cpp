// Segmentation of normalizations whose rows fit in registers: the whole fusion is one
// InnerPersistent group (the segmenter asks the registry, which tries NoOp, Reduction,
// PointWise, then InnerPersistent). The fallback when a row does not fit needs the Reduction
// scheduler: tests/unit/segmenter/test_persistent_fallback.cpp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "minifuser.h"
#include "unit/scheduler/normalization_fusions.h"
#include "unit/segmenter/segmentation_test_utils.h"

namespace mf {
namespace {

using segtest::computed;
using ::testing::ElementsAre;

TEST(PersistentSegmentation, SoftmaxWhoseRowFitsIsOneGroup) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  testing::buildSoftmax(fusion, DataType::Float);
  std::vector<Tensor> in = {Tensor::random({8, 1024}, DataType::Float, 1)};
  auto sf = SegmentCandidateFinder::segment(fusion, in);
  ASSERT_EQ(sf->groups().size(), 1u);
  EXPECT_FALSE(sf->isSegmented());
  EXPECT_EQ(sf->groups()[0]->schedulerType(), SchedulerType::InnerPersistent);
  // max, broadcast, sub, exp, sum, broadcast, div: every expr in the one group.
  EXPECT_THAT(computed(sf->groups()[0]), ElementsAre("T1", "T2", "T3", "T4", "T5", "T6", "T7"));
  segtest::expectSameTensor(segtest::runGroupByGroup(*sf, in)[0],
                            ReferenceEvaluator(&fusion).run(in)[0]);
}

// A pointwise prologue (x * 2 + a [row] bias) and an RMS norm: still one kernel.
TEST(PersistentSegmentation, PrologueAndWeightsStayInTheGroup) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* x = makeContigTensor(2);
  TensorView* bias = makeContigTensor(1);
  fusion.addInput(x);
  fusion.addInput(bias);
  TensorView* y = add(mul(x, constFloat(2.0, DataType::Float)), broadcast(bias, {true, false}));
  TensorView* inv = rsqrt(sum(mul(y, y), {1}));
  fusion.addOutput(mul(y, broadcast(inv, {false, true})));
  auto sf = SegmentCandidateFinder::segment(fusion, {Tensor::random({8, 512}, DataType::Float, 1),
                                                     Tensor::random({512}, DataType::Float, 2)});
  ASSERT_EQ(sf->groups().size(), 1u);
  EXPECT_EQ(sf->groups()[0]->schedulerType(), SchedulerType::InnerPersistent);
}

}  // namespace
}  // namespace mf
