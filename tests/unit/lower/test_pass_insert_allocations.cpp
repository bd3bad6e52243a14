// insertAllocations: a register buffer for every non-global tensor, declared first in the
// scope at its compute-at depth, sized by its loop axes right of that depth that are not
// bound to threads or blocks.
#include <gtest/gtest.h>

#include "minifuser/minifuser.h"
#include "unit/lower/lower_test_utils.h"

namespace mf {
namespace {

using testing::checkPass;
using testing::checkPassUnchanged;

// Inlined at 2 of [i0, ceilDiv(i1, 4), 4]: the buffer is declared in the second loop and
// holds the 4 elements of the serial axis right of it; the global output gets none.
TEST(InsertAllocations, AtComputeAtDepthSizedBySerialAxes) {
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

  EXPECT_TRUE(checkPass(fusion, "insertAllocations", R"(
%kernel {
  FOR i8 in iS2{i0}:
    FOR i9 in iS6{ceilDiv(i1, 4)}:
      T1_l_float[iS2{i0}, iS6{ceilDiv(i1, 4)}, iS7{4}] ca_pos( 2 ) = ALLOCATE(size = 4, mem = l)
      FOR i10 in iS7{4}:
        T1_l_float[iS2{i0}, iS6{ceilDiv(i1, 4)}, iS7{4}] ca_pos( 2 ) = -T0
      FOR i11 in iS9{4}:
        T2_g_float[iS4{i0}, iS8{ceilDiv(i1, 4)}, iS9{4}] = exp(T1)
} // %kernel
)"));
}

// At compute-at position 0 the buffer is declared at the top of the kernel and holds every
// element of its (constant, serial) loop axes.
TEST(InsertAllocations, AtComputeAtZeroHoldsWholeTensor) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeConcreteTensor({4, 8});
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t1);
  fusion.addOutput(t2);

  EXPECT_TRUE(checkPass(fusion, "insertAllocations", R"(
%kernel {
  T1_l_float[iS2{4}, iS3{8}] = ALLOCATE(size = 32, mem = l)
  FOR i5 in iS2{4}:
    FOR i6 in iS3{8}:
      T1_l_float[iS2{4}, iS3{8}] = -T0
  FOR i7 in iS4{4}:
    FOR i8 in iS5{8}:
      T2_g_float[iS4{4}, iS5{8}] = exp(T1)
} // %kernel
)"));
}

// [BIDx, serial 4, TIDx] inlined at 1: declared inside the BIDx loop with 4 elements; the
// TIDx axis is excluded (each thread holds its own element).
TEST(InsertAllocations, ThreadAxesExcluded) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t1);
  fusion.addOutput(t2);
  for (TensorView* tv : {t1, t2}) {
    tv->split(0, 128)->split(0, 4);
    tv->axis(0)->parallelize(ParallelType::BIDx);
    tv->axis(2)->parallelize(ParallelType::TIDx);
  }
  t1->inlineAt(1);

  EXPECT_TRUE(checkPass(fusion, "insertAllocations", R"(
%kernel {
  FOR ((mf_index_t)blockIdx.x) in iblockIdx.x5{ceilDiv(ceilDiv(i0, 128), 4)}:
    T1_l_float[iblockIdx.x5{ceilDiv(ceilDiv(i0, 128), 4)}, iS6{4}, ithreadIdx.x4{128}] ca_pos( 1 ) = ALLOCATE(size = 4, mem = l)
    FOR i12 in iS6{4}:
      FOR ((mf_index_t)threadIdx.x) in ithreadIdx.x4{128}:
        T1_l_float[iblockIdx.x5{ceilDiv(ceilDiv(i0, 128), 4)}, iS6{4}, ithreadIdx.x4{128}] ca_pos( 1 ) = -T0
    FOR i14 in iS10{4}:
      FOR ((mf_index_t)threadIdx.x) in ithreadIdx.x8{128}:
        T2_g_float[iblockIdx.x9{ceilDiv(ceilDiv(i0, 128), 4)}, iS10{4}, ithreadIdx.x8{128}] = exp(T1)
} // %kernel
)"));
}

// [TIDx, Unroll 2, Vectorize 4] inlined at 1: the unrolled and vectorized axes are held in
// registers, 2 * 4 = 8 elements.
TEST(InsertAllocations, UnrollAndVectorizeAxesCounted) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = set(t0);
  TensorView* t2 = neg(t1);
  fusion.addOutput(t2);
  for (TensorView* tv : {t1, t2}) {
    tv->split(0, 4)->split(0, 2);
    tv->axis(0)->parallelize(ParallelType::TIDx);
    tv->axis(1)->parallelize(ParallelType::Unroll);
  }
  t1->axis(2)->parallelize(ParallelType::Vectorize);
  t1->inlineAt(1);

  EXPECT_TRUE(checkPass(fusion, "insertAllocations", R"(
%kernel {
  FOR ((mf_index_t)threadIdx.x) in ithreadIdx.x5{ceilDiv(ceilDiv(i0, 4), 2)}:
    T1_l_float[ithreadIdx.x5{ceilDiv(ceilDiv(i0, 4), 2)}, iUR6{2}, iV4{4}] ca_pos( 1 ) = ALLOCATE(size = 8, mem = l)
    FOR i13 in iUR6{2}:
      FOR i14 in iV4{4}:
        T1_l_float[ithreadIdx.x5{ceilDiv(ceilDiv(i0, 4), 2)}, iUR6{2}, iV4{4}] ca_pos( 1 ) = set(T0)
    FOR i15 in iUR10{2}:
      FOR i16 in iS8{4}:
        T2_g_float[ithreadIdx.x9{ceilDiv(ceilDiv(i0, 4), 2)}, iUR10{2}, iS8{4}] = -T1
} // %kernel
)"));
}

}  // namespace
}  // namespace mf
