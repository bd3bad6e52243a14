// Inlining (scheduler/tools/inlining.cpp): inlineAt sets a producer's compute-at position when its
// loop axes map to every consumer's; inlineMost picks the largest such position; every user error
// names the tensors and axes involved.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "minifuser/minifuser.h"

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace mf {
namespace {

// A chain of 2-D tensors scheduled [i0, ceilDiv(i1, 4), 4] for T1 and T2.
struct SplitChain {
  TensorView* t0 = makeSymbolicTensor(2);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t1);
  explicit SplitChain(Fusion& fusion) {
    fusion.addInput(t0);
    fusion.addOutput(t2);
    t1->split(1, 4);
    t2->split(1, 4);
  }
};

// inlineAt(p) with mapped axes sets ca_pos p; a negative position counts from the end
// (-1 is all axes); 0 is always legal.
TEST(Inlining, InlineAtSetsComputeAtPosition) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  SplitChain c(fusion);
  c.t1->inlineAt(2);
  EXPECT_EQ(c.t1->computeAtPosition(), 2);
  c.t1->inlineAt(-1);
  EXPECT_EQ(c.t1->computeAtPosition(), 3);
  c.t1->inlineAt(-3);
  EXPECT_EQ(c.t1->computeAtPosition(), 1);
  c.t1->inlineAt(0);
  EXPECT_EQ(c.t1->computeAtPosition(), 0);
  EXPECT_EQ(c.t1->toString(), "T1_l_float[iS2{i0}, iS6{ceilDiv(i1, 4)}, iS7{4}]");
}

// A position outside [-(n+1), n] is a user error naming the position given and the range.
TEST(Inlining, PositionOutOfRange) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  SplitChain c(fusion);
  EXPECT_THAT([&] { c.t1->inlineAt(4); },
              ThrowsMessage<UserError>(HasSubstr(
                  "inlineAt: position 4 of T1_l_float[iS2{i0}, iS6{ceilDiv(i1, 4)}, iS7{4}] is "
                  "out of range [-4, 3]")));
  EXPECT_THAT([&] { c.t1->inlineAt(-5); },
              ThrowsMessage<UserError>(HasSubstr("inlineAt: position -5 of T1_l_float")));
}

// Fusion inputs live in global memory: inlining one is a user error.
TEST(Inlining, FusionInputCannotBeInlined) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  SplitChain c(fusion);
  EXPECT_THAT([&] { c.t0->inlineAt(1); },
              ThrowsMessage<UserError>(HasSubstr(
                  "inlineAt: T0_g_float[iS0{i0}, iS1{i1}] is a fusion input; inputs live in "
                  "global memory and cannot be inlined")));
}

// The layout op reads its offsets whole: an offsets operand computed in the fusion cannot be
// inlined into it.
TEST(Inlining, LayoutOpOffsetsCannotBeInlined) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* in = makeSymbolicTensor(2);
  TensorView* in_off = makeSymbolicTensor(1, DataType::Int32);
  TensorView* out_off = makeSymbolicTensor(1, DataType::Int32);
  fusion.addInput(in);
  fusion.addInput(in_off);
  fusion.addInput(out_off);
  TensorView* in_off1 = add(in_off, constInt(1, DataType::Int32));
  TensorView* out = preprocessGroupedMatmulInputSf(in, in_off1, out_off);
  fusion.addOutput(out);
  EXPECT_THAT([&] { in_off1->inlineAt(1); },
              ThrowsMessage<UserError>(HasSubstr(
                  "inlineAt: T3_l_int32[iS4{i2}] is an offsets operand of "
                  "preprocessGroupedMatmulInputSf, which must be in global memory when the "
                  "kernel starts")));
}

// Axes scheduled differently do not map: the message names both axes and the consumer.
TEST(Inlining, AxisMismatchNamesBothAxes) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t1);
  fusion.addOutput(t2);
  t1->split(1, 4);
  t2->split(1, 8);
  EXPECT_THAT([&] { t1->inlineAt(2); },
              ThrowsMessage<UserError>(HasSubstr(
                  "inlineAt(2) of T1_l_float[iS2{i0}, iS6{ceilDiv(i1, 4)}, iS7{4}]: axis 1 "
                  "(iS6{ceilDiv(i1, 4)}) does not map to axis 1 (iS8{ceilDiv(i1, 8)}) of its "
                  "consumer T2_g_float[iS4{i0}, iS8{ceilDiv(i1, 8)}, iS9{8}]; apply the same "
                  "split/merge/parallelize to both")));
  t1->inlineAt(1);
  EXPECT_EQ(t1->computeAtPosition(), 1);
}

// Equal splits bound to different parallel types do not map either.
TEST(Inlining, ParallelTypeMismatch) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t1);
  fusion.addOutput(t2);
  t1->axis(1)->parallelize(ParallelType::TIDx);
  EXPECT_THAT([&] { t1->inlineAt(2); },
              ThrowsMessage<UserError>(HasSubstr(
                  "inlineAt(2) of T1_l_float[iS2{i0}, ithreadIdx.x3{i1}]: axis 1 "
                  "(ithreadIdx.x3{i1}) does not map to axis 1 (iS5{i1}) of its consumer")));
}

// A producer's broadcast axis shares the loop of the consumer axis it is broadcast to (the
// loop runs over the consumer's extent; lowering tests check the kernel): T2 [1, N] is
// inlined fully into T3 [M, N].
TEST(Inlining, AcrossBroadcast) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  TensorView* t1 = makeSymbolicTensor(1);
  fusion.addInput(t0);
  fusion.addInput(t1);
  TensorView* t2 = broadcast(t1, {true, false});
  TensorView* t3 = add(t0, t2);
  fusion.addOutput(t3);
  EXPECT_EQ(maxInlinePosition(t2), 2);
  t2->inlineAt(1);
  EXPECT_EQ(t2->computeAtPosition(), 1);
}

// Regression: a vectorized axis is one whole-vector copy; shared, the producer's buffer held
// one element and the copy wrote four. Inlining it is a user error.
TEST(Inlining, VectorizedAxisIsRejected) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = set(t0);
  TensorView* t2 = set(t1);
  fusion.addOutput(t2);
  for (TensorView* tv : {t1, t2}) {
    tv->split(0, 4);
    tv->axis(0)->parallelize(ParallelType::TIDx);
    tv->axis(1)->parallelize(ParallelType::Vectorize);
  }
  EXPECT_THAT([&] { t1->inlineAt(2); },
              ThrowsMessage<UserError>(HasSubstr(
                  "inlineAt(2) of T1_l_float[ithreadIdx.x3{ceilDiv(i0, 4)}, iV4{4}]: axis 1 "
                  "(iV4{4}) is vectorized; a vectorized axis cannot be inlined")));
  inlineMost();
  EXPECT_EQ(t1->computeAtPosition(), 1);
}

// A consumer whose loop domain leaves out a broadcast axis has fewer axes than its producer.
TEST(Inlining, ConsumerWithFewerAxes) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeConcreteTensor({-1, 1});
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t1);
  fusion.addOutput(t2);
  t2->domain()->setLoopDomain({t2->getLogicalDomain()[0]});
  EXPECT_THAT([&] { t1->inlineAt(2); },
              ThrowsMessage<UserError>(HasSubstr(
                  "inlineAt(2) of T1_l_float[iS2{i0}, bS3{1}]: its consumer T2_g_float[iS4{i0}] "
                  "has only 1 axes")));
}

// inlineMost without a fusion is a user error.
TEST(Inlining, InlineMostNeedsAFusion) {
  EXPECT_THAT([] { inlineMost(); },
              ThrowsMessage<UserError>(HasSubstr("inlineMost: no active fusion")));
}

// inlineMost gives each intermediate the number of leading axes that map to all its
// consumers: T1 -> T2 all 3, T2 -> T3 only axis 0 (T3 is not split); inputs and outputs stay 0.
TEST(Inlining, InlineMostPositions) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t1);
  TensorView* t3 = relu(t2);
  fusion.addOutput(t3);
  t1->split(1, 4);
  t2->split(1, 4);
  inlineMost();
  EXPECT_EQ(t0->computeAtPosition(), 0);
  EXPECT_EQ(t1->computeAtPosition(), 3);
  EXPECT_EQ(t2->computeAtPosition(), 1);
  EXPECT_EQ(t3->computeAtPosition(), 0);
}

// A producer with two consumers is inlined only as far as both map: T2 is split like T1,
// T3 is not.
TEST(Inlining, InlineMostMapsEveryConsumer) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t1);
  TensorView* t3 = abs(t1);
  fusion.addOutput(t2);
  fusion.addOutput(t3);
  t1->split(1, 4);
  t2->split(1, 4);
  inlineMost();
  EXPECT_EQ(t1->computeAtPosition(), 1);
  EXPECT_EQ(maxInlinePosition(t1), 1);
}

// Spec layout_op.md test `Inlining` (nvFuser LayoutOpTest.Inlining): inp -> set -> layout op
// with offsets computed as offsets + 1; scheduled alike, inlineMost gives the cache ca_pos 2
// (fully inlined into the op) and leaves the offsets at 0.
TEST(Inlining, LayoutOpInputIsFullyInlined) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* inp = makeSymbolicTensor(2);
  TensorView* in_off = makeSymbolicTensor(1, DataType::Int32);
  TensorView* out_off = makeSymbolicTensor(1, DataType::Int32);
  fusion.addInput(inp);
  fusion.addInput(in_off);
  fusion.addInput(out_off);
  TensorView* in_off1 = add(in_off, constInt(1, DataType::Int32));
  TensorView* out_off1 = add(out_off, constInt(1, DataType::Int32));
  TensorView* cache = set(inp);
  TensorView* out = preprocessGroupedMatmulInputSf(cache, in_off1, out_off1);
  fusion.addOutput(out);
  inlineMost();
  EXPECT_EQ(cache->computeAtPosition(), 2);
  EXPECT_EQ(in_off1->computeAtPosition(), 0);
  EXPECT_EQ(out_off1->computeAtPosition(), 0);
}

// inlineMost(tvs) inlines only the tensors given.
TEST(Inlining, InlineMostOfGivenTensors) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t1);
  TensorView* t3 = relu(t2);
  fusion.addOutput(t3);
  inlineMost({t1});
  EXPECT_EQ(t1->computeAtPosition(), 2);
  EXPECT_EQ(t2->computeAtPosition(), 0);
}

// A chain T1 -> T2 -> T3 (reference): T1 and T3 split by 8, T2 by 4. inlineAllAt(T3, 2) asks
// T1 for position 2 (its axes map to T3's first two), but T1 shares only axis 0 with T2.
struct MixedSplits {
  TensorView* t0 = makeSymbolicTensor(2);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t1);
  TensorView* t3 = relu(t2);
  explicit MixedSplits(Fusion& fusion) {
    fusion.addInput(t0);
    fusion.addOutput(t3);
    t1->split(1, 8);
    t2->split(1, 4);
    t3->split(1, 8);
  }
};

// With best_effort, each tensor goes as deep as it can: T1 and T2 at 1.
TEST(Inlining, InlineAllAtBestEffort) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  MixedSplits c(fusion);
  inlineAllAt(c.t3, 2, /*best_effort=*/true);
  EXPECT_EQ(c.t1->computeAtPosition(), 1);
  EXPECT_EQ(c.t2->computeAtPosition(), 1);
  EXPECT_EQ(c.t3->computeAtPosition(), 0);
}

// Without best_effort, a tensor that cannot reach the mapped position is a user error that
// names it and the axis that does not map.
TEST(Inlining, InlineAllAtRejectsUnmappedAxes) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  MixedSplits c(fusion);
  EXPECT_THAT([&] { inlineAllAt(c.t3, 2); },
              ThrowsMessage<UserError>(
                  HasSubstr("T1_l_float[iS2{i0}, iS8{ceilDiv(i1, 8)}, iS9{8}] cannot be inlined at "
                            "position 2: axis 1 (iS8{ceilDiv(i1, 8)}) does not map to axis 1 "
                            "(iS10{ceilDiv(i1, 4)}) of its consumer")));
  EXPECT_THAT([&] { inlineAllAt(c.t3, 4); },
              ThrowsMessage<UserError>(HasSubstr("inlineAllAt: position 4 of T3_g_float")));
}

// Tensors scheduled alike are inlined at the reference's position, not deeper (inlineMost
// would give 3).
TEST(Inlining, InlineAllAtMapsReferencePosition) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  MixedSplits c(fusion);
  c.t2->domain()->setLoopDomain(c.t2->getLogicalDomain());
  c.t2->split(1, 8);
  inlineAllAt(c.t3, 2);
  EXPECT_EQ(c.t1->computeAtPosition(), 2);
  EXPECT_EQ(c.t2->computeAtPosition(), 2);
  inlineMost();
  EXPECT_EQ(c.t1->computeAtPosition(), 3);
}

}  // namespace
}  // namespace mf
