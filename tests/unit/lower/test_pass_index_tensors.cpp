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

}  // namespace
}  // namespace mf
