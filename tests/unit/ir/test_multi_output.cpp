// Exprs with several outputs at the IR level: printed, verified, cloned, mutated, copied into
// a subgraph and traversed like one-output exprs, each output defined by the one expr.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "ir/builder.h"
#include "ir/fusion.h"
#include "ir/mutator.h"
#include "ir/subgraph.h"
#include "ir/tensor_view.h"
#include "ir/verifier.h"
#include "ops/arith.h"
#include "ops/tensor_factories.h"
#include "reference/reference_evaluator.h"
#include "unit/reference/reference_helpers.h"

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace mf {
namespace {

// (out0, out1) = twoCopies(in): a test-only expr with two outputs. It is a LoadStoreOp for
// the visitors' dispatch; everything else sees it through the Expr interface only, as it
// would see a real two-output op (a quantize op's data and block scales).
class TwoCopies : public LoadStoreOp {
 public:
  TwoCopies(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs)
      : LoadStoreOp(f, std::move(ins), std::move(outs)) {}
  std::string_view opName() const override { return "TwoCopies"; }
  Expr* newObject(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs) const override {
    return IrBuilder::createIn<TwoCopies>(f, std::move(ins), std::move(outs));
  }
  std::string toString() const override {
    return fmt::format("({}, {}) = twoCopies({})", output(0)->toString(), output(1)->toString(),
                       input(0)->toInlineString());
  }
};

// A new tensor shaped as `like`, with no definition.
TensorView* newTensorLike(TensorView* like) {
  std::vector<IterDomain*> ids;
  for (IterDomain* id : like->getLogicalDomain()) ids.push_back(id->freshCopy());
  return IrBuilder::create<TensorView>(IrBuilder::create<TensorDomain>(ids), like->dtype());
}

// T0 input; T1 = neg(T0); (T2, T3) = twoCopies(T1); T4 = exp(T3); outputs T2 and T4.
struct TwoOutputs {
  Fusion fusion;
  TensorView *tv0, *tv1, *tv2, *tv3, *tv4;
  Expr* two = nullptr;
  TwoOutputs() {
    FusionGuard fg(&fusion);
    tv0 = makeContigTensor(1);
    fusion.addInput(tv0);
    tv1 = neg(tv0);
    tv2 = newTensorLike(tv1);
    tv3 = newTensorLike(tv1);
    two = IrBuilder::create<TwoCopies>(std::vector<Val*>{tv1}, std::vector<Val*>{tv2, tv3});
    tv4 = exp(tv3);
    fusion.addOutput(tv2);
    fusion.addOutput(tv4);
  }
};

constexpr const char* kMath = R"(Inputs:
  T0_g_float[iS0{i0}]
Outputs:
  T2_g_float[iS2{i0}]
  T4_g_float[iS4{i0}]

%kernel_math {
T1_l_float[iS1{i0}] = -T0
(T2_g_float[iS2{i0}], T3_l_float[iS3{i0}]) = twoCopies(T1)
T4_g_float[iS4{i0}] = exp(T3)
} // %kernel_math
)";

// Both outputs name the expr as their definition; the fusion lists it once and verifies.
TEST(MultiOutput, PrintsAndVerifies) {
  TwoOutputs t;
  EXPECT_EQ(t.tv2->definition(), t.two);
  EXPECT_EQ(t.tv3->definition(), t.two);
  EXPECT_EQ(t.fusion.mathString(), kMath);
  EXPECT_EQ(t.fusion.exprs().size(), 3u);
  verifyFusion(t.fusion);
}

// A copy of the fusion prints the same; its expr defines both copied outputs.
TEST(MultiOutput, Clones) {
  TwoOutputs t;
  Fusion copy = t.fusion;
  EXPECT_EQ(copy.mathString(), kMath);
  verifyFusion(copy);
  Expr* two = copy.outputs()[0]->definition();
  ASSERT_NE(two, nullptr);
  EXPECT_EQ(two->opName(), "TwoCopies");
  ASSERT_EQ(two->outputs().size(), 2u);
  EXPECT_NE(two, t.two);
  EXPECT_EQ(two->output(0), copy.outputs()[0]);
  EXPECT_EQ(two->output(1)->definition(), two);
  EXPECT_EQ(copy.outputs()[1]->definition()->input(0), two->output(1));
}

// T1 -> T5 = abs(T0): the two-output expr is rebuilt once, reading T5; both outputs keep
// their identity and name the new expr.
TEST(MultiOutput, MutatedInputRebuildsTheExprOnce) {
  TwoOutputs t;
  FusionGuard fg(&t.fusion);
  TensorView* tv5 = abs(t.tv0);
  IrMutator m;
  m.registerMutation(t.tv1, tv5);
  m.mutate(t.fusion);
  Expr* two = t.tv2->definition();
  ASSERT_NE(two, nullptr);
  EXPECT_EQ(two->opName(), "TwoCopies");
  EXPECT_EQ(t.tv3->definition(), two);
  EXPECT_EQ(two->input(0), tv5);
  EXPECT_THAT(t.fusion.mathString(),
              HasSubstr("(T2_g_float[iS2{i0}], T3_l_float[iS3{i0}]) = twoCopies(T5)\n"));
  verifyFusion(t.fusion);
}

// One output replaced by a value computed elsewhere, the other by a new tensor: the expr is
// still rebuilt for the output in use (a one-output rule would have left it alone, and T6
// without a definition).
TEST(MultiOutput, OneOutputComputedElsewhere) {
  TwoOutputs t;
  FusionGuard fg(&t.fusion);
  TensorView* tv5 = abs(t.tv0);
  TensorView* tv6 = newTensorLike(t.tv3);
  IrMutator m;
  m.registerMutation(t.tv1, tv5);
  m.registerMutation(t.tv2, abs(tv5));
  m.registerMutation(t.tv3, tv6);
  m.mutate(t.fusion);
  ASSERT_NE(tv6->definition(), nullptr);
  EXPECT_EQ(tv6->definition()->opName(), "TwoCopies");
  EXPECT_EQ(tv6->definition()->input(0), tv5);
  EXPECT_EQ(t.tv4->definition()->input(0), tv6);
  verifyFusion(t.fusion);
}

// copySubgraph of {twoCopies, exp}: T1 becomes the input, T2 and T4 the outputs; the copy's
// expr defines both of its outputs.
TEST(MultiOutput, CopiesIntoASubgraph) {
  TwoOutputs t;
  std::vector<Expr*> exprs = {t.tv4->definition(), t.two};
  EXPECT_EQ(subgraphInputs(exprs), std::vector<Val*>{t.tv1});
  EXPECT_EQ(subgraphOutputs(exprs), (std::vector<Val*>{t.tv2, t.tv4}));
  SubgraphCopy copy = copySubgraph(t.fusion, exprs);
  EXPECT_THAT(copy.fusion->mathString(),
              HasSubstr("(T2_g_float[iS2{i0}], T3_l_float[iS3{i0}]) = twoCopies(T1)\n"
                        "T4_g_float[iS4{i0}] = exp(T3)\n"));
  verifyFusion(*copy.fusion);
  Val* c2 = copy.old_to_new.at(t.tv2);
  Val* c3 = copy.old_to_new.at(t.tv3);
  EXPECT_EQ(c2->definition(), c3->definition());
  EXPECT_EQ(c2->definition()->outputs(), (std::vector<Val*>{c2, c3}));
}

// An expr whose first output is a scalar and second a tensor is a tensor expr too.
TEST(MultiOutput, TensorExprsLooksAtEveryOutput) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigTensor(1);
  fusion.addInput(tv0);
  Val* count = newScalar(DataType::Index);
  TensorView* tv1 = newTensorLike(tv0);
  Expr* two = IrBuilder::create<TwoCopies>(std::vector<Val*>{tv0}, std::vector<Val*>{count, tv1});
  fusion.addOutput(tv1);
  EXPECT_EQ(fusion.exprs(), std::vector<Expr*>{two});
  EXPECT_THAT(fusion.mathString(), HasSubstr("(i1, T1_g_float[iS1{i0}]) = twoCopies(T0)\n"));
}

// The CPU reference evaluates one-output exprs; an expr with more outputs is refused by
// name rather than leaving its other outputs unset.
TEST(MultiOutput, ReferenceRefusesByName) {
  TwoOutputs t;
  EXPECT_THAT([&] { reftest::runOne(t.fusion, {Tensor::random({4}, DataType::Float, 1)}); },
              ThrowsMessage<UserError>(HasSubstr("TwoCopies has 2 outputs")));
}

}  // namespace
}  // namespace mf
