// groupReductionCalls: the block and grid reductions of a group of groupReductions in one
// runtime call (nvFuser's GroupedReductionOp). The pass's IR, the generated call (NVRTC, sm_90)
// and the values on the host interpreter against the CPU reference; the lowering rules'
// messages. The ported nvFuser tests (GroupedReduction1/2/3/6) run in LoweringPorts.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "random/kernel_interpreter.h"
#include "unit/lower/lower_test_utils.h"
#include "unit/lower/nvfuser_lowering_schedules.h"

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::ThrowsMessage;

namespace mf {
namespace {

using testing::checkAgainstReference;
using testing::lowering;

// Compiles `fusion` (NVRTC, sm_90), checks its values on the host interpreter against the
// reference of the defined fusion, and returns the kernel's own code (after the prelude).
std::string kernelBody(Fusion& fusion, const std::vector<std::vector<int64_t>>& sizes) {
  std::vector<Tensor> in;
  uint64_t seed = 23;
  for (const auto& s : sizes) in.push_back(Tensor::random(s, DataType::Float, seed++));
  const std::vector<Tensor> want = ReferenceEvaluator(testing::definedFusion().get()).run(in);
  KernelExecutor ke;
  ke.compile(&fusion, in);
  const std::vector<Tensor> got = testing::interpretKernelOrThrow(ke.kernel(), in);
  for (size_t i = 0; i < want.size(); ++i)
    checkAgainstReference(got.at(i), want[i], sizes[0].back(), fmt::format("output {}", i));
  const std::string code = ke.kernelCode();
  return code.substr(code.find("__global__"));
}

int64_t count(const std::string& s, const std::string& what) {
  int64_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// A sum and a max grouped (nvFuser's FusionGroupedReduction-style pair, [BIDx, rTIDx{32}]
// after a serial rfactor) are one runtime call: one block all-reduce, whose barriers are the
// runtime function's, for both; ungrouped, the same schedule makes two.
TEST(GroupReductionCalls, OneCallForTwoReductions) {
  for (auto [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{{5, 67}, {1, 1}, {3, 1000}}) {
    SCOPED_TRACE(fmt::format("[{}, {}]", rows, cols));
    Fusion fusion;
    FusionGuard fg(&fusion);
    testing::groupedSumMax(fusion);
    EXPECT_THAT(fusion.mathString(), HasSubstr(", group = 1)"));
    const std::string body = kernelBody(fusion, {{rows, cols}});
    EXPECT_EQ(count(body, "mf_blockAllReduce"), 1) << body;
    EXPECT_EQ(count(body, "__syncthreads"), 0) << body;
    EXPECT_THAT(body, HasSubstr("mf_blockAllReduceTupleX(mf_reduceMember(block_values0, [](float "
                                "a, float b) { return (a + b); }, 0.0f), "
                                "mf_reduceMember(block_values1, [](float a, float b) { return "
                                "mf_maximum(a, b); }, "));
  }
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = sum(t0, {1});
  TensorView* t2 = max(t0, {1});
  fusion.addOutput(t1);
  fusion.addOutput(t2);
  testing::keepDefinition(fusion);
  for (TensorView* tv : {t1, t2}) {
    tv->split(1, 32);
    TensorView* rf = tv->rFactor({1});
    testing::parallelizeAll({tv, rf}, 0, ParallelType::BIDx);
    testing::parallelizeAll({tv, rf}, -1, ParallelType::TIDx);
  }
  inlineMost();
  EXPECT_EQ(count(kernelBody(fusion, {{5, 67}}), "mf_blockAllReduce"), 2);
}

// A Group axis in each member (outer reductions, 4 columns per thread): one call reduces the
// 4 values of both members; the second's group loops go.
TEST(GroupReductionCalls, GroupAxisValuesOfEveryMember) {
  for (auto [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{{13, 10}, {1, 1}, {7, 8}}) {
    SCOPED_TRACE(fmt::format("[{}, {}]", rows, cols));
    Fusion fusion;
    FusionGuard fg(&fusion);
    testing::groupedColumnSumMax(fusion);
    const std::string body = kernelBody(fusion, {{rows, cols}});
    EXPECT_EQ(count(body, "mf_blockAllReduce"), 1) << body;
    EXPECT_THAT(body, HasSubstr("float block_values0[4];"));
    EXPECT_THAT(body, HasSubstr("float block_values1[4];"));
    EXPECT_THAT(body, HasSubstr("mf_blockAllReduceTupleY(mf_reduceMember(block_values0, "));
  }
}

// The pass: the two calls of nvFuser's GroupedReduction1 (two sums of one input, sibling thread
// loops) become one at the second's place, a member (operands, op, predicates) each.
TEST(GroupReductionCalls, PassOutput) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  testing::groupedRowSums(fusion, 2);
  EXPECT_TRUE(testing::checkPass(fusion, "groupReductionCalls", R"(
%kernel {
  T2_l_float[iblockIdx.x4{i0}, rthreadIdx.x5{i1}] = ALLOCATE(size = 1, mem = l)
  T1_l_float[iblockIdx.x2{i0}, rthreadIdx.x3{i1}] = ALLOCATE(size = 1, mem = l)
  FOR ((mf_index_t)blockIdx.x) in iblockIdx.x2{i0}:
    T1[0] = set(0.0)
  FOR ((mf_index_t)blockIdx.x) in iblockIdx.x4{i0}:
    T2[0] = set(0.0)
    FOR ((mf_index_t)threadIdx.x) in rthreadIdx.x5{i1}:
      (T1[0], T2[0]) = call BlockAllReduce mf_blockAllReduceTupleX(in = T0[( ( ((mf_index_t)blockIdx.x) * T0.stride[0] ) + ( ((mf_index_t)threadIdx.x) * T0.stride[1] ) )], init = 0.0, op = add, in = T0[( ( ((mf_index_t)blockIdx.x) * T0.stride[0] ) + ( ((mf_index_t)threadIdx.x) * T0.stride[1] ) )], init = 0.0, op = add, across = threadIdx.x) (read: true, write: true; read: true, write: true)
  FOR ((mf_index_t)blockIdx.x) in iblockIdx.x6{i0}:
    T3[((mf_index_t)blockIdx.x)] = T1[0] + T2[0]
} // %kernel
)"));
}

// Grouped grid reductions (nvFuser's GroupedReduction2 and 3): one call across blocks for
// both, its work slots of the widest member type (double for a float and a double sum).
TEST(GroupReductionCalls, GridReductionOneCall) {
  for (bool mixed : {false, true}) {
    SCOPED_TRACE(mixed ? "float and double" : "sum and max");
    Fusion fusion;
    FusionGuard fg(&fusion);
    testing::groupedGridPair(fusion, mixed);
    const std::string body = kernelBody(fusion, {{3, 300}});
    EXPECT_EQ(count(body, "mf_blockAllReduce"), 1) << body;
    EXPECT_EQ(count(body, "mf_gridAllReduce"), 1) << body;
    EXPECT_THAT(body, HasSubstr(fmt::format("if (!mf_gridAllReduceTupleX(static_cast<{}*>("
                                            "mf_grid_work), mf_grid_semaphores, mf_reduceMember(",
                                            mixed ? "double" : "float")));
    const std::string summary = lowerFusion(fusion, {})->summary().toString();
    EXPECT_THAT(summary, HasSubstr(fmt::format("grid reduction: {}, 2 values per thread",
                                               mixed ? "double" : "float")));
  }
}

// nvFuser's GroupedReduction4, 5 and 7: reductions of different inputs (not the same shape),
// split differently, or one reading the other are refused by groupReductions.
TEST(GroupReductionCalls, GroupReductionsRefuses) {
  {
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* t0 = makeSymbolicTensor(2);
    TensorView* t1 = makeSymbolicTensor(2);
    fusion.addInput(t0);
    fusion.addInput(t1);
    TensorView* t2 = sum(t0, {1});
    TensorView* t3 = sum(t1, {1});
    fusion.addOutput(add(t2, t3));
    EXPECT_THAT(
        [&] {
          groupReductions({t2, t3});
        },
        ThrowsMessage<UserError>(HasSubstr("groupReductions: T3_l_float[iS6{i2}, rS7{i3}] "
                                           "is not scheduled as T2_l_float[")));
  }
  {
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* t0 = makeSymbolicTensor(2);
    fusion.addInput(t0);
    TensorView* t1 = sum(t0, {1});
    TensorView* t2 = sum(t0, {1});
    fusion.addOutput(add(t1, t2));
    t1->split(1, 128);
    t2->split(1, 64);
    EXPECT_THAT(
        [&] {
          groupReductions({t1, t2});
        },
        ThrowsMessage<UserError>(HasSubstr("is not scheduled as")));
  }
  {
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* t0 = makeSymbolicTensor(2);
    fusion.addInput(t0);
    TensorView* t1 = sum(t0, {1});
    TensorView* t4 = sum(add(t0, broadcast(t1, {false, true})), {1});
    fusion.addOutput(t4);
    EXPECT_THAT(
        [&] {
          groupReductions({t1, t4});
        },
        ThrowsMessage<UserError>(
            HasSubstr("depends on T1_l_float[iS2{i0}, rS3{i1}]; reductions reduced in one call "
                      "cannot read each other's results")));
  }
}

// Scheduled apart after groupReductions: reductions across different thread dimensions, or
// in loops of their own, cannot share a call (checked at lowering, where the schedule is final).
TEST(GroupReductionCalls, ScheduledApartRefused) {
  {
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* t0 = makeSymbolicTensor(2);
    fusion.addInput(t0);
    TensorView* t1 = sum(t0, {1});
    TensorView* t2 = sum(t0, {1});
    fusion.addOutput(t1);
    fusion.addOutput(t2);
    groupReductions({t1, t2});
    for (TensorView* tv : {t1, t2}) tv->axis(1)->parallelize(ParallelType::TIDx);
    EXPECT_THAT(lowering(fusion),
                ThrowsMessage<UserError>(HasSubstr(
                    "groupReductions: T1_g_float[iS2{i0}, rthreadIdx.x3{i1}] and "
                    "T2_g_float[iS4{i0}, rthreadIdx.x5{i1}] are not computed in one loop nest")));
  }
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = sum(t0, {1});
  TensorView* t2 = sum(t0, {1});
  fusion.addOutput(t1);
  fusion.addOutput(t2);
  groupReductions({t1, t2});
  for (TensorView* tv : {t1, t2}) tv->axis(0)->parallelize(ParallelType::BIDx);
  t1->axis(1)->parallelize(ParallelType::TIDx);
  t2->axis(1)->parallelize(ParallelType::TIDy);
  EXPECT_THAT(lowering(fusion),
              ThrowsMessage<UserError>(
                  HasSubstr("(mf_blockAllReduceY) does not reduce across the dimensions of ")));
}

}  // namespace
}  // namespace mf
