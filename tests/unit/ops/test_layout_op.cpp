// preprocessGroupedMatmulInputSf at definition time (docs/layout_op.md): operand
// checks, and an output with logical domain [M, K] and the declared allocation domain
// [M + 127*G, ceilDiv(K, 4)*4].
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/builder.h"
#include "ir/fusion.h"
#include "ir/tensor_view.h"
#include "ir/verifier.h"
#include "ops/layout.h"
#include "ops/tensor_factories.h"

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace mf {
namespace {

// The output's logical domain is [M, K] of fresh axes with the input's extents, equal to the
// loop domain; the allocation domain is declared with extents M + G*127 and ceilDiv(K, 4)*4,
// contiguous; the expr records in, both offsets, K, G and the layout.
TEST(LayoutOp, OutputDomains) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* in = makeSymbolicTensor(2);
  TensorView* in_off = makeSymbolicTensor(1, DataType::Int32);
  TensorView* out_off = makeSymbolicTensor(1, DataType::Int32);
  TensorView* out = preprocessGroupedMatmulInputSf(in, in_off, out_off);

  EXPECT_EQ(out->dtype(), DataType::Float);
  EXPECT_EQ(out->toString(), "T3_l_float[iS4{i0}, iS5{i1}]");
  const TensorDomain* td = out->domain();
  EXPECT_FALSE(td->hasRoot());
  ASSERT_EQ(td->logical().size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_NE(td->logical()[i], in->getLogicalDomain()[i]);
    EXPECT_EQ(td->logical()[i]->extent(), in->getLogicalDomain()[i]->extent());
    EXPECT_EQ(td->logical()[i]->definition(), nullptr);
  }
  EXPECT_EQ(td->loop(), td->logical());
  EXPECT_TRUE(td->allocationDeclared());
  ASSERT_EQ(td->allocation().size(), 2u);
  EXPECT_EQ(td->allocation()[0]->toString(), "iS6{( i0 + ( i2 * 127 ) )}");
  EXPECT_EQ(td->allocation()[1]->toString(), "iS7{( ceilDiv(i1, 4) * 4 )}");
  EXPECT_EQ(td->allocation()[0]->definition(), nullptr);
  EXPECT_EQ(td->allocation()[1]->definition(), nullptr);
  EXPECT_EQ(td->contiguity(), (Contiguity{true, true}));

  auto* op = out->definition()->as<PreprocessGroupedMatmulInputSf>();
  EXPECT_EQ(op->in(), in);
  EXPECT_EQ(op->inputOffsets(), in_off);
  EXPECT_EQ(op->outputOffsets(), out_off);
  EXPECT_EQ(op->k(), in->axis(1)->extent());
  EXPECT_EQ(op->g(), in_off->axis(0)->extent());
  EXPECT_EQ(op->layout(), BlockScalingFactorLayout::Block128x4);
  EXPECT_EQ(op->out(), out);
}

// The output dtype is the input dtype: Float8_e4m3fn scale factors stay Float8_e4m3fn.
TEST(LayoutOp, OutputDtypeIsInputDtype) {
  for (DataType t : {DataType::Float, DataType::Float8_e4m3fn, DataType::BFloat16}) {
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* out = preprocessGroupedMatmulInputSf(makeSymbolicTensor(2, t),
                                                     makeSymbolicTensor(1, DataType::Int32),
                                                     makeSymbolicTensor(1, DataType::Int32));
    EXPECT_EQ(out->dtype(), t);
  }
}

// Int64 offsets are accepted like Int32 ones.
TEST(LayoutOp, Int64OffsetsAccepted) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* in = makeSymbolicTensor(2, DataType::Float8_e4m3fn);
  TensorView* in_off = makeSymbolicTensor(1, DataType::Int64);
  TensorView* out_off = makeSymbolicTensor(1, DataType::Int64);
  fusion.addInput(in);
  fusion.addInput(in_off);
  fusion.addInput(out_off);
  TensorView* out = preprocessGroupedMatmulInputSf(in, in_off, out_off);
  fusion.addOutput(out);
  EXPECT_EQ(out->definition()->as<PreprocessGroupedMatmulInputSf>()->g()->dtype(), DataType::Index);
  EXPECT_NO_THROW(verifyFusion(fusion));
}

// With constant sizes the padded extents fold: M=512, K=9, G=3 -> [893, 12].
TEST(LayoutOp, ConstantSizesFold) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* out = preprocessGroupedMatmulInputSf(makeConcreteTensor({512, 9}),
                                                   makeConcreteTensor({3}, DataType::Int32),
                                                   makeConcreteTensor({3}, DataType::Int32));
  EXPECT_EQ(out->domain()->allocation()[0]->toString(), "iS6{893}");
  EXPECT_EQ(out->domain()->allocation()[1]->toString(), "iS7{12}");
}

// A constant K with symbolic M and G folds only the columns.
TEST(LayoutOp, ConstantKFoldsColumnsOnly) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* in = makeConcreteTensor({-1, 448});
  TensorView* in_off = makeSymbolicTensor(1, DataType::Int32);
  TensorView* out_off = makeSymbolicTensor(1, DataType::Int32);
  TensorView* out = preprocessGroupedMatmulInputSf(in, in_off, out_off);
  EXPECT_EQ(out->domain()->allocation()[0]->toString(), "iS6{( i0 + ( i2 * 127 ) )}");
  EXPECT_EQ(out->domain()->allocation()[1]->toString(), "iS7{448}");
}

// The input must be 2-D.
TEST(LayoutOp, InputNot2dRejected) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* in_off = makeSymbolicTensor(1, DataType::Int32);
  TensorView* out_off = makeSymbolicTensor(1, DataType::Int32);
  TensorView* in3 = makeSymbolicTensor(3);
  EXPECT_THAT([&] { preprocessGroupedMatmulInputSf(in3, in_off, out_off); },
              ThrowsMessage<UserError>(HasSubstr(
                  "preprocessGroupedMatmulInputSf: input T2_l_float[iS2{i2}, iS3{i3}, iS4{i4}] "
                  "must be 2-D [M, K], got rank 3")));
  TensorView* in1 = makeSymbolicTensor(1);
  EXPECT_THAT([&] { preprocessGroupedMatmulInputSf(in1, in_off, out_off); },
              ThrowsMessage<UserError>(HasSubstr("must be 2-D [M, K], got rank 1")));
}

// Both offsets must be 1-D.
TEST(LayoutOp, OffsetsNot1dRejected) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* in = makeSymbolicTensor(2);
  TensorView* off1 = makeSymbolicTensor(1, DataType::Int32);
  TensorView* off2 = makeSymbolicTensor(2, DataType::Int32);
  EXPECT_THAT([&] { preprocessGroupedMatmulInputSf(in, off2, off1); },
              ThrowsMessage<UserError>(HasSubstr(
                  "preprocessGroupedMatmulInputSf: input_offsets T2_l_int32[iS3{i3}, iS4{i4}] "
                  "must be 1-D [G], got rank 2")));
  EXPECT_THAT([&] { preprocessGroupedMatmulInputSf(in, off1, off2); },
              ThrowsMessage<UserError>(HasSubstr(
                  "preprocessGroupedMatmulInputSf: output_offsets T2_l_int32[iS3{i3}, iS4{i4}] "
                  "must be 1-D [G], got rank 2")));
}

// Offsets must be integers (Int32 or Int64).
TEST(LayoutOp, OffsetsNotIntegerRejected) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* in = makeSymbolicTensor(2);
  TensorView* ints = makeSymbolicTensor(1, DataType::Int32);
  TensorView* floats = makeSymbolicTensor(1);
  EXPECT_THAT([&] { preprocessGroupedMatmulInputSf(in, floats, ints); },
              ThrowsMessage<UserError>(
                  HasSubstr("preprocessGroupedMatmulInputSf: input_offsets T2 must be Int32 or "
                            "Int64, got float")));
  EXPECT_THAT([&] { preprocessGroupedMatmulInputSf(in, ints, floats); },
              ThrowsMessage<UserError>(
                  HasSubstr("preprocessGroupedMatmulInputSf: output_offsets T2 must be Int32 or "
                            "Int64, got float")));
}

// Both offsets must have the same dtype (the runtime reads them with one index type).
TEST(LayoutOp, OffsetsOfDifferentDtypesRejected) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* in = makeSymbolicTensor(2);
  TensorView* i32 = makeSymbolicTensor(1, DataType::Int32);
  TensorView* i64 = makeSymbolicTensor(1, DataType::Int64);
  EXPECT_THAT([&] { preprocessGroupedMatmulInputSf(in, i32, i64); },
              ThrowsMessage<UserError>(HasSubstr(
                  "preprocessGroupedMatmulInputSf: input_offsets T1 and output_offsets T2 must "
                  "have the same dtype, got int32 and int64")));
}

// Offsets of different constant lengths are rejected (both hold G start rows).
TEST(LayoutOp, OffsetsOfDifferentLengthsRejected) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* in = makeSymbolicTensor(2);
  TensorView* three = makeConcreteTensor({3}, DataType::Int32);
  TensorView* four = makeConcreteTensor({4}, DataType::Int32);
  EXPECT_THAT([&] { preprocessGroupedMatmulInputSf(in, three, four); },
              ThrowsMessage<UserError>(
                  HasSubstr("preprocessGroupedMatmulInputSf: input_offsets T1 has 3 groups but "
                            "output_offsets T2 has 4")));
  EXPECT_NO_THROW(
      preprocessGroupedMatmulInputSf(in, three, makeSymbolicTensor(1, DataType::Int32)));
}

// Only Block128x4 exists; any other layout value is rejected.
TEST(LayoutOp, UnknownLayoutRejected) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* in = makeSymbolicTensor(2);
  TensorView* in_off = makeSymbolicTensor(1, DataType::Int32);
  TensorView* out_off = makeSymbolicTensor(1, DataType::Int32);
  EXPECT_THAT(
      [&] {
        preprocessGroupedMatmulInputSf(in, in_off, out_off,
                                       static_cast<BlockScalingFactorLayout>(7));
      },
      ThrowsMessage<UserError>(HasSubstr("preprocessGroupedMatmulInputSf: unknown layout 7 for "
                                         "output of T0; the only layout is Block128x4")));
}

// A null operand is rejected, by name.
TEST(LayoutOp, NullOperandRejected) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* in = makeSymbolicTensor(2);
  TensorView* off = makeSymbolicTensor(1, DataType::Int32);
  EXPECT_THAT(
      [&] { preprocessGroupedMatmulInputSf(in, nullptr, off); },
      ThrowsMessage<UserError>(HasSubstr("preprocessGroupedMatmulInputSf: input_offsets is null")));
}

}  // namespace
}  // namespace mf
