// The math ops: every unary and binary op builds the right expr and output, operands are
// checked (equal rank, compatible extents, Bool where needed), broadcast/set/cast/where/clamp.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/builder.h"
#include "ir/fusion.h"
#include "ir/tensor_view.h"
#include "ops/arith.h"
#include "ops/tensor_factories.h"

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace mf {
namespace {

struct UnaryCase {
  TensorView* (*fn)(TensorView*);
  UnaryOpType op;
  std::string_view printed;  // the rhs for operand T0
  DataType from_float;       // output dtype for a Float input
  DataType from_int;         // output dtype for an Int32 input
};

const std::vector<UnaryCase>& unaryCases() {
  static const std::vector<UnaryCase> cases = {
      {neg, UnaryOpType::Neg, "-T0", DataType::Float, DataType::Int32},
      {abs, UnaryOpType::Abs, "abs(T0)", DataType::Float, DataType::Int32},
      {exp, UnaryOpType::Exp, "exp(T0)", DataType::Float, DataType::Float},
      {log, UnaryOpType::Log, "log(T0)", DataType::Float, DataType::Float},
      {sqrt, UnaryOpType::Sqrt, "sqrt(T0)", DataType::Float, DataType::Float},
      {rsqrt, UnaryOpType::Rsqrt, "rsqrt(T0)", DataType::Float, DataType::Float},
      {reciprocal, UnaryOpType::Reciprocal, "reciprocal(T0)", DataType::Float, DataType::Float},
      {tanh, UnaryOpType::Tanh, "tanh(T0)", DataType::Float, DataType::Float},
      {sigmoid, UnaryOpType::Sigmoid, "sigmoid(T0)", DataType::Float, DataType::Float},
      {relu, UnaryOpType::Relu, "relu(T0)", DataType::Float, DataType::Int32},
      {sin, UnaryOpType::Sin, "sin(T0)", DataType::Float, DataType::Float},
      {cos, UnaryOpType::Cos, "cos(T0)", DataType::Float, DataType::Float},
      {floor, UnaryOpType::Floor, "floor(T0)", DataType::Float, DataType::Int32},
      {ceil, UnaryOpType::Ceil, "ceil(T0)", DataType::Float, DataType::Int32},
      {logicalNot, UnaryOpType::LogicalNot, "!T0", DataType::Bool, DataType::Bool},
  };
  return cases;
}

struct BinaryCase {
  TensorView* (*fn)(TensorView*, TensorView*);
  BinaryOpType op;
  std::string_view printed;  // the rhs for operands T0, T1
  bool predicate;            // yields Bool
};

const std::vector<BinaryCase>& binaryCases() {
  static const std::vector<BinaryCase> cases = {
      {add, BinaryOpType::Add, "T0 + T1", false},
      {sub, BinaryOpType::Sub, "T0 - T1", false},
      {mul, BinaryOpType::Mul, "T0 * T1", false},
      {div, BinaryOpType::Div, "T0 / T1", false},
      {maximum, BinaryOpType::Maximum, "maximum(T0, T1)", false},
      {minimum, BinaryOpType::Minimum, "minimum(T0, T1)", false},
      {pow, BinaryOpType::Pow, "pow(T0, T1)", false},
      {eq, BinaryOpType::Eq, "T0 == T1", true},
      {ne, BinaryOpType::Ne, "T0 != T1", true},
      {lt, BinaryOpType::Lt, "T0 < T1", true},
      {le, BinaryOpType::Le, "T0 <= T1", true},
      {gt, BinaryOpType::Gt, "T0 > T1", true},
      {ge, BinaryOpType::Ge, "T0 >= T1", true},
  };
  return cases;
}

// Every unary op builds a UnaryOp of its kind with a fresh output; float-only math on an
// integer tensor computes in Float, logical_not yields Bool.
TEST(Arith, EveryUnaryOpBuilds) {
  for (const UnaryCase& c : unaryCases()) {
    for (DataType in_dtype : {DataType::Float, DataType::Int32}) {
      SCOPED_TRACE(fmt::format("{} of {}", c.printed, in_dtype));
      Fusion fusion;
      FusionGuard fg(&fusion);
      TensorView* tv0 = makeSymbolicTensor(1, in_dtype);
      TensorView* tv1 = c.fn(tv0);
      DataType expected = in_dtype == DataType::Float ? c.from_float : c.from_int;
      EXPECT_EQ(tv1->dtype(), expected);
      auto* def = tv1->definition()->as<UnaryOp>();
      EXPECT_EQ(def->opType(), c.op);
      EXPECT_EQ(def->in(), tv0);
      EXPECT_NE(tv1->axis(0), tv0->axis(0));
      EXPECT_EQ(tv1->axis(0)->extent(), tv0->axis(0)->extent());
      EXPECT_EQ(def->toString(), fmt::format("T1_l_{}[iS1{{i0}}] = {}", expected, c.printed));
    }
  }
}

// The scalar forms build a scalar UnaryOp with the same typing rules.
TEST(Arith, UnaryOpsOnScalars) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Val* i = newScalar(DataType::Int64);
  Val* d = newScalar(DataType::Double);
  EXPECT_EQ(neg(i)->dtype(), DataType::Int64);
  EXPECT_EQ(exp(i)->dtype(), DataType::Float);
  EXPECT_EQ(sqrt(d)->dtype(), DataType::Double);
  EXPECT_EQ(logicalNot(d)->dtype(), DataType::Bool);
  Val* r = relu(d);
  EXPECT_EQ(r->kind(), ValKind::Scalar);
  EXPECT_EQ(r->definition()->toString(), "d6 = relu(d1)");
}

// Negating a Bool is rejected (use logicalNot).
TEST(Arith, NegOfBoolRejected) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeSymbolicTensor(1, DataType::Bool);
  EXPECT_THAT([&] { neg(tv); },
              ThrowsMessage<UserError>(HasSubstr(
                  "neg: T0 is Bool; negation of booleans is not defined, use logicalNot")));
}

// Every binary op builds a BinaryOp of its kind; arithmetic keeps Float, comparisons give
// Bool; all four tensor/scalar overloads give a tensor.
TEST(Arith, EveryBinaryOpBuilds) {
  for (const BinaryCase& c : binaryCases()) {
    SCOPED_TRACE(c.printed);
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* tv0 = makeSymbolicTensor(2);
    TensorView* tv1 = makeSymbolicTensor(2);
    TensorView* tv2 = c.fn(tv0, tv1);
    DataType expected = c.predicate ? DataType::Bool : DataType::Float;
    EXPECT_EQ(tv2->dtype(), expected);
    auto* def = tv2->definition()->as<BinaryOp>();
    EXPECT_EQ(def->opType(), c.op);
    EXPECT_EQ(def->lhs(), tv0);
    EXPECT_EQ(def->rhs(), tv1);
    EXPECT_EQ(def->toString(),
              fmt::format("T2_l_{}[iS4{{i0}}, iS5{{i1}}] = {}", expected, c.printed));
    Val* s = newScalar(DataType::Float);
    EXPECT_EQ(binaryOp(c.op, tv0, s)->dtype(), expected);
    EXPECT_EQ(binaryOp(c.op, s, tv0)->kind(), ValKind::TensorView);
    EXPECT_EQ(binaryOp(c.op, s, s)->kind(), ValKind::Scalar);
  }
}

// The named overloads accept (tensor, scalar), (scalar, tensor) and (scalar, scalar).
TEST(Arith, BinaryOverloads) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1);
  Val* s = newScalar(DataType::Float);
  TensorView* a = sub(tv0, s);
  TensorView* b = sub(s, tv0);
  Val* c = sub(s, s);
  EXPECT_EQ(a->definition()->toString(), "T1_l_float[iS1{i0}] = T0 - f1");
  EXPECT_EQ(b->definition()->toString(), "T2_l_float[iS2{i0}] = f1 - T0");
  EXPECT_EQ(c->definition()->toString(), "f2 = f1 - f1");
}

// logical and/or take Bool operands and yield Bool.
TEST(Arith, LogicalOps) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* b0 = makeSymbolicTensor(1, DataType::Bool);
  TensorView* b1 = makeSymbolicTensor(1, DataType::Bool);
  EXPECT_EQ(logicalAnd(b0, b1)->definition()->toString(), "T2_l_bool[iS2{i0}] = T0 && T1");
  EXPECT_EQ(logicalOr(b0, b1)->definition()->toString(), "T3_l_bool[iS3{i0}] = T0 || T1");
  TensorView* f = makeSymbolicTensor(1);
  EXPECT_THAT([&] { logicalAnd(f, b1); },
              ThrowsMessage<UserError>(HasSubstr("&&: operands must be Bool, got float and bool")));
  EXPECT_THAT([&] { logicalOr(b0, f); },
              ThrowsMessage<UserError>(HasSubstr("||: operands must be Bool, got bool and float")));
}

// A tensor of lower rank gets leading Broadcast axes (implicit broadcasting, as nvFuser).
TEST(Arith, LowerRankOperandBroadcastsLeading) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  TensorView* tv1 = makeSymbolicTensor(1);
  TensorView* tv2 = add(tv0, tv1);
  EXPECT_EQ(tv2->definition()->input(1)->definition()->toString(),
            "T2_l_float[bS3{1}, iS4{i2}] = broadcast(T1, {true, false})");
  EXPECT_EQ(tv2->toString(), "T3_l_float[iS5{i0}, iS6{i1}]");
}

// Constant extents at one position must agree.
TEST(Arith, ConstantExtentMismatchRejected) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeConcreteTensor({4, 5});
  TensorView* tv1 = makeConcreteTensor({4, 6});
  EXPECT_THAT([&] { mul(tv0, tv1); },
              ThrowsMessage<UserError>(
                  HasSubstr("*: axis 1 has extent 5 in T0_l_float[iS0{4}, iS1{5}] but 6 in "
                            "T1_l_float[iS2{4}, iS3{6}]")));
}

// A null operand is a user error naming the op and the argument.
TEST(Arith, NullOperandRejected) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1);
  EXPECT_THAT([&] { binaryOp(BinaryOpType::Add, tv0, nullptr); },
              ThrowsMessage<UserError>(HasSubstr("+: rhs is null")));
}

// Each output axis takes the extent of the first operand that is not broadcast there; an
// axis broadcast in every operand stays broadcast.
TEST(Arith, OutputExtentsSkipBroadcastAxes) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);                            // [i0, i1]
  TensorView* tv1 = broadcast(makeSymbolicTensor(1), {true, false});  // [1, i2]
  TensorView* tv2 = add(tv1, tv0);
  EXPECT_EQ(tv2->axis(0)->extent(), tv0->axis(0)->extent());
  EXPECT_EQ(tv2->axis(1)->extent(), tv1->axis(1)->extent());
  EXPECT_EQ(tv2->axis(0)->iterType(), IterType::Iteration);
  TensorView* tv3 = neg(tv1);
  EXPECT_TRUE(tv3->axis(0)->isBroadcast());
  EXPECT_EQ(tv3->axis(0)->extent()->constInt(), 1);
}

// broadcast inserts size-1 Broadcast axes where the flag is true and fresh copies elsewhere;
// it needs one false per input axis.
TEST(Arith, Broadcast) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  TensorView* tv1 = broadcast(tv0, {true, false, true, false});
  EXPECT_EQ(tv1->toString(), "T1_l_float[bS2{1}, iS3{i0}, bS4{1}, iS5{i1}]");
  EXPECT_EQ(tv1->definition()->as<BroadcastOp>()->isBroadcastDims(),
            (std::vector<bool>{true, false, true, false}));
  EXPECT_EQ(tv1->getContiguity(), (Contiguity{std::nullopt, true, std::nullopt, true}));
  EXPECT_THAT(
      [&] {
        broadcast(tv0, {true, false});
      },
      ThrowsMessage<UserError>(HasSubstr(
          "broadcast: T0_l_float[iS0{i0}, iS1{i1}] has 2 axes but the flags {true, false} "
          "keep 1; one false per input axis")));
  EXPECT_THAT(
      [&] {
        broadcast(tv0, {false, false, false});
      },
      ThrowsMessage<UserError>(HasSubstr("has 2 axes but the flags {false, false, false} "
                                         "keep 3")));
}

// set copies a tensor into a fresh one of the same dtype and extents.
TEST(Arith, Set) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2, DataType::BFloat16);
  TensorView* tv1 = set(tv0);
  EXPECT_EQ(tv1->dtype(), DataType::BFloat16);
  EXPECT_TRUE(tv1->definition()->isA<LoadStoreOp>());
  EXPECT_NE(tv1->axis(0), tv0->axis(0));
  EXPECT_EQ(tv1->axis(1)->extent(), tv0->axis(1)->extent());
}

// castOp converts to any tensor dtype; Index is not one.
TEST(Arith, CastOp) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1);
  for (DataType t : {DataType::Bool, DataType::Int32, DataType::Int64, DataType::Half,
                     DataType::BFloat16, DataType::Double, DataType::Float8_e4m3fn}) {
    TensorView* out = castOp(t, tv0);
    EXPECT_EQ(out->dtype(), t);
    EXPECT_EQ(out->definition()->as<UnaryOp>()->opType(), UnaryOpType::Cast);
  }
  EXPECT_THAT([&] { castOp(DataType::Index, tv0); },
              ThrowsMessage<UserError>(HasSubstr("castOp: index is not a tensor dtype")));
}

// where needs a Bool condition and at least one tensor; its dtype promotes the two values.
TEST(Arith, Where) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* cond = makeSymbolicTensor(1, DataType::Bool);
  TensorView* h = makeSymbolicTensor(1, DataType::Half);
  TensorView* f = makeSymbolicTensor(1);
  EXPECT_EQ(where(cond, h, f)->dtype(), DataType::Float);
  EXPECT_EQ(where(cond, h, constFloat(0.0))->dtype(), DataType::Half);
  EXPECT_EQ(where(newScalar(DataType::Bool), f, h)->dtype(), DataType::Float);
  EXPECT_THAT([&] { where(f, h, f); },
              ThrowsMessage<UserError>(HasSubstr("where: condition T2 must be Bool, got float")));
  EXPECT_THAT([&] { where(newScalar(DataType::Bool), constFloat(1.0), constFloat(0.0)); },
              ThrowsMessage<UserError>(HasSubstr("where: at least one operand must be a tensor")));
}

// clamp keeps the tensor's dtype; its bounds must be scalars.
TEST(Arith, Clamp) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1, DataType::Half);
  TensorView* tv1 = clamp(tv0, constFloat(-448.0), constFloat(448.0));
  EXPECT_EQ(tv1->dtype(), DataType::Half);
  EXPECT_EQ(tv1->definition()->as<TernaryOp>()->opType(), TernaryOpType::Clamp);
  TensorView* bound = makeSymbolicTensor(1);
  EXPECT_THAT([&] { clamp(tv0, bound, constFloat(1.0)); },
              ThrowsMessage<UserError>(
                  HasSubstr("clamp: bound T2_l_float[iS2{i3}] of T0 must be a scalar")));
}

}  // namespace
}  // namespace mf
