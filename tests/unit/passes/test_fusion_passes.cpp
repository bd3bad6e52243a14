// The fusion passes (csrc/passes/): each pass on a small fusion, the printed math before and
// after; the runner's name check, dumps and timing; the passes a scheduler requests; and the
// op-aware run-time extent check (ir/op_traits.h's operandExtentRule).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/block_scaling_factor_layout.h"
#include "ir/expr_evaluator.h"
#include "ir/op_traits.h"
#include "minifuser.h"
#include "passes/passes.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::ThrowsMessage;

// The math between the braces of mathString (the inputs and outputs left out).
std::string math(const Fusion& f) {
  const std::string s = f.mathString();
  const size_t begin = s.find("{\n") + 2;
  return s.substr(begin, s.find("} // %kernel_math") - begin);
}

// A request for `passes` with the facts they read.
FusionPassRequest request(std::vector<std::string_view> passes, int64_t row_rank = 0,
                          std::vector<KnownExtent> known_extents = {}) {
  FusionPassRequest r;
  r.passes = std::move(passes);
  r.row_rank = row_rank;
  r.known_extents = std::move(known_extents);
  return r;
}

// y = x / broadcast(sum(x, row), row) over [i0, i1] in float.
TensorView* divideByRowSum(Fusion& f, std::vector<bool> flags = {false, true}) {
  TensorView* x = makeContigTensor(2);
  f.addInput(x);
  TensorView* y = div(x, broadcast(sum(x, {flags[0] ? 0 : 1}), flags));
  f.addOutput(y);
  return y;
}

// A division by a value broadcast over the row becomes a product with its reciprocal,
// computed once per row; the old broadcast is gone.
TEST(MultiplyByRowReciprocals, RewritesDivisionByBroadcastRowValue) {
  Fusion f;
  FusionGuard fg(&f);
  divideByRowSum(f);
  EXPECT_EQ(math(f),
            "T1_l_float[iS2{i0}, rS3{i1}] = reduction(T0, op = add, initial = 0.0)\n"
            "T2_l_float[iS4{i0}, bS5{1}] = broadcast(T1, {false, true})\n"
            "T3_g_float[iS6{i0}, iS7{i1}] = T0 / T2\n");
  runFusionPasses(f, request({"multiplyByRowReciprocals"}, 1));
  EXPECT_EQ(math(f),
            "T1_l_float[iS2{i0}, rS3{i1}] = reduction(T0, op = add, initial = 0.0)\n"
            "T4_l_float[iS8{i0}] = reciprocal(T1)\n"
            "T5_l_float[iS9{i0}, bS10{1}] = broadcast(T4, {false, true})\n"
            "T3_g_float[iS6{i0}, iS7{i1}] = T0 * T5\n");
}

// A divisor broadcast over another axis than the row is left alone, and so is every
// division when the pass is not requested.
TEST(MultiplyByRowReciprocals, LeavesOtherDivisionsAlone) {
  Fusion f;
  FusionGuard fg(&f);
  divideByRowSum(f, {true, false});
  const std::string before = f.mathString();
  runFusionPasses(f, request({"multiplyByRowReciprocals"}, 1));
  EXPECT_EQ(f.mathString(), before);

  Fusion g;
  FusionGuard fg2(&g);
  divideByRowSum(g);
  const std::string not_requested = g.mathString();
  runFusionPasses(g);
  EXPECT_EQ(g.mathString(), not_requested);
}

// A known extent replaces the symbolic one on the axis and on every axis exactly mapped to
// it (the weight's, through the add), and nowhere else.
TEST(SpecializeExtents, FixesTheAxisAndItsExactlyMappedAxes) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* x = makeContigTensor(2);
  TensorView* w = makeContigTensor(1);
  f.addInput(x);
  f.addInput(w);
  f.addOutput(add(x, broadcast(w, {true, false})));
  EXPECT_EQ(math(f),
            "T2_l_float[bS3{1}, iS4{i2}] = broadcast(T1, {true, false})\n"
            "T3_g_float[iS5{i0}, iS6{i1}] = T0 + T2\n");
  runFusionPasses(f, request({"specializeExtents"}, 0, {{x->axis(1), 8}}));
  EXPECT_EQ(f.mathString(),
            "Inputs:\n"
            "  T0_g_float[iS0{i0}, iS7{8}]\n"
            "  T1_g_float[iS8{8}]\n"
            "Outputs:\n"
            "  T3_g_float[iS5{i0}, iS10{8}]\n"
            "\n%kernel_math {\n"
            "T2_l_float[bS3{1}, iS9{8}] = broadcast(T1, {true, false})\n"
            "T3_g_float[iS5{i0}, iS10{8}] = T0 + T2\n"
            "} // %kernel_math\n");
}

// Through a reshape: [i0, i1] read as [i0, 9, ceilDiv(i1, 9)], the block of 16 known. The
// derived extent becomes 16, and since a reshape's split is exact, the input's i1 becomes
// 9 * 16 (so a loop replayed onto the input through the reshape has constant extents).
TEST(SpecializeExtents, ThroughAReshapeItsSplitsAreExact) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* x = makeSymbolicTensor(2);
  f.addInput(x);
  TensorView* r = reshape(x, {512, 144}, {512, 9, 16});
  f.addOutput(neg(r));
  ASSERT_EQ(r->getLogicalDomain()[2]->extent()->toInlineString(), "ceilDiv(i1, 9)");
  runFusionPasses(f, request({"specializeExtents"}, 0, {{r->getLogicalDomain()[2], 16}}));
  EXPECT_THAT(f.mathString(), HasSubstr("T0_g_float[iS0{i0}, iS"));
  EXPECT_THAT(f.mathString(), HasSubstr("{144}]"));
  EXPECT_THAT(f.mathString(), HasSubstr("= reshape(T0, {i0, 9, 16})"));
  EXPECT_THAT(f.mathString(), Not(HasSubstr("i1")));
}

// A request naming no pass of the table is refused with the name.
TEST(FusionPassRunner, RefusesAnUnknownPass) {
  Fusion f;
  FusionGuard fg(&f);
  divideByRowSum(f);
  EXPECT_THAT([&] { runFusionPasses(f, request({"concretize"})); },
              ThrowsMessage<UserError>(HasSubstr("runFusionPasses: no fusion pass named "
                                                 "'concretize'")));
}

// pass_fusion_ir prints the fusion after a pass that changed it (not after one that did not);
// pass_timing prints one line per pass run.
TEST(FusionPassRunner, DumpsAfterAChangeAndTimesEachPass) {
  Fusion f;
  FusionGuard fg(&f);
  divideByRowSum(f);
  OptionsGuard guard;
  guard.enableDump(DumpOption::PassFusionIr);
  guard.enableDump(DumpOption::PassTiming);
  ::testing::internal::CaptureStdout();
  runFusionPasses(f, request({"specializeExtents", "multiplyByRowReciprocals"}, 1));
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_THAT(out, HasSubstr("=== after fusion pass multiplyByRowReciprocals ===\nInputs:\n"));
  EXPECT_THAT(out, HasSubstr("T4_l_float[iS8{i0}] = reciprocal(T1)\n"));
  EXPECT_THAT(out, Not(HasSubstr("=== after fusion pass specializeExtents")));
  EXPECT_THAT(out, HasSubstr("fusion pass specializeExtents "));
  EXPECT_THAT(out, HasSubstr("fusion pass multiplyByRowReciprocals "));
}

// The inner persistent scheduler requests the row extents' specialization always and the
// reciprocal rewrite only when a block shares a row; schedule() runs them first.
TEST(SchedulerFusionPasses, InnerPersistentRequestsItsRewrites) {
  Fusion f;
  FusionGuard fg(&f);
  divideByRowSum(f);
  InnerPersistentScheduler scheduler;
  PersistentParams params;
  params.row_extents = {4096};
  params.threads_per_row = 128;
  FusionPassRequest block = scheduler.fusionPasses(&f, &params);
  EXPECT_EQ(block.passes,
            (std::vector<std::string_view>{"specializeExtents", "multiplyByRowReciprocals"}));
  ASSERT_EQ(block.known_extents.size(), 1u);
  EXPECT_EQ(block.known_extents[0].value, 4096);
  EXPECT_EQ(block.row_rank, 1);
  params.threads_per_row = 1;
  EXPECT_EQ(scheduler.fusionPasses(&f, &params).passes,
            (std::vector<std::string_view>{"specializeExtents"}));
  // The other schedulers request nothing.
  PointWiseScheduler pointwise;
  PointwiseParams pw;
  EXPECT_TRUE(pointwise.fusionPasses(&f, &pw).passes.empty());
}

// Each op says which operands' extents must agree: every tensor operand of a pointwise op,
// the reduced axes of a reduction too, nothing for a broadcast, only the input of the layout
// op (its offsets have G entries, not M rows).
TEST(OperandExtentRule, EachOpStatesWhichOperandsAgree) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* x = makeContigTensor(2);
  TensorView* off_in = makeContigTensor(1, DataType::Int32);
  TensorView* off_out = makeContigTensor(1, DataType::Int32);
  f.addInput(x);
  f.addInput(off_in);
  f.addInput(off_out);
  TensorView* s = sum(x, {1});
  TensorView* b = broadcast(s, {false, true});
  TensorView* y = add(x, b);
  TensorView* l = preprocessGroupedMatmulInputSf(x, off_in, off_out);
  f.addOutput(y);
  f.addOutput(l);
  OperandExtentRule add_rule = operandExtentRule(y->definition());
  EXPECT_EQ(add_rule.aligned, (std::vector<TensorView*>{x, b}));
  EXPECT_EQ(add_rule.rank, 2u);
  EXPECT_EQ(operandExtentRule(s->definition()).rank, 2u);
  EXPECT_TRUE(operandExtentRule(b->definition()).aligned.empty());
  EXPECT_EQ(operandExtentRule(l->definition()).aligned, (std::vector<TensorView*>{x}));

  // M = 5 rows and G = 3 groups pass; operands of the add that disagree do not.
  ExpressionEvaluator ee;
  const std::vector<int64_t> xs = {5, 7}, gs = {3};
  ee.bindTensorSizes(x, xs);
  ee.bindTensorSizes(off_in, gs);
  ee.bindTensorSizes(off_out, gs);
  EXPECT_NO_THROW(validateOperandExtents(f, ee));

  Fusion g;
  FusionGuard fg2(&g);
  TensorView* a = makeContigTensor(2);
  TensorView* c = makeContigTensor(2);
  g.addInput(a);
  g.addInput(c);
  g.addOutput(add(a, c));
  ExpressionEvaluator ee2;
  const std::vector<int64_t> as = {2, 3}, cs = {2, 4};
  ee2.bindTensorSizes(a, as);
  ee2.bindTensorSizes(c, cs);
  EXPECT_THAT([&] { validateOperandExtents(g, ee2); },
              ThrowsMessage<UserError>(HasSubstr("operands T0 and T1 disagree on axis 1: 3 vs 4")));
}

// The Block128x4 geometry: tiles of 128 x 4, worst-case padding, the swizzle of spec Part A.
TEST(BlockScalingFactorGeometry, Block128x4) {
  const BlockScalingFactorGeometry g =
      blockScalingFactorGeometry(BlockScalingFactorLayout::Block128x4);
  EXPECT_EQ(g.tile_rows, 128);
  EXPECT_EQ(g.tile_cols, 4);
  EXPECT_EQ(g.paddedRows(300, 3), 300 + 127 * 3);
  EXPECT_EQ(g.paddedCols(6), 8);
  EXPECT_EQ(g.groupRows(129), 256);
  for (int64_t r : {0, 31, 32, 127, 128, 300})
    for (int64_t col : {0, 3, 4, 7})
      EXPECT_EQ(g.swizzledOffset(r, col, 8), (r / 128) * 8 * 128 + (col / 4) * 512 + (r % 32) * 16 +
                                                 ((r % 128) / 32) * 4 + col % 4);
}

}  // namespace
}  // namespace mf
