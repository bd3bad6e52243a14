// Type promotion as PyTorch (ops/arith.h): bool < integer < floating, the wider type wins in a
// category, Half with BFloat16 gives Float, float8 yields to any other floating type, and a
// scalar operand only changes the category.
#include <gtest/gtest.h>

#include "ir/builder.h"
#include "ir/fusion.h"
#include "ir/tensor_view.h"
#include "ops/arith.h"
#include "ops/tensor_factories.h"

namespace mf {
namespace {

using DT = DataType;

// Result type of a tensor op on tensors of dtypes a and b.
DataType tensorTensor(DT a, DT b) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  return add(makeSymbolicTensor(1, a), makeSymbolicTensor(1, b))->dtype();
}

// Result type of a tensor of dtype t with a scalar of dtype s.
DataType tensorScalar(DT t, DT s) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  return mul(makeSymbolicTensor(1, t), newScalar(s))->dtype();
}

// promoteTypes on two tensor dtypes, symmetric.
TEST(TypePromotion, TensorTensorTable) {
  struct Case {
    DT a, b, result;
  };
  for (Case c : std::vector<Case>{
           {DT::Bool, DT::Bool, DT::Bool},
           {DT::Bool, DT::Int32, DT::Int32},
           {DT::Int32, DT::Int64, DT::Int64},
           {DT::Int32, DT::Index, DT::Index},
           {DT::Int64, DT::Half, DT::Half},
           {DT::Int32, DT::Float, DT::Float},
           {DT::Half, DT::Half, DT::Half},
           {DT::Half, DT::BFloat16, DT::Float},
           {DT::BFloat16, DT::Float, DT::Float},
           {DT::Half, DT::Double, DT::Double},
           {DT::Float, DT::Double, DT::Double},
           {DT::Float8_e4m3fn, DT::Float8_e4m3fn, DT::Float8_e4m3fn},
           {DT::Float8_e4m3fn, DT::Half, DT::Half},
           {DT::Float8_e4m3fn, DT::BFloat16, DT::BFloat16},
           {DT::Float8_e4m3fn, DT::Float, DT::Float},
           {DT::Float8_e4m3fn, DT::Int32, DT::Float8_e4m3fn},
       }) {
    EXPECT_EQ(promoteTypes(c.a, c.b), c.result) << toString(c.a) << " with " << toString(c.b);
    EXPECT_EQ(promoteTypes(c.b, c.a), c.result) << toString(c.b) << " with " << toString(c.a);
  }
}

// promoteWithScalar: a scalar of a higher category moves the result to that category's
// default (Float, Int64); otherwise the tensor's dtype stays.
TEST(TypePromotion, TensorScalarTable) {
  EXPECT_EQ(promoteWithScalar(DT::Int32, DT::Double), DT::Float);
  EXPECT_EQ(promoteWithScalar(DT::Int64, DT::Float), DT::Float);
  EXPECT_EQ(promoteWithScalar(DT::Bool, DT::Double), DT::Float);
  EXPECT_EQ(promoteWithScalar(DT::Bool, DT::Int64), DT::Int64);
  EXPECT_EQ(promoteWithScalar(DT::Half, DT::Double), DT::Half);
  EXPECT_EQ(promoteWithScalar(DT::BFloat16, DT::Double), DT::BFloat16);
  EXPECT_EQ(promoteWithScalar(DT::Float8_e4m3fn, DT::Double), DT::Float8_e4m3fn);
  EXPECT_EQ(promoteWithScalar(DT::Int32, DT::Int64), DT::Int32);
  EXPECT_EQ(promoteWithScalar(DT::Int32, DT::Index), DT::Int32);
  EXPECT_EQ(promoteWithScalar(DT::Float, DT::Bool), DT::Float);
}

// The examples of ops/arith.h, through the ops: int32 + float -> Float, bf16 + half -> Float,
// fp8 + float -> Float, int32 + int64 -> Int64.
TEST(TypePromotion, TensorOps) {
  EXPECT_EQ(tensorTensor(DT::Int32, DT::Float), DT::Float);
  EXPECT_EQ(tensorTensor(DT::BFloat16, DT::Half), DT::Float);
  EXPECT_EQ(tensorTensor(DT::Float8_e4m3fn, DT::Float), DT::Float);
  EXPECT_EQ(tensorTensor(DT::Int32, DT::Int64), DT::Int64);
  EXPECT_EQ(tensorTensor(DT::Bool, DT::Half), DT::Half);
}

// A scalar changes only the category: int tensor * 2.5 -> Float, half tensor * 2.5 -> Half,
// int32 tensor * an integer scalar stays Int32, bool tensor * 1 -> Int64.
TEST(TypePromotion, TensorScalarOps) {
  EXPECT_EQ(tensorScalar(DT::Int32, DT::Double), DT::Float);
  EXPECT_EQ(tensorScalar(DT::Half, DT::Double), DT::Half);
  EXPECT_EQ(tensorScalar(DT::Int32, DT::Int64), DT::Int32);
  EXPECT_EQ(tensorScalar(DT::Bool, DT::Int64), DT::Int64);
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* i = makeSymbolicTensor(1, DT::Int32);
  TensorView* h = makeSymbolicTensor(1, DT::Half);
  EXPECT_EQ(mul(i, constFloat(2.5))->dtype(), DT::Float);
  EXPECT_EQ(mul(constFloat(2.5), h)->dtype(), DT::Half);
  EXPECT_EQ(mul(i, constInt(2))->dtype(), DT::Int32);
}

// Comparisons give Bool whatever the operands; float-only math on integers gives Float;
// integer division stays integer (truncating, as nvFuser).
TEST(TypePromotion, ComparisonsFloatOnlyMathAndDivision) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* i = makeSymbolicTensor(1, DT::Int32);
  TensorView* h = makeSymbolicTensor(1, DT::Half);
  EXPECT_EQ(lt(i, h)->dtype(), DT::Bool);
  EXPECT_EQ(eq(h, constFloat(1.0))->dtype(), DT::Bool);
  EXPECT_EQ(ge(i, i)->dtype(), DT::Bool);
  EXPECT_EQ(exp(i)->dtype(), DT::Float);
  EXPECT_EQ(sqrt(makeSymbolicTensor(1, DT::Int64))->dtype(), DT::Float);
  EXPECT_EQ(exp(h)->dtype(), DT::Half);
  EXPECT_EQ(div(i, i)->dtype(), DT::Int32);
}

// Two scalars promote like two tensors.
TEST(TypePromotion, ScalarScalar) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  EXPECT_EQ(add(newScalar(DT::Int64), newScalar(DT::Double))->dtype(), DT::Double);
  EXPECT_EQ(add(newScalar(DT::Int32), newScalar(DT::Int64))->dtype(), DT::Int64);
  EXPECT_EQ(lt(newScalar(DT::Int32), newScalar(DT::Double))->dtype(), DT::Bool);
}

// computeType: narrow floats (half, bf16, fp8) compute in Float; comparisons compute in the
// promoted operand type (with the scalar rule), not in Bool.
TEST(TypePromotion, ComputeType) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* h = makeSymbolicTensor(1, DT::Half);
  TensorView* b = makeSymbolicTensor(1, DT::BFloat16);
  TensorView* i = makeSymbolicTensor(1, DT::Int32);
  TensorView* l = makeSymbolicTensor(1, DT::Int64);
  TensorView* d = makeSymbolicTensor(1, DT::Double);
  auto compute = [](TensorView* out) { return computeType(out->definition()->as<BinaryOp>()); };
  EXPECT_EQ(compute(add(h, h)), DT::Float);
  EXPECT_EQ(compute(add(b, h)), DT::Float);
  EXPECT_EQ(compute(mul(d, h)), DT::Double);
  EXPECT_EQ(compute(add(i, i)), DT::Int32);
  EXPECT_EQ(compute(lt(i, l)), DT::Int64);
  EXPECT_EQ(compute(lt(h, h)), DT::Float);
  EXPECT_EQ(compute(lt(i, constFloat(2.5))), DT::Float);
  EXPECT_EQ(compute(lt(constFloat(2.5), d)), DT::Double);
}

// Names and sizes of the dtypes, and their categories.
TEST(TypePromotion, DtypeNamesSizesCategories) {
  EXPECT_EQ(toString(DT::Float8_e4m3fn), "float8_e4m3fn");
  EXPECT_EQ(toString(DT::BFloat16), "bfloat16");
  EXPECT_EQ(toString(DT::Index), "index");
  EXPECT_EQ(dataTypeSize(DT::Float8_e4m3fn), 1);
  EXPECT_EQ(dataTypeSize(DT::Half), 2);
  EXPECT_EQ(dataTypeSize(DT::Int64), 8);
  EXPECT_TRUE(isIntegralType(DT::Index));
  EXPECT_FALSE(isIntegralType(DT::Bool));
  EXPECT_TRUE(isFloatingType(DT::Float8_e4m3fn));
  EXPECT_TRUE(isNarrowFloat(DT::BFloat16));
  EXPECT_FALSE(isNarrowFloat(DT::Float));
  EXPECT_FALSE(isTensorDataType(DT::Index));
  EXPECT_TRUE(isTensorDataType(DT::Bool));
}

}  // namespace
}  // namespace mf
