// Fusion copies: a deep clone that prints identically, keeps names, shares no node with the
// original, verifies, and evolves independently of it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unordered_set>

#include "ir/builder.h"
#include "ir/expr_evaluator.h"
#include "ir/fusion.h"
#include "ir/tensor_view.h"
#include "ir/verifier.h"
#include "ops/arith.h"
#include "ops/layout.h"
#include "ops/tensor_factories.h"

namespace mf {
namespace {

// T0, T1 inputs; T4 = (T0 + T1) * 2.5 relu'd, scheduled (merge, split, parallelize, inline
// position) and with a permuted allocation domain on an input.
void buildScheduledFusion(Fusion& fusion) {
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigTensor(2);
  TensorView* tv1 = makeSymbolicTensor(2, DataType::Half);
  fusion.addInput(tv0);
  fusion.addInput(tv1);
  TensorView* tv2 = add(tv0, tv1);
  TensorView* tv3 = mul(tv2, constFloat(2.5));
  TensorView* tv4 = relu(tv3);
  fusion.addOutput(tv4);
  tv0->setAllocationDomain({tv0->getLogicalDomain()[1], tv0->getLogicalDomain()[0]}, true);
  for (TensorView* tv : {tv2, tv3, tv4}) {
    tv->merge(0)->split(0, 128);
    tv->parallelize(0, ParallelType::BIDx)->parallelize(1, ParallelType::TIDx);
  }
  tv2->setComputeAtPosition(2);
  tv3->setComputeAtPosition(2);
}

void buildLayoutFusion(Fusion& fusion) {
  FusionGuard fg(&fusion);
  TensorView* in = makeSymbolicTensor(2, DataType::Float8_e4m3fn);
  TensorView* in_off = makeSymbolicTensor(1, DataType::Int32);
  TensorView* out_off = makeSymbolicTensor(1, DataType::Int32);
  fusion.addInput(in);
  fusion.addInput(in_off);
  fusion.addInput(out_off);
  fusion.addOutput(preprocessGroupedMatmulInputSf(in, in_off, out_off));
}

// A copy prints the same math and transforms, names included.
TEST(Clone, CopyPrintsIdentically) {
  Fusion fusion;
  buildScheduledFusion(fusion);
  Fusion copy = fusion;
  EXPECT_EQ(copy.mathString(), fusion.mathString());
  EXPECT_EQ(copy.transformsString(), fusion.transformsString());
  EXPECT_THAT(copy.transformsString(),
              ::testing::HasSubstr("allocation domain : (iS1{i1}, iS0{i0})"));
  EXPECT_THAT(copy.mathString(), ::testing::HasSubstr("ca_pos( 2 )"));
}

// Every node of the copy is new and owned by the copy; inputs and outputs are the copies'.
TEST(Clone, CopySharesNoNode) {
  Fusion fusion;
  buildScheduledFusion(fusion);
  Fusion copy = fusion;
  std::unordered_set<const Statement*> original;
  for (const auto& s : fusion.statements()) original.insert(s.get());
  EXPECT_EQ(copy.statements().size(), fusion.statements().size());
  for (const auto& s : copy.statements()) {
    EXPECT_FALSE(original.count(s.get())) << s->toString() << " is shared";
    EXPECT_EQ(s->fusion(), &copy);
  }
  ASSERT_EQ(copy.inputs().size(), fusion.inputs().size());
  ASSERT_EQ(copy.outputs().size(), fusion.outputs().size());
  for (size_t i = 0; i < copy.inputs().size(); ++i) {
    EXPECT_NE(copy.inputs()[i], fusion.inputs()[i]);
    EXPECT_EQ(copy.inputs()[i]->name(), fusion.inputs()[i]->name());
    EXPECT_TRUE(copy.inputs()[i]->isFusionInput());
  }
  EXPECT_TRUE(copy.outputs()[0]->isFusionOutput());
}

// A copy satisfies the verifier.
TEST(Clone, CopyVerifies) {
  Fusion fusion;
  buildScheduledFusion(fusion);
  Fusion copy = fusion;
  EXPECT_NO_THROW(verifyFusion(copy));
  EXPECT_NO_THROW(verifyFusion(fusion));
}

// Scheduling or extending the copy leaves the original unchanged.
TEST(Clone, MutatingCopyLeavesOriginal) {
  Fusion fusion;
  buildScheduledFusion(fusion);
  const std::string math = fusion.mathString();
  const std::string transforms = fusion.transformsString();
  Fusion copy = fusion;
  {
    FusionGuard fg(&copy);
    copy.outputs()[0]->as<TensorView>()->reorder({{0, 1}});
    TensorView* extra = neg(copy.inputs()[0]->as<TensorView>());
    extra->split(1, 4);
    copy.addOutput(extra);
  }
  EXPECT_NE(copy.transformsString(), transforms);
  EXPECT_NE(copy.mathString(), math);
  EXPECT_EQ(fusion.transformsString(), transforms);
  EXPECT_EQ(fusion.mathString(), math);
  EXPECT_EQ(fusion.outputs().size(), 1u);
  EXPECT_EQ(fusion.outputs()[0]->as<TensorView>()->axis(0)->parallelType(), ParallelType::BIDx);
  EXPECT_NO_THROW(verifyFusion(copy));
  EXPECT_NO_THROW(verifyFusion(fusion));
}

// Name counters are copied: the same edit on original and copy yields the same names.
TEST(Clone, SameEditGivesSameNames) {
  Fusion fusion;
  buildScheduledFusion(fusion);
  Fusion copy = fusion;
  for (Fusion* f : {&fusion, &copy}) {
    FusionGuard fg(f);
    TensorView* extra = exp(f->inputs()[1]->as<TensorView>());
    extra->split(0, 2);
    f->addOutput(extra);
  }
  EXPECT_EQ(copy.mathString(), fusion.mathString());
  EXPECT_EQ(copy.transformsString(), fusion.transformsString());
}

// The layout op's declared, not derived, allocation domain survives cloning, and its extents
// in the copy are expressions of the copy's M, K and G.
TEST(Clone, LayoutOpDeclaredAllocationSurvives) {
  Fusion fusion;
  buildLayoutFusion(fusion);
  Fusion copy = fusion;
  EXPECT_EQ(copy.transformsString(), fusion.transformsString());
  EXPECT_THAT(copy.transformsString(),
              ::testing::HasSubstr("allocation domain (declared, not derived from logical) : "
                                   "(iS6{( i0 + ( i2 * 127 ) )}, iS7{( ceilDiv(i1, 4) * 4 )})"));
  auto* out = copy.outputs()[0]->as<TensorView>();
  EXPECT_TRUE(out->domain()->allocationDeclared());
  EXPECT_EQ(out->dtype(), DataType::Float8_e4m3fn);
  EXPECT_NO_THROW(verifyFusion(copy));

  ExpressionEvaluator ee;
  const std::vector<int64_t> in_sizes = {512, 9}, g_sizes = {3};
  ee.bindTensorSizes(copy.inputs()[0]->as<TensorView>(), in_sizes);
  ee.bindTensorSizes(copy.inputs()[1]->as<TensorView>(), g_sizes);
  EXPECT_EQ(ee.evaluateInt(out->domain()->allocation()[0]->extent(), "rows"), 893);
  EXPECT_EQ(ee.evaluateInt(out->domain()->allocation()[1]->extent(), "cols"), 12);
}

// Copy assignment replaces the target's content with a clone of the source.
TEST(Clone, CopyAssignment) {
  Fusion fusion;
  buildScheduledFusion(fusion);
  Fusion other;
  buildLayoutFusion(other);
  other = fusion;
  EXPECT_EQ(other.mathString(), fusion.mathString());
  EXPECT_EQ(other.transformsString(), fusion.transformsString());
  EXPECT_EQ(other.statements().size(), fusion.statements().size());
  EXPECT_NO_THROW(verifyFusion(other));
}

}  // namespace
}  // namespace mf
