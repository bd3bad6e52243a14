// Fusion inputs: TensorViewBuilder and the make*Tensor helpers (symbolic, constant and
// broadcast extents, contiguity, dtype).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/fusion.h"
#include "ir/tensor_view.h"
#include "ops/tensor_factories.h"

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace mf {
namespace {

// makeSymbolicTensor: fresh Index extents, non-contiguous; makeContigTensor: contiguous.
TEST(TensorFactories, SymbolicAndContig) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2, DataType::Half);
  TensorView* tv1 = makeContigTensor(3);
  EXPECT_EQ(tv0->toString(), "T0_l_half[iS0{i0}, iS1{i1}]");
  EXPECT_EQ(tv0->getContiguity(), (Contiguity{false, false}));
  EXPECT_EQ(tv0->axis(0)->extent()->dtype(), DataType::Index);
  EXPECT_FALSE(tv0->axis(0)->extent()->isConst());
  EXPECT_EQ(tv1->toString(), "T1_l_float[iS2{i2}, iS3{i3}, iS4{i4}]");
  EXPECT_EQ(tv1->getContiguity(), (Contiguity{true, true, true}));
}

// makeConcreteTensor: -1 is symbolic, 1 is a Broadcast axis (no contiguity flag), other sizes
// are constant extents.
TEST(TensorFactories, ConcreteShapes) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeConcreteTensor({-1, 1, 8});
  EXPECT_EQ(tv0->toString(), "T0_l_float[iS0{i0}, bS1{1}, iS2{8}]");
  EXPECT_EQ(tv0->getContiguity(), (Contiguity{false, std::nullopt, false}));
  TensorView* tv1 = makeContigConcreteTensor({4, 1}, DataType::Int64);
  EXPECT_EQ(tv1->toString(), "T1_l_int64[iS3{4}, bS4{1}]");
  EXPECT_EQ(tv1->getContiguity(), (Contiguity{true, std::nullopt}));
}

// A rank-0 tensor has no axes.
TEST(TensorFactories, RankZero) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeSymbolicTensor(0);
  EXPECT_EQ(tv->toString(), "T0_l_float[]");
  EXPECT_EQ(tv->nDims(), 0);
}

// TensorViewBuilder takes explicit per-axis contiguity.
TEST(TensorFactories, BuilderExplicitContiguity) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = TensorViewBuilder()
                       .ndims(2)
                       .dtype(DataType::BFloat16)
                       .contiguity(Contiguity{false, true})
                       .build();
  EXPECT_EQ(tv->getContiguity(), (Contiguity{false, true}));
  EXPECT_EQ(tv->dtype(), DataType::BFloat16);
  EXPECT_THAT(
      [] { TensorViewBuilder().ndims(2).contiguity(Contiguity{true}).build(); },
      ThrowsMessage<UserError>(HasSubstr("expected one flag per allocation axis (2), got 1")));
}

// The builder rejects a negative rank, a shape that contradicts ndims, and sizes below -1.
TEST(TensorFactories, BuilderErrors) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  EXPECT_THAT(
      [] { TensorViewBuilder().ndims(-1); },
      ThrowsMessage<UserError>(HasSubstr("TensorViewBuilder: rank must be non-negative, got -1")));
  EXPECT_THAT(
      [] {
        TensorViewBuilder().ndims(2).shape({4, 5, 6}).build();
      },
      ThrowsMessage<UserError>(HasSubstr("TensorViewBuilder: shape has 3 entries but ndims is 2")));
  EXPECT_THAT(
      [] {
        makeConcreteTensor({4, -2});
      },
      ThrowsMessage<UserError>(
          HasSubstr("TensorViewBuilder: size -2 of axis 1 is invalid (use -1 for symbolic)")));
}

}  // namespace
}  // namespace mf
