// Lowering an expr with two outputs: loops from the first, an allocation, an index and bounds
// for each. No op builds a multi-output expr yet (section 5 of #15 adds IR support), so the
// test wires one by hand: a copy of T0 into a register tensor and a global output at once.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "minifuser/minifuser.h"
#include "unit/lower/lower_test_utils.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using testing::irAfter;

struct TwoOutputs {
  TensorView* t1;  // register
  TensorView* t2;  // global output
};

// T1, T2 = set(T0) over [4, 8], both split by 3 (not divisible); T3 = -T1 is an output.
TwoOutputs twoOutputCopy(Fusion& fusion) {
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigConcreteTensor({4, 8});
  fusion.addInput(t0);
  TensorView* t1 = set(t0);
  TensorView* t2 = set(t0);
  fusion.removeExpr(t1->definition());
  fusion.removeExpr(t2->definition());
  IrBuilder::create<LoadStoreOp>(std::vector<Val*>{t0}, std::vector<Val*>{t1, t2});
  TensorView* t3 = neg(t1);
  fusion.addOutput(t3);
  fusion.addOutput(t2);
  for (TensorView* tv : {t1, t2, t3}) tv->split(1, 3);
  return {t1, t2};
}

// The register output is allocated; both outputs are indexed, each at its own axes; the
// guard bounds the write once (the siblings' checks are the same).
TEST(MultiOutput, LoweringCoversEveryOutput) {
  Fusion fusion;
  TwoOutputs outs = twoOutputCopy(fusion);
  std::unique_ptr<Kernel> kernel = lowerFusionUpTo(fusion, "insertPredicates", {.verify = true});
  const std::string ir = kernel->toString();
  EXPECT_THAT(ir, HasSubstr("T1_l_float[iS"));
  EXPECT_THAT(ir, HasSubstr("= ALLOCATE(size = 36, mem = l)"));
  const Expr* copy = nullptr;
  for (const Kernel::LoopNested& n : kernel->computeExprs())
    if (n.expr->outputs().size() == 2) copy = n.expr;
  ASSERT_NE(copy, nullptr) << ir;
  auto* i1 = copy->output(0)->as<TensorIndex>();
  auto* i2 = copy->output(1)->as<TensorIndex>();
  // The kernel lowers a copy of the fusion: compare by name.
  EXPECT_EQ(i1->view()->name(), outs.t1->name());
  EXPECT_EQ(i2->view()->name(), outs.t2->name());
  EXPECT_EQ(i1->axisIndices().count(i1->view()->getLogicalDomain()[1]), 1u);
  EXPECT_EQ(i2->axisIndices().count(i2->view()->getLogicalDomain()[1]), 1u);
  EXPECT_THAT(i2->index()->toInlineString(), HasSubstr("T2.stride[0]"));
  EXPECT_THAT(ir, HasSubstr("IF ( ( ( i"));
  EXPECT_EQ(ir.find("&&"), std::string::npos) << ir;
}

// A RuntimeCall with two outputs prints both.
TEST(MultiOutput, RuntimeCallPrintsEveryOutput) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* in = makeContigTensor(1);
  TensorView* a = makeContigTensor(1);
  TensorView* b = makeContigTensor(1);
  auto* call = IrBuilder::create<RuntimeCall>(
      std::vector<Val*>{IrBuilder::create<TensorIndex>(in, constInt(0)), constFloat(0.0)},
      std::vector<Val*>{IrBuilder::create<TensorIndex>(a, constInt(0)),
                        IrBuilder::create<TensorIndex>(b, constInt(1))},
      RuntimeCallForm::BlockAllReduce, "mf_blockAllReduceX",
      RuntimeCall::Params{.combine = BinaryOpType::Add, .across = ParallelType::TIDx});
  EXPECT_EQ(call->toString(),
            "(T1[0], T2[1]) = call BlockAllReduce mf_blockAllReduceX(in = T0[0], init = 0.0, op = "
            "add, across = threadIdx.x)");
}

}  // namespace
}  // namespace mf
