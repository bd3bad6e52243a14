// Lowering of serial reductions: `acc = init` before the first reduction loop (indexTensors),
// the step `acc = op(acc, in)` inside, bounds of a partial tile on the reduction axis guard
// the step but never the init (insertPredicates), an rfactor tensor read at its root indices,
// and validateSchedule's rules for reduction loops.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "minifuser/minifuser.h"
#include "unit/lower/lower_test_utils.h"

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace mf {
namespace {

using testing::checkPass;
using testing::irAfter;

// A column sum with threads along the kept axis: T1 = 0 before the serial loop over the
// reduced axis, whose steps are guarded by the thread's bound like any write of T1.
TEST(LowerReduction, SerialLoopAfterInit) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = sum(t0, {0});
  fusion.addOutput(t1);
  t1->reorder({{0, 1}})->split(0, 128);
  t1->axis(0)->parallelize(ParallelType::BIDx);
  t1->axis(1)->parallelize(ParallelType::TIDx);

  EXPECT_TRUE(checkPass(fusion, "insertPredicates", R"(
%kernel {
  FOR ((mf_index_t)blockIdx.x) in iblockIdx.x4{ceilDiv(i1, 128)}:
    FOR ((mf_index_t)threadIdx.x) in ithreadIdx.x5{128}:
      IF ( ( ( ((mf_index_t)blockIdx.x) * 128 ) + ((mf_index_t)threadIdx.x) ) < i1 ):
        T1[( ( ((mf_index_t)blockIdx.x) * 128 ) + ((mf_index_t)threadIdx.x) )] = set(0.0)
      FOR i7 in rS2{i0}:
        IF ( ( ( ((mf_index_t)blockIdx.x) * 128 ) + ((mf_index_t)threadIdx.x) ) < i1 ):
          T1[( ( ((mf_index_t)blockIdx.x) * 128 ) + ((mf_index_t)threadIdx.x) )] = reduction(T0[( ( i7 * T0.stride[0] ) + ( ( ((mf_index_t)blockIdx.x) * 128 ) + ((mf_index_t)threadIdx.x) ) )], op = add, initial = 0.0)
} // %kernel
)"));
}

// rFactor by 4 of a row of 10: the rfactor tensor T2 keeps one partial sum per i7 in a
// register, reads T0 at its root index i8 * 4 + i7, and the partial tile (i8 = 2, i7 >= 2) is
// skipped: the identity stands for the missing elements. Neither init is guarded.
TEST(LowerReduction, RFactorPartialTile) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigConcreteTensor({-1, 10});
  fusion.addInput(t0);
  TensorView* t1 = sum(t0, {1});
  fusion.addOutput(t1);
  t1->split(1, 4);
  TensorView* rf = t1->rFactor({1});
  rf->reorder({{1, 2}});
  inlineMost();

  EXPECT_TRUE(checkPass(fusion, "insertPredicates", R"(
%kernel {
  FOR i6 in iS6{i0}:
    T1[i6] = set(0.0)
    FOR i7 in iS9{4}:
      T2_l_float[iS6{i0}, iS9{4}, rS8{3}] ca_pos( 2 ) = ALLOCATE(size = 1, mem = l)
      T2[0] = set(0.0)
      FOR i8 in rS8{3}:
        IF ( ( ( i8 * 4 ) + i7 ) < 10 ):
          T2[0] = reduction(T0[( ( i6 * T0.stride[0] ) + ( ( i8 * 4 ) + i7 ) )], op = add, initial = 0.0)
      T1[i6] = reduction(T2[0], op = add, initial = 0.0)
} // %kernel
)"));
}

auto validate(const Fusion& fusion) {
  return [&fusion] { irAfter(fusion, "validateSchedule"); };
}

// A reduction across blockIdx.x (only blockIdx.y is a grid reduction) is refused.
TEST(LowerReduction, ReductionAcrossBlockIdxXIsRefused) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = sum(t0, {1});
  fusion.addOutput(t1);
  t1->axis(1)->parallelize(ParallelType::BIDx);
  EXPECT_THAT(validate(fusion),
              ThrowsMessage<UserError>(HasSubstr(
                  "T1_g_float[iS2{i0}, rblockIdx.x3{i1}]: reduction axis rblockIdx.x3{i1} is "
                  "bound to blockIdx.x; reductions are serial, across threadIdx.x or "
                  "threadIdx.y, or across blockIdx.y")));
}

// A grid reduction combines one all-reduced value per block: it needs a thread axis too, and
// no loop may enclose it (the blocks that do not finish it return there).
TEST(LowerReduction, GridReductionRules) {
  {
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* t0 = makeSymbolicTensor(2);
    fusion.addInput(t0);
    TensorView* t1 = sum(t0, {1});
    fusion.addOutput(t1);
    t1->axis(0)->parallelize(ParallelType::BIDx);
    t1->axis(1)->parallelize(ParallelType::BIDy);
    EXPECT_THAT(validate(fusion), ThrowsMessage<UserError>(HasSubstr(
                                      "a grid reduction must also reduce across threadIdx.x or "
                                      "threadIdx.y")));
  }
  {
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* t0 = makeSymbolicTensor(2);
    fusion.addInput(t0);
    TensorView* t1 = sum(t0, {1});
    fusion.addOutput(t1);
    t1->split(1, 32);
    t1->axis(1)->parallelize(ParallelType::BIDy);
    t1->axis(2)->parallelize(ParallelType::TIDx);
    EXPECT_THAT(validate(fusion),
                ThrowsMessage<UserError>(HasSubstr(
                    "iteration axis iS2{i0} of a grid reduction is a loop; bind every iteration "
                    "axis to a thread or block dimension")));
  }
  {
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* t0 = makeSymbolicTensor(1);
    fusion.addInput(t0);
    TensorView* t1 = sum(t0, {0});
    TensorView* t2 = max(t0, {0});
    fusion.addOutput(t1);
    fusion.addOutput(t2);
    for (TensorView* tv : {t1, t2}) {
      tv->split(0, 32);
      tv->axis(0)->parallelize(ParallelType::BIDy);
      tv->axis(1)->parallelize(ParallelType::TIDx);
    }
    EXPECT_THAT(validate(fusion), ThrowsMessage<UserError>(HasSubstr(
                                      "both reduce across blocks; a kernel holds one grid "
                                      "reduction")));
  }
}

// The blocks that do not finish a grid reduction return from the kernel there: a tensor
// computed beside it (neither feeding it nor computed from it) would be left unwritten.
TEST(LowerReduction, GridReductionOwnsTheKernel) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = sum(t0, {0});
  TensorView* t2 = neg(t0);
  fusion.addOutput(t1);
  fusion.addOutput(t2);
  t1->split(0, 32);
  t1->axis(0)->parallelize(ParallelType::BIDy);
  t1->axis(1)->parallelize(ParallelType::TIDx);
  EXPECT_THAT(validate(fusion),
              ThrowsMessage<UserError>(HasSubstr(
                  "T2_g_float[iS2{i0}] is computed beside the grid reduction T1_g_float[")));
}

// Two thread axes of one reduction are refused: a block reduction reduces across one.
TEST(LowerReduction, TwoThreadAxesAreRefused) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = sum(t0, {0, 1});
  fusion.addOutput(t1);
  t1->axis(0)->parallelize(ParallelType::TIDy);
  t1->axis(1)->parallelize(ParallelType::TIDx);
  EXPECT_THAT(validate(fusion),
              ThrowsMessage<UserError>(HasSubstr("are both bound to threads; a block reduction "
                                                 "reduces across one thread dimension")));
}

// A block reduction works on whole warps: threadIdx.x extents must be constant multiples of 32.
TEST(LowerReduction, BlockReductionNeedsWholeWarps) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = sum(t0, {1});
  fusion.addOutput(t1);
  t1->split(1, 48)->axis(2)->parallelize(ParallelType::TIDx);
  EXPECT_THAT(validate(fusion),
              ThrowsMessage<UserError>(HasSubstr(
                  "T1_g_float[iS2{i0}, rS4{ceilDiv(i1, 48)}, rthreadIdx.x5{48}]: threadIdx.x axis "
                  "rthreadIdx.x5{48} must have a constant extent that is a multiple of 32")));
}

// A block reduction is not wrapped in a predicate (all threads reach its barriers): its read
// predicate selects the input or the identity, and thread 0 writes the global result.
TEST(LowerReduction, BlockReductionPredicatesAreInline) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = sum(t0, {1});
  fusion.addOutput(t1);
  t1->split(1, 64)->axis(2)->parallelize(ParallelType::TIDx);
  EXPECT_TRUE(checkPass(fusion, "insertPredicates", R"(
%kernel {
  FOR i5 in iS2{i0}:
    T1[i5] = set(0.0)
    FOR i6 in rS4{ceilDiv(i1, 64)}:
      FOR ((mf_index_t)threadIdx.x) in rthreadIdx.x5{64}:
        T1[i5] = reduction(T0[( ( i5 * T0.stride[0] ) + ( ( i6 * 64 ) + ((mf_index_t)threadIdx.x) ) )], op = add, initial = 0.0) (read: ( ( ( i6 * 64 ) + ((mf_index_t)threadIdx.x) ) < i1 ), write: ( ((mf_index_t)threadIdx.x) == 0 ))
} // %kernel
)"));
  std::unique_ptr<Kernel> kernel = lowerFusion(fusion, {});
  const std::string code = generateCuda(*kernel, "").kernel_code;
  EXPECT_THAT(code,
              HasSubstr("mf_blockAllReduceX<float>((((i6 * 64) + ((mf_index_t)threadIdx.x)) < "
                        "T0.size[1]) ? T0[((i5 * T0.stride[0]) + ((i6 * 64) + "
                        "((mf_index_t)threadIdx.x)))] : 0.0f, [](float a, float b) { return "
                        "(a + b); }, 0.0f);"));
  EXPECT_THAT(code, HasSubstr(R"(if ((((mf_index_t)threadIdx.x) == 0)) {
          T1[i5] = (T1[i5] + block_result);)"));
}

// A consumer cannot share a serial reduction loop: inside it the result is partial.
TEST(LowerReduction, SerialReductionLoopIsNotShared) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = sum(t0, {1});
  fusion.addOutput(t1);
  t1->split(1, 32);
  TensorView* partial = t1->rFactor({1});
  EXPECT_THAT([&] { partial->inlineAt(2); },
              ThrowsMessage<UserError>(HasSubstr(
                  "axis 1 (rS8{ceilDiv(i1, 32)}) is a serial reduction axis; consumers read the "
                  "result after that loop")));
}

// The init goes before the first reduction loop, so iteration loops must be outside it.
TEST(LowerReduction, IterationAxisInsideReductionIsRefused) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  fusion.addOutput(sum(t0, {0}));
  EXPECT_THAT(validate(fusion),
              ThrowsMessage<UserError>(HasSubstr(
                  "T1_g_float[rS2{i0}, iS3{i1}]: iteration axis iS3{i1} comes after a reduction "
                  "axis; reorder so that the reduction axes are the innermost loops")));
}

}  // namespace
}  // namespace mf
