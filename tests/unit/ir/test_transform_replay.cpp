// Transform replay (ir/transform_replay.h): a tensor's loop transforms replayed onto its
// producer or consumer through the logical map; the replayed axes are IdModel-mapped to the
// originals, so the two tensors can share loops.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/id_model.h"
#include "ir/transform_replay.h"
#include "minifuser/minifuser.h"

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace mf {
namespace {

// T0 (input) -> T1 = neg -> T2 = exp (output), all [i0, i1].
struct Chain {
  TensorView* t0 = makeSymbolicTensor(2);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t1);
  explicit Chain(Fusion& fusion) {
    fusion.addInput(t0);
    fusion.addOutput(t2);
  }
};

// Every loop axis of `a` is exactly mapped to the axis at the same position of `b`.
void expectSameLoops(const Fusion& fusion, const TensorView* a, const TensorView* b, int64_t n,
                     IdMappingMode mode = IdMappingMode::Exact) {
  IdModel model(fusion);
  for (int64_t i = 0; i < n; ++i)
    EXPECT_TRUE(model.areMapped(a->axis(i), b->axis(i), mode)) << "axis " << i;
}

// merge + split on the consumer, replayed onto the producer: the same extents, fresh axes.
TEST(TransformReplay, PasCMergeSplit) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Chain c(fusion);
  c.t2->merge(0, 1)->split(0, 128);
  EXPECT_EQ(TransformReplay::replayPasC(c.t1, c.t2), 2);
  EXPECT_EQ(c.t1->toString(), "T1_l_float[iS10{ceilDiv(( i0 * i1 ), 128)}, iS11{128}]");
  expectSameLoops(fusion, c.t1, c.t2, 2);
}

// split + reorder on the producer, replayed onto the consumer: the order is the producer's.
TEST(TransformReplay, CasPSplitReorder) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Chain c(fusion);
  c.t1->split(1, 4)->reorder({{2, 0}});
  EXPECT_EQ(TransformReplay::replayCasP(c.t2, c.t1), 3);
  EXPECT_EQ(c.t2->toString(), "T2_g_float[iS9{4}, iS4{i0}, iS8{ceilDiv(i1, 4)}]");
  expectSameLoops(fusion, c.t1, c.t2, 3);
}

// A partial position replays only what the first axes need; the producer's other axes
// follow unsplit. The returned position counts the matching producer axes.
TEST(TransformReplay, PartialPosition) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Chain c(fusion);
  c.t2->split(0, 2)->split(2, 4);
  EXPECT_EQ(TransformReplay::replayPasC(c.t1, c.t2, 2), 2);
  EXPECT_EQ(c.t1->toString(), "T1_l_float[iS10{ceilDiv(i0, 2)}, iS11{2}, iS3{i1}]");
  EXPECT_EQ(TransformReplay::replayPasC(c.t1, c.t2, -2), 3);
  EXPECT_EQ(c.t1->toString(),
            "T1_l_float[iS12{ceilDiv(i0, 2)}, iS13{2}, iS14{ceilDiv(i1, 4)}, iS15{4}]");
  expectSameLoops(fusion, c.t1, c.t2, 4);
}

// A producer's broadcast axis takes the consumer's transforms: [1, N] replayed from a merged
// and split [M, N] shares its loops permissively (not exactly: the extents differ). A merge
// with a broadcast axis is an iteration axis of the other's extent (iS10{i2}).
TEST(TransformReplay, BroadcastProducer) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  TensorView* t1 = makeSymbolicTensor(1);
  fusion.addInput(t0);
  fusion.addInput(t1);
  TensorView* t2 = broadcast(t1, {true, false});
  TensorView* t3 = add(t0, t2);
  fusion.addOutput(t3);
  t3->merge(0, 1)->split(0, 128);
  TransformReplay::replayPasC(t2, t3);
  EXPECT_EQ(t2->toString(), "T2_l_float[iS11{ceilDiv(i2, 128)}, iS12{128}]");
  expectSameLoops(fusion, t2, t3, 2, IdMappingMode::Permissive);
  IdModel model(fusion);
  EXPECT_FALSE(model.areMapped(t2->axis(0), t3->axis(0), IdMappingMode::Exact));
  // Across the BroadcastOp, the merge with the new axis is left out: T1 is split alone.
  EXPECT_EQ(TransformReplay::replayPasC(t1, t2), 2);
  EXPECT_EQ(t1->toString(), "T1_g_float[iS13{ceilDiv(i2, 128)}, iS14{128}]");
}

// Replayed onto a BroadcastOp's output, the new axis (no producer counterpart) comes last.
TEST(TransformReplay, CasPBroadcastNewAxisLast) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = broadcast(t1, {true, false});
  fusion.addOutput(t2);
  t1->split(0, 4);
  EXPECT_EQ(TransformReplay::replayCasP(t2, t1), 2);
  EXPECT_EQ(t2->toString(), "T2_g_float[iS6{ceilDiv(i0, 4)}, iS7{4}, bS2{1}]");
}

// Parallel types are not copied: the replayed axes are serial.
TEST(TransformReplay, ParallelTypesAreNotCopied) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Chain c(fusion);
  c.t2->split(1, 32)->parallelize(0, ParallelType::BIDx)->parallelize(2, ParallelType::TIDx);
  TransformReplay::replayPasC(c.t1, c.t2);
  EXPECT_EQ(c.t1->toString(), "T1_l_float[iS2{i0}, iS8{ceilDiv(i1, 32)}, iS9{32}]");
}

// The layout op's declared allocation domain is kept by a replay onto its output; a loop
// over that allocation domain (gather form) is not replayed.
TEST(TransformReplay, LayoutOpAllocationIsKept) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* in = makeSymbolicTensor(2);
  TensorView* in_off = makeSymbolicTensor(1, DataType::Int32);
  TensorView* out_off = makeSymbolicTensor(1, DataType::Int32);
  fusion.addInput(in);
  fusion.addInput(in_off);
  fusion.addInput(out_off);
  TensorView* out = preprocessGroupedMatmulInputSf(in, in_off, out_off);
  fusion.addOutput(out);
  std::vector<IterDomain*> alloc = out->getMaybeAllocationDomain();
  in->split(1, 4);
  TransformReplay::replayCasP(out, in);
  EXPECT_EQ(out->nDims(), 3);
  EXPECT_TRUE(out->domain()->allocationDeclared());
  EXPECT_EQ(out->getMaybeAllocationDomain(), alloc);
  out->setLoopDomain(out->getMaybeAllocationDomain());
  EXPECT_THAT([&] { TransformReplay::replayCasP(out, in); },
              ThrowsMessage<UserError>(
                  HasSubstr("a loop domain over a declared allocation domain is not replayed")));
}

// A position outside [-(n+1), n] is a user error naming both tensors.
TEST(TransformReplay, PositionOutOfRange) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Chain c(fusion);
  EXPECT_THAT([&] { TransformReplay::replayPasC(c.t1, c.t2, 3); },
              ThrowsMessage<UserError>(HasSubstr(
                  "replay onto T1_l_float[iS2{i0}, iS3{i1}]: position 3 of T2_g_float[iS4{i0}, "
                  "iS5{i1}] is out of range [-3, 2]")));
}

}  // namespace
}  // namespace mf
