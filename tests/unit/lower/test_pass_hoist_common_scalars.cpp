// hoistCommonScalars: a LET at the start of each printed scope (the kernel body, a serial
// loop's body, a branch) for every computed scalar used twice in it whose loop indices are
// open there; codegen writes the later uses by its name.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "codegen/codegen.h"
#include "minifuser/minifuser.h"
#include "scheduler/tools/inlining.h"
#include "unit/lower/lower_test_utils.h"

namespace mf {
namespace {

using testing::checkPass;
using testing::checkPassUnchanged;
using ::testing::HasSubstr;

// T0's row offset is read by both serial loops: one LET in the kernel body (a block index
// opens no scope), none inside the loops.
TEST(HoistCommonScalars, IndexUsedTwiceIsDeclaredOnce) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigConcreteTensor({-1, 4});
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t0);
  TensorView* t3 = add(t1, t2);
  fusion.addOutput(t3);
  for (TensorView* tv : {t1, t2, t3}) tv->axis(0)->parallelize(ParallelType::BIDx);
  t1->inlineAt(2);
  t2->inlineAt(1);
  EXPECT_TRUE(checkPass(fusion, "hoistCommonScalars", R"(
%kernel {
  LET i13 = ( ((mf_index_t)blockIdx.x) * T0.stride[0] )
  FOR ((mf_index_t)blockIdx.x) in iblockIdx.x4{i0}:
    T2_l_float[iblockIdx.x4{i0}, iS5{4}] ca_pos( 1 ) = ALLOCATE(size = 4, mem = l)
    FOR i6 in iS5{4}:
      T2[i6] = exp(T0[( ( ((mf_index_t)blockIdx.x) * T0.stride[0] ) + i6 )])
    FOR i7 in iS3{4}:
      T1_l_float[iblockIdx.x2{i0}, iS3{4}] ca_pos( 2 ) = ALLOCATE(size = 1, mem = l)
      T1[0] = -T0[( ( ((mf_index_t)blockIdx.x) * T0.stride[0] ) + i7 )]
      T3[( ( ((mf_index_t)blockIdx.x) * T3.stride[0] ) + i7 )] = T1[0] + T2[i7]
} // %kernel
)"));
}

// Inside the second loop T0 is read twice at i23 = ( i15 + i8 ): declared in that loop's
// body, where i8 exists, and not in the kernel body; the outer i15 is not declared again.
TEST(HoistCommonScalars, InnerLoopIndexIsDeclaredInItsLoop) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigConcreteTensor({-1, 4});
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t0);
  TensorView* t3 = add(t1, t2);
  TensorView* t4 = add(t3, t0);
  fusion.addOutput(t4);
  for (TensorView* tv : {t1, t2, t3, t4}) tv->axis(0)->parallelize(ParallelType::BIDx);
  t1->inlineAt(2);
  t3->inlineAt(2);
  t2->inlineAt(1);
  EXPECT_TRUE(checkPass(fusion, "hoistCommonScalars", R"(
%kernel {
  LET i15 = ( ((mf_index_t)blockIdx.x) * T0.stride[0] )
  FOR ((mf_index_t)blockIdx.x) in iblockIdx.x4{i0}:
    T2_l_float[iblockIdx.x4{i0}, iS5{4}] ca_pos( 1 ) = ALLOCATE(size = 4, mem = l)
    FOR i7 in iS5{4}:
      T2[i7] = exp(T0[( ( ((mf_index_t)blockIdx.x) * T0.stride[0] ) + i7 )])
    FOR i8 in iS3{4}:
      LET i23 = ( ( ((mf_index_t)blockIdx.x) * T0.stride[0] ) + i8 )
      T3_l_float[iblockIdx.x6{i0}, iS7{4}] ca_pos( 2 ) = ALLOCATE(size = 1, mem = l)
      T1_l_float[iblockIdx.x2{i0}, iS3{4}] ca_pos( 2 ) = ALLOCATE(size = 1, mem = l)
      T1[0] = -T0[( ( ((mf_index_t)blockIdx.x) * T0.stride[0] ) + i8 )]
      T3[0] = T1[0] + T2[i8]
      T4[( ( ((mf_index_t)blockIdx.x) * T4.stride[0] ) + i8 )] = T3[0] + T0[( ( ((mf_index_t)blockIdx.x) * T0.stride[0] ) + i8 )]
} // %kernel
)"));
}

// Nested scopes: blockIdx.x * 128 starts the index of both serial loops (declared in the
// kernel body); each loop declares its own index, which reads the loop's index, and the
// predicate, tested once per branch, is not declared in the branches.
TEST(HoistCommonScalars, NestedScopes) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t1);
  fusion.addOutput(t2);
  for (TensorView* tv : {t1, t2}) {
    tv->split(0, 128)->split(1, 32);
    tv->axis(0)->parallelize(ParallelType::BIDx);
    tv->axis(2)->parallelize(ParallelType::TIDx);
  }
  t1->inlineAt(1);
  EXPECT_TRUE(checkPass(fusion, "hoistCommonScalars", R"(
%kernel {
  LET i20 = ( ((mf_index_t)blockIdx.x) * 128 )
  FOR ((mf_index_t)blockIdx.x) in iblockIdx.x3{ceilDiv(i0, 128)}:
    T1_l_float[iblockIdx.x3{ceilDiv(i0, 128)}, iS5{4}, ithreadIdx.x6{32}] ca_pos( 1 ) = ALLOCATE(size = 4, mem = l)
    FOR i12 in iS5{4}:
      LET i21 = ( ( ((mf_index_t)blockIdx.x) * 128 ) + ( ( i12 * 32 ) + ((mf_index_t)threadIdx.x) ) )
      FOR ((mf_index_t)threadIdx.x) in ithreadIdx.x6{32}:
        IF ( ( ( ((mf_index_t)blockIdx.x) * 128 ) + ( ( i12 * 32 ) + ((mf_index_t)threadIdx.x) ) ) < i0 ):
          T1[i12] = -T0[( ( ((mf_index_t)blockIdx.x) * 128 ) + ( ( i12 * 32 ) + ((mf_index_t)threadIdx.x) ) )]
    FOR i14 in iS9{4}:
      LET i29 = ( ( ((mf_index_t)blockIdx.x) * 128 ) + ( ( i14 * 32 ) + ((mf_index_t)threadIdx.x) ) )
      FOR ((mf_index_t)threadIdx.x) in ithreadIdx.x10{32}:
        IF ( ( ( ((mf_index_t)blockIdx.x) * 128 ) + ( ( i14 * 32 ) + ((mf_index_t)threadIdx.x) ) ) < i0 ):
          T2[( ( ((mf_index_t)blockIdx.x) * 128 ) + ( ( i14 * 32 ) + ((mf_index_t)threadIdx.x) ) )] = exp(T1[i14])
} // %kernel
)"));
  // Codegen declares them and writes the later uses by name.
  EXPECT_THAT(generateCuda(*lowerFusion(fusion), "").kernel_code, HasSubstr(R"(
  const mf_index_t i20 = (((mf_index_t)blockIdx.x) * 128);
  alignas(16) float T1[4];
  for (mf_index_t i12 = 0; i12 < 4; ++i12) {
    const mf_index_t i21 = (i20 + ((i12 * 32) + ((mf_index_t)threadIdx.x)));
    if ((i21 < T0.size[0])) {
      T1[i12] = mf_neg(T0[i21]);
    }
  }
  for (mf_index_t i14 = 0; i14 < 4; ++i14) {
    const mf_index_t i29 = (i20 + ((i14 * 32) + ((mf_index_t)threadIdx.x)));
    if ((i29 < T0.size[0])) {
      T2[i29] = mf_exp(T1[i14]);
    }
  }
)"));
}

// The two guards test distinct predicate scalars that print the same: one value, one LET
// (with the index it reads), in the loop whose index they read.
TEST(HoistCommonScalars, EqualPrintedFormsAreOneValue) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t1);
  fusion.addOutput(t2);
  for (TensorView* tv : {t1, t2}) {
    tv->split(0, 128)->split(1, 32);
    tv->axis(0)->parallelize(ParallelType::BIDx);
    tv->axis(2)->parallelize(ParallelType::TIDx);
  }
  inlineMost();
  std::unique_ptr<Kernel> kernel = lowerFusion(fusion);
  auto* loop = kernel->body().exprs().at(0)->as<ForLoop>()->body().exprs().at(0)->as<ForLoop>();
  auto* threads = loop->body().exprs().back()->as<ForLoop>();
  Val* load_guard = threads->body().exprs().at(1)->as<IfThenElse>()->cond();
  Val* store_guard = threads->body().exprs().at(2)->as<IfThenElse>()->cond();
  EXPECT_NE(load_guard, store_guard);
  EXPECT_TRUE(checkPass(fusion, "hoistCommonScalars", R"(
%kernel {
  FOR ((mf_index_t)blockIdx.x) in iblockIdx.x3{ceilDiv(i0, 128)}:
    FOR i11 in iS5{4}:
      LET i17 = ( ( ((mf_index_t)blockIdx.x) * 128 ) + ( ( i11 * 32 ) + ((mf_index_t)threadIdx.x) ) )
      LET b33 = ( ( ( ((mf_index_t)blockIdx.x) * 128 ) + ( ( i11 * 32 ) + ((mf_index_t)threadIdx.x) ) ) < i0 )
      FOR ((mf_index_t)threadIdx.x) in ithreadIdx.x6{32}:
        T1_l_float[iblockIdx.x3{ceilDiv(i0, 128)}, iS5{4}, ithreadIdx.x6{32}] ca_pos( 3 ) = ALLOCATE(size = 1, mem = l)
        IF ( ( ( ((mf_index_t)blockIdx.x) * 128 ) + ( ( i11 * 32 ) + ((mf_index_t)threadIdx.x) ) ) < i0 ):
          T1[0] = -T0[( ( ((mf_index_t)blockIdx.x) * 128 ) + ( ( i11 * 32 ) + ((mf_index_t)threadIdx.x) ) )]
        IF ( ( ( ((mf_index_t)blockIdx.x) * 128 ) + ( ( i11 * 32 ) + ((mf_index_t)threadIdx.x) ) ) < i0 ):
          T2[( ( ((mf_index_t)blockIdx.x) * 128 ) + ( ( i11 * 32 ) + ((mf_index_t)threadIdx.x) ) )] = exp(T1[0])
} // %kernel
)"));
}

// Nothing computed twice: the pass changes nothing.
TEST(HoistCommonScalars, NothingSharedNothingDeclared) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  fusion.addOutput(t1);
  t1->axis(0)->parallelize(ParallelType::BIDx);
  EXPECT_TRUE(checkPassUnchanged(fusion, "hoistCommonScalars"));
}

}  // namespace
}  // namespace mf
