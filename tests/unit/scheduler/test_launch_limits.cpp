// The pointwise and reduction schedulers keep the grid within the launch limits themselves
// (gridDim.x <= 2^31 - 1, gridDim.y / z <= 65535): sizes past 2^31 - 1 blocks get a serial
// loop over chunks of the grid. Checked on the CPU without allocating: heuristics from input
// metadata, the schedule, lowering, and the launch sizes the kernel summary computes for
// those sizes (KernelSummary::launchSizes refuses a launch past the limits).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "ir/expr_evaluator.h"
#include "minifuser.h"
#include "unit/scheduler/scheduler_test_utils.h"

namespace mf {
namespace {

using schedtest::contiguous;
using schedtest::propose;
using ::testing::HasSubstr;

// Schedules `fusion` as the registry proposes for `sizes` (one input per entry), lowers it
// and returns the launch sizes per parallel type (BIDx, BIDy, ... as the summary lists them),
// checking they are within the limits and that the kernel prints.
std::map<ParallelType, int64_t> launchFor(Fusion& fusion, SchedulerType expected,
                                          const std::vector<std::vector<int64_t>>& sizes,
                                          HeuristicsProposal* proposal_out = nullptr) {
  std::vector<TensorMetadata> inputs;
  for (const std::vector<int64_t>& s : sizes) inputs.push_back(contiguous(s));
  HeuristicsProposal proposal = propose(fusion, inputs);
  EXPECT_EQ(proposal.type, expected) << proposal.rejectionsString();
  if (proposal.type != expected) return {};
  EXPECT_LE(proposal.params->lparams.getDimOrOne(ParallelType::BIDx), kMaxGridDimX);
  EXPECT_LE(proposal.params->lparams.getDimOrOne(ParallelType::BIDy), kMaxGridDimYZ);
  EXPECT_LE(proposal.params->lparams.getDimOrOne(ParallelType::BIDz), kMaxGridDimYZ);
  EXPECT_EQ(proposal.params->index_type, DataType::Int64);
  SchedulerEntry::makeSchedulerInstance(proposal.type)->schedule(&fusion, proposal.params.get());
  std::unique_ptr<Kernel> kernel =
      lowerFusion(fusion, {.index_type = proposal.params->index_type, .verify = true});
  ExpressionEvaluator ee;
  for (size_t i = 0; i < sizes.size(); ++i)
    ee.bindTensorSizes(kernel->ir().inputs().at(i)->as<TensorView>(), sizes[i]);
  const std::vector<int64_t> launch = kernel->summary().launchSizes(ee);  // throws past limits
  std::map<ParallelType, int64_t> dims;
  for (size_t i = 0; i < launch.size(); ++i)
    dims[kernel->summary().parallel_dims[i].type] = launch[i];
  EXPECT_THAT(generateCuda(*kernel, "").kernel_code, HasSubstr("blockIdx.x"));
  if (proposal_out != nullptr) *proposal_out = std::move(proposal);
  return dims;
}

// 1-D pointwise over 2^42 elements: 2^33 blocks of 128 threads of 4-element vectors would be
// past gridDim.x; BIDx takes 2^31 - 1 of them and a serial loop the rest.
TEST(LaunchLimits, PointwiseOver2To42Elements) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* x = makeContigTensor(1);
  f.addInput(x);
  f.addOutput(exp(x));
  HeuristicsProposal proposal;
  std::map<ParallelType, int64_t> dims =
      launchFor(f, SchedulerType::PointWise, {{int64_t{1} << 42}}, &proposal);
  auto* params = dynamic_cast<const PointwiseParams*>(proposal.params.get());
  ASSERT_NE(params, nullptr);
  EXPECT_TRUE(params->split_grid_x);
  EXPECT_EQ(params->lparams.getDim(ParallelType::BIDx), kMaxGridDimX);
  EXPECT_EQ(dims.at(ParallelType::BIDx), kMaxGridDimX);
  EXPECT_EQ(dims.at(ParallelType::TIDx), 128);
}

// 2-D pointwise, X[4, 2^40] + bias[2^40]: the right side's 2^31 blocks go to BIDy (flipped,
// the bias dominates) in chunks of 65535 with a serial loop; the launch stays in bounds.
TEST(LaunchLimits, PointwiseTwoDimensionalOver2To40Columns) {
  Fusion f;
  FusionGuard fg(&f);
  schedtest::biasAdd(f);
  HeuristicsProposal proposal;
  std::map<ParallelType, int64_t> dims = launchFor(
      f, SchedulerType::PointWise, {{4, int64_t{1} << 40}, {int64_t{1} << 40}}, &proposal);
  auto* params = dynamic_cast<const PointwiseParams*>(proposal.params.get());
  ASSERT_NE(params, nullptr);
  EXPECT_EQ(params->break_point, 1);
  EXPECT_TRUE(params->split_grid_x || params->split_grid_y) << params->toString();
  EXPECT_LE(dims.at(ParallelType::BIDx), kMaxGridDimX);
  EXPECT_LE(dims.at(ParallelType::BIDy), kMaxGridDimYZ);
}

// Under the limit nothing changes: no split, the grid as before.
TEST(LaunchLimits, PointwiseUnderTheLimitIsNotSplit) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* x = makeContigTensor(1);
  f.addInput(x);
  f.addOutput(exp(x));
  PointwiseParams p = schedtest::pointwiseParams(f, {contiguous({int64_t{1} << 20})});
  EXPECT_FALSE(p.split_grid_x);
}

// A sum over the last axis of [2^34, 2]: four rows per block would take 2^32 blocks.
TEST(LaunchLimits, InnerReductionOver2To34Rows) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* x = makeContigTensor(2);
  f.addInput(x);
  f.addOutput(sum(x, {1}));
  HeuristicsProposal proposal;
  std::map<ParallelType, int64_t> dims =
      launchFor(f, SchedulerType::Reduction, {{int64_t{1} << 34, 2}}, &proposal);
  auto* params = dynamic_cast<const ReductionParams*>(proposal.params.get());
  ASSERT_NE(params, nullptr);
  EXPECT_TRUE(params->split_grid_x);
  EXPECT_EQ(dims.at(ParallelType::BIDx), kMaxGridDimX);
}

// A sum over the first axis of [2, 2^40]: 2^38 column vectors, 128 per block.
TEST(LaunchLimits, OuterReductionOver2To40Columns) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* x = makeContigTensor(2);
  f.addInput(x);
  f.addOutput(sum(x, {0}));
  HeuristicsProposal proposal;
  std::map<ParallelType, int64_t> dims =
      launchFor(f, SchedulerType::Reduction, {{2, int64_t{1} << 40}}, &proposal);
  auto* params = dynamic_cast<const ReductionParams*>(proposal.params.get());
  ASSERT_NE(params, nullptr);
  EXPECT_TRUE(params->split_grid_x);
  EXPECT_EQ(dims.at(ParallelType::BIDx), kMaxGridDimX);
}

}  // namespace
}  // namespace mf
