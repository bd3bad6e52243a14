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

// fp32 [32Ki, 4Ki] summed over the last axis: 16-byte loads (4 floats), 512 threads per row,
// two vectors per thread unrolled, one row per block.
TEST(ReductionHeuristics, InnerLongRows) {
  auto f = sumOf2d(1);
  auto p = reductionHeuristics(*f, {schedtest::contiguous({32768, 4096})});
  EXPECT_TRUE(p->inner_reduction);
  EXPECT_EQ(p->vectorization_factor, 4);
  EXPECT_EQ(p->bdimx, 512);
  EXPECT_EQ(p->bdimy, 1);
  EXPECT_EQ(p->unroll_factor, 2);
  EXPECT_FALSE(p->cross_block);
  EXPECT_EQ(p->lparams.getDim(ParallelType::BIDx), 32768);
  EXPECT_EQ(p->index_type, DataType::Int32);
  EXPECT_EQ(p->toString(),
            "ReductionParams(inner, vectorization_factor = 4, unroll_factor = 2, bdimx = 512, "
            "bdimy = 1, cross_block = false, grid_y = 1, index_type = int32, LaunchParams(grid = "
            "[32768, -, "
            "-], block = [512, -, -]))");
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

// fp32 [32Ki, 4Ki] summed over the first axis: columns on threadIdx.x, halved until there
// are at least as many blocks as SMs (128 columns of 32), the reduced axis on 16 threads of
// threadIdx.y, each unrolling 4 rows.
TEST(ReductionHeuristics, OuterColumns) {
  auto f = sumOf2d(0);
  auto p = reductionHeuristics(*f, {schedtest::contiguous({32768, 4096})});
  EXPECT_FALSE(p->inner_reduction);
  EXPECT_EQ(p->vectorization_factor, 1);
  EXPECT_EQ(p->bdimx, 32);
  EXPECT_EQ(p->bdimy, 16);
  EXPECT_EQ(p->unroll_factor, 4);
  EXPECT_EQ(p->lparams.getDim(ParallelType::BIDx), 128);
}

// One 128Mi fp32 vector: one output, so the row is shared by 528 blocks (4 per SM) on
// blockIdx.y, each reducing a contiguous chunk before the grid reduction.
TEST(ReductionHeuristics, LongVectorIsCrossBlock) {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* x = makeContigTensor(1);
  fusion->addInput(x);
  fusion->addOutput(sum(x, {0}));
  auto p = reductionHeuristics(*fusion, {schedtest::contiguous({int64_t{128} << 20})});
  EXPECT_TRUE(p->inner_reduction);
  EXPECT_TRUE(p->cross_block);
  EXPECT_EQ(p->grid_y, 528);
  EXPECT_EQ(p->vectorization_factor, 4);
  EXPECT_EQ(p->bdimx, 512);
  EXPECT_EQ(p->unroll_factor, 4);
  EXPECT_FALSE(p->lparams.hasDim(ParallelType::BIDx));
  EXPECT_EQ(p->lparams.getDim(ParallelType::BIDy), 528);
}

// [32Ki, 4Ki] over the first axis: 128 blocks of columns are fewer than the SMs, so each
// column is shared by 5 blocks (4 blocks per SM in all).
TEST(ReductionHeuristics, OuterFewColumnsIsCrossBlock) {
  auto f = sumOf2d(0);
  auto p = reductionHeuristics(*f, {schedtest::contiguous({32768, 4096})});
  EXPECT_TRUE(p->cross_block);
  EXPECT_EQ(p->grid_y, 5);
  EXPECT_EQ(p->lparams.getDim(ParallelType::BIDx), 128);
  EXPECT_EQ(p->lparams.getDim(ParallelType::BIDy), 5);
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
// So does an output that feeds the reduction: its global copy (cacheFork) is computed beside
// the reduction too (softmax's exp, kept for a later segment, once failed to lower so).
TEST(ReductionHeuristics, OutputBesideTheReductionStaysInOneBlock) {
  for (bool feeds : {false, true}) {
    auto fusion = std::make_unique<Fusion>();
    FusionGuard fg(fusion.get());
    TensorView* x = makeContigTensor(1);
    fusion->addInput(x);
    TensorView* e = exp(x);
    fusion->addOutput(sum(feeds ? e : x, {0}));
    fusion->addOutput(e);
    auto p = reductionHeuristics(*fusion, {schedtest::contiguous({int64_t{1} << 20})});
    EXPECT_FALSE(p->cross_block) << (feeds ? "feeding output" : "output beside");
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
    Fusion f;
    FusionGuard fg(&f);
    TensorView* x = makeContigTensor(3);
    f.addInput(x);
    f.addOutput(sum(x, {1}));
    EXPECT_THAT(refuse(f), HasSubstr("reduces axes that are neither the innermost nor the "
                                     "outermost of its input"));
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

// Two reductions of inputs whose extents differ at run time are refused then.
TEST(ReductionRefusal, ExtentsDifferAtRunTime) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* x = makeContigTensor(2);
  TensorView* y = makeContigTensor(2);
  f.addInput(x);
  f.addInput(y);
  f.addOutput(sum(x, {1}));
  f.addOutput(max(y, {1}));
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

// The outer schedule: every thread reduces its column's rows serially (unrolled), then the
// block all-reduces across threadIdx.y.
TEST(ReductionSchedule, OuterKernel) {
  FusionExecutorCache fec(sumOf2d(0));
  std::vector<Tensor> in = {Tensor::random({37, 1000}, DataType::Float, 1)};
  std::vector<Tensor> out = fec.runFusionWithInputs(in);
  ASSERT_EQ(out.at(0).sizes(), std::vector<int64_t>{1000});
  const std::string code = fec.getMostRecentCode();
  EXPECT_THAT(code, HasSubstr("mf_blockAllReduceY<float>"));
  EXPECT_THAT(code, HasSubstr("#pragma unroll"));
  EXPECT_THAT(fec.getMostRecentScheduledIr(), HasSubstr("rthreadIdx.y"));
}

// The grid reduction's kernel: blockIdx.y splits the row, the block all-reduce, then
// mf_gridAllReduceY with the work buffer and semaphores the summary asks the executor for.
TEST(ReductionSchedule, CrossBlockInnerKernel) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* x = makeContigTensor(1);
    fusion->addInput(x);
    fusion->addOutput(sum(x, {0}));
  }
  FusionExecutorCache fec(std::move(fusion));
  std::vector<Tensor> in = {Tensor::random({int64_t{1} << 20}, DataType::Float, 5)};
  fec.runFusionWithInputs(in);
  auto* p =
      dynamic_cast<const ReductionParams*>(fec.getMostRecentKernelRuntime()->heuristics().at(0));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->grid_y, 32);
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
  EXPECT_EQ(p->grid_y, 16);
  EXPECT_THAT(fec.getMostRecentCode(), HasSubstr("mf_blockAllReduceY<float>"));
  EXPECT_THAT(fec.getMostRecentCode(), HasSubstr("mf_gridAllReduceY<float>"));
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
    EXPECT_THAT(fec.getMostRecentCode(),
                HasSubstr(axis == 1 ? "mf_blockAllReduceX<float>" : "mf_blockAllReduceY<float>"));
  }
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
