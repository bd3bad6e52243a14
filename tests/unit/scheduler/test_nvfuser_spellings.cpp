// nvFuser's spellings of IR accessors and heuristics, beside minifuser's own names (the parity
// issue, section 3; docs/porting_from_nvfuser.md): each returns what minifuser's name returns.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cuda/driver.h"
#include "random/kernel_interpreter.h"

#include "scheduler/normalization_inner.h"
#include "scheduler/pointwise.h"
#include "unit/scheduler/scheduler_test_utils.h"

namespace mf {
namespace {

using schedtest::contiguous;
using schedtest::propose;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(NvfuserSpellings, IrAccessors) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* tv0 = makeSymbolicTensor(2);
  f.addInput(tv0);
  TensorView* tv1 = neg(tv0);
  TensorView* tv2 = add(tv1, tv0);
  TensorView* tv3 = sum(tv2, {1});
  TensorView* tv4 = where(gt(tv0, f.zeroVal(DataType::Float)), tv0, f.oneVal(DataType::Float));
  TensorView* tv5 = set(tv4);
  f.addOutput(tv3);
  f.addOutput(tv5);

  EXPECT_EQ(tv1->definition()->as<UnaryOp>()->getUnaryOpType(), UnaryOpType::Neg);
  EXPECT_EQ(tv2->definition()->as<BinaryOp>()->getBinaryOpType(), BinaryOpType::Add);
  EXPECT_EQ(tv4->definition()->as<TernaryOp>()->getTernaryOpType(), TernaryOpType::Where);
  EXPECT_EQ(tv3->definition()->as<ReductionOp>()->getReductionOpType(), BinaryOpType::Add);
  EXPECT_EQ(LoadStoreOpType::SegmenterSet, LoadStoreOpType::SegmentSet);
  EXPECT_EQ(tv0->getDataType(), std::optional<DataType>(DataType::Float));
  EXPECT_TRUE(tv3->domain()->hasReduction());
  EXPECT_FALSE(tv2->domain()->hasReduction());

  EXPECT_EQ(f.zeroVal()->constInt(), 0);
  EXPECT_EQ(f.oneVal()->constInt(), 1);
  EXPECT_EQ(f.zeroVal()->dtype(), DataType::Index);
  EXPECT_EQ(f.oneVal(DataType::Float)->dtype(), DataType::Float);

  tv5->axis(0)->parallelize(ParallelType::BIDx);
  EXPECT_EQ(tv5->axis(0)->getParallelType(), ParallelType::BIDx);
  tv1->inlineAt(1);
  EXPECT_EQ(tv1->getComputeAtPosition(), tv1->computeAtPosition());
  EXPECT_EQ(tv1->getComputeAtPosition(), 1);
}

// params->as<PointwiseParams>() as nvFuser's tests edit computed heuristics; another kind is
// a UserError naming the kind they are.
TEST(NvfuserSpellings, HeuristicParamsAs) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* tv0 = makeContigTensor(2);
  f.addInput(tv0);
  f.addOutput(neg(tv0));
  HeuristicsProposal p = propose(f, {contiguous({64, 1000})});
  ASSERT_EQ(p.type, SchedulerType::PointWise);
  PointwiseParams* pw = p.params->as<PointwiseParams>();
  EXPECT_EQ(pw, p.params.get());
  const HeuristicParams& const_params = *p.params;
  EXPECT_EQ(const_params.as<PointwiseParams>(), pw);
  EXPECT_THAT([&] { p.params->as<PersistentParams>(); },
              ThrowsMessage<UserError>("HeuristicParams::as: these are pointwise parameters"));
}

}  // namespace
}  // namespace mf

namespace mf {
namespace {

// nvFuser's PointwiseParamsTest.UnrollOnTopOfVectorize, ported: computed pointwise
// heuristics edited (vectorization and unroll factors), scheduled with, compiled and run with
// their lparams. The launch follows the edited schedule (PointwiseParams::followEditedFields;
// it was an InternalError: "the heuristics launch blockIdx.x = 4, but the kernel's blockIdx.x
// extent is 16"), and the kernel computes the reference's values (on the host interpreter here,
// on the device with a GPU).
class EditedPointwiseParams
    : public ::testing::TestWithParam<std::tuple<int64_t, int64_t, int64_t>> {};

TEST_P(EditedPointwiseParams, UnrollOnTopOfVectorize) {
  const auto [vect, unroll_inner, unroll_outer] = GetParam();
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* tv0 = makeContigTensor(2);
  TensorView* tv1 = makeContigTensor(1);
  fusion->addInput(tv0);
  fusion->addInput(tv1);
  fusion->addOutput(add(tv0, broadcast(tv1, {true, false})));
  const int64_t dim0 = 64, dim1 = 2048;
  const std::vector<Tensor> in = {Tensor::random({dim0, dim1}, DataType::Float, 1),
                                  Tensor::random({dim1}, DataType::Float, 2)};
  const std::vector<Tensor> want = ReferenceEvaluator(fusion.get()).run(in);

  SchedulerRuntimeInfo runtime_info(fusion.get(), in);
  auto scheduler = SchedulerEntry::makeSchedulerInstance(SchedulerType::PointWise);
  std::unique_ptr<HeuristicParams> heuristics =
      scheduler->computeHeuristics(fusion.get(), runtime_info);
  auto* pparams = heuristics->as<PointwiseParams>();
  pparams->break_point = 1;  // the 2-D schedule nvFuser's test expects at its sizes
  pparams->unroll_factor_inner = unroll_inner;
  pparams->unroll_factor_outer = unroll_outer;
  pparams->vectorization_factor = vect;
  scheduler->schedule(fusion.get(), pparams);

  KernelExecutor ke;
  ke.compile(fusion.get(), in);
  if (cuda::cudaAvailable()) {
    const std::vector<Tensor> out = ke.run(in, {}, &pparams->lparams);
    Tensor got = out.at(0).toHost();
    for (int64_t i = 0; i < want[0].numel(); ++i) ASSERT_EQ(got.item(i), want[0].item(i)) << i;
  } else {
    EXPECT_THAT([&] { ke.run(in, {}, &pparams->lparams); },
                ThrowsMessage<UserError>(HasSubstr("no CUDA device available")));
  }
  const cuda::LaunchDims& dims = ke.lastLaunch();
  EXPECT_EQ(dims.grid_y, dim0 / dims.block_y / unroll_outer);
  EXPECT_EQ(dims.grid_x, dim1 / vect / dims.block_x / unroll_inner);
  const std::vector<Tensor> interpreted = testing::interpretKernelOrThrow(ke.kernel(), in);
  for (int64_t i = 0; i < want[0].numel(); ++i)
    ASSERT_EQ(interpreted.at(0).item(i), want[0].item(i)) << i;
}

INSTANTIATE_TEST_SUITE_P(, EditedPointwiseParams,
                         ::testing::Combine(::testing::Values(1, 4), ::testing::Values(1, 2),
                                            ::testing::Values(1, 2)),
                         [](const auto& info) {
                           return fmt::format("vect_{}_inner_unroll_{}_outer_unroll_{}",
                                              std::get<0>(info.param), std::get<1>(info.param),
                                              std::get<2>(info.param));
                         });

}  // namespace
}  // namespace mf
