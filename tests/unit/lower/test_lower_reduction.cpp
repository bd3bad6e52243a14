// Lowering of serial reductions: `acc = init` before the first reduction loop (indexTensors),
// the step `acc = op(acc, in)` inside, bounds of a partial tile on the reduction axis guard
// the step but never the init (insertPredicates), an rfactor tensor read at its root indices,
// and validateSchedule's rules for reduction loops.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "minifuser/minifuser.h"
#include "unit/lower/lower_test_utils.h"

using ::testing::HasSubstr;
using ::testing::Not;
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

// A reduction across blockIdx.z (grid reductions are across blockIdx.x or blockIdx.y) is
// refused.
TEST(LowerReduction, ReductionAcrossBlockIdxZIsRefused) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = sum(t0, {1});
  fusion.addOutput(t1);
  t1->axis(1)->parallelize(ParallelType::BIDz);
  EXPECT_THAT(validate(fusion),
              ThrowsMessage<UserError>(HasSubstr(
                  "T1_g_float[iS2{i0}, rblockIdx.z3{i1}]: reduction axis rblockIdx.z3{i1} is "
                  "bound to blockIdx.z; reductions are serial, across threadIdx.x or "
                  "threadIdx.y, or across blockIdx.x or blockIdx.y")));
}

// A reduction across threadIdx.z (nvFuser's FusionReduction3 / FusionReductionTFT) is refused
// with the reason and what to do; the same reduction across threadIdx.y lowers.
TEST(LowerReduction, ReductionAcrossThreadIdxZIsRefused) {
  for (ParallelType p : {ParallelType::TIDz, ParallelType::TIDy}) {
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* t0 = makeSymbolicTensor(2);
    fusion.addInput(t0);
    TensorView* t1 = sum(t0, {0});
    fusion.addOutput(t1);
    t1->axis(0)->parallelize(p);
    t1->axis(1)->parallelize(ParallelType::BIDx);
    if (p == ParallelType::TIDy) {
      EXPECT_NO_THROW(irAfter(fusion, "validateSchedule"));
      continue;
    }
    EXPECT_THAT(validate(fusion),
                ThrowsMessage<UserError>(HasSubstr(
                    "T1_g_float[rthreadIdx.z2{i0}, iblockIdx.x3{i1}]: reduction axis "
                    "rthreadIdx.z2{i0} is bound to threadIdx.z; reductions are serial, across "
                    "threadIdx.x or threadIdx.y, or across blockIdx.x or blockIdx.y (the "
                    "runtime's block and grid all-reduces have no z form); bind the axis to the "
                    "x or y dimension, or leave it serial")));
  }
}

// A grid reduction combines each thread's value across blocks (all-reduced across the block
// first when it reduces a thread axis too, as nvFuser's tutorial shows without); no loop may
// enclose it (the blocks that do not finish it return there).
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
    EXPECT_NO_THROW(validate(fusion));
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
    fusion.addOutput(neg(t1));  // read: the blocks that do not finish t1 return
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

// The blocks that do not finish a grid reduction whose result is read return from the
// kernel there: a tensor computed beside it (neither feeding it nor computed from it) would
// be left unwritten.
TEST(LowerReduction, GridReductionOwnsTheKernel) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = sum(t0, {0});
  TensorView* t2 = neg(t0);
  fusion.addOutput(t1);
  fusion.addOutput(t2);
  fusion.addOutput(neg(t1));
  t1->split(0, 32);
  t1->axis(0)->parallelize(ParallelType::BIDy);
  t1->axis(1)->parallelize(ParallelType::TIDx);
  EXPECT_THAT(validate(fusion),
              ThrowsMessage<UserError>(HasSubstr(
                  "T2_g_float[iS2{i0}] is computed beside the grid reduction T1_g_float[")));
}

// Grid reductions that each write a fusion output nothing reads finish in place: every
// block goes on and only the one that finishes the column writes, so a kernel holds several
// of them beside other work, each with its own part of the work buffer and its own
// semaphores (the runtime's two-level tree, mf_gridReduceInPlaceY).
TEST(LowerReduction, GridReductionsFinishInPlace) {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* t0 = makeContigTensor(1);
  fusion->addInput(t0);
  TensorView* t1 = sum(t0, {0});
  TensorView* t2 = max(t0, {0});
  TensorView* t3 = neg(t0);
  for (TensorView* tv : {t1, t2, t3}) {
    fusion->addOutput(tv);
    tv->split(0, 32);
    tv->axis(0)->parallelize(ParallelType::BIDy);
    tv->axis(1)->parallelize(ParallelType::TIDx);
  }
  std::unique_ptr<Kernel> kernel = lowerFusion(*fusion, {});
  EXPECT_EQ(kernel->summary().grid_reductions, 2);
  EXPECT_EQ(kernel->summary().grid_reduction_group, 2);
  EXPECT_THAT(kernel->summary().toString(),
              HasSubstr("grid reductions: 2, finished in place by the last block"));
  const std::string code = generateCuda(*kernel, "").kernel_code;
  EXPECT_THAT(code, Not(HasSubstr("return;")));
  EXPECT_THAT(code,
              HasSubstr("const bool grid_last = mf_gridReduceInPlaceY<float>(block_result, "));
  EXPECT_THAT(code, HasSubstr("0.0f, static_cast<float*>(mf_grid_work), mf_grid_semaphores, 0, "
                              "0, grid_result);"));
  EXPECT_THAT(code, HasSubstr("static_cast<float*>(mf_grid_work), mf_grid_semaphores, 1, 1, "
                              "grid_result);"));
  EXPECT_THAT(code, HasSubstr("if (grid_last && "));
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

// A block reduction is a call of the runtime's all-reduce, not wrapped in a predicate (all
// threads reach its barriers): its read predicate selects the input or the identity, and
// thread 0 writes the global result.
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
        T1[i5] = call BlockAllReduce mf_blockAllReduceX(in = T0[( ( i5 * T0.stride[0] ) + ( ( i6 * 64 ) + ((mf_index_t)threadIdx.x) ) )], init = 0.0, op = add, across = threadIdx.x) (read: ( ( ( i6 * 64 ) + ((mf_index_t)threadIdx.x) ) < i1 ), write: ( ((mf_index_t)threadIdx.x) == 0 ))
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

// An iteration loop inside the reduction loop (a column sum left unscheduled: T1[r0, i1]):
// the init gets a loop of its own over the iteration axis, before the reduction loop, with
// the same index, so it writes every element the reduction's loops update.
TEST(LowerReduction, IterationLoopInsideReductionLoop) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  fusion.addOutput(sum(t0, {0}));
  EXPECT_TRUE(checkPass(fusion, "insertPredicates", R"(
%kernel {
  FOR i4 in iS3{i1}:
    T1[i4] = set(0.0)
  FOR i3 in rS2{i0}:
    FOR i4 in iS3{i1}:
      T1[i4] = reduction(T0[( ( i3 * T0.stride[0] ) + ( i4 * T0.stride[1] ) )], op = add, initial = 0.0)
} // %kernel
)"));
}

// The outer reduction's vector, by hand: columns split by 4, the rows by 8 on threadIdx.y,
// the serial part rfactored. The rfactor tensor T2 [TIDx, TIDy, r serial, i4] keeps 4
// register sums (its init loop over the vector before the serial loop; a partial tile of
// rows guards the step only); the block reduction T1 [TIDx, rTIDy, i4] groups its 4 values.
std::unique_ptr<Fusion> groupedColumnSum(DataType dtype = DataType::Float) {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* t0 = makeContigConcreteTensor({-1, 128}, dtype);
  fusion->addInput(t0);
  TensorView* t1 = sum(t0, {0});
  fusion->addOutput(t1);
  // [r0, i1] -> [i1/4: TIDx, 8: rTIDy, r0/8, 4]
  t1->split(1, 4)->split(0, 8)->reorder({{2, 0}, {0, 2}});
  t1->axis(0)->parallelize(ParallelType::TIDx);
  t1->axis(1)->parallelize(ParallelType::TIDy);
  t1->rFactor({2});
  inlineMost();
  return fusion;
}

TEST(LowerReduction, GroupedBlockReduction) {
  std::unique_ptr<Fusion> fusion = groupedColumnSum();
  EXPECT_TRUE(checkPass(*fusion, "insertPredicates", R"(
%kernel {
  FOR ((mf_index_t)threadIdx.x) in ithreadIdx.x10{32}:
    FOR i13 in iS5{4}:
      T1[( ( ((mf_index_t)threadIdx.x) * 4 ) + i13 )] = set(0.0)
    FOR ((mf_index_t)threadIdx.y) in ithreadIdx.y13{8}:
      T2_l_float[ithreadIdx.x10{32}, ithreadIdx.y13{8}, rS12{ceilDiv(i0, 8)}, iS11{4}] ca_pos( 2 ) = ALLOCATE(size = 4, mem = l)
      FOR i12 in iS11{4}:
        T2[i12] = set(0.0)
      FOR i11 in rS12{ceilDiv(i0, 8)}:
        FOR i12 in iS11{4}:
          IF ( ( ( i11 * 8 ) + ((mf_index_t)threadIdx.y) ) < i0 ):
            T2[i12] = reduction(T0[( ( ( ( i11 * 8 ) + ((mf_index_t)threadIdx.y) ) * T0.stride[0] ) + ( ( ((mf_index_t)threadIdx.x) * 4 ) + i12 ) )], op = add, initial = 0.0)
      FOR i13 in iS5{4}:
        T1[( ( ((mf_index_t)threadIdx.x) * 4 ) + i13 )] = call BlockAllReduce mf_blockAllReduceY(in = T2[i13], init = 0.0, op = add, across = threadIdx.y) (read: true, write: ( ((mf_index_t)threadIdx.y) == 0 ))
} // %kernel
)"));
  // One call for the 4 values: gathered and scattered in the group's loop, same index.
  std::unique_ptr<Kernel> kernel = lowerFusion(*fusion, {});
  const std::string code = generateCuda(*kernel, "").kernel_code;
  EXPECT_THAT(code, HasSubstr(R"(    float block_values[4];
    for (mf_index_t i13 = 0; i13 < 4; ++i13) {
      block_values[i13] = T2[i13];
    }
    mf_blockAllReduceY<float, 4>(block_values, [](float a, float b) { return (a + b); }, 0.0f);
    for (mf_index_t i13 = 0; i13 < 4; ++i13) {
      if ((((mf_index_t)threadIdx.y) == 0)) {
        T1[(i27 + i13)] = (T1[(i27 + i13)] + block_values[i13]);
      }
    }
)"));
}

// With blockIdx.y splitting the rows too, the grid reduction takes the 4 values in one call
// (the blocks that do not finish it return), and the summary sizes its work buffer for 4
// values per thread.
TEST(LowerReduction, GroupedGridReduction) {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* t0 = makeContigConcreteTensor({-1, 128});
  fusion->addInput(t0);
  TensorView* t1 = sum(t0, {0});
  fusion->addOutput(t1);
  // [r0, i1] -> [i1/4: TIDx, gy: rBIDy, 8: rTIDy, r serial, 4]
  t1->split(1, 4)
      ->split(0, 8)
      ->split(0, 3, /*inner_split=*/false)
      ->reorder({{3, 0}, {0, 1}, {2, 2}, {1, 3}});
  t1->axis(0)->parallelize(ParallelType::TIDx);
  t1->axis(1)->parallelize(ParallelType::BIDy);
  t1->axis(2)->parallelize(ParallelType::TIDy);
  t1->rFactor({3});
  inlineMost();
  std::unique_ptr<Kernel> kernel = lowerFusion(*fusion, {});
  EXPECT_EQ(kernel->summary().grid_reduction_group, 4);
  EXPECT_THAT(kernel->summary().toString(),
              HasSubstr("grid reduction: float, 4 values per thread"));
  const std::string code = generateCuda(*kernel, "").kernel_code;
  EXPECT_THAT(code,
              HasSubstr("mf_blockAllReduceY<float, 4>(block_values, [](float a, float b) { return "
                        "(a + b); }, 0.0f);\n    if (!mf_gridAllReduceY<float, 4>(block_values, "
                        "[](float a, float b) { return (a + b); }, 0.0f, "
                        "static_cast<float*>(mf_grid_work), mf_grid_semaphores)) return;"));
}

// Iteration axes inside the reduction loops are serial loops; a block reduction groups them
// into one call only across threadIdx.y and with constant extents.
TEST(LowerReduction, IterationAxesInsideReductionRules) {
  struct Case {
    void (*schedule)(TensorView* column_sum);
    std::string message;
  };
  for (const Case& c : {
           Case{[](TensorView* t1) {
                  t1->split(1, 4)->axis(2)->parallelize(ParallelType::Vectorize);
                },
                "after the reduction axis rS2{i0} is bound to V; iteration axes inside "
                "the reduction loops must be serial, unrolled, or bound to threads or blocks"},
           Case{[](TensorView* t1) { t1->split(0, 32)->axis(1)->parallelize(ParallelType::TIDx); },
                "iteration axis iS3{i1} after the reduction axis rS4{ceilDiv(i0, 32)} groups the "
                "block reduction's values (one runtime call for all of them), which needs a "
                "constant extent and a reduction across threadIdx.y"},
           Case{[](TensorView* t1) { t1->split(0, 32)->axis(1)->parallelize(ParallelType::TIDy); },
                "iteration axis iS3{i1} after the reduction axis rS4{ceilDiv(i0, 32)} groups"},
       }) {
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* t0 = makeSymbolicTensor(2);
    fusion.addInput(t0);
    TensorView* t1 = sum(t0, {0});
    fusion.addOutput(t1);
    c.schedule(t1);
    EXPECT_THAT(validate(fusion), ThrowsMessage<UserError>(HasSubstr(c.message)));
  }
}

// A producer computed inside the group's loop would be computed once for all the values the
// one call reduces: refused.
TEST(LowerReduction, GroupLoopHoldsTheReductionAlone) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigConcreteTensor({8, 128});
  fusion.addInput(t0);
  TensorView* t2 = neg(t0);
  TensorView* t1 = sum(t2, {0});
  fusion.addOutput(t1);
  for (TensorView* tv : {t2, t1}) {
    // [8, 128] -> [128/4: TIDx, 8: TIDy, 4]
    tv->split(1, 4)->reorder({{0, 1}});
    tv->axis(0)->parallelize(ParallelType::TIDx);
    tv->axis(1)->parallelize(ParallelType::TIDy);
  }
  t2->inlineAt(3);
  EXPECT_THAT(validate(fusion),
              ThrowsMessage<UserError>(HasSubstr(
                  "T1_l_float[ithreadIdx.x6{32}, ithreadIdx.y2{8}, iS7{4}] ca_pos( 3 ) shares "
                  "iS9{4}, the group loop of the block reduction T2_g_float[ithreadIdx.x8{32}, "
                  "rthreadIdx.y4{8}, iS9{4}], which must hold the reduction alone")));
  t2->inlineAt(2);
  EXPECT_NO_THROW(irAfter(fusion, "insertSyncs"));
}

}  // namespace
}  // namespace mf
