// copySubgraph: a part of a fusion as a standalone fusion. The copy prints as that part of
// the original (same names), computes the same values, and leaves the original unchanged.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/builder.h"
#include "ir/subgraph.h"
#include "ir/tensor_view.h"
#include "ir/verifier.h"
#include "ops/arith.h"
#include "ops/layout.h"
#include "ops/tensor_factories.h"
#include "reference/reference_evaluator.h"
#include "unit/reference/reference_helpers.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// Bitwise equality of every logical element.
void expectSameValues(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.sizes(), want.sizes());
  for (int64_t i = 0; i < got.numel(); ++i) ASSERT_EQ(got.item(i), want.item(i)) << "element " << i;
}

// The printout and node count of a fusion, to check that copying left it alone.
struct Snapshot {
  std::string math, transforms;
  size_t nodes;
  explicit Snapshot(const Fusion& f)
      : math(f.mathString()), transforms(f.transformsString()), nodes(f.statements().size()) {}
  bool operator==(const Snapshot&) const = default;
};

// T1 = neg(T0); T2 = exp(T1); T3 = T2 * 2.0 (split by 4); T4 = relu(T3).
struct Chain {
  Fusion fusion;
  Expr *neg_e, *exp_e, *mul_e, *relu_e;
  Chain() {
    FusionGuard fg(&fusion);
    TensorView* tv0 = makeContigTensor(1);
    fusion.addInput(tv0);
    TensorView* tv1 = neg(tv0);
    TensorView* tv2 = exp(tv1);
    TensorView* tv3 = mul(tv2, constFloat(2.0));
    TensorView* tv4 = relu(tv3);
    fusion.addOutput(tv4);
    tv3->split(0, 4);
    neg_e = tv1->definition();
    exp_e = tv2->definition();
    mul_e = tv3->definition();
    relu_e = tv4->definition();
  }
};

// The middle of a chain: T1 (computed outside) is the input, T3 (used by relu) the output;
// T3's split comes along, the input has no history.
TEST(Subgraph, MiddleOfAChain) {
  Chain c;
  Snapshot before(c.fusion);
  SubgraphCopy mid = copySubgraph(c.fusion, {c.mul_e, c.exp_e});
  EXPECT_EQ(mid.fusion->mathString(), R"(Inputs:
  T1_g_float[iS1{i0}]
Outputs:
  T3_g_float[iS5{ceilDiv(i0, 4)}, iS6{4}]

%kernel_math {
T2_l_float[iS2{i0}] = exp(T1)
T3_g_float[iS5{ceilDiv(i0, 4)}, iS6{4}] = T2 * 2.0
} // %kernel_math
)");
  EXPECT_THAT(mid.fusion->transformsString(),
              HasSubstr("Split: iS3{i0} by factor 4 -> iS5{ceilDiv(i0, 4)}, iS6{4}"));
  verifyFusion(*mid.fusion);
  EXPECT_EQ(Snapshot(c.fusion), before);
  // The map covers the boundary and the copied values, and nothing of the copy is shared.
  Val* t1 = c.exp_e->input(0);
  EXPECT_EQ(mid.old_to_new.at(t1), mid.fusion->inputs().at(0));
  EXPECT_EQ(mid.old_to_new.at(c.mul_e->output(0)), mid.fusion->outputs().at(0));
  EXPECT_EQ(mid.old_to_new.count(c.neg_e->input(0)), 0u);
  for (const auto& [from, to] : mid.old_to_new) EXPECT_EQ(to->fusion(), mid.fusion.get());

  // The three pieces, run one after another, give the original's result bit for bit.
  SubgraphCopy head = copySubgraph(c.fusion, {c.neg_e});
  SubgraphCopy tail = copySubgraph(c.fusion, {c.relu_e});
  Tensor x = Tensor::random({10}, DataType::Float, 3);
  Tensor t1_value = reftest::runOne(*head.fusion, {x});
  Tensor t3_value = reftest::runOne(*mid.fusion, {t1_value});
  expectSameValues(reftest::runOne(*tail.fusion, {t3_value}), reftest::runOne(c.fusion, {x}));
}

// A diamond: T1 feeds exp and abs, which meet in an add; copied whole from T1 to T4. T1's
// permuted allocation domain and contiguity come along with its new logical axes.
TEST(Subgraph, Diamond) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = neg(tv0);
  TensorView* tv2 = exp(tv1);
  TensorView* tv3 = abs(tv1);
  TensorView* tv4 = add(tv2, tv3);
  TensorView* tv5 = mul(tv4, tv4);
  fusion.addOutput(tv5);
  tv1->setAllocationDomain({tv1->getLogicalDomain()[1], tv1->getLogicalDomain()[0]}, false);
  Snapshot before(fusion);
  SubgraphCopy copy =
      copySubgraph(fusion, {tv4->definition(), tv3->definition(), tv2->definition()});
  EXPECT_EQ(copy.fusion->mathString(), R"(Inputs:
  T1_g_float[iS2{i0}, iS3{i1}]
Outputs:
  T4_g_float[iS8{i0}, iS9{i1}]

%kernel_math {
T2_l_float[iS4{i0}, iS5{i1}] = exp(T1)
T3_l_float[iS6{i0}, iS7{i1}] = abs(T1)
T4_g_float[iS8{i0}, iS9{i1}] = T2 + T3
} // %kernel_math
)");
  EXPECT_THAT(copy.fusion->transformsString(), HasSubstr("T1_g_float[iS2{i0}, iS3{i1}]\n"
                                                         " logical domain : (iS2{i0}, iS3{i1})\n"
                                                         " allocation domain : (iS3{i1}, iS2{i0})\n"
                                                         " contiguity: f f\n"));
  verifyFusion(*copy.fusion);
  EXPECT_EQ(Snapshot(fusion), before);

  Tensor x = Tensor::random({3, 5}, DataType::Float, 4);
  std::vector<double> got = reftest::values(reftest::runOne(*copy.fusion, {x}));
  for (int64_t i = 0; i < x.numel(); ++i) {
    float v = static_cast<float>(x.item(i));
    EXPECT_FLOAT_EQ(got[i], std::exp(v) + std::fabs(v)) << "element " << i;
  }
}

// A segment whose inputs are fusion inputs (a tensor and a scalar) and whose output is used
// later: the scalar input and the split factor input come along as inputs of the copy.
TEST(Subgraph, FusionInputsAndAnOutputUsedLater) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigTensor(2);
  Val* s = newScalar(DataType::Double);
  Val* factor = newScalar(DataType::Index);
  fusion.addInput(tv0);
  fusion.addInput(s);
  fusion.addInput(factor);
  TensorView* tv1 = mul(tv0, s);
  TensorView* tv2 = exp(tv1);
  fusion.addOutput(tv2);
  tv1->split(1, factor);
  Snapshot before(fusion);
  SubgraphCopy copy = copySubgraph(fusion, {tv1->definition()});
  EXPECT_EQ(copy.fusion->mathString(), R"(Inputs:
  T0_g_float[iS0{i0}, iS1{i1}]
  d2 (double)
  i3 (index)
Outputs:
  T1_g_float[iS2{i0}, iS6{ceilDiv(i1, i3)}, iS7{i3}]

%kernel_math {
T1_g_float[iS2{i0}, iS6{ceilDiv(i1, i3)}, iS7{i3}] = T0 * d2
} // %kernel_math
)");
  verifyFusion(*copy.fusion);
  EXPECT_EQ(Snapshot(fusion), before);

  SubgraphCopy rest = copySubgraph(fusion, {tv2->definition()});
  Tensor x = Tensor::random({4, 6}, DataType::Float, 8);
  Tensor sv = Tensor::fromVector(std::vector<double>{1.75}, {});
  Tensor fv = Tensor::fromVector(std::vector<int64_t>{4}, {});
  Tensor t1 = reftest::runOne(*copy.fusion, {x, sv, fv});
  expectSameValues(reftest::runOne(*rest.fusion, {t1}), reftest::runOne(fusion, {x, sv, fv}));
}

// The layout op alone: its allocation-only extents M + 127*G need the offsets' extent G,
// which comes along with the offsets tensor; the copy writes the original's buffer.
TEST(Subgraph, LayoutOpWithItsAllocationExtents) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* in = makeSymbolicTensor(2, DataType::Float);
  TensorView* in_off = makeSymbolicTensor(1, DataType::Int32);
  TensorView* out_off = makeSymbolicTensor(1, DataType::Int32);
  fusion.addInput(in);
  fusion.addInput(in_off);
  fusion.addInput(out_off);
  TensorView* scaled = mul(in, constFloat(0.5));
  TensorView* out = preprocessGroupedMatmulInputSf(scaled, in_off, out_off);
  fusion.addOutput(out);
  SubgraphCopy copy = copySubgraph(fusion, {out->definition()});
  EXPECT_THAT(copy.fusion->transformsString(),
              HasSubstr("allocation domain (declared, not derived from logical) : "
                        "(iS8{( i0 + ( i2 * 127 ) )}, iS9{( ceilDiv(i1, 4) * 4 )})"));
  EXPECT_EQ(copy.fusion->inputs().size(), 3u);

  auto offsets = [](std::vector<int32_t> v) { return Tensor::fromVector(v, {3}); };
  Tensor x = Tensor::random({10, 5}, DataType::Float, 2);
  Tensor half = reftest::runOne(*copySubgraph(fusion, {scaled->definition()}).fusion, {x});
  Tensor want = reftest::runOne(fusion, {x, offsets({0, 2, 5}), offsets({0, 128, 256})});
  Tensor got = reftest::runOne(*copy.fusion, {half, offsets({0, 2, 5}), offsets({0, 128, 256})});
  ASSERT_EQ(got.allocationNumel(), want.allocationNumel());
  for (int64_t i = 0; i < got.allocationNumel(); ++i)
    ASSERT_EQ(got.allocationItem(i), want.allocationItem(i)) << "position " << i;
}

// A given boundary that does not close is a UserError naming what is missing.
TEST(Subgraph, BoundaryMustClose) {
  Chain c;
  Val* t1 = c.exp_e->input(0);
  Val* t2 = c.exp_e->output(0);
  EXPECT_THAT(
      [&] {
        copySubgraph(c.fusion, {c.exp_e, c.mul_e}, {}, {c.mul_e->output(0)});
      },
      ThrowsMessage<UserError>(
          HasSubstr("copySubgraph: `T2_l_float[iS2{i0}] = exp(T1)` reads T1, which is neither "
                    "computed by the copied exprs nor an input of the copy")));
  EXPECT_THAT([&] { copySubgraph(c.fusion, {c.exp_e}, {t1}, {c.neg_e->input(0)}); },
              ThrowsMessage<UserError>(HasSubstr(
                  "copySubgraph: output T0_g_float[iS0{i0}] is not a tensor computed by the "
                  "copied exprs")));
  EXPECT_THAT(
      [&] {
        copySubgraph(c.fusion, {c.exp_e}, {t1, t2}, {});
      },
      ThrowsMessage<UserError>(
          HasSubstr("copySubgraph: input T2 is computed by the copied exprs")));
  Fusion other;
  EXPECT_THAT([&] { copySubgraph(other, {c.exp_e}); },
              ThrowsMessage<UserError>(HasSubstr(
                  "copySubgraph: `T2_l_float[iS2{i0}] = exp(T1)` belongs to another fusion")));
}

}  // namespace
}  // namespace mf
