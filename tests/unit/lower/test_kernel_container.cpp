// A lowered kernel's container keeps kernel IR apart from its fusion nodes: copying it gives
// the scheduled fusion, and the fusion printer and verifier never meet kernel IR.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

#include "ir/dispatch.h"
#include "ir/verifier.h"
#include "minifuser/minifuser.h"

namespace mf {
namespace {

// T0, T1 -> T2 = T0 + T1 -> T3 = exp(T2), merged, split by 128, bound to blocks and threads,
// T2 inlined: every kernel-IR kind (loops, a predicate, an allocation, indices) appears.
void buildScheduled(Fusion& fusion) {
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigTensor(2);
  TensorView* tv1 = makeContigTensor(2);
  fusion.addInput(tv0);
  fusion.addInput(tv1);
  TensorView* tv2 = add(tv0, tv1);
  TensorView* tv3 = exp(tv2);
  fusion.addOutput(tv3);
  for (TensorView* tv : {tv2, tv3}) {
    tv->merge(0)->split(0, 128);
    tv->parallelize(0, ParallelType::BIDx)->parallelize(1, ParallelType::TIDx);
  }
  tv2->inlineMost();
}

// Counts fusion-level visits; any kernel-IR node reaching it would be an InternalError.
struct FusionNodeCounter final : IrVisitor {
  int n = 0;
  void unhandled(Statement*, std::string_view) override { ++n; }
};

TEST(KernelContainer, CopyGivesTheScheduledFusion) {
  Fusion scheduled;
  buildScheduled(scheduled);
  std::unique_ptr<Kernel> kernel = lowerFusion(scheduled);
  const Fusion& container = kernel->ir();

  // Lowering filed its nodes as kernel IR: loops, a predicate, an allocation, TensorIndex
  // values and the lowered math on them.
  auto count = [&](auto pred) {
    return std::count_if(container.kernelStatements().begin(), container.kernelStatements().end(),
                         [&](const auto& s) { return pred(s.get()); });
  };
  EXPECT_GT(count([](Statement* s) { return s->isA<ForLoop>(); }), 0);
  EXPECT_GT(count([](Statement* s) { return s->isA<IfThenElse>(); }), 0);
  EXPECT_GT(count([](Statement* s) { return s->isA<Allocate>(); }), 0);
  EXPECT_GT(count([](Statement* s) { return s->isA<TensorIndex>(); }), 0);
  EXPECT_EQ(count([](Statement* s) { return s->isA<BinaryOp>() && isKernelIr(s); }), 1);
  for (const auto& s : container.statements()) EXPECT_FALSE(isKernelIr(s.get())) << s->toString();

  Fusion copy = container;
  EXPECT_TRUE(copy.kernelStatements().empty());
  EXPECT_EQ(copy.mathString(), scheduled.mathString());
  EXPECT_EQ(copy.transformsString(), scheduled.transformsString());
  verifyFusion(container);
  verifyFusion(copy);

  // A fusion-level visitor walks every fusion node of the container without meeting kernel IR.
  FusionNodeCounter counter;
  for (const auto& s : container.statements()) counter.dispatch(s.get());
  EXPECT_EQ(counter.n, static_cast<int>(container.statements().size()));

  // The copy lowers to the same kernel, up to the names of the scalars it declares (the
  // copy's index scalars are new ones, numbered on from the container's).
  auto unnamed = [](const std::string& ir) {
    return std::regex_replace(ir, std::regex("LET [a-z][0-9]+"), "LET");
  };
  EXPECT_EQ(unnamed(lowerFusion(copy)->toString()), unnamed(kernel->toString()));
}

}  // namespace
}  // namespace mf
