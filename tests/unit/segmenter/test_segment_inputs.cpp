// SegmentCandidateFinder::segment checks its inputs as the executors do (tensor/arguments.h's
// checkAndBindInputs): the same mistakes, the same words, prefixed with its name. It used to
// accept operands that disagree, a wrong dtype and a non-contiguous view of a contiguous
// input, and to name a forgotten input only as an extent it could not evaluate.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "minifuser.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

class SegmentInputs : public ::testing::Test {
 protected:
  // T2 = T0 + T1, both contiguous 2-D Float.
  void SetUp() override {
    FusionGuard fg(&fusion_);
    TensorView* tv0 = makeContigTensor(2);
    TensorView* tv1 = makeContigTensor(2);
    fusion_.addInput(tv0);
    fusion_.addInput(tv1);
    fusion_.addOutput(add(tv0, tv1));
  }
  auto segmenting(std::vector<Tensor> inputs) {
    return [this, inputs] { SegmentCandidateFinder::segment(fusion_, inputs); };
  }
  Fusion fusion_;
};

TEST_F(SegmentInputs, OperandsThatDisagree) {
  EXPECT_THAT(segmenting({Tensor::random({2, 3}, DataType::Float, 1),
                          Tensor::random({2, 4}, DataType::Float, 2)}),
              ThrowsMessage<UserError>(HasSubstr(
                  "SegmentCandidateFinder::segment: `T2_g_float[iS4{i0}, iS5{i1}] = T0 + T1`: "
                  "operands T0 and T1 disagree on axis 1: 3 vs 4")));
}

TEST_F(SegmentInputs, WrongDtype) {
  EXPECT_THAT(segmenting({Tensor::random({2, 3}, DataType::Float, 1),
                          Tensor::random({2, 3}, DataType::Double, 2)}),
              ThrowsMessage<UserError>(HasSubstr(
                  "SegmentCandidateFinder::segment: input 1 T1_g_float[iS2{i2}, iS3{i3}]: "
                  "expected dtype float, got double")));
}

TEST_F(SegmentInputs, NonContiguousViewOfAContiguousInput) {
  const Tensor wide = Tensor::random({2, 6}, DataType::Float, 3);
  EXPECT_THAT(
      segmenting({Tensor::random({2, 3}, DataType::Float, 1), wide.asStrided({2, 3}, {6, 1}, 0)}),
      ThrowsMessage<UserError>(
          HasSubstr("SegmentCandidateFinder::segment: input 1 T1_g_float[iS2{i2}, iS3{i3}]: axis 0 "
                    "is declared contiguous, so its stride must be 3, got 6")));
}

TEST(SegmentInputsFusion, TensorNeverAddedAsInput) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* x = makeContigTensor(1);
  TensorView* forgotten = makeContigTensor(1);
  fusion.addInput(x);
  fusion.addOutput(add(x, forgotten));
  EXPECT_THAT(
      [&] { SegmentCandidateFinder::segment(fusion, {Tensor::random({3}, DataType::Float, 1)}); },
      ThrowsMessage<UserError>(
          HasSubstr("SegmentCandidateFinder::segment: T1_l_float[iS1{i1}] is neither a fusion "
                    "input nor computed by an expr; add it with fusion.addInput(T1)")));
}

}  // namespace
}  // namespace mf
