// indexTensors: every tensor operand becomes a TensorIndex; global tensors are indexed by
// their logical indices dotted with their strides, register tensors by their loop indices
// right of their compute-at position.
#include <gtest/gtest.h>

#include "minifuser/minifuser.h"
#include "unit/lower/lower_test_utils.h"

namespace mf {
namespace {

using testing::checkPass;
using testing::checkPassUnchanged;

// A fully inlined register tensor is indexed [0]; the non-contiguous input uses both of its
// strides, the contiguous output has the literal stride 1 innermost.
TEST(IndexTensors, PointwiseChain) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t1);
  fusion.addOutput(t2);
  inlineMost();

  EXPECT_TRUE(checkPass(fusion, "indexTensors", R"(
%kernel {
  FOR i3 in iS2{i0}:
    FOR i4 in iS3{i1}:
      T1_l_float[iS2{i0}, iS3{i1}] ca_pos( 2 ) = ALLOCATE(size = 1, mem = l)
      T1[0] = -T0[( ( i3 * T0.stride[0] ) + ( i4 * T0.stride[1] ) )]
      T2[( ( i3 * T2.stride[0] ) + i4 )] = exp(T1[0])
} // %kernel
)"));
}

// A split loop nest: the logical index is rebuilt as outer * 4 + inner for the global
// operands; the register tensor inlined at 2, scheduled like its consumer, is written at its
// inner loop index i10 and read at the consumer's, i11 (not (i9 * 4 + i11) % 4).
TEST(IndexTensors, SplitLoopsAndPartialInline) {
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

  EXPECT_TRUE(checkPass(fusion, "indexTensors", R"(
%kernel {
  FOR i8 in iS2{i0}:
    FOR i9 in iS6{ceilDiv(i1, 4)}:
      T1_l_float[iS2{i0}, iS6{ceilDiv(i1, 4)}, iS7{4}] ca_pos( 2 ) = ALLOCATE(size = 4, mem = l)
      FOR i10 in iS7{4}:
        T1[i10] = -T0[( ( i8 * T0.stride[0] ) + ( ( ( i9 * 4 ) + i10 ) * T0.stride[1] ) )]
      FOR i11 in iS9{4}:
        T2[( ( i8 * T2.stride[0] ) + ( ( i9 * 4 ) + i11 ) )] = exp(T1[i11])
} // %kernel
)"));
}

// An outer split (a grid split: factor 4 outside) of a merge with a broadcast axis that the
// consumer iterates: T1's loop runs over i0 * i2 like T3's, so its index steps by
// ceilDiv(i0 * i2, 4), not by its own ceilDiv(i0, 4) (random reduction seed 1635 read the
// wrong elements in every block but the first).
TEST(IndexTensors, OuterSplitOfAMergedBroadcast) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(1);
  TensorView* t2 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  fusion.addInput(t2);
  TensorView* t1 = broadcast(t0, {false, true});
  TensorView* t3 = add(t1, t2);
  fusion.addOutput(t3);
  for (TensorView* tv : {t1, t3}) tv->merge(0)->split(0, 4, /*inner_split=*/false);
  inlineMost();

  EXPECT_TRUE(checkPass(fusion, "indexTensors", R"(
%kernel {
  FOR i10 in iS11{4}:
    FOR i11 in iS12{ceilDiv(( i0 * i2 ), 4)}:
      T2_l_float[iS8{4}, iS9{ceilDiv(i0, 4)}] ca_pos( 2 ) = ALLOCATE(size = 1, mem = l)
      T2[0] = broadcast(T0[( ( ( ( i10 * ceilDiv(( i0 * i2 ), 4) ) + i11 ) / i2 ) * T0.stride[0] )], {false, true})
      T3[( ( i10 * ceilDiv(( i0 * i2 ), 4) ) + i11 )] = T2[0] + T1[( ( ( ( ( i10 * ceilDiv(( i0 * i2 ), 4) ) + i11 ) / i2 ) * T1.stride[0] ) + ( ( ( ( i10 * ceilDiv(( i0 * i2 ), 4) ) + i11 ) % i2 ) * T1.stride[1] ) )]
} // %kernel
)"));
}

}  // namespace
}  // namespace mf
