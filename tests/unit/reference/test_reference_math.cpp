// The CPU reference evaluator on unary and binary math: every op on Float and Double inputs,
// integer and bool semantics. Expected values are computed by hand (or are the float
// rounding of the exact value), never by the evaluator itself.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "reference_helpers.h"

namespace {

using namespace mf;
using reftest::makeTensor;
using reftest::runOne;
using reftest::values;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// The float nearest to `x`: what an op computed in float must return.
double f32(double x) {
  return static_cast<float>(x);
}

// Equal with NaN == NaN, within `rel` relative error (0: exactly).
void expectValues(const std::vector<double>& actual, const std::vector<double>& expected,
                  double rel = 0.0) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(actual[i])) << "element " << i << ": " << actual[i];
    } else if (rel == 0.0 || std::isinf(expected[i])) {
      EXPECT_EQ(actual[i], expected[i]) << "element " << i;
    } else {
      EXPECT_NEAR(actual[i], expected[i], rel * std::max(1.0, std::fabs(expected[i])))
          << "element " << i;
    }
  }
}

Tensor runUnary(UnaryOpType op, DataType dtype, const std::vector<double>& in) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1, dtype);
  fusion.addInput(tv0);
  fusion.addOutput(unaryOp(op, tv0));
  return runOne(fusion, {makeTensor(in, {static_cast<int64_t>(in.size())}, dtype)});
}

Tensor runBinary(BinaryOpType op, DataType dtype, const std::vector<double>& a,
                 const std::vector<double>& b, std::optional<DataType> rhs_dtype = {}) {
  const DataType dtype_b = rhs_dtype.value_or(dtype);
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigTensor(1, dtype);
  TensorView* tv1 = makeContigTensor(1, dtype_b);
  fusion.addInput(tv0);
  fusion.addInput(tv1);
  fusion.addOutput(binaryOp(op, tv0, tv1)->as<TensorView>());
  const int64_t n = static_cast<int64_t>(a.size());
  return runOne(fusion, {makeTensor(a, {n}, dtype), makeTensor(b, {n}, dtype_b)});
}

struct UnaryCase {
  UnaryOpType op;
  std::vector<double> in;
  std::vector<double> expected;  // exact values; Float results are their float rounding
};

// Every unary op, in Float (computed in float, so results are float-rounded) and Double.
TEST(ReferenceMath, UnaryOpsOnFloatAndDouble) {
  const double e = 2.718281828459045;
  const std::vector<UnaryCase> cases = {
      {UnaryOpType::Neg, {1.5, -0.0, kNan}, {-1.5, 0.0, kNan}},
      {UnaryOpType::Abs, {-2.5, 3.0, -kInf}, {2.5, 3.0, kInf}},
      {UnaryOpType::Exp, {0.0, 1.0, -kInf}, {1.0, e, 0.0}},
      {UnaryOpType::Log, {1.0, 0.5, 0.0}, {0.0, -0.6931471805599453, -kInf}},
      {UnaryOpType::Sqrt, {4.0, 2.0, -1.0}, {2.0, 1.4142135623730951, kNan}},
      {UnaryOpType::Rsqrt, {4.0, 0.25, 0.0}, {0.5, 2.0, kInf}},
      {UnaryOpType::Reciprocal, {-4.0, 3.0, 0.0}, {-0.25, 1.0 / 3.0, kInf}},
      {UnaryOpType::Tanh, {0.0, 1.0, -kInf}, {0.0, 0.7615941559557649, -1.0}},
      {UnaryOpType::Sigmoid, {0.0, 2.0, -kInf}, {0.5, 0.8807970779778823, 0.0}},
      {UnaryOpType::Relu, {-3.0, 2.0, kNan}, {0.0, 2.0, kNan}},
      {UnaryOpType::Sin, {0.0, 0.5, kNan}, {0.0, 0.479425538604203, kNan}},
      {UnaryOpType::Cos, {0.0, 0.5, kInf}, {1.0, 0.8775825618903728, kNan}},
      {UnaryOpType::Floor, {-1.5, 2.5, 3.0}, {-2.0, 2.0, 3.0}},
      {UnaryOpType::Ceil, {-1.5, 2.5, 3.0}, {-1.0, 3.0, 3.0}},
  };
  for (const UnaryCase& c : cases) {
    SCOPED_TRACE(std::string(toString(c.op)));
    Tensor d = runUnary(c.op, DataType::Double, c.in);
    EXPECT_EQ(d.dtype(), DataType::Double);
    expectValues(values(d), c.expected, 1e-15);
    Tensor f = runUnary(c.op, DataType::Float, c.in);
    EXPECT_EQ(f.dtype(), DataType::Float);
    std::vector<double> rounded;
    for (double x : c.expected) rounded.push_back(f32(x));
    // Exact ops give exactly the float rounding; transcendentals within a few float ulp.
    expectValues(values(f), rounded, 4e-7);
  }
  // Results computed in float are float values, not doubles: sqrt(2) and 1/3.
  EXPECT_EQ(runUnary(UnaryOpType::Sqrt, DataType::Float, {2.0}).item(0), f32(1.4142135623730951));
  EXPECT_EQ(runUnary(UnaryOpType::Reciprocal, DataType::Float, {3.0}).item(0), f32(1.0 / 3.0));
  // logicalNot yields Bool; NaN is true (non-zero), so its negation is false.
  Tensor n = runUnary(UnaryOpType::LogicalNot, DataType::Float, {0.0, 2.0, kNan});
  EXPECT_EQ(n.dtype(), DataType::Bool);
  expectValues(values(n), {1, 0, 0});
}

struct BinaryCase {
  BinaryOpType op;
  std::vector<double> a, b, expected;
};

// Every binary op on Float and Double, including NaN handling of maximum/minimum and of
// the comparisons.
TEST(ReferenceMath, BinaryOpsOnFloatAndDouble) {
  const std::vector<BinaryCase> cases = {
      {BinaryOpType::Add, {1.5, -2.0}, {2.25, 0.5}, {3.75, -1.5}},
      {BinaryOpType::Sub, {1.0, 0.5}, {3.0, 0.25}, {-2.0, 0.25}},
      {BinaryOpType::Mul, {1.5, -2.0}, {4.0, 3.0}, {6.0, -6.0}},
      {BinaryOpType::Div, {1.0, 7.0, 1.0}, {4.0, 2.0, 0.0}, {0.25, 3.5, kInf}},
      {BinaryOpType::Mod, {7.5, -7.5}, {2.0, 2.0}, {1.5, -1.5}},
      {BinaryOpType::CeilDiv, {7.0, -7.0}, {2.0, 2.0}, {4.0, -3.0}},
      {BinaryOpType::Maximum, {1.0, kNan, 3.0}, {2.0, 1.0, kNan}, {2.0, kNan, kNan}},
      {BinaryOpType::Minimum, {1.0, kNan, 3.0}, {2.0, 1.0, kNan}, {1.0, kNan, kNan}},
      {BinaryOpType::Pow, {2.0, 9.0, -2.0}, {10.0, 0.5, 3.0}, {1024.0, 3.0, -8.0}},
      {BinaryOpType::Eq, {1.0, 2.0, kNan}, {2.0, 2.0, kNan}, {0, 1, 0}},
      {BinaryOpType::Ne, {1.0, 2.0, kNan}, {2.0, 2.0, kNan}, {1, 0, 1}},
      {BinaryOpType::Lt, {1.0, 2.0, kNan}, {2.0, 2.0, 1.0}, {1, 0, 0}},
      {BinaryOpType::Le, {1.0, 2.0, kNan}, {2.0, 2.0, 1.0}, {1, 1, 0}},
      {BinaryOpType::Gt, {1.0, 2.0, kNan}, {2.0, 2.0, 1.0}, {0, 0, 0}},
      {BinaryOpType::Ge, {1.0, 2.0, kNan}, {2.0, 2.0, 1.0}, {0, 1, 0}},
  };
  for (const BinaryCase& c : cases) {
    SCOPED_TRACE(std::string(toString(c.op)));
    for (DataType dtype : {DataType::Float, DataType::Double}) {
      Tensor out = runBinary(c.op, dtype, c.a, c.b);
      EXPECT_EQ(out.dtype(), isPredicateOp(c.op) ? DataType::Bool : dtype);
      expectValues(values(out), c.expected);
    }
  }
}

// Float math rounds to float after every op; Double keeps the double result.
TEST(ReferenceMath, FloatComputesInFloat) {
  expectValues(values(runBinary(BinaryOpType::Add, DataType::Float, {16777216.0, 0.1}, {1.0, 0.2})),
               {16777216.0, f32(f32(0.1) + f32(0.2))});
  expectValues(
      values(runBinary(BinaryOpType::Add, DataType::Double, {16777216.0, 0.1}, {1.0, 0.2})),
      {16777217.0, 0.30000000000000004});
  expectValues(values(runBinary(BinaryOpType::Div, DataType::Float, {1.0}, {3.0})),
               {0.3333333432674408});
}

// Int32 wraps around in two's complement; division truncates toward zero; the remainder
// takes the sign of the dividend (C++ and CUDA `%`).
TEST(ReferenceMath, Int32Arithmetic) {
  const double max = 2147483647.0, min = -2147483648.0;
  const std::vector<BinaryCase> cases = {
      {BinaryOpType::Add, {max, -5}, {1, 3}, {min, -2}},
      {BinaryOpType::Sub, {min, 5}, {1, 7}, {max, -2}},
      {BinaryOpType::Mul, {65536, -7}, {65536, 6}, {0, -42}},
      {BinaryOpType::Div, {-7, 7, 7, -7, min}, {2, -2, 2, -2, -1}, {-3, -3, 3, 3, min}},
      {BinaryOpType::Mod, {-7, 7, -7, 7}, {3, -3, -3, 3}, {-1, 1, -1, 1}},
      {BinaryOpType::CeilDiv, {7, 8}, {2, 2}, {4, 4}},
      {BinaryOpType::Maximum, {3, -4}, {-1, 5}, {3, 5}},
      {BinaryOpType::Minimum, {3, -4}, {-1, 5}, {-1, -4}},
      {BinaryOpType::Pow, {3, -2}, {4, 3}, {81, -8}},
      {BinaryOpType::Lt, {1, 5}, {2, 5}, {1, 0}},
      {BinaryOpType::Ge, {1, 5}, {2, 5}, {0, 1}},
  };
  for (const BinaryCase& c : cases) {
    SCOPED_TRACE(std::string(toString(c.op)));
    Tensor out = runBinary(c.op, DataType::Int32, c.a, c.b);
    EXPECT_EQ(out.dtype(), isPredicateOp(c.op) ? DataType::Bool : DataType::Int32);
    expectValues(values(out), c.expected);
  }
  expectValues(values(runUnary(UnaryOpType::Neg, DataType::Int32, {min, 5})), {min, -5});
  expectValues(values(runUnary(UnaryOpType::Abs, DataType::Int32, {-5, min})), {5, min});
  expectValues(values(runUnary(UnaryOpType::Relu, DataType::Int32, {-5, 6})), {0, 6});
}

TEST(ReferenceMath, Int64Arithmetic) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1, DataType::Int64);
  TensorView* tv1 = makeSymbolicTensor(1, DataType::Int64);
  fusion.addInput(tv0);
  fusion.addInput(tv1);
  fusion.addOutput(add(tv0, tv1));
  fusion.addOutput(div(tv0, tv1));
  std::vector<Tensor> outs = ReferenceEvaluator(&fusion).run(
      {Tensor::fromVector<int64_t>({kMax, (int64_t{1} << 53) + 1, -9}, {3}),
       Tensor::fromVector<int64_t>({1, 1, 4}, {3})});
  EXPECT_EQ(outs[0].data<int64_t>()[0], std::numeric_limits<int64_t>::min());
  EXPECT_EQ(outs[0].data<int64_t>()[1], (int64_t{1} << 53) + 2);  // exact past 2^53
  EXPECT_EQ(outs[0].data<int64_t>()[2], -5);
  EXPECT_EQ(outs[1].data<int64_t>()[2], -2);
  // INT64_MIN / -1 wraps to INT64_MIN (a trap in C++; regression test).
  Tensor wrapped = ReferenceEvaluator(&fusion).run(
      {Tensor::fromVector<int64_t>({std::numeric_limits<int64_t>::min()}, {1}),
       Tensor::fromVector<int64_t>({-1}, {1})})[1];
  EXPECT_EQ(wrapped.data<int64_t>()[0], std::numeric_limits<int64_t>::min());
}

TEST(ReferenceMath, IntegerDivisionByZeroIsAnError) {
  EXPECT_THAT([] { runBinary(BinaryOpType::Div, DataType::Int32, {1}, {0}); },
              ThrowsMessage<UserError>(HasSubstr("integer division by zero")));
  EXPECT_THAT([] { runBinary(BinaryOpType::Mod, DataType::Int64, {1}, {0}); },
              ThrowsMessage<UserError>(HasSubstr("integer modulo by zero")));
}

TEST(ReferenceMath, BoolOps) {
  const std::vector<double> a = {1, 1, 0, 0}, b = {1, 0, 1, 0};
  expectValues(values(runBinary(BinaryOpType::LogicalAnd, DataType::Bool, a, b)), {1, 0, 0, 0});
  expectValues(values(runBinary(BinaryOpType::LogicalOr, DataType::Bool, a, b)), {1, 1, 1, 0});
  expectValues(values(runBinary(BinaryOpType::Eq, DataType::Bool, a, b)), {1, 0, 0, 1});
  expectValues(values(runBinary(BinaryOpType::Ne, DataType::Bool, a, b)), {0, 1, 1, 0});
  expectValues(values(runBinary(BinaryOpType::Lt, DataType::Bool, a, b)), {0, 0, 1, 0});
  Tensor n = runUnary(UnaryOpType::LogicalNot, DataType::Bool, {1, 0});
  EXPECT_EQ(n.dtype(), DataType::Bool);
  expectValues(values(n), {0, 1});
  // Comparing an Int32 with a Float tensor compares in Float.
  Tensor cmp = runBinary(BinaryOpType::Lt, DataType::Int32, {2, 3}, {2.5, 2.5}, DataType::Float);
  EXPECT_EQ(cmp.dtype(), DataType::Bool);
  expectValues(values(cmp), {1, 0});
}

// Narrow floats compute in float and round once to their own dtype.
TEST(ReferenceMath, NarrowFloatsComputeInFloatAndRound) {
  // bf16: 1 + 2^-7 plus 2^-9 is 1.009765625 in float, which rounds (down) to 1 + 2^-7.
  Tensor bf =
      runBinary(BinaryOpType::Add, DataType::BFloat16, {1.0078125, 1.0}, {0.001953125, 0.00390625});
  EXPECT_EQ(bf.dtype(), DataType::BFloat16);
  EXPECT_EQ(bf.data<BFloat16>()[0].bits, 0x3f81);  // 1 + 2^-7
  EXPECT_EQ(bf.data<BFloat16>()[1].bits, 0x3f80);  // 1 + 2^-8 is a tie -> even, 1.0
  // half: 2048 + 1 is not representable (spacing 2) and ties to even 2048.
  Tensor h = runBinary(BinaryOpType::Add, DataType::Half, {2048.0, 2048.0}, {1.0, 3.0});
  expectValues(values(h), {2048.0, 2052.0});
  // fp8 e4m3: 256 + 256 = 512 saturates to 448.
  Tensor f8 = runBinary(BinaryOpType::Add, DataType::Float8_e4m3fn, {256.0}, {256.0});
  EXPECT_EQ(f8.data<Float8e4m3>()[0].bits, 0x7e);
}

}  // namespace
