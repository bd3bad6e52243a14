// The CPU reference evaluator's input checks: each names the tensor as the IR printer shows
// it and gives expected vs actual. (Negative sizes cannot reach it: Tensor rejects them,
// see test_tensor.cpp.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/builder.h"
#include "reference_helpers.h"

namespace {

using namespace mf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// Runs `fusion` on `inputs` inside a callable, for ThrowsMessage.
auto runner(Fusion& fusion, std::vector<Tensor> inputs) {
  return [&fusion, inputs] { ReferenceEvaluator(&fusion).run(inputs); };
}

class ReferenceErrors : public ::testing::Test {
 protected:
  // T2 = T0 + T1, both symbolic 2-D Float.
  void SetUp() override {
    FusionGuard fg(&fusion_);
    TensorView* tv0 = makeSymbolicTensor(2);
    TensorView* tv1 = makeSymbolicTensor(2);
    fusion_.addInput(tv0);
    fusion_.addInput(tv1);
    fusion_.addOutput(add(tv0, tv1));
  }
  Fusion fusion_;
};

TEST_F(ReferenceErrors, InputCount) {
  EXPECT_THAT(
      runner(fusion_, {Tensor::empty({2, 2}, DataType::Float)}),
      ThrowsMessage<UserError>(HasSubstr("ReferenceEvaluator: expected 2 inputs (T0, T1), got 1")));
}

TEST_F(ReferenceErrors, Rank) {
  EXPECT_THAT(
      runner(fusion_, {Tensor::empty({3}, DataType::Float), Tensor::empty({3}, DataType::Float)}),
      ThrowsMessage<UserError>(
          HasSubstr("ReferenceEvaluator: input 0 T0_g_float[iS0{i0}, iS1{i1}]: expected rank 2, "
                    "got a tensor of rank 1 [3]")));
}

TEST_F(ReferenceErrors, Dtype) {
  EXPECT_THAT(runner(fusion_, {Tensor::empty({2, 2}, DataType::Float),
                               Tensor::empty({2, 2}, DataType::Double)}),
              ThrowsMessage<UserError>(HasSubstr(
                  "ReferenceEvaluator: input 1 T1_g_float[iS2{i2}, iS3{i3}]: expected dtype "
                  "float, got double")));
}

// Pointwise operands with different symbolic extents must agree at run time (no implicit
// broadcasting of a size-1 axis either: only Broadcast axes broadcast).
TEST_F(ReferenceErrors, PointwiseOperandsDisagree) {
  EXPECT_THAT(runner(fusion_, {Tensor::empty({2, 5}, DataType::Float),
                               Tensor::empty({2, 7}, DataType::Float)}),
              ThrowsMessage<UserError>(
                  HasSubstr("ReferenceEvaluator: `T2_g_float[iS4{i0}, iS5{i1}] = T0 + T1`: "
                            "operands T0 and T1 disagree on axis 1: 5 vs 7")));
  EXPECT_THAT(runner(fusion_, {Tensor::empty({2, 5}, DataType::Float),
                               Tensor::empty({1, 5}, DataType::Float)}),
              ThrowsMessage<UserError>(
                  HasSubstr("ReferenceEvaluator: `T2_g_float[iS4{i0}, iS5{i1}] = T0 + T1`: "
                            "operands T0 and T1 disagree on axis 0: 2 vs 1")));
}

TEST(ReferenceInputErrors, ConstantExtent) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeConcreteTensor({2, 3});
  fusion.addInput(tv0);
  fusion.addOutput(neg(tv0));
  EXPECT_THAT(runner(fusion, {Tensor::empty({2, 4}, DataType::Float)}),
              ThrowsMessage<UserError>(HasSubstr(
                  "ReferenceEvaluator: input 0 T0_g_float[iS0{2}, iS1{3}]: axis 1 (iS1{3}) has "
                  "the constant extent 3, got size 4")));
  EXPECT_THAT(runner(fusion, {Tensor::empty({2}, DataType::Float)}),
              ThrowsMessage<UserError>(HasSubstr("expected rank 2, got a tensor of rank 1 [2]")));
}

// A size-1 Broadcast input axis must be given size 1.
TEST(ReferenceInputErrors, BroadcastExtent) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeConcreteTensor({1, -1});
  fusion.addInput(tv0);
  fusion.addOutput(neg(tv0));
  EXPECT_THAT(runner(fusion, {Tensor::empty({3, 4}, DataType::Float)}),
              ThrowsMessage<UserError>(
                  HasSubstr("input 0 T0_g_float[bS0{1}, iS1{i1}]: axis 0 (bS0{1}) has the constant "
                            "extent 1, got size 3")));
}

// Two inputs that share an extent Val must get equal sizes on those axes.
TEST(ReferenceInputErrors, SharedExtent) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  Val* rows = tv0->getLogicalDomain()[0]->extent();
  auto* tv1 = IrBuilder::create<TensorView>(
      IrBuilder::create<TensorDomain>(std::vector<IterDomain*>{IterDomainBuilder(rows).build()}),
      DataType::Float);
  fusion.addInput(tv0);
  fusion.addInput(tv1);
  fusion.addOutput(add(tv0, broadcast(tv1, {false, true})));
  EXPECT_THAT(
      runner(fusion, {Tensor::empty({5, 2}, DataType::Float), Tensor::empty({7}, DataType::Float)}),
      ThrowsMessage<UserError>(
          HasSubstr("ReferenceEvaluator: input 1 T1_g_float[iS2{i0}]: axis 0 has size 7, but "
                    "axis 0 of input 0 T0 has size 5 and both have the extent i0")));
}

TEST(ReferenceInputErrors, ScalarInput) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1);
  Val* s = newScalar(DataType::Double);
  fusion.addInput(tv0);
  fusion.addInput(s);
  fusion.addOutput(mul(tv0, s));
  Tensor x = Tensor::empty({2}, DataType::Float);
  EXPECT_THAT(runner(fusion, {x, Tensor::full({2}, DataType::Double, 1.0)}),
              ThrowsMessage<UserError>(HasSubstr(
                  "ReferenceEvaluator: input 1 d1 is a double scalar: expected a 0-dim double "
                  "tensor holding its value, got double[2]")));
  EXPECT_THAT(runner(fusion, {x, Tensor::full({}, DataType::Float, 1.0)}),
              ThrowsMessage<UserError>(HasSubstr("expected a 0-dim double tensor holding its "
                                                 "value, got float[]")));
}

// A scalar operand must be computable from the fusion inputs.
TEST(ReferenceInputErrors, UnboundScalar) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1);
  fusion.addInput(tv0);
  fusion.addOutput(mul(tv0, newScalar(DataType::Double)));
  EXPECT_THAT(runner(fusion, {Tensor::empty({2}, DataType::Float)}),
              ThrowsMessage<UserError>(HasSubstr(
                  "ReferenceEvaluator: cannot evaluate the scalar operand d1 of "
                  "T1_g_float[iS1{i0}] = T0 * d1: it depends on a value that is not a fusion "
                  "input")));
}

// A tensor that is neither an input nor computed from the inputs: named before anything is
// evaluated, as every entry point names it (verifyFusionInputs).
TEST(ReferenceInputErrors, TensorNotAnInput) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1);
  TensorView* tv1 = makeSymbolicTensor(1);
  fusion.addInput(tv0);
  fusion.addOutput(add(tv0, tv1));
  EXPECT_THAT(runner(fusion, {Tensor::empty({2}, DataType::Float)}),
              ThrowsMessage<UserError>(
                  HasSubstr("ReferenceEvaluator: T1_l_float[iS1{i1}] is neither a fusion input nor "
                            "computed by an expr; add it with fusion.addInput(T1)")));
}

// A fusion without outputs would compute nothing.
TEST(ReferenceInputErrors, NoOutputs) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  fusion.addInput(makeSymbolicTensor(1));
  EXPECT_THAT(runner(fusion, {Tensor::empty({2}, DataType::Float)}),
              ThrowsMessage<UserError>(HasSubstr(
                  "ReferenceEvaluator: the fusion has no outputs, so a run computes nothing; "
                  "add one with fusion.addOutput(tv)")));
}

}  // namespace
