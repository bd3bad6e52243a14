// unswitchLoops: one predicate for an unswitched loop nest (nvFuser's Unswitch), a fast path
// without per-element guards and the guarded nest in the else. Each schedule lowers, compiles
// with NVRTC and runs on the host interpreter (which fails on any access outside a buffer);
// the values are the CPU reference's (the schedules run in LoweringPorts.MatchesReference too).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "random/kernel_interpreter.h"
#include "random/random_fusion.h"
#include "unit/lower/lower_test_utils.h"
#include "unit/lower/nvfuser_lowering_schedules.h"

using ::testing::HasSubstr;
using ::testing::Not;

namespace mf {
namespace {

// The branch unswitchLoops made (the first IfThenElse with an else), or null.
IfThenElse* unswitchBranch(Scope& scope) {
  for (Expr* e : scope.exprs()) {
    if (auto* ite = dynamic_cast<IfThenElse*>(e); ite != nullptr && !ite->elseBody().empty())
      return ite;
    if (auto* loop = dynamic_cast<ForLoop*>(e))
      if (IfThenElse* found = unswitchBranch(loop->body())) return found;
  }
  return nullptr;
}

// Whether `scope` holds a guard at any depth.
bool hasGuard(const Scope& scope) {
  return std::any_of(scope.exprs().begin(), scope.exprs().end(), [](Expr* e) {
    if (e->isA<IfThenElse>()) return true;
    auto* loop = dynamic_cast<ForLoop*>(e);
    return loop != nullptr && hasGuard(loop->body());
  });
}

struct Compiled {
  std::vector<Tensor> in, want;
  KernelExecutor ke;
};

void compile(Compiled& c, void (*build)(Fusion&), Fusion& fusion,
             const std::vector<std::vector<int64_t>>& sizes) {
  build(fusion);
  uint64_t seed = 11;
  for (const auto& s : sizes) c.in.push_back(Tensor::random(s, DataType::Float, seed++));
  c.want = ReferenceEvaluator(testing::definedFusion().get()).run(c.in);
  c.ke.compile(&fusion, c.in);
}

// The elements of `got` equal to the reference's (the rest are NaN: unwritten).
int64_t written(const Tensor& got, const Tensor& want) {
  int64_t n = 0;
  for (int64_t i = 0; i < want.numel(); ++i)
    n += std::abs(got.item(i) - want.item(i)) < 1e-5 ? 1 : 0;
  return n;
}

// The pass: `exp` of a 1-D tensor split by 4, the inner loop unswitched. The guard
// `i * 4 + j < n` becomes `i * 4 + 3 < n` around the nest; the else keeps the guarded nest.
TEST(UnswitchLoops, PassOutput) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = exp(t0);
  fusion.addOutput(t1);
  t1->split(0, 4);
  t1->axis(1)->parallelize(ParallelType::Unswitch);
  EXPECT_TRUE(testing::checkPass(fusion, "unswitchLoops", R"(
%kernel {
  FOR i3 in iS2{ceilDiv(i0, 4)}:
    IF ( ( ( i3 * 4 ) + 3 ) < i0 ):
      FOR i4 in iUS3{4}:
        T1[( ( i3 * 4 ) + i4 )] = exp(T0[( ( i3 * 4 ) + i4 )])
    ELSE:
      FOR i4 in iUS3{4}:
        IF ( ( ( i3 * 4 ) + i4 ) < i0 ):
          T1[( ( i3 * 4 ) + i4 )] = exp(T0[( ( i3 * 4 ) + i4 )])
} // %kernel
)"));
}

// nvFuser's FusionLoopUnswitch: the inner loop's guard `i * 32 + j < n` becomes one check per
// outer iteration at j = 31, the fast path has no guard and the else keeps it.
TEST(UnswitchLoops, OnePredicateAndAnElsePath) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Compiled c;
  compile(c, testing::loopUnswitch, fusion, {{97}});
  const std::string code = c.ke.kernelCode();
  EXPECT_THAT(code, HasSubstr("if (((i10 + 31) < T0.size[0])) {"));
  EXPECT_THAT(code, HasSubstr("} else {"));
  IfThenElse* branch = unswitchBranch(c.ke.kernel().body());
  ASSERT_NE(branch, nullptr) << c.ke.kernel().toString();
  EXPECT_FALSE(hasGuard(branch->thenBody()));
  EXPECT_TRUE(hasGuard(branch->elseBody()));
  EXPECT_THAT(c.ke.kernel().toString(), HasSubstr("ELSE:"));
}

// Both paths run where the last outer iteration overruns (97 = 3 * 32 + 1): the fast path
// alone writes the first 96 elements, the else alone the last one. A multiple of 32 takes the
// fast path only; a single element the else only.
TEST(UnswitchLoops, BothPathsTaken) {
  for (auto [n, fast, slow] :
       std::vector<std::array<int64_t, 3>>{{97, 96, 1}, {1000, 992, 8}, {64, 64, 0}, {1, 0, 1}}) {
    SCOPED_TRACE(n);
    Fusion fusion;
    FusionGuard fg(&fusion);
    Compiled c;
    compile(c, testing::loopUnswitch, fusion, {{n}});
    const Tensor& want = c.want.at(0);
    EXPECT_EQ(written(testing::interpretKernelOrThrow(c.ke.kernel(), c.in).at(0), want), n);
    IfThenElse* branch = unswitchBranch(c.ke.kernel().body());
    ASSERT_NE(branch, nullptr);
    Scope then = branch->thenBody(), other = branch->elseBody();
    branch->thenBody() = Scope();
    EXPECT_EQ(written(testing::interpretKernelOrThrow(c.ke.kernel(), c.in).at(0), want), slow);
    branch->thenBody() = then;
    branch->elseBody() = Scope();
    EXPECT_EQ(written(testing::interpretKernelOrThrow(c.ke.kernel(), c.in).at(0), want), fast);
    branch->elseBody() = other;
  }
}

// The manual pointwise schedule [BIDx, US{4}, TIDx{128}]: the thread index stays as it is,
// the unswitched index at 3.
TEST(UnswitchLoops, ThreadIndexKept) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Compiled c;
  compile(c, testing::unswitchPointwise, fusion, {{7, 131}, {7, 131}});
  const std::string code = c.ke.kernelCode();
  EXPECT_THAT(code, HasSubstr("} else {"));
  EXPECT_THAT(code, HasSubstr("if (((((i20 + 3) * 128) + ((mf_index_t)threadIdx.x)) < i5)) {"));
}

// A nest reading shared memory keeps its guards (a barrier must not sit in a branch the
// threads of a block take apart): nvFuser's FusionPredicateUnshare.
TEST(UnswitchLoops, SharedMemoryKeepsGuards) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Compiled c;
  compile(c, testing::predicateUnshare, fusion, {{10, 11}});
  EXPECT_EQ(unswitchBranch(c.ke.kernel().body()), nullptr);
  EXPECT_THAT(c.ke.kernelCode(), Not(HasSubstr("} else {")));
}

// A producer computed inside a pad's loop reads its input at `i - 1`: its guard's lower bound
// `0 <= i * 4 + j - 1` is checked at the nest's first j (smallest), its upper bounds at the
// last. The first outer iteration takes the else (it reads below 0 at j = 0), the last one
// too unless 4 divides n + 3.
TEST(UnswitchLoops, LowerBoundAtTheFirstIndex) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = exp(t0);
  TensorView* t2 = pad(t1, {constInt(1), constInt(2)});
  fusion.addOutput(t2);
  Fusion defined(fusion);
  t2->split(0, 4);
  t2->axis(1)->parallelize(ParallelType::Unswitch);
  propagateTransforms(t2);
  parallelizeAllLike(t2);
  inlineMost();
  for (int64_t n : {1, 5, 13, 30}) {
    SCOPED_TRACE(n);
    std::vector<Tensor> in{Tensor::random({n}, DataType::Float, 3)};
    const Tensor want = ReferenceEvaluator(&defined).run(in).at(0);
    KernelExecutor ke;
    ke.compile(&fusion, in);
    EXPECT_THAT(ke.kernelCode(), HasSubstr("} else {"));
    IfThenElse* branch = unswitchBranch(ke.kernel().body());
    ASSERT_NE(branch, nullptr) << ke.kernel().toString();
    EXPECT_THAT(branch->toString(), HasSubstr("( 0 <= ( ( i"));
    EXPECT_THAT(branch->toString(), HasSubstr(" * 4 ) - 1 )"));
    EXPECT_EQ(written(testing::interpretKernelOrThrow(ke.kernel(), in).at(0), want), want.numel());
    // The fast path alone misses the first four elements (the first outer iteration).
    Scope other = branch->elseBody();
    branch->elseBody() = Scope();
    EXPECT_LE(written(testing::interpretKernelOrThrow(ke.kernel(), in).at(0), want),
              want.numel() - 4);
    branch->elseBody() = other;
  }
}

// Random pointwise fusions as the pointwise scheduler schedules them, unrolled, each unrolled
// axis made an unswitched one: every kernel computes the reference's values on the interpreter
// (which fails on any access outside a buffer) at the seeds' shapes (sizes 1, primes, non-divisible
// extents, broadcasts, strided layouts), and some nests do take one predicate.
TEST(UnswitchLoops, RandomPointwiseSchedulesUnswitched) {
  int64_t unswitched = 0;
  for (uint64_t seed : testing::interpretedSeeds(testing::seedRange(0, 40))) {
    testing::RandomFusion rf = testing::makeRandomPointwiseFusion(seed);
    SCOPED_TRACE(rf.toString());
    const std::vector<Tensor> want = ReferenceEvaluator(rf.fusion.get()).run(rf.inputs);
    Fusion fusion(*rf.fusion);
    SchedulerRuntimeInfo info(&fusion, rf.inputs);
    HeuristicsProposal p = proposeHeuristics(&fusion, info);
    if (p.type != SchedulerType::PointWise) continue;
    // Unrolled by 3 (and 2 on the outer side of a 2-D schedule): sizes rarely divide.
    auto* pparams = p.params->as<PointwiseParams>();
    pparams->unroll_factor_inner = 3;
    if (pparams->break_point != 0) pparams->unroll_factor_outer = 2;
    SchedulerEntry::makeSchedulerInstance(p.type)->schedule(&fusion, pparams);
    for (TensorView* tv : fusion.allTvs())
      for (IterDomain* id : tv->getLoopDomain())
        if (id->parallelType() == ParallelType::Unroll) id->parallelize(ParallelType::Unswitch);
    std::unique_ptr<Kernel> kernel =
        lowerFusion(fusion, {.index_type = p.params->index_type, .verify = true});
    unswitched += unswitchBranch(kernel->body()) != nullptr ? 1 : 0;
    std::optional<std::vector<Tensor>> got = testing::interpretKernel(*kernel, rf.inputs);
    ASSERT_TRUE(got.has_value());
    for (size_t o = 0; o < want.size(); ++o) {
      if (rf.fusion->outputs()[o]->isFusionInput()) continue;
      for (int64_t i = 0; i < want[o].numel(); ++i)
        ASSERT_TRUE(testing::closeToReference(got->at(o).item(i), want[o].item(i), want[o].dtype()))
            << "output " << o << " element " << i << "\n"
            << generateCuda(*kernel, "").kernel_code;
    }
  }
  EXPECT_GT(unswitched, 10);
}

}  // namespace
}  // namespace mf
