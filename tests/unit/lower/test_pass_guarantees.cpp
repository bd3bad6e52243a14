// The lowering pass table: each entry declares what the IR satisfies after it, and the
// verifier checks what the passes run so far declared (not which pass names it has seen).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "minifuser/minifuser.h"
#include "unit/lower/lower_test_utils.h"

namespace mf {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

void blockRowSum(Fusion& fusion) {
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = sum(t0, {1});
  fusion.addOutput(t1);
  t1->split(1, 64)->axis(2)->parallelize(ParallelType::TIDx);
}

// The guarantees accumulate along the table: operands are indexed from indexTensors on,
// predicates inserted from insertPredicates on.
TEST(PassGuarantees, DeclaredByTheTable) {
  using enum KernelGuarantee;
  EXPECT_FALSE(has(guaranteesAfter("insertAllocations"), OperandsIndexed));
  EXPECT_TRUE(has(guaranteesAfter("insertAllocations"), LoopNests));
  EXPECT_TRUE(has(guaranteesAfter("indexTensors"), OperandsIndexed));
  EXPECT_FALSE(has(guaranteesAfter("indexTensors"), PredicatesInserted));
  EXPECT_TRUE(has(guaranteesAfter(""), LoopNests | OperandsIndexed | PredicatesInserted));
  for (const PassEntry& pass : loweringPasses())
    if (pass.name == "indexTensors") {
      EXPECT_EQ(pass.guarantees, OperandsIndexed);
    }
}

// The verifier checks a guarantee only when asked for it: tensor operands before indexTensors
// are fine for LoopNests and a problem for OperandsIndexed.
TEST(PassGuarantees, VerifierChecksOperandsIndexed) {
  Fusion fusion;
  blockRowSum(fusion);
  std::unique_ptr<Kernel> kernel = lowerFusionUpTo(fusion, "insertAllocations");
  EXPECT_THAT(kernelIrProblems(*kernel, guaranteesAfter("insertAllocations")), IsEmpty());
  std::vector<std::string> problems = kernelIrProblems(*kernel, KernelGuarantee::OperandsIndexed);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_THAT(problems[0], HasSubstr("unindexed operand T0_g_float["));
  EXPECT_THAT(problems[1], HasSubstr("unindexed output T1_g_float["));
}

// A collective call needs its predicates once insertPredicates is declared, and must not sit
// under a guard (every thread of its block reaches it).
TEST(PassGuarantees, VerifierChecksCollectiveCalls) {
  Fusion fusion;
  blockRowSum(fusion);
  std::unique_ptr<Kernel> indexed = lowerFusionUpTo(fusion, "indexTensors");
  EXPECT_THAT(kernelIrProblems(*indexed, guaranteesAfter("indexTensors")), IsEmpty());
  EXPECT_THAT(kernelIrProblems(*indexed, guaranteesAfter("insertPredicates")),
              ElementsAre(HasSubstr("collective call without its read and write predicates: "
                                    "T1[i5] = call BlockAllReduce")));

  std::unique_ptr<Kernel> kernel = lowerFusionUpTo(fusion, "insertPredicates");
  const KernelGuarantee all = guaranteesAfter("");
  EXPECT_THAT(kernelIrProblems(*kernel, all), IsEmpty());
  // Wrap the call in a guard, as a pass that forgot the collective scope would.
  FusionGuard fg(&kernel->ir());
  for (const Kernel::LoopNested& n : kernel->computeExprs()) {
    if (!n.expr->isA<RuntimeCall>()) continue;
    std::vector<Expr*>& exprs = n.loops.back()->body().exprs();
    auto* guard = IrBuilder::createIn<IfThenElse>(&kernel->ir(), constBool(true));
    guard->thenBody().push_back(n.expr);
    *std::find(exprs.begin(), exprs.end(), n.expr) = guard;
  }
  EXPECT_THAT(kernelIrProblems(*kernel, all),
              ElementsAre(HasSubstr("collective call under a guard (not every thread reaches "
                                    "it): T1[i5] = call BlockAllReduce")));
}

}  // namespace
}  // namespace mf
