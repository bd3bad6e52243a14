// nvFuser's hand-scheduled reduction tests, ported (unit/lower/nvfuser_lowering_schedules.h):
// each schedule lowers, compiles with NVRTC for sm_90 and computes the CPU reference's values
// on the host kernel interpreter, at nvFuser's sizes scaled down and at sizes 1, primes and
// non-divisible extents; the lowering rules they need pin their error messages here.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "random/kernel_interpreter.h"
#include "unit/lower/lower_test_utils.h"
#include "unit/lower/nvfuser_lowering_schedules.h"

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace mf {
namespace {

using testing::checkAgainstReference;

// Lowers and compiles `fusion` (KernelExecutor: NVRTC, sm_90), runs it on the host
// interpreter and compares with the reference; returns the CUDA source.
std::string runPort(Fusion& fusion, const std::vector<std::vector<int64_t>>& sizes,
                    uint64_t seed = 7) {
  std::vector<Tensor> in;
  for (const auto& s : sizes) in.push_back(Tensor::random(s, DataType::Float, seed++));
  const std::vector<Tensor> want = ReferenceEvaluator(testing::definedFusion().get()).run(in);
  KernelExecutor ke;
  ke.compile(&fusion, in);
  const std::vector<Tensor> got = testing::interpretKernelOrThrow(ke.kernel(), in);
  int64_t terms = 1;
  for (const auto& s : sizes)
    for (int64_t n : s) terms = std::max(terms, n);
  for (size_t i = 0; i < want.size(); ++i)
    checkAgainstReference(got.at(i), want[i], terms, fmt::format("output {}", i));
  return ke.kernelCode();
}

class LoweringPorts : public ::testing::TestWithParam<testing::LoweringPort> {};

// Every ported schedule computes the reference's values on the host interpreter.
TEST_P(LoweringPorts, MatchesReference) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  GetParam().build(fusion);
  runPort(fusion, GetParam().sizes);
}

INSTANTIATE_TEST_SUITE_P(, LoweringPorts, ::testing::ValuesIn(testing::loweringPorts()),
                         [](const auto& info) { return info.param.name; });

// nvFuser's FusionGridReduction1 (the reduction's block part across blockIdx.x) and
// FusionGridReduction2 (across blockIdx.y), with fewer rows than nvFuser's 10000 x 65000.
TEST(NvfuserLoweringPorts, GridReduction1And2) {
  for (ParallelType dim : {ParallelType::BIDx, ParallelType::BIDy})
    for (auto [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{
             {1, 1}, {3, 65000 / 16}, {7, 131}, {2, 32 * 128 + 1}}) {
      Fusion fusion;
      FusionGuard fg(&fusion);
      testing::gridReduction1(fusion, dim, 8, 32);
      SCOPED_TRACE(fmt::format("{} [{}, {}]", toString(dim), rows, cols));
      const std::string code = runPort(fusion, {{rows, cols}});
      EXPECT_THAT(code, HasSubstr(dim == ParallelType::BIDx ? "mf_gridAllReduceX<float>("
                                                            : "mf_gridAllReduceY<float>("));
    }
}

// The generated code pins the features: a grid reduction across blockIdx.x, the tree
// all-reduce that takes any blockDim.x, a Group axis as the block reduction's group.
TEST(NvfuserLoweringPorts, GeneratedCalls) {
  {
    Fusion fusion;
    FusionGuard fg(&fusion);
    testing::gridReduction5(fusion);
    EXPECT_THAT(runPort(fusion, {{3, 300}}), HasSubstr("if (!mf_gridAllReduceX<float>("));
  }
  {
    Fusion fusion;
    FusionGuard fg(&fusion);
    testing::groupedColumnSum(fusion);
    EXPECT_THAT(runPort(fusion, {{5, 8}}),
                HasSubstr("mf_blockAllReduceY<float, 4>(block_values, "));
  }
}

// A reduction across two block dimensions, and grid reductions of one kernel across
// different ones, are refused.
TEST(NvfuserLoweringPorts, GridReductionRules) {
  {
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* t0 = makeSymbolicTensor(2);
    fusion.addInput(t0);
    TensorView* t1 = sum(t0, {0, 1});
    fusion.addOutput(t1);
    t1->split(1, 32);
    t1->axis(0)->parallelize(ParallelType::BIDx);
    t1->axis(1)->parallelize(ParallelType::BIDy);
    t1->axis(2)->parallelize(ParallelType::TIDx);
    EXPECT_THAT(testing::lowering(fusion),
                ThrowsMessage<UserError>(HasSubstr(
                    "reduction axes rblockIdx.x2{i0} and rblockIdx.y4{ceilDiv(i1, 32)} are both "
                    "bound to blocks; a grid reduction reduces across one block dimension")));
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
    for (TensorView* tv : {t1, t2}) tv->split(0, 32);
    t1->axis(0)->parallelize(ParallelType::BIDx);
    t2->axis(0)->parallelize(ParallelType::BIDy);
    t1->axis(1)->parallelize(ParallelType::TIDx);
    t2->axis(1)->parallelize(ParallelType::TIDx);
    EXPECT_THAT(testing::lowering(fusion),
                ThrowsMessage<UserError>(HasSubstr(
                    "reduces across blockIdx.x but T2_g_float[rblockIdx.y5{ceilDiv(i0, 32)}, "
                    "rthreadIdx.x6{32}] across blockIdx.y; the grid reductions of a kernel "
                    "reduce across one block dimension")));
  }
}

// A thread-bound iteration axis after a block reduction's group loop is refused: the group's
// loops are the innermost.
TEST(NvfuserLoweringPorts, ThreadAxisAfterGroupIsRefused) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(3);
  fusion.addInput(t0);
  TensorView* t1 = sum(t0, {0});
  fusion.addOutput(t1);
  t1->axis(0)->parallelize(ParallelType::TIDy);
  t1->split(1, 4);
  t1->axis(1)->parallelize(ParallelType::BIDx);
  t1->axis(2)->parallelize(ParallelType::Group);
  t1->axis(3)->parallelize(ParallelType::TIDx);
  EXPECT_THAT(testing::lowering(fusion),
              ThrowsMessage<UserError>(HasSubstr(
                  "ithreadIdx.x5{i2} is bound to threadIdx.x but follows iG7{4}, a loop of the "
                  "block reduction's group; move it before the group's axes")));
}

// groupReductions takes reductions scheduled alike only.
TEST(NvfuserLoweringPorts, GroupReductionsNeedsAlikeSchedules) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = sum(t0, {1});
  TensorView* t2 = max(t0, {1});
  TensorView* t3 = neg(t0);
  fusion.addOutput(t1);
  fusion.addOutput(t2);
  t1->axis(1)->parallelize(ParallelType::TIDx);
  EXPECT_THAT(
      [&] {
        groupReductions({t1, t2});
      },
      ThrowsMessage<UserError>(
          HasSubstr("groupReductions: T2_g_float[iS4{i0}, rS5{i1}] is not scheduled as "
                    "T1_g_float[iS2{i0}, rthreadIdx.x3{i1}] (the same loop axes, extents and "
                    "parallel types)")));
  EXPECT_THAT(
      [&] {
        groupReductions({t1, t3});
      },
      ThrowsMessage<UserError>(HasSubstr("groupReductions: T3_l_float[")));
}

}  // namespace
}  // namespace mf
