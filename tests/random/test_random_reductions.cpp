// 100 fixed-seed random fusions with reductions (sum, max, min over random axes, kept as
// size-1 axes and broadcast back, some also outputs of reduced rank) through the segmenter and
// FusionExecutorCache: every fusion is segmented into groups some scheduler takes (a whole
// fusion is never refused: any reduction alone is a Reduction segment, anything else
// pointwise), each group is scheduled, lowered and compiled with NVRTC, and the runtime's
// outputs equal the reference's (here, without a device, computed by it; on a GPU
// `random_fusions --reductions` compares device results).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <iostream>
#include <map>

#include "random/random_fusion.h"

namespace mf::testing {
namespace {

constexpr uint64_t kFusions = 100;

RandomFusion makeCase(uint64_t seed) {
  return makeRandomFusion(seed, {.reductions = true});
}

class RandomReductions : public ::testing::TestWithParam<uint64_t> {};

TEST_P(RandomReductions, SegmentsCompilesAndRuns) {
  RandomFusion rf = makeCase(GetParam());
  SCOPED_TRACE(rf.toString());
  std::vector<Tensor> expected = ReferenceEvaluator(rf.fusion.get()).run(rf.inputs);
  auto sf = SegmentCandidateFinder::segment(*rf.fusion, rf.inputs);
  SCOPED_TRACE(sf->toString());
  for (SegmentedGroup* g : sf->groups()) EXPECT_NE(g->schedulerType(), SchedulerType::None);
  FusionExecutorCache fec(std::make_unique<Fusion>(*rf.fusion));
  std::vector<Tensor> actual = fec.runFusionWithInputs(rf.inputs);
  EXPECT_EQ(fec.getMostRecentKernelRuntime()->fusionSegments()->toString(), sf->toString());
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t o = 0; o < expected.size(); ++o)
    EXPECT_EQ(actual[o].toString(), expected[o].toString()) << "output " << o;
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomReductions, ::testing::Range<uint64_t>(0, kFusions),
                         [](const auto& info) { return fmt::format("seed{}", info.param); });
// Seeds past the first 100 whose kernels once failed to lower (random_fusions --reductions
// on the H200).
INSTANTIATE_TEST_SUITE_P(Regressions, RandomReductions,
                         ::testing::Values<uint64_t>(784, 1904, 3088, 3222, 3954),
                         [](const auto& info) { return fmt::format("seed{}", info.param); });

// Both reduction schedulers' compile-time analyses on every whole fusion (the segmenter asks
// them about every group it forms while segmenting the seeds): each accepts or refuses with
// a reason, never throws. The seeds test runs what they accept.
TEST(RandomReductionsGenerator, SchedulersRefuseWithAReason) {
  int64_t accepted = 0, refused = 0;
  for (uint64_t seed = 0; seed < kFusions; ++seed) {
    RandomFusion rf = makeCase(seed);
    if (!rf.connected) continue;
    ReductionScheduler reduction;
    InnerPersistentScheduler persistent;
    for (SchedulerEntry* s :
         {static_cast<SchedulerEntry*>(&reduction), static_cast<SchedulerEntry*>(&persistent)}) {
      bool ok = false;
      ASSERT_NO_THROW(ok = s->canScheduleCompileTime(rf.fusion.get()))
          << "seed " << seed << " " << toString(s->schedulerType());
      if (ok) {
        ++accepted;
      } else {
        ++refused;
        EXPECT_FALSE(s->rejectReason().empty()) << "seed " << seed;
      }
    }
  }
  std::cout << fmt::format("whole fusions: {} accepted, {} refused\n", accepted, refused);
  EXPECT_GT(refused, 0);
}

// The generator makes what the test is about: reductions of every op, kept and reduced-rank
// outputs, and fusions that take more than one segment.
TEST(RandomReductionsGenerator, Coverage) {
  std::map<std::string, int64_t> ops;
  int64_t with_reduction = 0, reduced_rank_outputs = 0, segmented = 0;
  for (uint64_t seed = 0; seed < kFusions; ++seed) {
    RandomFusion rf = makeCase(seed);
    bool any = false;
    for (Expr* e : rf.fusion->exprs())
      if (auto* r = dynamic_cast<ReductionOp*>(e)) {
        ++ops[std::string(reductionOpName(r->opType()))];
        any = true;
      }
    with_reduction += any;
    for (Val* out : rf.fusion->outputs())
      if (auto* tv = dynamic_cast<TensorView*>(out); tv != nullptr && tv->definition() != nullptr)
        reduced_rank_outputs += tv->definition()->isA<ReductionOp>();
    if (any) segmented += SegmentCandidateFinder::segment(*rf.fusion, rf.inputs)->isSegmented();
  }
  std::cout << fmt::format(
      "{} fusions: {} with reductions, {} reduced-rank outputs, {} segmented\n", kFusions,
      with_reduction, reduced_rank_outputs, segmented);
  EXPECT_GT(with_reduction, kFusions / 3);
  EXPECT_GT(ops["add"], 0);
  EXPECT_GT(ops["max"], 0);
  EXPECT_GT(ops["min"], 0);
  EXPECT_GT(reduced_rank_outputs, 0);
  EXPECT_GT(segmented, 0);
}

}  // namespace
}  // namespace mf::testing
