// Random DAGs of pointwise ops, broadcasts and segment_sets over inputs of unrelated shapes
// ([A, B], [A] and [C]), segmented for their inputs: every segmentation must be acyclic,
// cover every expr exactly once (a forwarded input chain once per group reading it), give
// each group a fusion its scheduler takes, and, run group by group on the CPU reference,
// reproduce the whole fusion's reference outputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "unit/segmenter/segmentation_test_utils.h"

namespace mf {
namespace {

constexpr uint64_t kFusions = 60;

struct RandomCase {
  std::unique_ptr<Fusion> fusion;
  std::vector<Tensor> inputs;
};

// Shape classes: 0 = [A, B], 1 = [A] (broadcasts to class 0), 2 = [C] (unrelated).
RandomCase makeRandomCase(uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](uint64_t n) { return static_cast<int64_t>(rng() % n); };
  const int64_t a = 2 + pick(7), b = 1 + pick(9), c = 3 + pick(11);
  const std::vector<std::vector<int64_t>> shapes = {{a, b}, {a}, {c}};

  RandomCase rc{std::make_unique<Fusion>(), {}};
  Fusion& f = *rc.fusion;
  FusionGuard fg(&f);
  std::vector<std::vector<TensorView*>> pool(3);
  const int64_t n_inputs = 2 + pick(3);
  for (int64_t i = 0; i < n_inputs; ++i) {
    const int64_t cls = i < 2 ? i * 2 : pick(3);  // at least [A, B] and [C]
    TensorView* tv = makeContigTensor(static_cast<int64_t>(shapes[cls].size()));
    f.addInput(tv);
    rc.inputs.push_back(Tensor::random(shapes[cls], DataType::Float, seed * 100 + i));
    pool[cls].push_back(tv);
  }
  auto any = [&](int64_t cls) { return pool[cls][pick(pool[cls].size())]; };
  const int64_t n_ops = 4 + pick(9);
  for (int64_t i = 0; i < n_ops; ++i) {
    int64_t cls = pick(3);
    if (pool[cls].empty()) cls = 0;
    TensorView* out = nullptr;
    switch (pick(6)) {
      case 0:
        out = neg(any(cls));
        break;
      case 1:
        out = add(any(cls), any(cls));
        break;
      case 2:
        out = mul(any(cls), constFloat(0.5));
        break;
      case 3:
        out = segment_set(any(cls));
        break;
      case 4:
        if (pool[1].empty()) {
          out = abs(any(cls));
          break;
        }
        out = sub(any(0), broadcast(any(1), {false, true}));
        cls = 0;
        break;
      default:
        out = maximum(any(cls), constFloat(0.25));
        break;
    }
    pool[cls].push_back(out);
  }
  // Every tensor computed and read by nothing is an output, and so is one more at random.
  std::vector<TensorView*> computed;
  for (const auto& p : pool)
    for (TensorView* tv : p)
      if (tv->definition() != nullptr) computed.push_back(tv);
  std::sort(computed.begin(), computed.end(),
            [](TensorView* x, TensorView* y) { return x->name() < y->name(); });
  for (TensorView* tv : computed)
    if (tv->uses().empty()) f.addOutput(tv);
  if (TensorView* extra = computed[pick(computed.size())]; !extra->isFusionOutput())
    f.addOutput(extra);
  return rc;
}

class RandomSegmentation : public ::testing::TestWithParam<uint64_t> {};

TEST_P(RandomSegmentation, AcyclicCoveringAndReproducesTheReference) {
  RandomCase rc = makeRandomCase(GetParam());
  Fusion& fusion = *rc.fusion;
  SCOPED_TRACE(fusion.mathString());
  auto sf = SegmentCandidateFinder::segment(fusion, rc.inputs);
  SCOPED_TRACE(sf->toString());

  // Acyclic: every edge runs forward in the run order, and every group input is a fusion
  // input or an output of an earlier group.
  std::set<const Val*> available(sf->completeFusion()->inputs().begin(),
                                 sf->completeFusion()->inputs().end());
  for (SegmentedGroup* g : sf->groups()) {
    for (SegmentedEdge* e : g->producerEdges()) EXPECT_LT(e->from->id(), g->id());
    for (Val* in : g->inputs()) EXPECT_TRUE(available.count(in)) << in->toInlineString();
    available.insert(g->outputs().begin(), g->outputs().end());
  }
  // Coverage: each expr in exactly one group, except a forwarded chain off an input (unary
  // ops only), which is in every group that reads it.
  std::map<std::string, int> count;
  for (SegmentedGroup* g : sf->groups())
    for (Expr* e : g->exprs()) ++count[e->toString()];
  for (Expr* e : sf->completeFusion()->exprs()) {
    ASSERT_TRUE(count.count(e->toString())) << e->toString() << " is in no group";
    if (count[e->toString()] > 1) {
      EXPECT_TRUE(e->isA<UnaryOp>()) << e->toString() << " is in several groups";
    }
  }
  // Each group's fusion is taken by its scheduler at these sizes.
  SchedulerRuntimeInfo info(&fusion, rc.inputs);
  for (SegmentedGroup* g : sf->groups()) {
    std::unique_ptr<Fusion> gf = sf->makeFusion(g);
    auto group_info = sf->groupRuntimeInfo(g, gf.get(), info);
    EXPECT_NE(sf->computeHeuristics(g, gf.get(), *group_info), nullptr)
        << "group " << g->id() << " is refused by " << toString(g->schedulerType());
  }
  std::vector<Tensor> expected = ReferenceEvaluator(&fusion).run(rc.inputs);
  std::vector<Tensor> actual = segtest::runGroupByGroup(*sf, rc.inputs);
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) segtest::expectSameTensor(actual[i], expected[i]);
  segtest::expectCacheMatchesReference(fusion, *sf, rc.inputs);
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomSegmentation, ::testing::Range<uint64_t>(0, kFusions),
                         [](const auto& info) { return "seed" + std::to_string(info.param); });

// The generator makes what the test is about: segment_sets and segmented fusions.
TEST(RandomSegmentationCoverage, SomeFusionsAreSegmented) {
  int segmented = 0, with_hint = 0;
  for (uint64_t seed = 0; seed < kFusions; ++seed) {
    RandomCase rc = makeRandomCase(seed);
    auto sf = SegmentCandidateFinder::segment(*rc.fusion, rc.inputs);
    segmented += sf->isSegmented();
    const std::vector<Expr*> exprs = rc.fusion->exprs();
    with_hint += std::any_of(exprs.begin(), exprs.end(), isSegmentSet);
  }
  EXPECT_GE(segmented, static_cast<int>(kFusions / 2));
  EXPECT_GE(with_hint, static_cast<int>(kFusions / 4));
}

}  // namespace
}  // namespace mf
