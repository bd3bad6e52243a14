// The simplifying scalar builder used for every extent and index: constant folding and exact
// identities, never a fold that would change what the expression means.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/builder.h"
#include "ir/expr_evaluator.h"
#include "ir/fusion.h"

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace mf {
namespace {

// Two constants fold to a new constant with no definition.
TEST(Builder, ConstantFolding) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Val* sum = SimplifyingIrBuilder::add(constInt(3), constInt(4));
  EXPECT_EQ(sum->constInt(), 7);
  EXPECT_EQ(sum->definition(), nullptr);
  EXPECT_EQ(sum->dtype(), DataType::Index);
  EXPECT_EQ(SimplifyingIrBuilder::mul(constInt(6), constInt(7))->constInt(), 42);
  EXPECT_EQ(SimplifyingIrBuilder::sub(constInt(2), constInt(5))->constInt(), -3);
  EXPECT_EQ(SimplifyingIrBuilder::div(constInt(7), constInt(2))->constInt(), 3);
  EXPECT_EQ(SimplifyingIrBuilder::mod(constInt(7), constInt(3))->constInt(), 1);
  EXPECT_EQ(SimplifyingIrBuilder::ceilDiv(constInt(9), constInt(4))->constInt(), 3);
  EXPECT_EQ(SimplifyingIrBuilder::max(constInt(9), constInt(4))->constInt(), 9);
  EXPECT_EQ(SimplifyingIrBuilder::min(constInt(9), constInt(4))->constInt(), 4);
  EXPECT_EQ(SimplifyingIrBuilder::lt(constInt(1), constInt(2))->constValue(), ScalarValue{true});
  EXPECT_EQ(SimplifyingIrBuilder::eq(constInt(1), constInt(2))->constValue(), ScalarValue{false});
  EXPECT_EQ(SimplifyingIrBuilder::add(constFloat(1.5), constFloat(2.0))->constValue(),
            ScalarValue{3.5});
  // Nested: ceilDiv(9, 4) * 4 = 12, as the layout op's padded columns for K = 9.
  EXPECT_EQ(SimplifyingIrBuilder::mul(SimplifyingIrBuilder::ceilDiv(constInt(9), constInt(4)),
                                      constInt(4))
                ->constInt(),
            12);
}

// x + 0, 0 + x, x - 0, x * 1, 1 * x, x / 1 and ceilDiv(x, 1) return x itself.
TEST(Builder, IntegerIdentitiesReturnOperand) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Val* x = newScalar(DataType::Index);
  EXPECT_EQ(SimplifyingIrBuilder::add(x, constInt(0)), x);
  EXPECT_EQ(SimplifyingIrBuilder::add(constInt(0), x), x);
  EXPECT_EQ(SimplifyingIrBuilder::sub(x, constInt(0)), x);
  EXPECT_EQ(SimplifyingIrBuilder::mul(x, constInt(1)), x);
  EXPECT_EQ(SimplifyingIrBuilder::mul(constInt(1), x), x);
  EXPECT_EQ(SimplifyingIrBuilder::div(x, constInt(1)), x);
  EXPECT_EQ(SimplifyingIrBuilder::ceilDiv(x, constInt(1)), x);
  EXPECT_EQ(SimplifyingIrBuilder::max(x, x), x);
  EXPECT_EQ(SimplifyingIrBuilder::min(x, x), x);
}

// x * 0 and x % 1 fold to the constant 0; x == x and x <= x fold to true.
TEST(Builder, IntegerIdentitiesToConstants) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Val* x = newScalar(DataType::Index);
  EXPECT_EQ(SimplifyingIrBuilder::mul(x, constInt(0))->constInt(), 0);
  EXPECT_EQ(SimplifyingIrBuilder::mul(constInt(0), x)->constInt(), 0);
  EXPECT_EQ(SimplifyingIrBuilder::mod(x, constInt(1))->constInt(), 0);
  EXPECT_EQ(SimplifyingIrBuilder::eq(x, x)->constValue(), ScalarValue{true});
  EXPECT_EQ(SimplifyingIrBuilder::le(x, x)->constValue(), ScalarValue{true});
}

// Logical and/or with a constant operand fold: true && b = b, false && b = false,
// true || b = true, false || b = b (on either side).
TEST(Builder, LogicalOpsWithConstants) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Val* b = newScalar(DataType::Bool);
  Val* c = newScalar(DataType::Bool);
  EXPECT_EQ(SimplifyingIrBuilder::logicalAnd(constBool(true), b), b);
  EXPECT_EQ(SimplifyingIrBuilder::logicalAnd(b, constBool(true)), b);
  EXPECT_EQ(SimplifyingIrBuilder::logicalAnd(constBool(false), b)->constValue(),
            ScalarValue{false});
  EXPECT_EQ(SimplifyingIrBuilder::logicalAnd(b, constBool(false))->constValue(),
            ScalarValue{false});
  EXPECT_EQ(SimplifyingIrBuilder::logicalOr(constBool(true), b)->constValue(), ScalarValue{true});
  EXPECT_EQ(SimplifyingIrBuilder::logicalOr(b, constBool(true))->constValue(), ScalarValue{true});
  EXPECT_EQ(SimplifyingIrBuilder::logicalOr(constBool(false), b), b);
  EXPECT_EQ(SimplifyingIrBuilder::logicalOr(b, constBool(false)), b);
  EXPECT_EQ(SimplifyingIrBuilder::logicalAnd(b, c)->toInlineString(), "( b0 && b1 )");
}

// Integer division (and modulo, ceilDiv) by the constant zero is NOT folded: the expression is
// kept, and evaluating it reports the error.
TEST(Builder, DivisionByConstantZeroNotFolded) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Val* q = SimplifyingIrBuilder::div(constInt(4), constInt(0));
  EXPECT_FALSE(q->isConst());
  EXPECT_EQ(q->toInlineString(), "( 4 / 0 )");
  EXPECT_EQ(SimplifyingIrBuilder::ceilDiv(constInt(4), constInt(0))->toInlineString(),
            "ceilDiv(4, 0)");
  EXPECT_EQ(SimplifyingIrBuilder::mod(constInt(4), constInt(0))->toInlineString(), "( 4 % 0 )");
  ExpressionEvaluator ee;
  EXPECT_THAT([&] { ee.evaluate(q); },
              ThrowsMessage<UserError>(HasSubstr("integer division by zero")));
}

// Floating identities are not applied (x + 0.0 is not x for x = -0.0); floating division by
// zero folds to infinity as IEEE says.
TEST(Builder, FloatingIdentitiesNotApplied) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Val* d = newScalar(DataType::Double);
  EXPECT_EQ(SimplifyingIrBuilder::add(d, constFloat(0.0))->toInlineString(), "( d0 + 0.0 )");
  EXPECT_EQ(SimplifyingIrBuilder::mul(d, constFloat(1.0))->toInlineString(), "( d0 * 1.0 )");
  EXPECT_EQ(SimplifyingIrBuilder::div(constFloat(1.0), constFloat(0.0))->toString(), "INFINITY");
}

// Results take the promoted dtype of the operands; comparisons and logical ops give Bool.
TEST(Builder, ResultDtypes) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Val* i32 = newScalar(DataType::Int32);
  Val* i64 = newScalar(DataType::Int64);
  Val* idx = newScalar(DataType::Index);
  Val* dbl = newScalar(DataType::Double);
  EXPECT_EQ(SimplifyingIrBuilder::add(i32, i64)->dtype(), DataType::Int64);
  EXPECT_EQ(SimplifyingIrBuilder::add(i64, idx)->dtype(), DataType::Index);
  EXPECT_EQ(SimplifyingIrBuilder::mul(idx, dbl)->dtype(), DataType::Double);
  EXPECT_EQ(SimplifyingIrBuilder::lt(i32, dbl)->dtype(), DataType::Bool);
  EXPECT_EQ(SimplifyingIrBuilder::ne(i32, i64)->dtype(), DataType::Bool);
  EXPECT_EQ(SimplifyingIrBuilder::add(constInt(2, DataType::Int32), constInt(3, DataType::Int32))
                ->dtype(),
            DataType::Int32);
}

// Anything else builds a new expr: symbolic operands with no identity.
TEST(Builder, BuildsExprWhenNothingFolds) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Val* x = newScalar(DataType::Index);
  Val* y = newScalar(DataType::Index);
  Val* e = SimplifyingIrBuilder::add(SimplifyingIrBuilder::mul(x, constInt(2)), y);
  EXPECT_EQ(e->toInlineString(), "( ( i0 * 2 ) + i1 )");
  ASSERT_NE(e->definition(), nullptr);
  EXPECT_TRUE(e->definition()->isA<BinaryOp>());
  EXPECT_EQ(e->definition()->as<BinaryOp>()->opType(), BinaryOpType::Add);
  EXPECT_EQ(SimplifyingIrBuilder::sub(constInt(0), x)->toInlineString(), "( 0 - i0 )");
}

// where with a constant condition picks an operand; where(c, a, a) is a; a cast of a constant
// folds (narrowing as the target dtype does); a cast to the same dtype is the operand.
TEST(Builder, WhereAndCastFolding) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Val* a = newScalar(DataType::Index);
  Val* b = newScalar(DataType::Index);
  Val* c = newScalar(DataType::Bool);
  EXPECT_EQ(SimplifyingIrBuilder::where(constBool(true), a, b), a);
  EXPECT_EQ(SimplifyingIrBuilder::where(constBool(false), a, b), b);
  EXPECT_EQ(SimplifyingIrBuilder::where(c, a, a), a);
  EXPECT_EQ(SimplifyingIrBuilder::cast(DataType::Index, a), a);
  Val* f = SimplifyingIrBuilder::cast(DataType::Float, constInt(3));
  EXPECT_EQ(f->dtype(), DataType::Float);
  EXPECT_EQ(f->constValue(), ScalarValue{3.0});
  EXPECT_EQ(SimplifyingIrBuilder::cast(DataType::Int32, constFloat(-2.7))->constValue(),
            ScalarValue{int64_t{-2}});
  EXPECT_EQ(SimplifyingIrBuilder::cast(DataType::Half, constFloat(0.1))->constValue(),
            ScalarValue{0.0999755859375});
}

// (x / n) * n + x % n folds back to x (a merge's index split and re-joined); a different
// divisor or dividend does not fold.
TEST(Builder, DivModRecombinationFolds) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Val* x = newScalar(DataType::Index);
  Val* n = newScalar(DataType::Index);
  Val* m = newScalar(DataType::Index);
  EXPECT_EQ(SimplifyingIrBuilder::add(SimplifyingIrBuilder::mul(SimplifyingIrBuilder::div(x, n), n),
                                      SimplifyingIrBuilder::mod(x, n)),
            x);
  Val* other =
      SimplifyingIrBuilder::add(SimplifyingIrBuilder::mul(SimplifyingIrBuilder::div(x, n), m),
                                SimplifyingIrBuilder::mod(x, n));
  EXPECT_NE(other, x);
  EXPECT_NE(other->definition(), nullptr);
  ExpressionEvaluator ee;
  ee.bind(x, int64_t{47});
  ee.bind(n, int64_t{5});
  ee.bind(m, int64_t{3});
  EXPECT_EQ(ee.evaluateInt(other, "other"), 9 * 3 + 2);
}

}  // namespace
}  // namespace mf
