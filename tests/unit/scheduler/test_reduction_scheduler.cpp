// The reduction scheduler on the CPU: what it accepts and refuses (with the reason), the
// heuristics it computes from run-time sizes, and whole fusions through FusionExecutorCache
// (scheduled, lowered and compiled with NVRTC; outputs from the reference).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "minifuser.h"
#include "unit/scheduler/scheduler_test_utils.h"
#include "unit/segmenter/reduction_fusions.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::unique_ptr<ReductionParams> reductionHeuristics(Fusion& f,
                                                     std::vector<TensorMetadata> inputs) {
  SchedulerRuntimeInfo info(&f, std::move(inputs));
  ReductionScheduler scheduler;
  EXPECT_TRUE(scheduler.canScheduleCompileTime(&f)) << scheduler.rejectReason();
  EXPECT_TRUE(scheduler.canScheduleRunTime(&f, info)) << scheduler.rejectReason();
  std::unique_ptr<HeuristicParams> p = scheduler.computeHeuristics(&f, info);
  auto* rp = dynamic_cast<ReductionParams*>(p.get());
  EXPECT_NE(rp, nullptr);
  p.release();
  return std::unique_ptr<ReductionParams>(rp);
}

// sum(x, {axis}) of a contiguous fp32 [M, N] input.
std::unique_ptr<Fusion> sumOf2d(int64_t axis, DataType dtype = DataType::Float) {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* x = makeContigTensor(2, dtype);
  fusion->addInput(x);
  fusion->addOutput(sum(x, {axis}));
  return fusion;
}

// sum over `axes` of a contiguous fp32 tensor of rank `rank`.
std::unique_ptr<Fusion> sumOfAxes(int64_t rank, std::vector<int64_t> axes) {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* x = makeContigTensor(rank);
  fusion->addInput(x);
  fusion->addOutput(sum(x, axes));
  return fusion;
}

// fp32 [32Ki, 4Ki] summed over the last axis: 16-byte loads (4 floats), 128 threads per row
// with 8 vectors each (4 unrolled), one row per block.
TEST(ReductionHeuristics, InnerLongRows) {
  auto f = sumOf2d(1);
  auto p = reductionHeuristics(*f, {schedtest::contiguous({32768, 4096})});
  EXPECT_TRUE(p->inner_reduction);
  EXPECT_EQ(p->vectorization_factor, 4);
  EXPECT_EQ(p->bdimx, 128);
  EXPECT_EQ(p->bdimy, 1);
  EXPECT_EQ(p->unroll_factor, 4);
  EXPECT_FALSE(p->cross_block);
  EXPECT_EQ(p->lparams.getDim(ParallelType::BIDx), 32768);
  EXPECT_EQ(p->index_type, DataType::Int32);
  EXPECT_EQ(p->toString(),
            "ReductionParams(inner, vectorization_factor = 4, unroll_factor = 4, bdimx = 128, "
            "bdimy = 1, cross_block = false, grid_y = 1, index_type = int32, LaunchParams(grid = "
            "[32768, -, -], block = [128, -, -]))");
}

// Short rows: a warp per row and 4 rows per block on threadIdx.y; an odd row length reads
// one element at a time.
TEST(ReductionHeuristics, InnerShortRowsShareABlock) {
  auto f = sumOf2d(1);
  auto p = reductionHeuristics(*f, {schedtest::contiguous({1000, 31})});
  EXPECT_EQ(p->vectorization_factor, 1);
  EXPECT_EQ(p->bdimx, 32);
  EXPECT_EQ(p->bdimy, 4);
  EXPECT_EQ(p->unroll_factor, 1);
  EXPECT_EQ(p->lparams.getDim(ParallelType::BIDx), 250);
  EXPECT_EQ(p->lparams.getDim(ParallelType::TIDy), 4);
}

// fp32 [32Ki, 4Ki] summed over the first axis: vectors of 4 columns (16 bytes) on
// threadIdx.x, halved until there are at least as many blocks as SMs or a warp is left (1024
// vectors: 32 blocks of 32), the reduced axis on 16 threads of threadIdx.y, each unrolling 2
// rows (two 16-byte loads in flight), 16 blocks per column (one wave of 4 blocks per SM).
TEST(ReductionHeuristics, OuterColumns) {
  auto f = sumOf2d(0);
  auto p = reductionHeuristics(*f, {schedtest::contiguous({32768, 4096})});
  EXPECT_FALSE(p->inner_reduction);
  EXPECT_EQ(p->vectorization_factor, 4);
  EXPECT_EQ(p->bdimx, 32);
  EXPECT_EQ(p->bdimy, 16);
  EXPECT_EQ(p->unroll_factor, 2);
  EXPECT_EQ(p->lparams.getDim(ParallelType::BIDx), 32);
  EXPECT_EQ(p->toString(),
            "ReductionParams(outer, vectorization_factor = 4, unroll_factor = 2, bdimx = 32, "
            "bdimy = 16, cross_block = true, grid_y = 16, index_type = int32, LaunchParams(grid = "
            "[32, 16, -], block = [32, 16, -]))");
  // One element per load: 4 rows unrolled (16 bytes in flight per group).
  auto odd = reductionHeuristics(*f, {schedtest::contiguous({32768, 4093})});
  EXPECT_EQ(odd->vectorization_factor, 1);
  EXPECT_EQ(odd->unroll_factor, 4);
}

// The outer vector is the widest power of two of at most 16 bytes that divides the
// innermost iteration run: 4093 columns (odd) load one float at a time, 4094 two; bf16
// loads 8 (each thread then keeps 8 float sums: 512 vectors, 16 blocks of 32).
TEST(ReductionHeuristics, OuterVectorWidth) {
  auto f = sumOf2d(0);
  auto odd = reductionHeuristics(*f, {schedtest::contiguous({1000, 4093})});
  EXPECT_FALSE(odd->inner_reduction);
  EXPECT_EQ(odd->vectorization_factor, 1);
  EXPECT_EQ(odd->lparams.getDim(ParallelType::BIDx), 128);  // ceil(4093 / 32)
  auto even = reductionHeuristics(*f, {schedtest::contiguous({1000, 4094})});
  EXPECT_EQ(even->vectorization_factor, 2);
  auto bf16 = sumOf2d(0, DataType::BFloat16);
  auto p = reductionHeuristics(*bf16, {schedtest::contiguous({32768, 4096})});
  EXPECT_EQ(p->vectorization_factor, 8);
  EXPECT_EQ(p->bdimx, 32);
  EXPECT_EQ(p->bdimy, 16);
  EXPECT_EQ(p->lparams.getDim(ParallelType::BIDx), 16);
  EXPECT_EQ(p->grid_y, 33);  // ceil(4 * 132 / 16) blocks per column
  // Strided rows (a padded row stride): one element at a time.
  auto strided = reductionHeuristics(*f, {schedtest::strided({64, 256}, {260, 1})});
  EXPECT_EQ(strided->vectorization_factor, 1);
}

// One 128Mi fp32 vector: one output, so the row is shared by 264 blocks of 1024 threads (one
// full wave: 2 per SM) on blockIdx.y, each reducing a contiguous chunk before the grid
// reduction.
TEST(ReductionHeuristics, LongVectorIsCrossBlock) {
  auto fusion = sumOfAxes(1, {0});
  auto p = reductionHeuristics(*fusion, {schedtest::contiguous({int64_t{128} << 20})});
  EXPECT_TRUE(p->inner_reduction);
  EXPECT_TRUE(p->cross_block);
  EXPECT_EQ(p->grid_y, 264);
  EXPECT_EQ(p->vectorization_factor, 4);
  EXPECT_EQ(p->bdimx, 1024);
  EXPECT_EQ(p->unroll_factor, 4);
  EXPECT_FALSE(p->lparams.hasDim(ParallelType::BIDx));
  EXPECT_EQ(p->lparams.getDim(ParallelType::BIDy), 264);
}

// [32Ki, 4Ki] over the first axis: 32 blocks of 128 columns are fewer than the SMs, so each
// column is shared by 528 / 32 = 16 blocks (rounded down: one wave of at most 4 blocks per
// SM), each thread with 1024 / 16 serial steps of 2 unrolled rows.
TEST(ReductionHeuristics, OuterFewColumnsIsCrossBlock) {
  auto f = sumOf2d(0);
  auto p = reductionHeuristics(*f, {schedtest::contiguous({32768, 4096})});
  EXPECT_TRUE(p->cross_block);
  EXPECT_EQ(p->grid_y, 16);
  EXPECT_EQ(p->lparams.getDim(ParallelType::BIDx), 32);
  EXPECT_EQ(p->lparams.getDim(ParallelType::BIDy), 16);
  // 100 blocks of columns (12800 of them): 5 per column, 500 blocks, not 6 (600 blocks: a
  // second wave).
  auto hundred = reductionHeuristics(*f, {schedtest::contiguous({32768, 12800})});
  EXPECT_EQ(hundred->lparams.getDim(ParallelType::BIDx), 100);
  EXPECT_EQ(hundred->grid_y, 5);
}

// Two reductions cannot share a grid reduction: they stay one block per output.
TEST(ReductionHeuristics, TwoReductionsStayInOneBlock) {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* x = makeContigTensor(1);
  fusion->addInput(x);
  fusion->addOutput(sum(x, {0}));
  fusion->addOutput(max(x, {0}));
  auto p = reductionHeuristics(*fusion, {schedtest::contiguous({int64_t{1} << 20})});
  EXPECT_FALSE(p->cross_block);
  EXPECT_EQ(p->grid_y, 1);
}

// A tensor computed beside the reduction (an output that neither feeds it nor follows it)
// keeps the reduction in one block per output: a grid reduction's other blocks stop early.
// So does an output that feeds the reduction: the schedule writes it through a cacheFork
// copy, which is a tensor beside the reduction (validateSchedule refuses it next to a grid
// reduction). Only a reduction alone goes across blocks. Each runs through
// FusionExecutorCache: the schedule passes validateSchedule.
TEST(ReductionHeuristics, OutputBesideTheReductionStaysInOneBlock) {
  enum class Other { None, Beside, Feeds };
  for (Other other : {Other::None, Other::Beside, Other::Feeds}) {
    auto fusion = std::make_unique<Fusion>();
    {
      FusionGuard fg(fusion.get());
      TensorView* x = makeContigTensor(1);
      fusion->addInput(x);
      TensorView* e = exp(x);
      fusion->addOutput(sum(other == Other::Feeds ? e : x, {0}));
      if (other != Other::None) fusion->addOutput(e);
    }
    auto p = reductionHeuristics(*fusion, {schedtest::contiguous({int64_t{1} << 20})});
    EXPECT_EQ(p->cross_block, other == Other::None);
    FusionExecutorCache fec(std::move(fusion));
    fec.runFusionWithInputs({Tensor::random({int64_t{1} << 20}, DataType::Float, 4)});
    EXPECT_EQ(fec.getMostRecentKernelRuntime()->heuristics().at(0)->schedulerType(),
              SchedulerType::Reduction);
  }
}

// A middle axis: the innermost axis is an iteration axis, so the reduction is outer over the
// merged iteration axis [i0 * i2] (adjacent threads read adjacent elements of i2).
TEST(ReductionHeuristics, MiddleAxisIsOuter) {
  auto f = sumOfAxes(3, {1});
  auto p = reductionHeuristics(*f, {schedtest::contiguous({8, 1000, 64})});
  EXPECT_FALSE(p->inner_reduction);
  // 512 columns in vectors of 4 (runs of 64 columns): 128 vectors, 32 per block (4 blocks,
  // fewer than the SMs), 16 threads along the axis.
  EXPECT_EQ(p->vectorization_factor, 4);
  EXPECT_EQ(p->bdimx, 32);
  EXPECT_EQ(p->bdimy, 16);
  EXPECT_EQ(p->lparams.getDim(ParallelType::BIDx), 4);
  // Runs of 6 columns: vectors of 2 (a vector never crosses a run).
  auto p6 = reductionHeuristics(*f, {schedtest::contiguous({8, 1000, 6})});
  EXPECT_EQ(p6->vectorization_factor, 2);
  // Rank 4, axis 1: the same.
  auto f4 = sumOfAxes(4, {1});
  EXPECT_FALSE(reductionHeuristics(*f4, {schedtest::contiguous({2, 100, 3, 5})})->inner_reduction);
}

// The outer and inner axes of [i0, i1, i2]: the innermost axis is reduced, so the reduction
// is inner over rows [r0 * r2] whose runs of i2 elements are i1 * i2 apart. A vector stays
// inside a run: it divides i2, not just the row (30 * 16 = 480 is a multiple of 4, 30 is not).
TEST(ReductionHeuristics, OuterAndInnerAxesAreInner) {
  auto f = sumOfAxes(3, {0, 2});
  auto wide = reductionHeuristics(*f, {schedtest::contiguous({16, 8, 256})});
  EXPECT_TRUE(wide->inner_reduction);
  EXPECT_EQ(wide->vectorization_factor, 4);
  auto odd = reductionHeuristics(*f, {schedtest::contiguous({16, 8, 30})});
  EXPECT_TRUE(odd->inner_reduction);
  EXPECT_EQ(odd->vectorization_factor, 2);
  EXPECT_EQ(odd->bdimx, 32);  // 240 vectors of the row: 30 threads of 8, rounded up to a warp
  // Strided runs (a padded innermost stride): one element at a time.
  auto strided = reductionHeuristics(*f, {schedtest::strided({16, 8, 256}, {8 * 260, 260, 1})});
  EXPECT_EQ(strided->vectorization_factor, 1);
  // Rank 4, axes {0, 3} and {1, 3}: inner too.
  for (std::vector<int64_t> axes : {std::vector<int64_t>{0, 3}, std::vector<int64_t>{1, 3}}) {
    auto f4 = sumOfAxes(4, axes);
    auto p = reductionHeuristics(*f4, {schedtest::contiguous({2, 3, 5, 64})});
    EXPECT_TRUE(p->inner_reduction);
    EXPECT_EQ(p->vectorization_factor, 4);
  }
}

// The classification follows the input's allocation order: x[i0, i1] stored as [i1, i0]
// reduced over axis 0 reduces its innermost allocation axis (inner), and reads it one
// element at a time (not row-major in its logical order).
TEST(ReductionHeuristics, PermutedInputClassifiesByAllocation) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* x = makeContigTensor(2);
  x->setAllocationDomain({x->axis(1), x->axis(0)}, true);
  f.addInput(x);
  f.addOutput(sum(x, {0}));
  auto p = reductionHeuristics(f, {schedtest::strided({64, 32}, {1, 64})});
  EXPECT_TRUE(p->inner_reduction);
  EXPECT_EQ(p->vectorization_factor, 1);
}

// Broadcast axes around the reduced one do not count: [b, r, b] and [i, r, b] are inner
// (the innermost non-broadcast axis is reduced), [b, r, i] is outer.
TEST(ReductionHeuristics, BroadcastAxesAroundTheReduction) {
  struct Case {
    std::vector<bool> bcast;  // where y = broadcast(x) has broadcast axes
    int64_t x_rank;
    bool inner;
  };
  for (const Case& c : {Case{{true, false, true}, 1, true}, Case{{false, false, true}, 2, true},
                        Case{{true, false, false}, 2, false}}) {
    Fusion f;
    FusionGuard fg(&f);
    TensorView* x = makeContigTensor(c.x_rank);
    f.addInput(x);
    f.addOutput(sum(broadcast(x, c.bcast), {1}));
    std::vector<int64_t> sizes =
        c.x_rank == 1 ? std::vector<int64_t>{1000} : std::vector<int64_t>{24, 1000};
    auto p = reductionHeuristics(f, {schedtest::contiguous(sizes)});
    EXPECT_EQ(p->inner_reduction, c.inner) << fmt::format("{}", fmt::join(c.bcast, ", "));
  }
}

// sameAs and hash cover the fields that change the kernel, not the grid.
TEST(ReductionHeuristics, SameAsAndHash) {
  ReductionParams a, b;
  a.lparams.bind(10, ParallelType::BIDx);
  b.lparams.bind(20, ParallelType::BIDx);
  EXPECT_TRUE(a.sameAs(&b));
  EXPECT_EQ(a.hash(), b.hash());
  b.vectorization_factor = 4;
  EXPECT_FALSE(a.sameAs(&b));
  EXPECT_NE(a.hash(), b.hash());
  b = a;
  b.inner_reduction = false;
  EXPECT_FALSE(a.sameAs(&b));
  EXPECT_TRUE(a.clone()->sameAs(&a));
  PointwiseParams pw;
  EXPECT_FALSE(a.sameAs(&pw));
}

// What the scheduler refuses, with the reason.
TEST(ReductionRefusal, Reasons) {
  auto refuse = [](Fusion& f) {
    ReductionScheduler s;
    EXPECT_FALSE(s.canScheduleCompileTime(&f));
    return s.rejectReason();
  };
  {
    Fusion f;
    FusionGuard fg(&f);
    TensorView* x = makeContigTensor(2);
    f.addInput(x);
    f.addOutput(exp(x));
    EXPECT_EQ(refuse(f), "the fusion has no reduction");
  }
  {
    // Two reductions of unrelated tensors: the schedule of the first never reaches the
    // second (random fusion seed 42 crashed in rFactor before this was refused).
    Fusion f;
    FusionGuard fg(&f);
    TensorView* x = makeContigTensor(1);
    TensorView* y = makeContigTensor(1);
    f.addInput(x);
    f.addInput(y);
    f.addOutput(sum(x, {0}));
    f.addOutput(max(y, {0}));
    EXPECT_THAT(refuse(f),
                HasSubstr("T2_g_float[rS2{i0}] and T3_g_float[rS3{i1}] reduce tensors whose "
                          "reduction axes are not connected through the fusion"));
  }
  {
    // Related only through their results (as in seed 55): the path from one reduction to
    // the other crosses the broadcasts of the reduced axes, so the transforms of that axis
    // do not reach the second reduction.
    Fusion f;
    FusionGuard fg(&f);
    TensorView* x = makeContigTensor(2);
    TensorView* y = makeContigTensor(2);
    f.addInput(x);
    f.addInput(y);
    TensorView* rx = sum(x, {1});
    TensorView* ry = sum(y, {1});
    f.addOutput(rx);
    f.addOutput(ry);
    f.addOutput(add(broadcast(rx, {false, true}), broadcast(ry, {false, true})));
    EXPECT_THAT(refuse(f), HasSubstr("reduction axes are not connected"));
  }
  {
    Fusion f;
    FusionGuard fg(&f);
    TensorView* x = makeContigTensor(2);
    f.addInput(x);
    f.addOutput(sum(x, {0}));
    f.addOutput(sum(x, {1}));
    EXPECT_THAT(refuse(f), HasSubstr("reduce different axes; one kernel tiles one reduction"));
  }
  {
    // softmax's shape: the max broadcast back over the row.
    Fusion f;
    FusionGuard fg(&f);
    TensorView* x = makeContigTensor(2);
    f.addInput(x);
    f.addOutput(sub(x, broadcast(max(x, {1}), {false, true})));
    EXPECT_THAT(refuse(f), HasSubstr("but has more concrete axes than its result (a broadcast "
                                     "back to the input's shape"));
  }
  {
    Fusion f;
    FusionGuard fg(&f);
    TensorView* x = makeContigTensor(2);
    TensorView* y = makeContigTensor(3);
    f.addInput(x);
    f.addInput(y);
    f.addOutput(sum(x, {1}));
    f.addOutput(sum(y, {2}));
    EXPECT_THAT(refuse(f),
                HasSubstr("T3_g_float[iS7{i2}, iS8{i3}, rS9{i4}] reduce different axes"));
  }
}

// Two reductions of inputs whose extents differ at run time are refused then (x + y
// connects them at compile time; the executor would refuse such inputs, the scheduler's
// check does not rely on it).
// Tensors around the reductions that one loop nest cannot hold (random fusions found both
// on the H200; the segmenter then cuts them apart): a tensor after the reduction reading one
// that feeds it, and a tensor beside it with a broadcast axis where it reduces.
TEST(ReductionRefusal, TensorsAroundTheReductions) {
  auto refuse = [](Fusion& f) {
    ReductionScheduler s;
    EXPECT_FALSE(s.canScheduleCompileTime(&f));
    return s.rejectReason();
  };
  {
    Fusion f;
    FusionGuard fg(&f);
    TensorView* x = makeContigTensor(2);
    TensorView* v = makeContigTensor(1);
    f.addInput(x);
    f.addInput(v);
    TensorView* bv = broadcast(v, {true, false});  // T2 [b, N], feeds the sum
    TensorView* s = sum(mul(x, bv), {0});
    f.addOutput(add(broadcast(s, {true, false}), bv));
    EXPECT_THAT(refuse(f), HasSubstr("follows the reductions but reads " + bv->toString() +
                                     ", computed before them inside their loops"));
  }
  {
    Fusion f;
    FusionGuard fg(&f);
    TensorView* x = makeContigTensor(2);
    TensorView* w = makeContigTensor(1);
    f.addInput(x);
    f.addInput(w);
    TensorView* bw = broadcast(w, {true, false});  // [b, N], not feeding the max
    f.addOutput(add(broadcast(max(x, {0}), {true, false}), abs(bw)));
    EXPECT_THAT(refuse(f), HasSubstr(bw->toString() +
                                     " is computed beside the reductions with a broadcast axis "
                                     "where"));
  }
  {
    // Seed 7147: w [M, 1] is read beside the max (an output of its own) and after it.
    Fusion f;
    FusionGuard fg(&f);
    TensorView* x = makeContigTensor(2);
    TensorView* w = TensorViewBuilder().shape({-1, 1}).contiguity(true).build();
    f.addInput(x);
    f.addInput(w);
    TensorView* beside = sub(x, w);
    f.addOutput(beside);
    TensorView* after = mul(w, broadcast(max(x, {1}), {false, true}));
    f.addOutput(after);
    EXPECT_THAT(refuse(f),
                HasSubstr(after->toString() + " follows the reductions and " + beside->toString() +
                          " is computed beside them, but both read " + w->toString() +
                          ", whose register copy lives inside their loops"));
  }
}

TEST(ReductionRefusal, ExtentsDifferAtRunTime) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* x = makeContigTensor(2);
  TensorView* y = makeContigTensor(2);
  f.addInput(x);
  f.addInput(y);
  f.addOutput(sum(x, {1}));
  f.addOutput(max(y, {1}));
  f.addOutput(add(x, y));
  ReductionScheduler s;
  ASSERT_TRUE(s.canScheduleCompileTime(&f)) << s.rejectReason();
  SchedulerRuntimeInfo same(&f, {schedtest::contiguous({4, 8}), schedtest::contiguous({4, 8})});
  EXPECT_TRUE(s.canScheduleRunTime(&f, same));
  SchedulerRuntimeInfo differ(&f, {schedtest::contiguous({4, 8}), schedtest::contiguous({4, 9})});
  EXPECT_FALSE(s.canScheduleRunTime(&f, differ));
  EXPECT_EQ(s.rejectReason(), "the reductions read T0 and T1, whose axis 1 has extents 8 and 9");
}

// The inner schedule through FusionExecutorCache: the rfactor tensor reduces vectors of 4
// serially, the block all-reduces across threadIdx.x, thread 0's row result is written.
TEST(ReductionSchedule, InnerKernel) {
  FusionExecutorCache fec(sumOf2d(1));
  std::vector<Tensor> in = {Tensor::random({37, 1000}, DataType::Float, 1)};
  std::vector<Tensor> out = fec.runFusionWithInputs(in);
  ASSERT_EQ(out.at(0).sizes(), std::vector<int64_t>{37});
  const std::string code = fec.getMostRecentCode();
  EXPECT_THAT(code, HasSubstr("mf_vectorCopy<float, 4>"));
  EXPECT_THAT(code, HasSubstr("mf_blockAllReduceX<float>"));
  EXPECT_THAT(fec.getMostRecentScheduledIr(), HasSubstr("rthreadIdx.x"));
  EXPECT_EQ(fec.getMostRecentKernelRuntime()->heuristics().at(0)->schedulerType(),
            SchedulerType::Reduction);
}

// The outer schedule: every thread reduces the rows of its vector of 4 columns serially
// (unrolled; one 16-byte load per row into 4 running sums), then the block all-reduces the 4
// values across threadIdx.y in one call, and the output is stored a vector at a time. An odd
// column count reads one element at a time.
TEST(ReductionSchedule, OuterKernel) {
  FusionExecutorCache fec(sumOf2d(0));
  std::vector<Tensor> in = {Tensor::random({37, 1000}, DataType::Float, 1)};
  std::vector<Tensor> out = fec.runFusionWithInputs(in);
  ASSERT_EQ(out.at(0).sizes(), std::vector<int64_t>{1000});
  const std::string code = fec.getMostRecentCode();
  EXPECT_THAT(code, HasSubstr("#pragma unroll"));
  EXPECT_THAT(code, HasSubstr("float block_values[4];"));
  EXPECT_THAT(code, HasSubstr("mf_blockAllReduceY<float, 4>(block_values, "));
  EXPECT_THAT(code, HasSubstr("mf_vectorCopy<float, 4>(&T2[0], &T0["));
  EXPECT_THAT(code, HasSubstr("mf_vectorCopy<float, 4>(&T1["));
  // The register sums are indexed by the vector's loop, not through a remainder, and stay
  // in registers (with the block reduction's values): no local memory in the PTX.
  EXPECT_THAT(code, Not(HasSubstr("% 4)]")));
  const std::string& ptx = fec.getMostRecentKernelRuntime()->executor()->ptx();
  ASSERT_FALSE(ptx.empty());
  EXPECT_THAT(ptx, Not(HasSubstr(".local")));
  EXPECT_THAT(fec.getMostRecentScheduledIr(), HasSubstr("rthreadIdx.y"));

  FusionExecutorCache odd(sumOf2d(0));
  odd.runFusionWithInputs({Tensor::random({37, 999}, DataType::Float, 1)});
  EXPECT_THAT(odd.getMostRecentCode(), HasSubstr("mf_blockAllReduceY<float>("));
  EXPECT_THAT(odd.getMostRecentCode(), Not(HasSubstr("mf_vectorCopy")));

  // bf16: vectors of 8 loaded and stored, 8 float sums per thread reduced in one call.
  FusionExecutorCache bf16(sumOf2d(0, DataType::BFloat16));
  bf16.runFusionWithInputs({Tensor::random({37, 1000}, DataType::BFloat16, 1)});
  const std::string bf16_code = bf16.getMostRecentCode();
  EXPECT_THAT(bf16_code, HasSubstr("mf_vectorCopy<mf_bfloat16, 8>(&T4[0], &T0["));
  EXPECT_THAT(bf16_code, HasSubstr("mf_blockAllReduceY<float, 8>(block_values, "));
  EXPECT_THAT(bf16_code, HasSubstr("mf_vectorCopy<mf_bfloat16, 8>(&T3["));
  EXPECT_THAT(bf16.getMostRecentKernelRuntime()->executor()->ptx(), Not(HasSubstr(".local")));
}

// The grid reduction's kernel: blockIdx.y splits the row, the block all-reduce, then
// mf_gridAllReduceY with the work buffer and semaphores the summary asks the executor for.
TEST(ReductionSchedule, CrossBlockInnerKernel) {
  FusionExecutorCache fec(sumOfAxes(1, {0}));
  std::vector<Tensor> in = {Tensor::random({int64_t{1} << 20}, DataType::Float, 5)};
  fec.runFusionWithInputs(in);
  auto* p =
      dynamic_cast<const ReductionParams*>(fec.getMostRecentKernelRuntime()->heuristics().at(0));
  ASSERT_NE(p, nullptr);
  // 1Mi floats: 1024 threads x 4 unrolled vectors take 16Ki per step; 16 blocks keep each
  // thread kMinSerialSteps = 4 steps.
  EXPECT_EQ(p->grid_y, 16);
  const std::string code = fec.getMostRecentCode();
  EXPECT_THAT(code, HasSubstr("void* mf_grid_work, unsigned* mf_grid_semaphores)"));
  EXPECT_THAT(code, HasSubstr("if (!mf_gridAllReduceY<float>(block_result, "));
  EXPECT_THAT(code, HasSubstr("blockIdx.y"));
  const KernelSummary& summary = fec.getMostRecentKernelRuntime()->executor()->kernel().summary();
  EXPECT_EQ(summary.grid_reduction_dtype, DataType::Float);
  EXPECT_THAT(summary.toString(), HasSubstr("grid work: void* mf_grid_work"));
  EXPECT_THAT(summary.toString(), HasSubstr("grid reduction: float"));
}

TEST(ReductionSchedule, CrossBlockOuterKernel) {
  FusionExecutorCache fec(sumOf2d(0));
  std::vector<Tensor> in = {Tensor::random({4096, 64}, DataType::Float, 6)};
  fec.runFusionWithInputs(in);
  auto* p =
      dynamic_cast<const ReductionParams*>(fec.getMostRecentKernelRuntime()->heuristics().at(0));
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(p->cross_block);
  // One block of columns: 4096 / (16 * 2) = 128 serial steps, 4 per block at least.
  EXPECT_EQ(p->grid_y, 32);
  EXPECT_EQ(p->vectorization_factor, 4);
  // One grid reduction call for the thread's 4 values: the blocks that do not finish it
  // return, so a call per value would never finish the others.
  EXPECT_THAT(fec.getMostRecentCode(), HasSubstr("mf_blockAllReduceY<float, 4>(block_values, "));
  EXPECT_THAT(fec.getMostRecentCode(),
              HasSubstr("if (!mf_gridAllReduceY<float, 4>(block_values, "));
  const KernelSummary& summary = fec.getMostRecentKernelRuntime()->executor()->kernel().summary();
  EXPECT_EQ(summary.grid_reduction_group, 4);
  EXPECT_THAT(fec.getMostRecentKernelRuntime()->executor()->ptx(), Not(HasSubstr(".local")));
  EXPECT_THAT(summary.toString(), HasSubstr("grid reduction: float, 4 values per thread"));
}

// Broadcasts before the reduction (a bias along the row) and after it (keep_dim) stay in one
// Reduction kernel (tests/gpu/test_reduction_scheduler_gpu.cpp checks its values).
TEST(ReductionSchedule, BroadcastsBeforeAndKeepDim) {
  for (int64_t axis : {0, 1}) {
    redtest::ReductionFusion rf = redtest::biasMaxKeepDim(axis);
    FusionExecutorCache fec(std::move(rf.fusion));
    std::vector<Tensor> out = fec.runFusionWithInputs(rf.inputs(45, 300, 8));
    EXPECT_EQ(out.at(0).sizes(),
              axis == 1 ? std::vector<int64_t>({45, 1}) : std::vector<int64_t>({1, 300}));
    FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
    EXPECT_FALSE(rt->isSegmented());
    EXPECT_EQ(rt->heuristics().at(0)->schedulerType(), SchedulerType::Reduction);
    EXPECT_THAT(fec.getMostRecentCode(), HasSubstr(axis == 1 ? "mf_blockAllReduceX<float>"
                                                             : "mf_blockAllReduceY<float, 4>"));
  }
}

// Any axis set through FusionExecutorCache, one Reduction kernel each (values on the GPU:
// tests/gpu/test_reduction_scheduler_gpu.cpp): a middle axis reduced across threadIdx.y
// (outer; runs of 33 columns: no vector), the outer and inner axes across threadIdx.x with
// vectors within the runs of the innermost axis (4 for runs of 120 floats, 2 for runs of 30),
// a middle pair of rank 4 (outer, vectors of 4 within the runs of 16 columns).
TEST(ReductionSchedule, AnyAxisSet) {
  struct Case {
    std::string name;
    int64_t rank;
    std::vector<int64_t> axes;
    std::vector<int64_t> sizes;
    std::vector<int64_t> out_sizes;
    std::string reduce, vector;
  };
  for (const Case& c : {
           Case{"middle", 3, {1}, {7, 300, 33}, {7, 33}, "mf_blockAllReduceY<float>", ""},
           Case{"outer_and_inner",
                3,
                {0, 2},
                {5, 9, 120},
                {9},
                "mf_blockAllReduceX<float>",
                "mf_vectorCopy<float, 4>"},
           Case{"outer_and_inner_odd",
                3,
                {0, 2},
                {5, 9, 30},
                {9},
                "mf_blockAllReduceX<float>",
                "mf_vectorCopy<float, 2>"},
           Case{"rank4_middle",
                4,
                {1, 2},
                {3, 50, 7, 16},
                {3, 16},
                "mf_blockAllReduceY<float, 4>",
                "mf_vectorCopy<float, 4>"},
       }) {
    FusionExecutorCache fec(sumOfAxes(c.rank, c.axes));
    std::vector<Tensor> in = {Tensor::random(c.sizes, DataType::Float, 9)};
    std::vector<Tensor> out = fec.runFusionWithInputs(in);
    EXPECT_EQ(out.at(0).sizes(), c.out_sizes) << c.name;
    FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
    EXPECT_FALSE(rt->isSegmented()) << c.name;
    EXPECT_EQ(rt->heuristics().at(0)->schedulerType(), SchedulerType::Reduction) << c.name;
    const std::string code = fec.getMostRecentCode();
    EXPECT_THAT(code, HasSubstr(c.reduce)) << c.name;
    if (c.vector.empty()) {
      EXPECT_THAT(code, Not(HasSubstr("mf_vectorCopy"))) << c.name;
    } else {
      EXPECT_THAT(code, HasSubstr(c.vector)) << c.name;
    }
  }
}

// Broadcast axes around the reduced one ([b, r, b] from a 1-D input, the random fusions'
// T4[bS12{1}, rS13{i4}, bS14{1}]): one Reduction kernel whose iteration axis is the merged
// broadcasts (one block).
TEST(ReductionSchedule, BroadcastsAroundTheReducedAxis) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* x = makeContigTensor(1);
    fusion->addInput(x);
    fusion->addOutput(sum(broadcast(x, {true, false, true}), {1}, /*keep_dim=*/true));
  }
  FusionExecutorCache fec(std::move(fusion));
  std::vector<Tensor> out = fec.runFusionWithInputs({Tensor::random({777}, DataType::Float, 2)});
  EXPECT_EQ(out.at(0).sizes(), std::vector<int64_t>({1, 1, 1}));
  EXPECT_EQ(fec.getMostRecentKernelRuntime()->heuristics().at(0)->schedulerType(),
            SchedulerType::Reduction);
  EXPECT_THAT(fec.getMostRecentCode(), HasSubstr("mf_blockAllReduceX<float>"));
}

// A reduction of every axis (no iteration axis): one block, no blockIdx in the kernel.
TEST(ReductionSchedule, ReduceEveryAxis) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* x = makeContigTensor(2, DataType::BFloat16);
    fusion->addInput(x);
    fusion->addOutput(sum(x, {0, 1}));
  }
  FusionExecutorCache fec(std::move(fusion));
  std::vector<Tensor> in = {Tensor::random({5, 77}, DataType::BFloat16, 3)};
  std::vector<Tensor> out = fec.runFusionWithInputs(in);
  EXPECT_EQ(out.at(0).dim(), 0);
  EXPECT_THAT(fec.getMostRecentCode(), Not(HasSubstr("blockIdx")));
}

}  // namespace
}  // namespace mf
