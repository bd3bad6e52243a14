// sum, prod, max and min: the ReductionOp and its printout, axes (negative, empty, repeated),
// keep_dim as a broadcast, and the dtype rules (PyTorch's, narrow floats accumulating in Float).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/builder.h"
#include "ir/fusion.h"
#include "ops/arith.h"
#include "ops/reduction.h"
#include "ops/tensor_factories.h"

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace mf {
namespace {

using ReduceFn = TensorView* (*)(TensorView*, const std::vector<int64_t>&, bool,
                                 std::optional<DataType>);

// The ReductionOp behind a result, looking through the cast/broadcast the op function adds.
ReductionOp* reductionOf(TensorView* tv) {
  Expr* e = tv->definition();
  while (e != nullptr && !e->isA<ReductionOp>()) e = e->input(0)->definition();
  return e == nullptr ? nullptr : e->as<ReductionOp>();
}

TEST(ReductionOps, SumPrintsReductionAxesAndInit) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(3);
  fusion.addInput(tv0);
  fusion.addOutput(sum(tv0, {-1, 0}));
  EXPECT_EQ(fusion.mathString(), R"(Inputs:
  T0_g_float[iS0{i0}, iS1{i1}, iS2{i2}]
Outputs:
  T1_g_float[rS3{i0}, iS4{i1}, rS5{i2}]

%kernel_math {
T1_g_float[rS3{i0}, iS4{i1}, rS5{i2}] = reduction(T0, op = add, initial = 0.0)
} // %kernel_math
)");
}

// Each op: its BinaryOpType, printed name and identity.
TEST(ReductionOps, EachOpHasItsIdentity) {
  struct Case {
    ReduceFn fn;
    BinaryOpType op;
    std::string printed;
  };
  for (const Case& c : {Case{sum, BinaryOpType::Add, "op = add, initial = 0.0"},
                        Case{prod, BinaryOpType::Mul, "op = mul, initial = 1.0"},
                        Case{max, BinaryOpType::Maximum, "op = max, initial = -INFINITY"},
                        Case{min, BinaryOpType::Minimum, "op = min, initial = INFINITY"}}) {
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* tv0 = makeSymbolicTensor(2);
    fusion.addInput(tv0);
    TensorView* out = c.fn(tv0, {1}, false, std::nullopt);
    ReductionOp* red = reductionOf(out);
    ASSERT_NE(red, nullptr);
    EXPECT_EQ(red->opType(), c.op);
    EXPECT_THAT(red->toString(), HasSubstr(c.printed));
  }
}

TEST(ReductionOps, IntegerIdentitiesAreTheDtypeExtremes) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* i32 = makeSymbolicTensor(1, DataType::Int32);
  TensorView* b = makeSymbolicTensor(1, DataType::Bool);
  EXPECT_EQ(*reductionOf(max(i32, {0}))->init()->constValue(),
            ScalarValue(int64_t{std::numeric_limits<int32_t>::min()}));
  EXPECT_EQ(*reductionOf(min(i32, {0}))->init()->constValue(),
            ScalarValue(int64_t{std::numeric_limits<int32_t>::max()}));
  EXPECT_EQ(*reductionOf(max(b, {0}))->init()->constValue(), ScalarValue(false));
  EXPECT_EQ(*reductionOf(min(b, {0}))->init()->constValue(), ScalarValue(true));
}

// Half input: cast to Float, reduce in Float, cast back; keep_dim adds a broadcast.
TEST(ReductionOps, HalfAccumulatesInFloatAndKeepDimBroadcasts) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2, DataType::Half);
  fusion.addInput(tv0);
  fusion.addOutput(sum(tv0, {1}, /*keep_dim=*/true));
  EXPECT_EQ(fusion.mathString(), R"(Inputs:
  T0_g_half[iS0{i0}, iS1{i1}]
Outputs:
  T4_g_half[iS7{i0}, bS8{1}]

%kernel_math {
T1_l_float[iS2{i0}, iS3{i1}] = cast<float>(T0)
T2_l_float[iS4{i0}, rS5{i1}] = reduction(T1, op = add, initial = 0.0)
T3_l_half[iS6{i0}] = cast<half>(T2)
T4_g_half[iS7{i0}, bS8{1}] = broadcast(T3, {false, true})
} // %kernel_math
)");
}

struct DtypeCase {
  std::string name;
  ReduceFn fn;
  DataType in;
  std::optional<DataType> requested;
  DataType out;  // PyTorch's result dtype
  DataType acc;  // the ReductionOp's dtype
};

class ReductionDtype : public ::testing::TestWithParam<DtypeCase> {};

TEST_P(ReductionDtype, ResultAndAccumulator) {
  const DtypeCase& c = GetParam();
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2, c.in);
  fusion.addInput(tv0);
  TensorView* out = c.fn(tv0, {0}, false, c.requested);
  EXPECT_EQ(out->dtype(), c.out);
  EXPECT_EQ(reductionOf(out)->out()->dtype(), c.acc);
  EXPECT_EQ(reductionOf(out)->in()->dtype(), c.acc);
}

INSTANTIATE_TEST_SUITE_P(
    , ReductionDtype,
    ::testing::Values(
        DtypeCase{"sum_float", sum, DataType::Float, {}, DataType::Float, DataType::Float},
        DtypeCase{"sum_double", sum, DataType::Double, {}, DataType::Double, DataType::Double},
        DtypeCase{"sum_half", sum, DataType::Half, {}, DataType::Half, DataType::Float},
        DtypeCase{"sum_bf16", sum, DataType::BFloat16, {}, DataType::BFloat16, DataType::Float},
        DtypeCase{"sum_int32", sum, DataType::Int32, {}, DataType::Int64, DataType::Int64},
        DtypeCase{"sum_bool", sum, DataType::Bool, {}, DataType::Int64, DataType::Int64},
        DtypeCase{"prod_int32", prod, DataType::Int32, {}, DataType::Int64, DataType::Int64},
        DtypeCase{"prod_bool", prod, DataType::Bool, {}, DataType::Int64, DataType::Int64},
        DtypeCase{"max_int32", max, DataType::Int32, {}, DataType::Int32, DataType::Int32},
        DtypeCase{"min_bool", min, DataType::Bool, {}, DataType::Bool, DataType::Bool},
        DtypeCase{"max_bf16", max, DataType::BFloat16, {}, DataType::BFloat16, DataType::Float},
        DtypeCase{"sum_int32_as_int32", sum, DataType::Int32, DataType::Int32, DataType::Int32,
                  DataType::Int32},
        DtypeCase{"sum_half_as_float", sum, DataType::Half, DataType::Float, DataType::Float,
                  DataType::Float},
        DtypeCase{"sum_float_as_half", sum, DataType::Float, DataType::Half, DataType::Half,
                  DataType::Float},
        DtypeCase{"sum_int32_as_double", sum, DataType::Int32, DataType::Double, DataType::Double,
                  DataType::Double}),
    [](const auto& info) { return info.param.name; });

// A requested narrow dtype converts the input to it first (torch.sum(x, dtype=...)), then the
// sum accumulates in Float.
TEST(ReductionOps, RequestedDtypeConvertsTheInputFirst) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1);
  fusion.addInput(tv0);
  fusion.addOutput(sum(tv0, {0}, false, DataType::BFloat16));
  EXPECT_THAT(fusion.mathString(), HasSubstr(R"(T1_l_bfloat16[iS1{i0}] = cast<bfloat16>(T0)
T2_l_float[iS2{i0}] = cast<float>(T1)
T3_l_float[rS3{i0}] = reduction(T2, op = add, initial = 0.0)
T4_g_bfloat16[] = cast<bfloat16>(T3))"));
}

// torch.sum(x, dim=[]) reduces every axis.
TEST(ReductionOps, EmptyAxesReduceEverything) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  TensorView* out = sum(tv0, {});
  ASSERT_EQ(out->getLogicalDomain().size(), 2u);
  EXPECT_TRUE(out->getLogicalDomain()[0]->isReduction());
  EXPECT_TRUE(out->getLogicalDomain()[1]->isReduction());
}

// A reduced axis keeps the input's extent; a constant 0 extent stays (the loop runs zero
// times and the accumulator keeps the identity).
TEST(ReductionOps, ReductionAxisKeepsTheExtent) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeConcreteTensor({0, 5});
  TensorView* out = prod(tv0, {0});
  EXPECT_EQ(out->getLogicalDomain()[0]->extent()->constInt(), 0);
  EXPECT_TRUE(out->getLogicalDomain()[0]->isReduction());
  EXPECT_EQ(out->getLogicalDomain()[1]->extent()->constInt(), 5);
}

TEST(ReductionOps, ZeroDimInputIsACopy) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(0, DataType::Int32);
  TensorView* out = sum(tv0, {});
  EXPECT_EQ(out->dtype(), DataType::Int64);
  EXPECT_TRUE(out->definition()->isA<UnaryOp>());
  TensorView* same = max(tv0, {});
  EXPECT_TRUE(same->definition()->isA<LoadStoreOp>());
}

// A reduction's output feeds pointwise ops like any tensor: its reduction axes are skipped.
TEST(ReductionOps, ResultIsUsableByPointwiseOps) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  TensorView* tv1 = makeSymbolicTensor(1);
  TensorView* out = add(sum(tv0, {1}), tv1);
  EXPECT_EQ(out->getLogicalDomain().size(), 1u);
}

TEST(ReductionOps, Errors) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  EXPECT_THAT([&] { sum(tv0, {2}); },
              ThrowsMessage<UserError>(HasSubstr(
                  "sum: axis 2 is out of range for T0_g_float[iS0{i0}, iS1{i1}] of rank 2")));
  EXPECT_THAT([&] { max(tv0, {-3}); },
              ThrowsMessage<UserError>(HasSubstr("max: axis -3 is out of range")));
  EXPECT_THAT(
      [&] {
        min(tv0, {1, -1});
      },
      ThrowsMessage<UserError>(HasSubstr(
          "min: axis -1 of T0_g_float[iS0{i0}, iS1{i1}] appears twice in the axes {1, -1}")));
  EXPECT_THAT(
      [&] { prod(tv0, {0}, false, DataType::Index); },
      ThrowsMessage<UserError>(HasSubstr("prod: dtype index of the result is not a tensor dtype")));
  EXPECT_THAT([&] { sum(nullptr, {0}); },
              ThrowsMessage<UserError>(HasSubstr("sum: the input tensor is null")));
}

}  // namespace
}  // namespace mf
