// The scheduler framework: the registry's priority order and rejections, the NoOp
// scheduler, the pointwise scheduler's compile-time refusals (pinned reasons),
// findReferenceTensor, SchedulerRuntimeInfo and LaunchParams.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/builder.h"
#include "scheduler/pointwise_utils.h"
#include "unit/scheduler/scheduler_test_utils.h"

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace mf::schedtest {
namespace {

TEST(SchedulerTypeTest, Names) {
  EXPECT_EQ(toString(SchedulerType::None), "none");
  EXPECT_EQ(toString(SchedulerType::NoOp), "no_op");
  EXPECT_EQ(toString(SchedulerType::PointWise), "pointwise");
  EXPECT_EQ(toString(SchedulerType::Reduction), "reduction");
  EXPECT_EQ(toString(SchedulerType::InnerPersistent), "inner_persistent");
  EXPECT_EQ(toString(SchedulerType::InnerOuterPersistent), "inner_outer_persistent");
  EXPECT_EQ(toString(SchedulerType::Transpose), "transpose");
}

// nvFuser's order; every scheduler is implemented.
TEST(Registry, PriorityOrder) {
  EXPECT_EQ(schedulersInPriorityOrder(),
            (std::vector<SchedulerType>{SchedulerType::NoOp, SchedulerType::Reduction,
                                        SchedulerType::Transpose, SchedulerType::PointWise,
                                        SchedulerType::InnerPersistent,
                                        SchedulerType::InnerOuterPersistent}));
  EXPECT_NE(SchedulerEntry::makeSchedulerInstance(SchedulerType::NoOp), nullptr);
  EXPECT_NE(SchedulerEntry::makeSchedulerInstance(SchedulerType::PointWise), nullptr);
  EXPECT_NE(SchedulerEntry::makeSchedulerInstance(SchedulerType::Reduction), nullptr);
  EXPECT_NE(SchedulerEntry::makeSchedulerInstance(SchedulerType::InnerPersistent), nullptr);
  EXPECT_NE(SchedulerEntry::makeSchedulerInstance(SchedulerType::InnerOuterPersistent), nullptr);
  EXPECT_NE(SchedulerEntry::makeSchedulerInstance(SchedulerType::Transpose), nullptr);
}

// ---------------------------------------------------------------- NoOp

// Every output empty: NoOp, before pointwise is tried.
TEST(NoOpScheduler, EmptyOutputs) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* tv0 = makeContigTensor(2);
  f.addInput(tv0);
  f.addOutput(neg(tv0));
  f.addOutput(add(tv0, tv0));
  for (std::vector<int64_t> sizes : {std::vector<int64_t>{0, 5}, {7, 0}, {0, 0}}) {
    HeuristicsProposal p = propose(f, {contiguous(sizes)});
    EXPECT_EQ(p.type, SchedulerType::NoOp);
    EXPECT_TRUE(p.rejections.empty());
    ASSERT_NE(p.params, nullptr);
    EXPECT_EQ(p.params->schedulerType(), SchedulerType::NoOp);
  }
}

// An output that is an input needs no kernel, whatever its size.
TEST(NoOpScheduler, OutputsThatAreInputs) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* tv0 = makeContigTensor(2);
  f.addInput(tv0);
  f.addOutput(tv0);
  EXPECT_EQ(propose(f, {contiguous({3, 5})}).type, SchedulerType::NoOp);
}

// One non-empty output: NoOp refuses (its reason pinned), pointwise takes the fusion.
TEST(NoOpScheduler, RefusesOutputWithElements) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* tv0 = makeContigTensor(2);
  f.addInput(tv0);
  f.addOutput(tv0);
  f.addOutput(neg(tv0));
  HeuristicsProposal p = propose(f, {contiguous({3, 5})});
  EXPECT_EQ(p.type, SchedulerType::PointWise);
  ASSERT_EQ(p.rejections.size(), 3u);
  EXPECT_EQ(p.rejections[0].first, SchedulerType::NoOp);
  EXPECT_EQ(p.rejections[0].second, "output T1 has 15 elements (sizes [3, 5])");
  EXPECT_EQ(p.rejectionsString(),
            "no_op: output T1 has 15 elements (sizes [3, 5])\n"
            "reduction: the fusion has no reduction\n"
            "transpose: nothing is transposed: every full-rank input and output has iS3{i1}, "
            "the reference's innermost allocation axis, innermost\n");
}

// Constant non-zero extents are refused before any size is known.
TEST(NoOpScheduler, RefusesConstantExtentsAtCompileTime) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* tv0 = makeContigConcreteTensor({4, 6});
  f.addInput(tv0);
  f.addOutput(neg(tv0));
  NoOpScheduler no_op;
  EXPECT_FALSE(no_op.canScheduleCompileTime(&f));
  EXPECT_THAT(no_op.rejectReason(), HasSubstr("has constant non-zero extents"));
  EXPECT_THAT(no_op.rejectReason(), HasSubstr("T1_g_float[iS2{4}, iS3{6}]"));
}

// ---------------------------------------------------------------- pointwise refusals

// No outputs: nothing for the pointwise scheduler (the registry gives it to NoOp).
TEST(PointwiseRefusal, NoOutputs) {
  Fusion f;
  FusionGuard fg(&f);
  Val* s = newScalar(DataType::Float);
  f.addInput(s);
  PointWiseScheduler pw;
  EXPECT_FALSE(pw.canScheduleCompileTime(&f));
  EXPECT_EQ(pw.rejectReason(),
            "the fusion has no outputs; the pointwise scheduler computes tensors");
  TensorMetadata scalar = contiguous({});
  scalar.scalar = ScalarValue{1.5};
  EXPECT_EQ(propose(f, {scalar}).type, SchedulerType::NoOp);
}

// Two unrelated outputs of different ranks: no output covers the other's axes; the
// registry returns None and both schedulers' reasons.
TEST(PointwiseRefusal, NoReferenceForUnrelatedOutputs) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* x = makeContigTensor(2);
  TensorView* y = makeContigTensor(1);
  f.addInput(x);
  f.addInput(y);
  f.addOutput(neg(x));
  f.addOutput(neg(y));
  HeuristicsProposal p = propose(f, {contiguous({4, 8}), contiguous({8})});
  EXPECT_EQ(p.type, SchedulerType::None);
  EXPECT_EQ(p.params, nullptr);
  ASSERT_EQ(p.rejections.size(), 6u);
  EXPECT_EQ(p.rejections[2].first, SchedulerType::Transpose);
  EXPECT_EQ(p.rejections[3].first, SchedulerType::PointWise);
  EXPECT_EQ(p.rejections[3].second,
            "no output covers every input and output axis (T2 lacks iS2{i2} of T1; T3 lacks "
            "iS0{i0} of T0)");
  EXPECT_EQ(p.rejections[4].first, SchedulerType::InnerPersistent);
  EXPECT_EQ(p.rejections[5].first, SchedulerType::InnerOuterPersistent);
}

// One broadcast concretized to two different axes (M and K): no output covers both.
TEST(PointwiseRefusal, BroadcastConcretizedToTwoAxes) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* a = makeContigTensor(1);
  TensorView* x = makeContigTensor(2);
  TensorView* y = makeContigTensor(2);
  f.addInput(a);
  f.addInput(x);
  f.addInput(y);
  TensorView* b = broadcast(a, {true, false});
  f.addOutput(add(b, x));
  f.addOutput(add(b, y));
  PointWiseScheduler pw;
  EXPECT_FALSE(pw.canScheduleCompileTime(&f));
  EXPECT_THAT(pw.rejectReason(), HasSubstr("no output covers every input and output axis"));
  EXPECT_THAT(pw.rejectReason(), HasSubstr("T4 lacks iS3{i3} of T2"));
}

// A reduction axis (reductions come with issue 9) is refused by name.
TEST(PointwiseRefusal, ReductionAxis) {
  Fusion f;
  FusionGuard fg(&f);
  auto* id0 = IterDomainBuilder(newScalar(DataType::Index)).build();
  auto* id1 = IterDomainBuilder(newScalar(DataType::Index)).iterType(IterType::Reduction).build();
  auto* tv0 = IrBuilder::create<TensorView>(
      IrBuilder::create<TensorDomain>(std::vector<IterDomain*>{id0, id1}), DataType::Float);
  f.addInput(tv0);
  f.addOutput(neg(tv0));
  PointWiseScheduler pw;
  EXPECT_FALSE(pw.canScheduleCompileTime(&f));
  EXPECT_THAT(pw.rejectReason(), HasSubstr("no support for reduction ops: T0_g_float["));
  EXPECT_THAT(pw.rejectReason(), HasSubstr("has a reduction axis"));
}

// The layout op's runtime function reads its offsets from global memory and writes its
// output directly: computed offsets and a consumed output are refused.
TEST(PointwiseRefusal, LayoutOpOffsetsAndOutput) {
  {
    Fusion f;
    FusionGuard fg(&f);
    auto [in, in_off, out_off] = layoutInputs(f);
    f.addOutput(preprocessGroupedMatmulInputSf(in, set(in_off), out_off));
    PointWiseScheduler pw;
    EXPECT_FALSE(pw.canScheduleCompileTime(&f));
    EXPECT_EQ(pw.rejectReason(),
              "preprocessGroupedMatmulInputSf: the offsets T3 must be a fusion input (its "
              "runtime function reads them from global memory)");
  }
  {
    Fusion f;
    FusionGuard fg(&f);
    auto [in, in_off, out_off] = layoutInputs(f);
    f.addOutput(set(preprocessGroupedMatmulInputSf(in, in_off, out_off)));
    PointWiseScheduler pw;
    EXPECT_FALSE(pw.canScheduleCompileTime(&f));
    EXPECT_EQ(pw.rejectReason(),
              "preprocessGroupedMatmulInputSf: its output T3 must be a fusion output (only a "
              "block-scaled grouped GEMM may read that layout)");
  }
}

// The layout op's output read in the same fusion is refused even when it is also an output;
// a segment_set is refused by every scheduler (the segmenter cuts there). One rule set,
// commonScheduleRejectReason, gives both reasons.
TEST(PointwiseRefusal, LayoutOpOutputConsumedAndSegmentSet) {
  {
    Fusion f;
    FusionGuard fg(&f);
    auto [in, in_off, out_off] = layoutInputs(f);
    TensorView* out = preprocessGroupedMatmulInputSf(in, in_off, out_off);
    f.addOutput(out);
    TensorView* r = relu(out);
    f.addOutput(r);
    PointWiseScheduler pw;
    EXPECT_FALSE(pw.canScheduleCompileTime(&f));
    EXPECT_EQ(pw.rejectReason(),
              "unsafe use of the output of preprocessGroupedMatmulInputSf: " + out->toString() +
                  " is read by " + r->toString() +
                  ", but only a block-scaled grouped GEMM can read the padded, swizzled "
                  "layout; do not use it in the fusion");
  }
  {
    Fusion f;
    FusionGuard fg(&f);
    TensorView* t0 = makeContigTensor(1);
    f.addInput(t0);
    TensorView* t1 = segment_set(t0);
    f.addOutput(neg(t1));
    const std::string reason = "`" + t1->definition()->toString() +
                               "` marks a segment boundary; the segmenter cuts the fusion there";
    PointWiseScheduler pw;
    EXPECT_FALSE(pw.canScheduleCompileTime(&f));
    EXPECT_EQ(pw.rejectReason(), reason);
    NoOpScheduler no_op;
    EXPECT_FALSE(no_op.canScheduleCompileTime(&f));
    EXPECT_EQ(no_op.rejectReason(), reason);
  }
}

// An empty reference [0, N] next to a non-empty [1, N] output: a schedule over the reference
// would never write the second output, so the pointwise scheduler refuses at run time.
TEST(PointwiseRefusal, EmptyReferenceWithNonEmptyOutput) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* x = makeContigTensor(2);
  TensorView* row = makeConcreteTensor({1, -1});
  f.addInput(x);
  f.addInput(row);
  f.addOutput(add(x, row));
  f.addOutput(neg(row));
  HeuristicsProposal p = propose(f, {contiguous({0, 8}), contiguous({1, 8})});
  EXPECT_EQ(p.type, SchedulerType::None);
  EXPECT_EQ(p.rejectionsString(),
            "no_op: output T3 has 8 elements (sizes [1, 8])\n"
            "reduction: the fusion has no reduction\n"
            "transpose: nothing is transposed: every full-rank input and output has iS5{i1}, "
            "the reference's innermost allocation axis, innermost\n"
            "pointwise: the reference T2 is empty but output T3 is not\n"
            "inner_persistent: the fusion has no reduction\n"
            "inner_outer_persistent: the fusion has no reduction\n");
  EXPECT_EQ(propose(f, {contiguous({3, 8}), contiguous({1, 8})}).type, SchedulerType::PointWise);
}

// ---------------------------------------------------------------- reference tensor

// Outputs [M, N] and [N] (from a broadcast input): the [M, N] output covers both.
TEST(ReferenceTensor, CoveringOutputOfHigherRank) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* x = makeContigTensor(2);
  TensorView* y = makeContigTensor(1);
  f.addInput(x);
  f.addInput(y);
  TensorView* small = neg(y);
  TensorView* big = add(x, broadcast(y, {true, false}));
  f.addOutput(small);
  f.addOutput(big);
  PointwiseDomainMap map(&f);
  EXPECT_EQ(findReferenceTensor(&f, map), big);
  EXPECT_TRUE(map.areMapped(y->axis(0), big->axis(1)));
  EXPECT_TRUE(map.areMapped(small->axis(0), x->axis(1)));
  EXPECT_FALSE(map.areMapped(x->axis(0), x->axis(1)));
  std::string missing;
  EXPECT_FALSE(map.covers(small, &missing));
  EXPECT_EQ(missing, "iS0{i0} of T0");
}

// An output that is also an input is a reference only when nothing else is.
TEST(ReferenceTensor, PrefersComputedOutput) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* x = makeContigTensor(2);
  f.addInput(x);
  f.addOutput(x);
  TensorView* y = neg(x);
  f.addOutput(y);
  PointwiseDomainMap map(&f);
  EXPECT_EQ(findReferenceTensor(&f, map), y);
}

// ---------------------------------------------------------------- SchedulerRuntimeInfo

TEST(SchedulerRuntimeInfoTest, LayoutsAndAlignment) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* tv0 = makeContigTensor(2, DataType::Half);
  tv0->setAllocationDomain({tv0->axis(1), tv0->axis(0)}, true);
  f.addInput(tv0);
  TensorView* out = neg(tv0);
  f.addOutput(out);
  SchedulerRuntimeInfo info(&f, {strided({6, 10}, {1, 6}, DataType::Half, 3)});
  EXPECT_EQ(info.extent(out->axis(1)), 10);
  EXPECT_EQ(info.alignment(tv0), 2);  // 3 halves = 6 bytes past a 256-byte base
  EXPECT_EQ(info.alignment(out), kAllocationAlignment);
  EXPECT_EQ(info.inputMetadata(out), nullptr);
  std::vector<AllocationAxis> in_axes = *info.allocationLayout(tv0);
  ASSERT_EQ(in_axes.size(), 2u);
  EXPECT_EQ(in_axes[0].id, tv0->axis(1));
  EXPECT_EQ(in_axes[0].size, 10);
  EXPECT_EQ(in_axes[0].stride, 6);
  EXPECT_EQ(in_axes[1].stride, 1);
  std::vector<AllocationAxis> out_axes = *info.allocationLayout(out);
  EXPECT_EQ(out_axes[0].stride, 10);
  EXPECT_EQ(out_axes[1].stride, 1);
  EXPECT_TRUE(out_axes[0].contiguous);
  EXPECT_EQ(info.device().sm_count, 132);
  EXPECT_EQ(info.indexType(), DataType::Int32);
}

// Host tensors give their metadata; a 0-dim tensor gives a scalar input's value.
TEST(SchedulerRuntimeInfoTest, FromHostTensors) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* tv0 = makeContigTensor(2);
  Val* s = newScalar(DataType::Float);
  f.addInput(tv0);
  f.addInput(s);
  f.addOutput(mul(tv0, s));
  std::vector<Tensor> inputs = {Tensor::random({1000, 17}, DataType::Float, 1),
                                Tensor::fromVector<double>({2.5}, {})};
  SchedulerRuntimeInfo info(&f, inputs);
  EXPECT_EQ(std::get<double>(*info.expressionEvaluator().evaluate(s)), 2.5);
  HeuristicsProposal p = proposeHeuristics(&f, info);
  ASSERT_EQ(p.type, SchedulerType::PointWise);
  EXPECT_EQ(static_cast<PointwiseParams*>(p.params.get())->vectorization_factor, 4);
}

TEST(SchedulerRuntimeInfoTest, Errors) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* tv0 = makeContigConcreteTensor({4, 6});
  f.addInput(tv0);
  f.addOutput(neg(tv0));
  EXPECT_THAT(
      [&] { SchedulerRuntimeInfo(&f, std::vector<TensorMetadata>{}); },
      ThrowsMessage<UserError>(HasSubstr("SchedulerRuntimeInfo: the fusion has 1 inputs, got 0")));
  EXPECT_THAT(
      [&] {
        SchedulerRuntimeInfo(&f, {strided({4, 6}, {6})});
      },
      ThrowsMessage<UserError>(
          HasSubstr("SchedulerRuntimeInfo: input T0 has 2 sizes but 1 strides")));
  EXPECT_THAT(
      [&] {
        SchedulerRuntimeInfo(&f, {contiguous({4, 7})});
      },
      ThrowsMessage<UserError>(HasSubstr("T0")));
}

TEST(SchedulerRuntimeInfoTest, ScalarInputNeedsValue) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* tv0 = makeContigTensor(1);
  Val* s = newScalar(DataType::Float);
  f.addInput(tv0);
  f.addInput(s);
  f.addOutput(mul(tv0, s));
  EXPECT_THAT(
      [&] {
        SchedulerRuntimeInfo(&f, {contiguous({4}), contiguous({})});
      },
      ThrowsMessage<UserError>(HasSubstr("scalar input f1 needs a 0-dim tensor")));
}

TEST(LaunchParamsTest, BindAndPrint) {
  LaunchParams lp;
  EXPECT_FALSE(lp.hasDim(ParallelType::BIDx));
  EXPECT_EQ(lp.getDim(ParallelType::BIDx), LaunchParams::kUnbound);
  EXPECT_EQ(lp.getDimOrOne(ParallelType::BIDx), 1);
  lp.bind(64, ParallelType::TIDx);
  lp.bind(2, ParallelType::TIDy);
  lp.bind(9, ParallelType::BIDy);
  EXPECT_EQ(lp.nThreads(), 128);
  EXPECT_EQ(lp.toString(), "LaunchParams(grid = [-, 9, -], block = [64, 2, -])");
  LaunchParams other = lp;
  EXPECT_EQ(other, lp);
  other.bind(10, ParallelType::BIDy);
  EXPECT_NE(other, lp);
}

}  // namespace
}  // namespace mf::schedtest
