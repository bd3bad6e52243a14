// ExpressionEvaluator: binds input extents from real sizes and evaluates any scalar
// expression over them (scheduled extents, the layout op's padded extents).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "ir/builder.h"
#include "ir/expr_evaluator.h"
#include "ir/fusion.h"
#include "ir/scalar_ops.h"
#include "ir/tensor_view.h"
#include "ops/arith.h"
#include "ops/layout.h"
#include "ops/tensor_factories.h"

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace mf {
namespace {

void bind(ExpressionEvaluator& ee, TensorView* tv, std::vector<int64_t> sizes) {
  ee.bindTensorSizes(tv, sizes);
}

// Binding a tensor's sizes binds its symbolic logical extents; an output sharing an input's
// extent Val evaluates to the same size.
TEST(Evaluator, BindTensorSizes) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  TensorView* tv1 = exp(tv0);
  ExpressionEvaluator ee;
  bind(ee, tv0, {6, 10});
  EXPECT_EQ(ee.evaluateInt(tv0->axis(0)->extent(), "M"), 6);
  EXPECT_EQ(ee.evaluateInt(tv1->axis(1)->extent(), "N"), 10);
  EXPECT_EQ(ee.evaluate(tv1->axis(1)->extent()), ScalarValue{int64_t{10}});
}

// Merge and split extents evaluate: 300 * 7 = 2100, ceilDiv(2100, 128) = 17.
TEST(Evaluator, MergeAndSplitExtents) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeSymbolicTensor(2);
  tv->merge(0)->split(0, 128);
  ExpressionEvaluator ee;
  bind(ee, tv, {300, 7});
  EXPECT_EQ(ee.evaluateInt(tv->axis(0)->extent(), "outer"), 17);
  EXPECT_EQ(ee.evaluateInt(tv->axis(1)->extent(), "inner"), 128);
  EXPECT_EQ(
      ee.evaluateInt(tv->axis(0)->definition()->input(0)->as<IterDomain>()->extent(), "merged"),
      2100);
}

// The layout op's allocation extents: M=512, K=9, G=3 -> rows 512 + 127*3 = 893, columns
// ceilDiv(9, 4) * 4 = 12 (docs/layout_op.md, "Shapes").
TEST(Evaluator, LayoutOpAllocationExtents) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* in = makeSymbolicTensor(2);
  TensorView* in_off = makeSymbolicTensor(1, DataType::Int32);
  TensorView* out_off = makeSymbolicTensor(1, DataType::Int32);
  TensorView* out = preprocessGroupedMatmulInputSf(in, in_off, out_off);
  ExpressionEvaluator ee;
  bind(ee, in, {512, 9});
  bind(ee, in_off, {3});
  bind(ee, out_off, {3});
  const auto& alloc = out->domain()->allocation();
  EXPECT_EQ(ee.evaluateInt(alloc[0]->extent(), "rows"), 893);
  EXPECT_EQ(ee.evaluateInt(alloc[1]->extent(), "cols"), 12);
  EXPECT_EQ(ee.evaluateInt(out->axis(0)->extent(), "M"), 512);
  EXPECT_EQ(ee.evaluateInt(out->axis(1)->extent(), "K"), 9);
  // K = 8 is already a multiple of 4.
  ExpressionEvaluator ee8;
  bind(ee8, in, {100, 8});
  bind(ee8, in_off, {1});
  EXPECT_EQ(ee8.evaluateInt(alloc[0]->extent(), "rows"), 227);
  EXPECT_EQ(ee8.evaluateInt(alloc[1]->extent(), "cols"), 8);
}

// Binding one value twice to different numbers is an error naming the value.
TEST(Evaluator, ConflictingBinding) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  TensorView* tv1 = neg(tv0);
  ExpressionEvaluator ee;
  bind(ee, tv0, {4, 5});
  EXPECT_NO_THROW(bind(ee, tv1, {4, 5}));
  EXPECT_THAT(
      [&] {
        bind(ee, tv1, {6, 5});
      },
      ThrowsMessage<UserError>(
          HasSubstr("tensor T1_l_float[iS2{i0}, iS3{i1}]: size of axis 0 (iS2{i0}) must be 4, "
                    "got 6")));
  Val* s = newScalar(DataType::Index);
  ee.bind(s, int64_t{3});
  EXPECT_NO_THROW(ee.bind(s, int64_t{3}));
  EXPECT_THAT([&] { ee.bind(s, int64_t{5}); },
              ThrowsMessage<UserError>(HasSubstr("i2 was bound to 3 and then to 5")));
}

// A constant cannot be bound to another value, neither directly nor as a tensor size.
TEST(Evaluator, ConstantBinding) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Val* eight = constInt(8);
  ExpressionEvaluator ee;
  EXPECT_NO_THROW(ee.bind(eight, int64_t{8}));
  EXPECT_THAT([&] { ee.bind(eight, int64_t{9}); },
              ThrowsMessage<UserError>(HasSubstr("8 is the constant 8, but was given 9")));
  TensorView* tv = makeConcreteTensor({4, 6});
  EXPECT_THAT(
      [&] {
        bind(ee, tv, {4, 7});
      },
      ThrowsMessage<UserError>(HasSubstr(
          "tensor T0_l_float[iS0{4}, iS1{6}]: size of axis 1 (iS1{6}) must be 6, got 7")));
}

// The number of sizes must match the tensor's rank.
TEST(Evaluator, RankMismatch) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeSymbolicTensor(2);
  ExpressionEvaluator ee;
  EXPECT_THAT(
      [&] {
        bind(ee, tv, {1, 2, 3});
      },
      ThrowsMessage<UserError>(
          HasSubstr("tensor T0_l_float[iS0{i0}, iS1{i1}]: expected rank 2, got rank 3")));
}

// An extent defined by an expression cannot be bound from a size (only checked once its
// inputs are bound).
TEST(Evaluator, DerivedExtentCannotBeBound) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Val* n = newScalar(DataType::Index);
  auto* id = IterDomainBuilder(SimplifyingIrBuilder::add(n, constInt(1))).build();
  auto* tv = IrBuilder::create<TensorView>(IrBuilder::create<TensorDomain>(std::vector{id}),
                                           DataType::Float);
  ExpressionEvaluator ee;
  EXPECT_THAT([&] { bind(ee, tv, {5}); },
              ThrowsMessage<UserError>(HasSubstr(
                  "tensor T0_l_float[iS0{( i0 + 1 )}]: axis 0 has the derived extent ( i0 + 1 ), "
                  "which cannot be bound")));
  ee.bind(n, int64_t{4});
  EXPECT_NO_THROW(bind(ee, tv, {5}));
}

// evaluate gives nullopt for a value that depends on something unbound; evaluateInt says
// what could not be evaluated.
TEST(Evaluator, UnboundValue) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeSymbolicTensor(2);
  tv->merge(0);
  ExpressionEvaluator ee;
  Val* merged = tv->axis(0)->extent();
  EXPECT_FALSE(ee.evaluate(merged).has_value());
  EXPECT_THAT(
      [&] { ee.evaluateInt(merged, "the merged extent"); },
      ThrowsMessage<UserError>(HasSubstr(
          "cannot evaluate the merged extent (( i0 * i1 )): it depends on an unbound value")));
  ee.bind(tv->getLogicalDomain()[0]->extent(), int64_t{3});
  EXPECT_FALSE(ee.evaluate(merged).has_value());
  ee.bind(tv->getLogicalDomain()[1]->extent(), int64_t{5});
  EXPECT_EQ(ee.evaluateInt(merged, "the merged extent"), 15);
}

// Comparisons, where and casts evaluate with their result dtypes.
TEST(Evaluator, PredicatesWhereAndCasts) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Val* a = newScalar(DataType::Index);
  Val* b = newScalar(DataType::Index);
  Val* less = SimplifyingIrBuilder::lt(a, b);
  Val* pick = SimplifyingIrBuilder::where(less, a, b);
  Val* half =
      SimplifyingIrBuilder::div(SimplifyingIrBuilder::cast(DataType::Double, a), constFloat(2.0));
  ExpressionEvaluator ee;
  ee.bind(a, int64_t{7});
  ee.bind(b, int64_t{9});
  EXPECT_EQ(ee.evaluate(less), ScalarValue{true});
  EXPECT_EQ(ee.evaluateInt(pick, "min"), 7);
  EXPECT_EQ(ee.evaluate(half), ScalarValue{3.5});
}

// Integer division, modulo and ceilDiv by zero are user errors when evaluated; a negative
// integer power is not (nvFuser's and PyTorch's rules: 1^-n = 1, (-1)^-n = +-1, else 0).
TEST(Evaluator, IntegerArithmeticErrors) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Val* x = newScalar(DataType::Int64);
  Val* zero = newScalar(DataType::Int64);
  ExpressionEvaluator ee;
  ee.bind(x, int64_t{10});
  ee.bind(zero, int64_t{0});
  EXPECT_THAT([&] { ee.evaluate(SimplifyingIrBuilder::div(x, zero)); },
              ThrowsMessage<UserError>(HasSubstr("integer division by zero")));
  EXPECT_THAT([&] { ee.evaluate(SimplifyingIrBuilder::mod(x, zero)); },
              ThrowsMessage<UserError>(HasSubstr("integer modulo by zero")));
  EXPECT_THAT([&] { ee.evaluate(SimplifyingIrBuilder::ceilDiv(x, zero)); },
              ThrowsMessage<UserError>(HasSubstr("integer ceilDiv by zero")));
  Val* minus_two = SimplifyingIrBuilder::sub(zero, constInt(2, DataType::Int64));
  EXPECT_EQ(ee.evaluateInt(pow(x, minus_two), "10^-2"), 0);
  Val* minus_three = SimplifyingIrBuilder::sub(zero, constInt(3, DataType::Int64));
  Val* minus_one = SimplifyingIrBuilder::sub(zero, constInt(1, DataType::Int64));
  EXPECT_EQ(ee.evaluateInt(pow(minus_one, minus_three), "(-1)^-3"), -1);
  EXPECT_EQ(ee.evaluateInt(pow(minus_one, minus_two), "(-1)^-2"), 1);
  EXPECT_EQ(ee.evaluateInt(pow(x, constInt(3, DataType::Int64)), "cube"), 1000);
}

// Scalar expressions follow the device's rules (docs/numerics.md): maximum / minimum order +0
// above -0 in either operand order and propagate NaN (regression: the evaluator picked by
// operand order and returned a fresh NaN), and an Int64 operand of a Float op converts to float
// in one rounding: 2^60 + 2^36 + 1 -> 2^60 + 2^37 (through double it would tie to 2^60).
TEST(Evaluator, ScalarMathFollowsDeviceRules) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Val* a = newScalar(DataType::Double);
  Val* b = newScalar(DataType::Double);
  Val* f = newScalar(DataType::Float);
  Val* i = newScalar(DataType::Int64);
  Val* sum = add(f, i);
  EXPECT_EQ(sum->dtype(), DataType::Float);
  for (auto [x, y] : {std::pair{0.0, -0.0}, std::pair{-0.0, 0.0}}) {
    ExpressionEvaluator ee;
    ee.bind(a, x);
    ee.bind(b, y);
    EXPECT_FALSE(std::signbit(asDouble(*ee.evaluate(maximum(a, b)))));
    EXPECT_TRUE(std::signbit(asDouble(*ee.evaluate(minimum(a, b)))));
  }
  ExpressionEvaluator ee;
  ee.bind(a, std::nan(""));
  ee.bind(b, 1.0);
  ee.bind(f, 0.0);
  ee.bind(i, (int64_t{1} << 60) + (int64_t{1} << 36) + 1);
  EXPECT_TRUE(std::isnan(asDouble(*ee.evaluate(maximum(a, b)))));
  EXPECT_TRUE(std::isnan(asDouble(*ee.evaluate(minimum(b, a)))));
  EXPECT_EQ(ee.evaluate(sum), ScalarValue{0x1p60 + 0x1p37});
}

// Float-only math has no integer semantics in the scalar evaluator.
TEST(Evaluator, FloatOnlyUnaryOnIntegerRejected) {
  EXPECT_THAT([] { evalUnary(UnaryOpType::Sqrt, DataType::Int64, ScalarValue{int64_t{4}}); },
              ThrowsMessage<UserError>(HasSubstr("sqrt is not defined for integer operands")));
  EXPECT_EQ(evalUnary(UnaryOpType::Abs, DataType::Int64, ScalarValue{int64_t{-4}}),
            ScalarValue{int64_t{4}});
}

}  // namespace
}  // namespace mf
