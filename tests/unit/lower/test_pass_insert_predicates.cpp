// insertPredicates: a compute expr is guarded by `logical index < extent` for each logical
// axis its loops can overrun (a split not provably divisible), and by `index < extent` for
// each parallel loop whose dimension is launched wider (another tensor binds it to a
// different extent).
#include <gtest/gtest.h>

#include "minifuser/minifuser.h"
#include "unit/lower/lower_test_utils.h"

namespace mf {
namespace {

using testing::checkPass;
using testing::checkPassUnchanged;

// split(0, 96) of a symbolic extent: the last block overruns, so b * 96 + t < i0 guards it.
TEST(InsertPredicates, NonDivisibleSplitIsGuarded) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = sin(t0);
  fusion.addOutput(t1);
  t1->split(0, 96);
  t1->axis(0)->parallelize(ParallelType::BIDx);
  t1->axis(1)->parallelize(ParallelType::TIDx);

  EXPECT_TRUE(checkPass(fusion, "insertPredicates", R"(
%kernel {
  FOR ((mf_index_t)blockIdx.x) in iblockIdx.x2{ceilDiv(i0, 96)}:
    FOR ((mf_index_t)threadIdx.x) in ithreadIdx.x3{96}:
      IF ( ( ( ((mf_index_t)blockIdx.x) * 96 ) + ((mf_index_t)threadIdx.x) ) < i0 ):
        T1[( ( ((mf_index_t)blockIdx.x) * 96 ) + ((mf_index_t)threadIdx.x) )] = sin(T0[( ( ((mf_index_t)blockIdx.x) * 96 ) + ((mf_index_t)threadIdx.x) )])
} // %kernel
)"));
}

// Regression: split(1, 4) of the constant extent 16 is divisible, the loops cannot overrun
// and no predicate is emitted (the pass used to guard it with (i * 4 + j) < 16).
TEST(InsertPredicates, DivisibleConstantSplitIsNotGuarded) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigConcreteTensor({8, 16});
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  fusion.addOutput(t1);
  t1->split(1, 4);

  EXPECT_TRUE(checkPassUnchanged(fusion, "insertPredicates"));
}

// split(1, 4) of the constant extent 18 is not divisible: guarded, with the constant.
TEST(InsertPredicates, NonDivisibleConstantSplitIsGuarded) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigConcreteTensor({8, 18});
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  fusion.addOutput(t1);
  t1->split(1, 4);

  EXPECT_TRUE(checkPass(fusion, "insertPredicates", R"(
%kernel {
  FOR i4 in iS2{8}:
    FOR i5 in iS4{5}:
      FOR i6 in iS5{4}:
        IF ( ( ( i5 * 4 ) + i6 ) < 18 ):
          T1[( ( i4 * T1.stride[0] ) + ( ( i5 * 4 ) + i6 ) )] = -T0[( ( i4 * T0.stride[0] ) + ( ( i5 * 4 ) + i6 ) )]
} // %kernel
)"));
}

// merge then split: only the merged axis's outer logical index (flat / i1) can overrun; the
// inner one (flat % i1) never does. `flat / i1 < i0` is checked as `flat < i0 * i1` (no
// division); the contiguous operands are addressed by `flat` itself.
TEST(InsertPredicates, MergedAxesGuardOnlyTheOuter) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  fusion.addOutput(t1);
  t1->merge(0)->split(0, 128);
  t1->axis(0)->parallelize(ParallelType::BIDx);
  t1->axis(1)->parallelize(ParallelType::TIDx);

  EXPECT_TRUE(checkPass(fusion, "insertPredicates", R"(
%kernel {
  FOR ((mf_index_t)blockIdx.x) in iblockIdx.x5{ceilDiv(( i0 * i1 ), 128)}:
    FOR ((mf_index_t)threadIdx.x) in ithreadIdx.x6{128}:
      IF ( ( ( ((mf_index_t)blockIdx.x) * 128 ) + ((mf_index_t)threadIdx.x) ) < ( i0 * i1 ) ):
        T1[( ( ((mf_index_t)blockIdx.x) * 128 ) + ((mf_index_t)threadIdx.x) )] = -T0[( ( ((mf_index_t)blockIdx.x) * 128 ) + ((mf_index_t)threadIdx.x) )]
} // %kernel
)"));
}

// Loops over the logical axes themselves, each hardware dimension bound to one extent:
// nothing can overrun, no predicate.
TEST(InsertPredicates, LoopsOverLogicalAxesAreNotGuarded) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = abs(t0);
  fusion.addOutput(t1);
  t1->axis(0)->parallelize(ParallelType::BIDx);
  t1->axis(1)->parallelize(ParallelType::TIDx);

  EXPECT_TRUE(checkPassUnchanged(fusion, "insertPredicates"));
}

// Two tensors bind TIDx to extents i0 and i1: the block is as wide as the larger, so each
// expr is guarded by threadIdx.x < its own extent, once (the pass used to emit the same
// comparison twice).
TEST(InsertPredicates, ParallelDimBoundToTwoExtents) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  TensorView* t1 = makeContigTensor(1);
  fusion.addInput(t0);
  fusion.addInput(t1);
  TensorView* t2 = neg(t0);
  TensorView* t3 = exp(t1);
  fusion.addOutput(t2);
  fusion.addOutput(t3);
  t2->axis(0)->parallelize(ParallelType::TIDx);
  t3->axis(0)->parallelize(ParallelType::TIDx);

  EXPECT_TRUE(checkPass(fusion, "insertPredicates", R"(
%kernel {
  FOR ((mf_index_t)threadIdx.x) in ithreadIdx.x2{i0}:
    IF ( ((mf_index_t)threadIdx.x) < i0 ):
      T2[((mf_index_t)threadIdx.x)] = -T0[((mf_index_t)threadIdx.x)]
  FOR ((mf_index_t)threadIdx.x) in ithreadIdx.x3{i1}:
    IF ( ((mf_index_t)threadIdx.x) < i1 ):
      T3[((mf_index_t)threadIdx.x)] = exp(T1[((mf_index_t)threadIdx.x)])
} // %kernel
)"));
}

// TIDx bound to 128 (a split) and to 64: the threads past 64 would compute elements of other
// blocks' range, so the 64-wide expr gets threadIdx.x < 64 besides its bounds check, and the
// 128-wide one threadIdx.x < 128.
TEST(InsertPredicates, SplitParallelDimBoundToTwoExtents) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  TensorView* t1 = makeContigTensor(1);
  fusion.addInput(t0);
  fusion.addInput(t1);
  TensorView* t2 = neg(t0);
  TensorView* t3 = exp(t1);
  fusion.addOutput(t2);
  fusion.addOutput(t3);
  t2->split(0, 128);
  t3->split(0, 64);
  for (TensorView* tv : {t2, t3}) {
    tv->axis(0)->parallelize(ParallelType::BIDx);
    tv->axis(1)->parallelize(ParallelType::TIDx);
  }

  EXPECT_TRUE(checkPass(fusion, "insertPredicates", R"(
%kernel {
  FOR ((mf_index_t)blockIdx.x) in iblockIdx.x4{ceilDiv(i0, 128)}:
    FOR ((mf_index_t)threadIdx.x) in ithreadIdx.x5{128}:
      IF ( ( ( ( ( ((mf_index_t)blockIdx.x) * 128 ) + ((mf_index_t)threadIdx.x) ) < i0 ) && ( ((mf_index_t)blockIdx.x) < ceilDiv(i0, 128) ) ) && ( ((mf_index_t)threadIdx.x) < 128 ) ):
        T2[( ( ((mf_index_t)blockIdx.x) * 128 ) + ((mf_index_t)threadIdx.x) )] = -T0[( ( ((mf_index_t)blockIdx.x) * 128 ) + ((mf_index_t)threadIdx.x) )]
  FOR ((mf_index_t)blockIdx.x) in iblockIdx.x6{ceilDiv(i1, 64)}:
    FOR ((mf_index_t)threadIdx.x) in ithreadIdx.x7{64}:
      IF ( ( ( ( ( ((mf_index_t)blockIdx.x) * 64 ) + ((mf_index_t)threadIdx.x) ) < i1 ) && ( ((mf_index_t)blockIdx.x) < ceilDiv(i1, 64) ) ) && ( ((mf_index_t)threadIdx.x) < 64 ) ):
        T3[( ( ((mf_index_t)blockIdx.x) * 64 ) + ((mf_index_t)threadIdx.x) )] = exp(T1[( ( ((mf_index_t)blockIdx.x) * 64 ) + ((mf_index_t)threadIdx.x) )])
} // %kernel
)"));
}

// The helper itself: a mismatch reports the pass's input, its output and the expected text;
// checkPassUnchanged fails when the pass changes the IR.
TEST(CheckPass, FailureShowsInputOutputAndExpected) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  fusion.addOutput(neg(t0));
  ::testing::AssertionResult r = checkPass(fusion, "generateLoopNests", "%kernel {\n}\n");
  ASSERT_FALSE(r);
  EXPECT_EQ(std::string(r.message()), R"(generateLoopNests on
%kernel {
} // %kernel
gave
%kernel {
  FOR i1 in iS1{i0}:
    T1_g_float[iS1{i0}] = -T0
} // %kernel
but expected
%kernel {
}
)");
  EXPECT_FALSE(checkPassUnchanged(fusion, "generateLoopNests"));
  EXPECT_TRUE(checkPassUnchanged(fusion, "analyzeKernel"));
}

}  // namespace
}  // namespace mf
