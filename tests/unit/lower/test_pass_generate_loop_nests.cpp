// generateLoopNests: one loop per loop axis of each tensor expr; a producer computed at
// position p shares its consumers' first p loops.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "minifuser/minifuser.h"
#include "unit/lower/lower_test_utils.h"

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace mf {
namespace {

using testing::checkPass;
using testing::checkPassUnchanged;

// inlineAt(2) of a 3-axis producer: it is computed inside its consumer's first two loops
// and keeps its own innermost loop.
TEST(GenerateLoopNests, InlineAtSharesOuterLoops) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t1);
  fusion.addOutput(t2);
  t1->split(1, 4);
  t2->split(1, 4);
  t1->inlineAt(2);

  EXPECT_TRUE(checkPass(fusion, "generateLoopNests", R"(
%kernel {
  FOR i8 in iS2{i0}:
    FOR i9 in iS6{ceilDiv(i1, 4)}:
      FOR i10 in iS7{4}:
        T1_l_float[iS2{i0}, iS6{ceilDiv(i1, 4)}, iS7{4}] ca_pos( 2 ) = -T0
      FOR i11 in iS9{4}:
        T2_g_float[iS4{i0}, iS8{ceilDiv(i1, 4)}, iS9{4}] = exp(T1)
} // %kernel
)"));
}

// inlineMost on a chain scheduled alike: the producer shares every loop of its consumer.
TEST(GenerateLoopNests, InlineMostSharesAllLoops) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t1);
  fusion.addOutput(t2);
  inlineMost();
  ASSERT_EQ(t1->computeAtPosition(), 2);

  EXPECT_TRUE(checkPass(fusion, "generateLoopNests", R"(
%kernel {
  FOR i3 in iS2{i0}:
    FOR i4 in iS3{i1}:
      T1_l_float[iS2{i0}, iS3{i1}] ca_pos( 2 ) = -T0
      T2_g_float[iS4{i0}, iS5{i1}] = exp(T1)
} // %kernel
)"));
}

// At compute-at position 0 nothing is shared: each expr gets its own loop nest, producer
// first.
TEST(GenerateLoopNests, NoSharingAtComputeAtZero) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeConcreteTensor({4, 8});
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t1);
  fusion.addOutput(t2);
  ASSERT_EQ(t1->computeAtPosition(), 0);

  EXPECT_TRUE(checkPass(fusion, "generateLoopNests", R"(
%kernel {
  FOR i5 in iS2{4}:
    FOR i6 in iS3{8}:
      T1_l_float[iS2{4}, iS3{8}] = -T0
  FOR i7 in iS4{4}:
    FOR i8 in iS5{8}:
      T2_g_float[iS4{4}, iS5{8}] = exp(T1)
} // %kernel
)"));
}

// Two producers inlined into one consumer at position 2 share its two outer loops with it
// and with each other; each keeps its own innermost loop.
TEST(GenerateLoopNests, TwoProducersShareConsumerLoops) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t0);
  TensorView* t3 = add(t1, t2);
  fusion.addOutput(t3);
  for (TensorView* tv : {t1, t2, t3}) tv->split(1, 4);
  t1->inlineAt(2);
  t2->inlineAt(2);

  EXPECT_TRUE(checkPass(fusion, "generateLoopNests", R"(
%kernel {
  FOR i12 in iS2{i0}:
    FOR i13 in iS8{ceilDiv(i1, 4)}:
      FOR i14 in iS9{4}:
        T1_l_float[iS2{i0}, iS8{ceilDiv(i1, 4)}, iS9{4}] ca_pos( 2 ) = -T0
      FOR i15 in iS11{4}:
        T2_l_float[iS4{i0}, iS10{ceilDiv(i1, 4)}, iS11{4}] ca_pos( 2 ) = exp(T0)
      FOR i16 in iS13{4}:
        T3_g_float[iS6{i0}, iS12{ceilDiv(i1, 4)}, iS13{4}] = T1 + T2
} // %kernel
)"));
}

// Regression: T1 (inlined at 2) is emitted before its sibling T2 (inlined at 1), but T2's
// loop must come first: T1 then stays inside the loops it shares with T3 instead of being
// left in a loop of its own that is closed before T3 reads it.
TEST(GenerateLoopNests, ProducerOutsideSharedLoopIsOrderedFirst) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeConcreteTensor({-1, 4});
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t0);
  TensorView* t3 = add(t1, t2);
  fusion.addOutput(t3);
  for (TensorView* tv : {t1, t2, t3}) tv->axis(0)->parallelize(ParallelType::BIDx);
  t1->inlineAt(2);
  t2->inlineAt(1);

  EXPECT_TRUE(checkPass(fusion, "generateLoopNests", R"(
%kernel {
  FOR ((mf_index_t)blockIdx.x) in iblockIdx.x4{i0}:
    FOR i6 in iS5{4}:
      T2_l_float[iblockIdx.x4{i0}, iS5{4}] ca_pos( 1 ) = exp(T0)
    FOR i7 in iS3{4}:
      T1_l_float[iblockIdx.x2{i0}, iS3{4}] ca_pos( 2 ) = -T0
      T3_g_float[iblockIdx.x6{i0}, iS7{4}] = T1 + T2
} // %kernel
)"));
}

// T1 is inlined into both its consumers, so T2 and T4 share its loop; T3, computed outside
// that loop, reads T2 and is read by T4: no loop order exists, a user error (not a kernel
// that reads T3 before writing it).
TEST(GenerateLoopNests, NoValidLoopOrderIsAUserError) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t1);
  TensorView* t3 = abs(t2);
  TensorView* t4 = add(t1, t3);
  fusion.addOutput(t4);
  for (TensorView* tv : {t1, t2, t3, t4}) {
    tv->axis(0)->parallelize(ParallelType::BIDx);
    tv->axis(1)->parallelize(ParallelType::TIDx);
  }
  t1->inlineAt(2);
  EXPECT_THAT([&] { testing::irAfter(fusion, "generateLoopNests"); },
              ThrowsMessage<UserError>(HasSubstr(
                  "generateLoopNests: T4_g_float[iblockIdx.x8{i0}, ithreadIdx.x9{i1}] shares "
                  "loop 0 with T1_l_float[iblockIdx.x2{i0}, ithreadIdx.x3{i1}] ca_pos( 2 ) but "
                  "reads T3_l_float[iblockIdx.x6{i0}, ithreadIdx.x7{i1}], which is computed "
                  "outside that loop from tensors computed inside it; inline "
                  "T3_l_float[iblockIdx.x6{i0}, ithreadIdx.x7{i1}] too")));
}

// Inlined across a broadcast, T2 [1, N] shares T3's loops: the first runs over T3's M (iS5),
// not over T2's broadcast axis of extent 1.
TEST(GenerateLoopNests, BroadcastProducerSharesConsumerLoop) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  TensorView* t1 = makeSymbolicTensor(1);
  fusion.addInput(t0);
  fusion.addInput(t1);
  TensorView* t2 = broadcast(t1, {true, false});
  TensorView* t3 = add(t0, t2);
  fusion.addOutput(t3);
  t2->inlineAt(2);

  EXPECT_TRUE(checkPass(fusion, "generateLoopNests", R"(
%kernel {
  FOR i5 in iS5{i0}:
    FOR i6 in iS4{i2}:
      T2_l_float[bS3{1}, iS4{i2}] ca_pos( 2 ) = broadcast(T1, {true, false})
      T3_g_float[iS5{i0}, iS6{i1}] = T0 + T2
} // %kernel
)"));
}

}  // namespace
}  // namespace mf
