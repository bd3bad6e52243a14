// The CPU reference evaluator on unary and binary math: every op on Float and Double inputs,
// integer and bool semantics. Expected values are computed by hand (or are the float
// rounding of the exact value), never by the evaluator itself.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "ir/scalar_ops.h"
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

// The raw bits of element i of a contiguous tensor.
uint64_t bitsAt(const Tensor& t, int64_t i) {
  uint64_t bits = 0;
  const int64_t n = dataTypeSize(t.dtype());
  std::memcpy(&bits, static_cast<const std::byte*>(t.rawData()) + i * n, static_cast<size_t>(n));
  return bits;
}

// The sign bit of a `dtype` element: the bits of -0.
uint64_t signBit(DataType dtype) {
  return uint64_t{1} << (8 * dataTypeSize(dtype) - 1);
}

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

// Float and double pointwise ops run by rows (evalFloatingRow): each element must be what
// evalUnary / evalBinary give for it, bit for bit, with a strided operand, a broadcast one and
// a scalar, at special values (NaN, infinities, -0, huge, tiny) and random ones.
TEST(ReferenceMath, RowPathEqualsTheScalarSemanticsPerElement) {
  const std::vector<double> special = {kNan, kInf, -kInf, -0.0, 0.0, 1e300, -1e-310, 3.5, -2.0};
  for (DataType dtype : {DataType::Float, DataType::Double}) {
    SCOPED_TRACE(std::string(toString(dtype)));
    // x: [3, 7] viewed with a row stride of 9 (non-contiguous); b: [7] broadcast over rows.
    Tensor storage = Tensor::random({3 * 9}, dtype, 11);
    for (size_t i = 0; i < special.size(); ++i)
      storeElement(static_cast<std::byte*>(storage.rawData()) + 2 * i * dataTypeSize(dtype), dtype,
                   special[i]);
    const Tensor x = storage.asStrided({3, 7}, {9, 1}, 0);
    Tensor b = Tensor::random({7}, dtype, 12);
    storeElement(static_cast<std::byte*>(b.rawData()), dtype, kNan);
    const double scalar = -1.25;
    for (int kind = 0; kind < 14; ++kind) {
      const bool unary = kind < 5;
      const UnaryOpType uop = std::array{UnaryOpType::Neg, UnaryOpType::Exp, UnaryOpType::Relu,
                                         UnaryOpType::Rsqrt, UnaryOpType::Tanh}[kind % 5];
      const BinaryOpType bop = std::array{
          BinaryOpType::Add, BinaryOpType::Sub,     BinaryOpType::Mul,
          BinaryOpType::Div, BinaryOpType::Maximum, BinaryOpType::Minimum,
          BinaryOpType::Pow, BinaryOpType::Add,     BinaryOpType::Div}[std::max(0, kind - 5)];
      const bool with_scalar = kind >= 12;  // x op scalar: the scalar converted to dtype
      Fusion fusion;
      FusionGuard fg(&fusion);
      TensorView* tx = makeSymbolicTensor(2, dtype);
      TensorView* tb = makeSymbolicTensor(1, dtype);
      fusion.addInput(tx);
      fusion.addInput(tb);
      Val* rhs = with_scalar ? constFloat(scalar) : broadcast(tb, {true, false});
      fusion.addOutput(unary ? unaryOp(uop, tx) : binaryOp(bop, tx, rhs)->as<TensorView>());
      const Tensor out = ReferenceEvaluator(&fusion).run({x, b})[0];
      for (int64_t r = 0; r < 3; ++r)
        for (int64_t c = 0; c < 7; ++c) {
          const ScalarValue xv = x.value(r * 7 + c);
          const ScalarValue expected =
              unary ? evalUnary(uop, dtype, xv)
                    : evalBinary(bop, dtype, dtype, xv,
                                 with_scalar ? ScalarValue{scalar} : b.value(c));
          const ScalarValue actual = out.value(r * 7 + c);
          const double e = asDouble(expected), a = asDouble(actual);
          EXPECT_TRUE((std::isnan(e) && std::isnan(a)) ||
                      std::bit_cast<uint64_t>(e) == std::bit_cast<uint64_t>(a))
              << "kind " << kind << " at [" << r << ", " << c << "]: " << a << " vs " << e;
        }
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

// relu(x) = x < 0 ? 0 : x, as mf_relu: relu(-0) is -0 and relu(NaN) is NaN, in every floating
// dtype (regression: the evaluator computed x > 0 ? x : 0, giving +0).
TEST(ReferenceMath, ReluKeepsNegativeZeroAndNan) {
  for (DataType dtype : {DataType::Float, DataType::Double, DataType::Half, DataType::BFloat16,
                         DataType::Float8_e4m3fn}) {
    SCOPED_TRACE(std::string(toString(dtype)));
    Tensor r = runUnary(UnaryOpType::Relu, dtype, {-0.0, 0.0, -1.5, 2.0, kNan});
    EXPECT_EQ(bitsAt(r, 0), signBit(dtype));
    EXPECT_EQ(bitsAt(r, 1), 0u);
    EXPECT_EQ(bitsAt(r, 2), 0u);  // a negative gives +0
    EXPECT_EQ(r.item(3), 2.0);
    EXPECT_TRUE(std::isnan(r.item(4)));
  }
}

// maximum / minimum as mf_maximum / mf_minimum (torch.maximum): +0 > -0 whatever the operand
// order (regression: the evaluator returned the second operand of equal ones), and a NaN
// operand gives NaN, in either position; narrow results hold the canonical NaN.
TEST(ReferenceMath, MaximumMinimumOrderSignedZerosAndPropagateNan) {
  for (DataType dtype : {DataType::Float, DataType::Double, DataType::Half, DataType::BFloat16}) {
    SCOPED_TRACE(std::string(toString(dtype)));
    const std::vector<double> a = {0.0, -0.0, kNan, 1.0, kNan, -kInf};
    const std::vector<double> b = {-0.0, 0.0, 1.0, kNan, kNan, kNan};
    Tensor mx = runBinary(BinaryOpType::Maximum, dtype, a, b);
    Tensor mn = runBinary(BinaryOpType::Minimum, dtype, a, b);
    for (int64_t i : {0, 1}) {
      EXPECT_EQ(bitsAt(mx, i), 0u) << "maximum, element " << i;
      EXPECT_EQ(bitsAt(mn, i), signBit(dtype)) << "minimum, element " << i;
    }
    for (int64_t i = 2; i < 6; ++i) {
      EXPECT_TRUE(std::isnan(mx.item(i))) << "maximum, element " << i;
      EXPECT_TRUE(std::isnan(mn.item(i))) << "minimum, element " << i;
      if (isNarrowFloat(dtype)) {
        EXPECT_EQ(bitsAt(mx, i), kHalfCanonicalNan);  // 0x7fff, for bf16 too
        EXPECT_EQ(bitsAt(mn, i), kHalfCanonicalNan);
      }
    }
  }
}

// Integers convert to a narrow float through float, as mf_cast (two roundings), and to float
// in one rounding (regression: the evaluator converted through double).
// - 2^24 + 2^16 + 1 is odd and past 2^24, where floats are 2 apart: it ties between
//   2^24 + 2^16 and 2^24 + 2^16 + 2 and rounds to the even 2^24 + 2^16. That is the tie
//   between the bf16 neighbours 2^24 (0x4b80) and 2^24 + 2^17 (0x4b81), which rounds to even:
//   0x4b80. Rounded once (it is exact in double), it lies above the tie: 0x4b81.
// - 2^60 + 2^36 + 1: floats there are 2^37 apart, so one rounding gives 2^60 + 2^37
//   (0x5d800001); through double (2^8 apart) it is first 2^60 + 2^36, a float tie that goes
//   to even, 2^60 (0x5d800000).
TEST(ReferenceMath, IntegerToNarrowRoundsThroughFloat) {
  const int64_t tie = (int64_t{1} << 24) + (int64_t{1} << 16) + 1;
  const int64_t big = (int64_t{1} << 60) + (int64_t{1} << 36) + 1;
  auto cast = [](DataType from, DataType to, const std::vector<int64_t>& v) {
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* tv0 = makeContigTensor(1, from);
    fusion.addInput(tv0);
    fusion.addOutput(castOp(to, tv0));
    std::vector<Tensor> in;
    if (from == DataType::Int32) {
      std::vector<int32_t> v32(v.begin(), v.end());
      in.push_back(Tensor::fromVector(v32, {static_cast<int64_t>(v.size())}));
    } else {
      in.push_back(Tensor::fromVector(v, {static_cast<int64_t>(v.size())}));
    }
    return runOne(fusion, in);
  };
  EXPECT_EQ(bitsAt(cast(DataType::Int64, DataType::BFloat16, {tie}), 0), 0x4b80u);
  EXPECT_EQ(bitsAt(cast(DataType::Int32, DataType::BFloat16, {tie}), 0), 0x4b80u);
  EXPECT_EQ(bitsAt(cast(DataType::Int64, DataType::BFloat16, {-tie}), 0), 0xcb80u);
  EXPECT_EQ(bitsAt(cast(DataType::Int64, DataType::Float, {big}), 0), 0x5d800001u);
  EXPECT_EQ(bitsAt(cast(DataType::Int64, DataType::Half, {65519, 65520}), 1), 0x7c00u);
  // The same rule in scalar expressions (constant folding and the expression evaluator).
  EXPECT_EQ(castScalar(ScalarValue{tie}, DataType::BFloat16), ScalarValue{16777216.0});
  EXPECT_EQ(castScalar(ScalarValue{big}, DataType::Float), ScalarValue{0x1p60 + 0x1p37});
}

// The evaluator's cast equals castValue<To, From> (the host mf_cast) for every pair of dtypes,
// bit for bit: every half, bf16 and e4m3 pattern, and floats, doubles and integers at the
// rounding, saturation and overflow boundaries. A cast to the same dtype copies the bits
// (a narrow NaN keeps its payload), as the generated code does.
template <typename From, typename To>
void expectCastIsCastValue(const std::vector<From>& in) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigTensor(1, dataTypeOf<From>());
  fusion.addInput(tv0);
  fusion.addOutput(castOp(dataTypeOf<To>(), tv0));
  const Tensor out = runOne(fusion, {Tensor::fromVector(in, {static_cast<int64_t>(in.size())})});
  int bad = 0;
  for (size_t i = 0; i < in.size() && bad < 5; ++i) {
    const To want = castValue<To>(in[i]);
    const auto* got = static_cast<const std::byte*>(out.rawData()) + i * sizeof(To);
    if (std::memcmp(got, &want, sizeof(To)) != 0) {
      ++bad;
      ADD_FAILURE() << toString(dataTypeOf<From>()) << " -> " << toString(dataTypeOf<To>())
                    << ": element " << i;
    }
  }
}

template <typename From>
void expectCastsAreCastValue(const std::vector<From>& in) {
  expectCastIsCastValue<From, bool>(in);
  expectCastIsCastValue<From, int32_t>(in);
  expectCastIsCastValue<From, int64_t>(in);
  expectCastIsCastValue<From, Half>(in);
  expectCastIsCastValue<From, BFloat16>(in);
  expectCastIsCastValue<From, float>(in);
  expectCastIsCastValue<From, double>(in);
  expectCastIsCastValue<From, Float8e4m3>(in);
}

template <typename T>
std::vector<T> everyBitPattern() {
  std::vector<T> v(size_t{1} << (8 * sizeof(T)));
  for (size_t b = 0; b < v.size(); ++b) v[b].bits = static_cast<decltype(v[b].bits)>(b);
  return v;
}

TEST(ReferenceMath, CastIsCastValueForEveryPairOfDtypes) {
  const std::vector<double> doubles = {
      // zeros, NaNs, infinities, plain values, values past a half / bf16 / e4m3 tie
      0.0, -0.0, kNan, -kNan, kInf, -kInf, 0.1, -2.9, 1.0 + 0x1p-11 + 0x1p-40,
      1.0 + 0x1p-8 + 0x1p-40, 1.0625 + 0x1p-40,
      // e4m3 saturation, half overflow, narrow subnormals, out of float's range
      416, 431, 432, 448, 449, 464, 480, -480, 65504, 65519.99, 65520, -65520, 0x1p-24, 0x1p-25,
      0x1p-9, 0x1p-10, 0x1p-133, 0x1p-150, 1e-320, 1e300,
      // integer saturation
      3e9, -3e9, 0x1p31, -0x1p31 - 0.9, 0x1p63, -0x1p63 - 2048, 0x1p63 - 1024};
  std::vector<float> floats;
  for (double d : doubles) floats.push_back(static_cast<float>(d));
  floats.push_back(std::bit_cast<float>(0x7fc00001u));  // a NaN payload
  floats.push_back(std::bit_cast<float>(0x00018000u));  // a subnormal, bf16 tie
  constexpr int64_t kOne = 1;
  const std::vector<int64_t> ints = {
      // small, half's overflow, through-float roundings (IntegerToNarrowRoundsThroughFloat)
      0, 1, -1, 65519, 65520, (kOne << 24) + (kOne << 16) + 1, (kOne << 60) + (kOne << 36) + 1,
      (kOne << 60) + (kOne << 52) + 1,
      // int32 narrowing keeps the low bits; the extremes
      0x1'0000'0005, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
  std::vector<int32_t> ints32;
  for (int64_t i : ints) ints32.push_back(static_cast<int32_t>(i));
  expectCastsAreCastValue<bool>({false, true});
  expectCastsAreCastValue<int32_t>(ints32);
  expectCastsAreCastValue<int64_t>(ints);
  expectCastsAreCastValue<float>(floats);
  expectCastsAreCastValue<double>(doubles);
  expectCastsAreCastValue<Half>(everyBitPattern<Half>());
  expectCastsAreCastValue<BFloat16>(everyBitPattern<BFloat16>());
  expectCastsAreCastValue<Float8e4m3>(everyBitPattern<Float8e4m3>());
}

// A narrow op computes in float, its operands converted to float first, and rounds once: a
// Double constant past a bf16 tie becomes the float tie 1 + 2^-8, and 1 + that rounds to even.
// Computed in double (or the constant rounded directly) it would give 1 + 2^-7.
TEST(ReferenceMath, NarrowOpsConvertOperandsToFloatAndRoundOnce) {
  const double past_tie = 1.0 + 0x1p-8 + 0x1p-40;  // float(past_tie) = 1 + 2^-8
  {
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* tv0 = makeContigTensor(1, DataType::BFloat16);
    fusion.addInput(tv0);
    fusion.addOutput(add(tv0, constFloat(past_tie - 1.0)));  // 2^-8 + 2^-40: float drops 2^-40
    Tensor out = runOne(fusion, {makeTensor({1.0, 2.0}, {2}, DataType::BFloat16)});
    EXPECT_EQ(bitsAt(out, 0), 0x3f80u);  // 1 + 2^-8 in float: the tie, to even
    EXPECT_EQ(bitsAt(out, 1), 0x4000u);
  }
  // Half: 1/3 and 65504 * 2 computed in float, rounded once: 0x3555 and +inf.
  Tensor h = runBinary(BinaryOpType::Div, DataType::Half, {1.0, 65504.0}, {3.0, 0.5});
  EXPECT_EQ(bitsAt(h, 0), 0x3555u);
  EXPECT_EQ(bitsAt(h, 1), 0x7c00u);
}

// clamp computes like its generated code: bounds converted to the compute type (float for
// narrow tensors), minimum(maximum(x, lo), hi) there, one rounding to the dtype (regression:
// the evaluator rounded maximum(x, lo) to bf16 with the double bound, giving 0x3f81).
TEST(ReferenceMath, ClampComputesInFloatForNarrowTypes) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigTensor(1, DataType::BFloat16);
  fusion.addInput(tv0);
  fusion.addOutput(clamp(tv0, constFloat(1.0 + 0x1p-8 + 0x1p-40), constFloat(2.0)));
  Tensor out = runOne(fusion, {makeTensor({0.0, 1.5, 3.0, kNan}, {4}, DataType::BFloat16)});
  EXPECT_EQ(bitsAt(out, 0), 0x3f80u);  // float(lo) = 1 + 2^-8, the bf16 tie: even, 1.0
  EXPECT_EQ(bitsAt(out, 1), 0x3fc0u);
  EXPECT_EQ(bitsAt(out, 2), 0x4000u);
  EXPECT_EQ(bitsAt(out, 3), kBFloat16CanonicalNan);
}

// clamp(x, lo, hi) = minimum(maximum(x, lo), hi) for integers too: with lo > hi every element
// is hi, as torch.clamp (regression: generated code gave lo below lo).
TEST(ReferenceMath, IntegerClampWithEmptyRangeGivesHi) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigTensor(1, DataType::Int32);
  fusion.addInput(tv0);
  fusion.addOutput(clamp(tv0, constInt(5, DataType::Int64), constInt(3, DataType::Int64)));
  Tensor out = runOne(fusion, {makeTensor({0, 4, 10}, {3}, DataType::Int32)});
  expectValues(values(out), {3, 3, 3});
}

// where copies a branch of the output's dtype bit for bit (a half NaN keeps its payload, as
// in the generated code) and converts other branches once to the output dtype.
TEST(ReferenceMath, WhereCopiesBranchBitsAndConvertsConstants) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* cond = makeContigTensor(1, DataType::Bool);
  TensorView* x = makeContigTensor(1, DataType::Half);
  fusion.addInput(cond);
  fusion.addInput(x);
  fusion.addOutput(where(cond, x, constFloat(65519.99)));  // Half: rounds once to 65504
  Tensor out = runOne(fusion, {Tensor::fromVector<bool>({true, false}, {2}),
                               Tensor::fromVector<Half>({Half{0x7c01}, Half{0x7c01}}, {2})});
  EXPECT_EQ(bitsAt(out, 0), 0x7c01u);
  EXPECT_EQ(bitsAt(out, 1), 0x7bffu);
}

}  // namespace
