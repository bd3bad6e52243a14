// IrMutator: a registered replacement reaches every node that uses it (exprs, all four
// domains, extent expressions), nothing else changes, and the result still computes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "ir/builder.h"
#include "ir/fusion.h"
#include "ir/mutator.h"
#include "ir/tensor_view.h"
#include "ir/verifier.h"
#include "ops/arith.h"
#include "ops/layout.h"
#include "ops/reduction.h"
#include "ops/tensor_factories.h"
#include "reference/reference_evaluator.h"
#include "unit/reference/reference_helpers.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// T0[i0, i1] input with a permuted allocation domain; T1 = exp(T0), T2 = T1 + T0 with a
// split loop domain.
struct Pointwise {
  Fusion fusion;
  TensorView* tv0;
  TensorView* tv1;
  TensorView* tv2;
  Pointwise() {
    FusionGuard fg(&fusion);
    tv0 = makeContigTensor(2);
    fusion.addInput(tv0);
    tv0->setAllocationDomain({tv0->getLogicalDomain()[1], tv0->getLogicalDomain()[0]}, true);
    tv1 = exp(tv0);
    tv2 = add(tv1, tv0);
    fusion.addOutput(tv2);
    tv2->split(1, 4);
  }
};

// [M, K] Float -> layout op with Int32 offsets of G groups.
struct Layout {
  Fusion fusion;
  TensorView* in;
  TensorView* in_off;
  TensorView* out_off;
  Layout() {
    FusionGuard fg(&fusion);
    in = makeSymbolicTensor(2, DataType::Float);
    in_off = makeSymbolicTensor(1, DataType::Int32);
    out_off = makeSymbolicTensor(1, DataType::Int32);
    fusion.addInput(in);
    fusion.addInput(in_off);
    fusion.addInput(out_off);
    fusion.addOutput(preprocessGroupedMatmulInputSf(in, in_off, out_off));
  }
};

// Every domain holding i1 (logical axes of all three tensors, T0's allocation domain, the
// split's input) gets an
// axis of extent 8; the split's outputs keep their identity, now computed from 8; axes not
// involving i1 (iS0, iS2, iS4) are untouched.
TEST(Mutator, ReplacesAnExtentInEveryDomain) {
  Pointwise p;
  FusionGuard fg(&p.fusion);
  IrMutator m;
  m.registerMutation(p.tv0->getLogicalDomain()[1]->extent(), constInt(8));
  m.mutate(p.fusion);
  EXPECT_EQ(p.fusion.transformsString(), R"(%kernel_transforms {
T0_g_float[iS0{i0}, iS8{8}]
 logical domain : (iS0{i0}, iS8{8})
 allocation domain : (iS8{8}, iS0{i0})
 contiguity: t t
 loop domain : (iS0{i0}, iS8{8})
T1_l_float[iS2{i0}, iS9{8}]
 logical domain : (iS2{i0}, iS9{8})
 contiguity: t t
 loop domain : (iS2{i0}, iS9{8})
T2_g_float[iS4{i0}, iS6{ceilDiv(8, 4)}, iS7{4}]
 logical domain : (iS4{i0}, iS10{8})
 contiguity: t t
  Split: iS10{8} by factor 4 -> iS6{ceilDiv(8, 4)}, iS7{4}
 loop domain : (iS4{i0}, iS6{ceilDiv(8, 4)}, iS7{4})
} // %kernel_transforms
)");
  // Same tensors, same inputs and outputs: tensors are mutated in place.
  EXPECT_EQ(p.fusion.inputs(), std::vector<Val*>{p.tv0});
  EXPECT_EQ(p.fusion.outputs(), std::vector<Val*>{p.tv2});
  EXPECT_EQ(p.tv2->axis(1)->extent()->definition()->input(0)->constInt(), 8);
  verifyFusion(p.fusion);
}

// The layout op's allocation-only extents M + 127*G and its scalar operand g are rebuilt
// too; K (i1) is untouched.
TEST(Mutator, ReplacesLayoutOpAllocationExtents) {
  Layout l;
  FusionGuard fg(&l.fusion);
  IrMutator m;
  m.registerMutation(l.in->getLogicalDomain()[0]->extent(), constInt(300));
  m.registerMutation(l.in_off->getLogicalDomain()[0]->extent(), constInt(3));
  m.mutate(l.fusion);
  std::string t = l.fusion.transformsString();
  EXPECT_THAT(t, HasSubstr("T0_g_float[iS8{300}, iS1{i1}]"));
  EXPECT_THAT(t, HasSubstr("T1_g_int32[iS9{3}]"));
  EXPECT_THAT(t, HasSubstr(" logical domain : (iS10{300}, iS5{i1})\n"
                           " allocation domain (declared, not derived from logical) : "
                           "(iS6{( 300 + ( 3 * 127 ) )}, iS7{( ceilDiv(i1, 4) * 4 )})"));
  EXPECT_THAT(l.fusion.mathString(),
              HasSubstr("= preprocessGroupedMatmulInputSf(T0, input_offsets = T1, output_offsets "
                        "= T2, k = i1, g = 3, layout = Block128x4)"));
  verifyFusion(l.fusion);
}

// T1 = neg(T0), T2 = exp(T1), T3 = T2 + T1; T1 -> T4 = abs(T0): both uses of T1 now read
// T4, and neg is left computing a value nothing uses.
TEST(Mutator, ReplacesATensorInTheMiddleOfAChain) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigTensor(1);
  fusion.addInput(tv0);
  TensorView* tv1 = neg(tv0);
  TensorView* tv2 = exp(tv1);
  TensorView* tv3 = add(tv2, tv1);
  fusion.addOutput(tv3);
  TensorView* tv4 = abs(tv0);
  IrMutator m;
  m.registerMutation(tv1, tv4);
  m.mutate(fusion);
  EXPECT_EQ(fusion.mathString(), R"(Inputs:
  T0_g_float[iS0{i0}]
Outputs:
  T3_g_float[iS3{i0}]

%kernel_math {
T4_l_float[iS4{i0}] = abs(T0)
T2_l_float[iS2{i0}] = exp(T4)
T3_g_float[iS3{i0}] = T2 + T4
} // %kernel_math
)");
  EXPECT_TRUE(tv1->uses().empty());
  verifyFusion(fusion);

  Tensor x = Tensor::random({6}, DataType::Float, 11);
  std::vector<double> got = reftest::values(reftest::runOne(fusion, {x}));
  for (int64_t i = 0; i < 6; ++i) {
    float a = std::fabs(static_cast<float>(x.item(i)));
    EXPECT_FLOAT_EQ(got[i], std::exp(a) + a) << "element " << i;
  }
}

// A replaced fusion output is replaced in the fusion's outputs too, and lives in global memory.
TEST(Mutator, ReplacesAFusionOutput) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigTensor(1);
  fusion.addInput(tv0);
  TensorView* tv1 = neg(tv0);
  fusion.addOutput(tv1);
  TensorView* tv2 = abs(tv0);
  IrMutator m;
  m.registerMutation(tv1, tv2);
  m.mutate(fusion);
  EXPECT_EQ(fusion.outputs(), std::vector<Val*>{tv2});
  EXPECT_EQ(tv2->getMemoryType(), MemoryType::Global);
  EXPECT_EQ(m.maybeMutated(tv1), tv2);
  verifyFusion(fusion);
  Tensor x = Tensor::random({5}, DataType::Float, 6);
  std::vector<double> got = reftest::values(reftest::runOne(fusion, {x}));
  for (int64_t i = 0; i < 5; ++i) EXPECT_EQ(got[i], std::fabs(x.item(i))) << "element " << i;
}

// A mutator with nothing registered (or a value mapped to itself) changes nothing: same
// printout, same node count.
TEST(Mutator, NoMutationLeavesTheFusionUnchanged) {
  Layout l;
  Pointwise p;
  for (Fusion* f : {&l.fusion, &p.fusion}) {
    std::string math = f->mathString(), transforms = f->transformsString();
    size_t nodes = f->statements().size();
    IrMutator m;
    m.registerMutation(f->inputs()[0], f->inputs()[0]);
    m.mutate(*f);
    EXPECT_EQ(f->mathString(), math);
    EXPECT_EQ(f->transformsString(), transforms);
    EXPECT_EQ(f->statements().size(), nodes);
  }
}

// After i1 -> 8 the fusion computes exp(x) + x for [*, 8] inputs and rejects others.
TEST(Mutator, MutatedFusionEvaluates) {
  Pointwise p;
  {
    FusionGuard fg(&p.fusion);
    IrMutator m;
    m.registerMutation(p.tv0->getLogicalDomain()[1]->extent(), constInt(8));
    m.mutate(p.fusion);
  }
  // tv0's allocation domain is column-major: a transposed view of a [8, 3] tensor.
  Tensor x = Tensor::random({8, 3}, DataType::Float, 5).asStrided({3, 8}, {1, 3}, 0);
  std::vector<double> got = reftest::values(reftest::runOne(p.fusion, {x}));
  for (int64_t i = 0; i < x.numel(); ++i) {
    float v = static_cast<float>(x.item(i));
    EXPECT_FLOAT_EQ(got[i], std::exp(v) + v) << "element " << i;
  }
  EXPECT_THROW(reftest::runOne(p.fusion, {Tensor::random({3, 5}, DataType::Float, 5)}), UserError);
}

// The layout op with M and G made constant writes the same buffer as the symbolic original.
TEST(Mutator, MutatedLayoutOpEvaluatesAsTheOriginal) {
  Layout l;
  Fusion original = l.fusion;
  {
    FusionGuard fg(&l.fusion);
    IrMutator m;
    m.registerMutation(l.in->getLogicalDomain()[0]->extent(), constInt(10));
    m.registerMutation(l.in_off->getLogicalDomain()[0]->extent(), constInt(3));
    m.mutate(l.fusion);
  }
  auto offsets = [](std::vector<int32_t> v) { return Tensor::fromVector(v, {3}); };
  std::vector<Tensor> inputs = {Tensor::random({10, 5}, DataType::Float, 9), offsets({0, 2, 5}),
                                offsets({0, 128, 256})};
  Tensor want = reftest::runOne(original, inputs);
  Tensor got = reftest::runOne(l.fusion, inputs);
  EXPECT_EQ(got.allocationSizes(), (std::vector<int64_t>{10 + 127 * 3, 8}));
  ASSERT_EQ(got.allocationNumel(), want.allocationNumel());
  for (int64_t i = 0; i < got.allocationNumel(); ++i)
    ASSERT_EQ(got.allocationItem(i), want.allocationItem(i)) << "position " << i;
}

// An axis whose IterType changes takes the contiguity its new type needs: a Broadcast axis
// none (as when concretization makes a symbolic size-1 axis a broadcast), an axis that
// stops being one `false` (nothing is known of its stride).
TEST(Mutator, IterTypeChangeFixesContiguity) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = exp(tv0);
  TensorView* tv2 = broadcast(exp(tv0), {false, false, true});
  fusion.addOutput(tv1);
  fusion.addOutput(tv2);
  IrMutator m;
  m.registerMutation(tv1->getLogicalDomain()[1],
                     IterDomainBuilder(constInt(1)).iterType(IterType::Broadcast).build());
  m.registerMutation(tv2->getLogicalDomain()[2], IterDomainBuilder(constInt(3)).build());
  m.mutate(fusion);
  const std::string t = fusion.transformsString();
  EXPECT_THAT(t, HasSubstr("T1_g_float[iS2{i0}, bS9{1}]\n"
                           " logical domain : (iS2{i0}, bS9{1})\n"
                           " contiguity: t n\n"));
  EXPECT_THAT(t, HasSubstr("T3_g_float[iS6{i0}, iS7{i1}, iS10{3}]\n"
                           " logical domain : (iS6{i0}, iS7{i1}, iS10{3})\n"
                           " contiguity: t t f\n"));
  EXPECT_EQ(tv1->getContiguity(), (Contiguity{true, std::nullopt}));
  EXPECT_EQ(tv2->getContiguity(), (Contiguity{true, true, false}));
  verifyFusion(fusion);
}

// The rfactor tensor's root domain is rebuilt with the new extent, and the fusion still
// computes the sum.
TEST(Mutator, RebuildsARootDomain) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = sum(tv0, {1});
  fusion.addOutput(tv1);
  tv1->split(1, 4);
  TensorView* rf = tv1->rFactor({1});
  IrMutator m;
  m.registerMutation(tv0->getLogicalDomain()[1]->extent(), constInt(8));
  m.mutate(fusion);
  EXPECT_THAT(fusion.transformsString(),
              HasSubstr("T2_l_float[iS6{i0}, rS8{ceilDiv(8, 4)}, iS9{4}]\n"
                        " root domain : (iS6{i0}, rS12{8})\n"
                        " logical domain : (iS6{i0}, rS8{ceilDiv(8, 4)}, iS9{4})\n"
                        " contiguity: t n t\n"
                        "  Split: rS12{8} by factor 4 -> rS8{ceilDiv(8, 4)}, iS9{4}\n"));
  ASSERT_TRUE(rf->domain()->hasRoot());
  EXPECT_EQ(rf->domain()->root()[1]->extent()->constInt(), 8);
  verifyFusion(fusion);
  Tensor x = Tensor::random({3, 8}, DataType::Float, 4);
  std::vector<double> got = reftest::values(reftest::runOne(fusion, {x}));
  for (int64_t r = 0; r < 3; ++r) {
    double want = 0;
    for (int64_t c = 0; c < 8; ++c) want += static_cast<float>(x.item(r * 8 + c));
    EXPECT_NEAR(got[r], want, 1e-4) << "row " << r;
  }
}

// The full-form TensorDomain constructor (cloning, the mutator, rFactor) checks the
// contiguity flags as setContiguity does: a flag on a broadcast axis is refused.
TEST(Mutator, FullFormTensorDomainChecksContiguity) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  std::vector<IterDomain*> ids = {
      IterDomainBuilder(newScalar(DataType::Index)).build(),
      IterDomainBuilder(constInt(1)).iterType(IterType::Broadcast).build()};
  EXPECT_THAT(
      [&] {
        IrBuilder::create<TensorDomain>(std::vector<IterDomain*>{}, ids, std::vector<IterDomain*>{},
                                        ids, Contiguity{true, true}, false);
      },
      ThrowsMessage<UserError>(HasSubstr(
          "contiguity of [iS0{i0}, bS1{1}]: axis 1 (bS1{1}) must have no (nullopt) flag")));
  EXPECT_THAT(
      [&] {
        IrBuilder::create<TensorDomain>(std::vector<IterDomain*>{}, ids, std::vector<IterDomain*>{},
                                        ids, Contiguity{true}, false);
      },
      ThrowsMessage<UserError>(HasSubstr(
          "contiguity of [iS0{i0}, bS1{1}]: expected one flag per allocation axis (2), got 1")));
}

}  // namespace
}  // namespace mf
