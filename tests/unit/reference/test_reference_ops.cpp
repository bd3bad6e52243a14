// The CPU reference evaluator on where, clamp, casts, type promotion, broadcast, scalar
// operands (constants, fusion inputs, expressions) and set. Expected values are by hand.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ir/builder.h"
#include "reference_helpers.h"

namespace {

using namespace mf;
using reftest::makeTensor;
using reftest::runOne;
using reftest::values;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// castOp of a 1-D `from` tensor holding `in` to `to`.
Tensor runCast(DataType from, DataType to, const std::vector<double>& in) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1, from);
  fusion.addInput(tv0);
  fusion.addOutput(castOp(to, tv0));
  Tensor out = runOne(fusion, {makeTensor(in, {static_cast<int64_t>(in.size())}, from)});
  EXPECT_EQ(out.dtype(), to);
  return out;
}

template <typename T>
std::vector<uint32_t> bits(const Tensor& t) {
  std::vector<uint32_t> b;
  for (int64_t i = 0; i < t.numel(); ++i) b.push_back(t.data<T>()[i].bits);
  return b;
}

TEST(ReferenceOps, Where) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* cond = makeSymbolicTensor(1, DataType::Bool);
  TensorView* a = makeSymbolicTensor(1, DataType::Int32);
  TensorView* b = makeSymbolicTensor(1, DataType::Int32);
  fusion.addInput(cond);
  fusion.addInput(a);
  fusion.addInput(b);
  fusion.addOutput(where(cond, a, b));
  fusion.addOutput(where(cond, a, constFloat(0.5)));  // int tensor with a double: Float
  std::vector<Tensor> outs =
      ReferenceEvaluator(&fusion).run({Tensor::fromVector<bool>({true, false, true}, {3}),
                                       Tensor::fromVector<int32_t>({1, 2, 3}, {3}),
                                       Tensor::fromVector<int32_t>({10, 20, 30}, {3})});
  EXPECT_EQ(outs[0].dtype(), DataType::Int32);
  EXPECT_EQ(values(outs[0]), (std::vector<double>{1, 20, 3}));
  EXPECT_EQ(outs[1].dtype(), DataType::Float);
  EXPECT_EQ(values(outs[1]), (std::vector<double>{1, 0.5, 3}));
}

// clamp(x, lo, hi) = minimum(maximum(x, lo), hi): NaN in x stays NaN.
TEST(ReferenceOps, Clamp) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* x = makeSymbolicTensor(1, DataType::Float);
  TensorView* i = makeSymbolicTensor(1, DataType::Int32);
  fusion.addInput(x);
  fusion.addInput(i);
  fusion.addOutput(clamp(x, constFloat(-1.0), constFloat(1.0)));
  fusion.addOutput(clamp(i, constInt(0, DataType::Int64), constInt(10, DataType::Int64)));
  std::vector<Tensor> outs = ReferenceEvaluator(&fusion).run(
      {makeTensor({-3.0, 0.5, 2.0, kNan, -kInf}, {5}, DataType::Float),
       Tensor::fromVector<int32_t>({-5, 5, 50}, {3})});
  std::vector<double> got = values(outs[0]);
  EXPECT_EQ(got[0], -1.0);
  EXPECT_EQ(got[1], 0.5);
  EXPECT_EQ(got[2], 1.0);
  EXPECT_TRUE(std::isnan(got[3]));
  EXPECT_EQ(got[4], -1.0);
  EXPECT_EQ(outs[1].dtype(), DataType::Int32);
  EXPECT_EQ(values(outs[1]), (std::vector<double>{0, 5, 10}));
}

// float -> bf16 rounds to nearest, ties to even (1 + 2^-8 -> 1; 1 + 3*2^-8 -> 1 + 2^-6).
TEST(ReferenceOps, CastFloatToBFloat16TiesToEven) {
  Tensor out = runCast(DataType::Float, DataType::BFloat16,
                       {1.00390625, 1.01171875, -1.00390625, 1.005, kNan});
  EXPECT_EQ(bits<BFloat16>(out), (std::vector<uint32_t>{0x3f80, 0x3f82, 0xbf80, 0x3f81, 0x7fff}));
}

// float -> half: ties to even, overflow to infinity, 0.1 to its nearest half.
TEST(ReferenceOps, CastFloatToHalf) {
  Tensor out =
      runCast(DataType::Float, DataType::Half, {1.00048828125, 1.00146484375, 65520.0, 0.1, -0.0});
  EXPECT_EQ(bits<Half>(out), (std::vector<uint32_t>{0x3c00, 0x3c02, 0x7c00, 0x2e66, 0x8000}));
  EXPECT_EQ(out.item(3), 0.0999755859375);
}

// float -> fp8 e4m3fn saturates finite values and infinities to +-448; NaN stays NaN.
TEST(ReferenceOps, CastFloatToFloat8SaturatesAt448) {
  Tensor out = runCast(DataType::Float, DataType::Float8_e4m3fn,
                       {448.0, 500.0, -1000.0, kInf, kNan, 0.0, 1.0, 0.0625});
  EXPECT_EQ(bits<Float8e4m3>(out),
            (std::vector<uint32_t>{0x7e, 0x7e, 0xfe, 0x7e, 0x7f, 0x00, 0x38, 0x18}));
  EXPECT_TRUE(std::isnan(out.item(4)));
}

// float -> int32 truncates toward zero, saturates, and maps NaN to 0 (cvt.rzi.sat).
TEST(ReferenceOps, CastFloatToInt32Truncates) {
  Tensor out = runCast(DataType::Float, DataType::Int32, {2.7, -2.7, kNan, 3e9, -3e9, -0.5});
  EXPECT_EQ(values(out), (std::vector<double>{2, -2, 0, 2147483647, -2147483648.0, 0}));
}

TEST(ReferenceOps, CastAcrossOtherDtypes) {
  // int32 -> float rounds to nearest float (2^24 + 1 is not a float).
  EXPECT_EQ(values(runCast(DataType::Int32, DataType::Float, {16777217, -3})),
            (std::vector<double>{16777216, -3}));
  // to bool: non-zero is true, NaN is true, -0 is false.
  EXPECT_EQ(values(runCast(DataType::Float, DataType::Bool, {0.0, -0.0, 0.5, kNan})),
            (std::vector<double>{0, 0, 1, 1}));
  // bf16 -> half and half -> double are exact here; double -> float rounds.
  EXPECT_EQ(values(runCast(DataType::BFloat16, DataType::Half, {1.0078125, -3.0})),
            (std::vector<double>{1.0078125, -3.0}));
  EXPECT_EQ(values(runCast(DataType::Half, DataType::Double, {0.0999755859375})),
            (std::vector<double>{0.0999755859375}));
  EXPECT_EQ(values(runCast(DataType::Double, DataType::Float, {0.1})),
            (std::vector<double>{static_cast<double>(0.1f)}));
  // int64 -> int32 keeps the low 32 bits; bool -> int32 is 0/1.
  EXPECT_EQ(values(runCast(DataType::Int64, DataType::Int32, {4294967297.0, -1})),
            (std::vector<double>{1, -1}));
  EXPECT_EQ(values(runCast(DataType::Bool, DataType::Int32, {1, 0})), (std::vector<double>{1, 0}));
  // fp8 -> float is exact.
  EXPECT_EQ(values(runCast(DataType::Float8_e4m3fn, DataType::Float, {-448, 0.001953125})),
            (std::vector<double>{-448, 0.001953125}));
}

// PyTorch promotion: int32 + float -> Float; bf16 + half -> Float; int * 2.5 -> Float;
// half * 2.5 stays Half.
TEST(ReferenceOps, TypePromotion) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* i32 = makeSymbolicTensor(1, DataType::Int32);
  TensorView* f32 = makeSymbolicTensor(1, DataType::Float);
  TensorView* bf = makeSymbolicTensor(1, DataType::BFloat16);
  TensorView* h = makeSymbolicTensor(1, DataType::Half);
  for (TensorView* tv : {i32, f32, bf, h}) fusion.addInput(tv);
  fusion.addOutput(add(i32, f32));
  fusion.addOutput(add(bf, h));
  fusion.addOutput(mul(i32, constFloat(2.5)));
  fusion.addOutput(mul(h, constFloat(2.5)));
  fusion.addOutput(eq(f32, constFloat(0.1)));  // compared in Float: 0.1 rounds to 0.1f first
  std::vector<Tensor> outs = ReferenceEvaluator(&fusion).run(
      {Tensor::fromVector<int32_t>({3, -1}, {2}), makeTensor({0.5, 0.1}, {2}, DataType::Float),
       makeTensor({1.0078125, 256.0}, {2}, DataType::BFloat16),
       makeTensor({0.0009765625, 1.0}, {2}, DataType::Half)});
  EXPECT_EQ(outs[0].dtype(), DataType::Float);
  EXPECT_EQ(values(outs[0]), (std::vector<double>{3.5, static_cast<double>(-1.0f + 0.1f)}));
  EXPECT_EQ(outs[1].dtype(), DataType::Float);
  EXPECT_EQ(values(outs[1]), (std::vector<double>{1.0087890625, 257.0}));  // exact in Float
  EXPECT_EQ(outs[2].dtype(), DataType::Float);
  EXPECT_EQ(values(outs[2]), (std::vector<double>{7.5, -2.5}));
  EXPECT_EQ(outs[3].dtype(), DataType::Half);
  EXPECT_EQ(values(outs[3]), (std::vector<double>{0.00244140625, 2.5}));
  EXPECT_EQ(values(outs[4]), (std::vector<double>{0, 1}));
}

// A row vector broadcast to [1, 3] adds to every row of a [2, 3] matrix; a column [2, 1]
// to every column.
TEST(ReferenceOps, BroadcastRowAndColumn) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* row = makeSymbolicTensor(1);
  TensorView* col = makeSymbolicTensor(1);
  TensorView* matrix = makeSymbolicTensor(2);
  fusion.addInput(row);
  fusion.addInput(col);
  fusion.addInput(matrix);
  TensorView* row2 = broadcast(row, {true, false});
  fusion.addOutput(add(row2, matrix));
  fusion.addOutput(mul(matrix, broadcast(col, {false, true})));
  fusion.addOutput(row2);
  std::vector<Tensor> outs = ReferenceEvaluator(&fusion).run(
      {Tensor::fromVector<float>({1, 2, 3}, {3}), Tensor::fromVector<float>({-1, 2}, {2}),
       Tensor::fromVector<float>({10, 20, 30, 40, 50, 60}, {2, 3})});
  EXPECT_EQ(outs[0].sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values(outs[0]), (std::vector<double>{11, 22, 33, 41, 52, 63}));
  EXPECT_EQ(values(outs[1]), (std::vector<double>{-10, -20, -30, 80, 100, 120}));
  EXPECT_EQ(outs[2].sizes(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(values(outs[2]), (std::vector<double>{1, 2, 3}));
}

// A concrete size-1 input axis is a Broadcast axis and stretches to the other operand.
TEST(ReferenceOps, BroadcastInputAxis) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeConcreteTensor({1, -1}, DataType::Int32);
  TensorView* tv1 = makeSymbolicTensor(2, DataType::Int32);
  fusion.addInput(tv0);
  fusion.addInput(tv1);
  fusion.addOutput(sub(tv1, tv0));
  Tensor out = runOne(fusion, {Tensor::fromVector<int32_t>({1, 2}, {1, 2}),
                               Tensor::fromVector<int32_t>({10, 20, 30, 40, 50, 60}, {3, 2})});
  EXPECT_EQ(values(out), (std::vector<double>{9, 18, 29, 38, 49, 58}));
}

// Scalar operands: a scalar fusion input (given as a 0-dim tensor), an expression of it,
// and an input extent.
TEST(ReferenceOps, ScalarInputsAndExpressions) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  Val* s = newScalar(DataType::Double);
  Val* n = newScalar(DataType::Index);
  fusion.addInput(tv0);
  fusion.addInput(s);
  fusion.addInput(n);
  fusion.addOutput(mul(tv0, s));
  fusion.addOutput(add(tv0, SimplifyingIrBuilder::mul(s, constFloat(2.0))));
  fusion.addOutput(add(tv0, tv0->getLogicalDomain()[1]->extent()));
  fusion.addOutput(sub(tv0, n));
  std::vector<Tensor> outs = ReferenceEvaluator(&fusion).run(
      {Tensor::fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3}),
       Tensor::full({}, DataType::Double, 2.5), Tensor::fromVector<int64_t>({10}, {})});
  EXPECT_EQ(values(outs[0]), (std::vector<double>{2.5, 5, 7.5, 10, 12.5, 15}));
  EXPECT_EQ(values(outs[1]), (std::vector<double>{6, 7, 8, 9, 10, 11}));
  EXPECT_EQ(values(outs[2]), (std::vector<double>{4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(values(outs[3]), (std::vector<double>{-9, -8, -7, -6, -5, -4}));
}

// set copies bit for bit: a negative fp8 NaN (0xff) is not canonicalized. An input that is
// also an output comes back as is.
TEST(ReferenceOps, SetCopiesBits) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1, DataType::Float8_e4m3fn);
  fusion.addInput(tv0);
  fusion.addOutput(set(tv0));
  fusion.addOutput(tv0);
  Tensor in = Tensor::fromVector<Float8e4m3>({Float8e4m3{0xff}, Float8e4m3{0x01}}, {2});
  std::vector<Tensor> outs = ReferenceEvaluator(&fusion).run({in});
  EXPECT_EQ(bits<Float8e4m3>(outs[0]), (std::vector<uint32_t>{0xff, 0x01}));
  EXPECT_NE(outs[0].rawData(), in.rawData());
  EXPECT_EQ(outs[1].rawData(), in.rawData());
}

// Inputs are read through their strides: a [2, 3] view of a column-major buffer.
TEST(ReferenceOps, StridedInput) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  fusion.addOutput(mul(tv0, constFloat(10.0)));
  Tensor in = Tensor::emptyStrided({2, 3}, {1, 2}, 6, DataType::Float);
  for (int i = 0; i < 6; ++i) in.data<float>()[i] = static_cast<float>(i);  // column-major
  EXPECT_FALSE(in.isContiguous());
  Tensor out = runOne(fusion, {in});
  EXPECT_TRUE(out.isContiguous());
  EXPECT_EQ(values(out), (std::vector<double>{0, 20, 40, 10, 30, 50}));
}

// A chain over a million elements runs in linear time (no per-element allocation); this
// checks the result, not the time (benchmarks report times).
TEST(ReferenceOps, MillionElements) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigTensor(2);
  TensorView* tv1 = makeContigTensor(2);
  fusion.addInput(tv0);
  fusion.addInput(tv1);
  fusion.addOutput(relu(sub(mul(tv0, constFloat(2.0)), tv1)));
  Tensor out = runOne(fusion, {Tensor::arange({1024, 1024}, DataType::Float),
                               Tensor::full({1024, 1024}, DataType::Float, 1000.0)});
  EXPECT_EQ(out.at({0, 0}), 0.0);
  EXPECT_EQ(out.at({0, 499}), 0.0);
  EXPECT_EQ(out.at({0, 501}), 2.0);
  EXPECT_EQ(out.at({1023, 1023}), 2.0 * 1048575.0 - 1000.0);
}

}  // namespace
