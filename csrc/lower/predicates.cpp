// insertPredicates: bounds checks for loops that may overrun their tensor.
#include <algorithm>
#include <set>

#include "ir/builder.h"
#include "lower/passes.h"

namespace mf {
namespace {

// A parallel loop needs its own guard when its dimension is launched wider than its extent.
bool parallelDimMayOverrun(Kernel& kernel, ForLoop* loop) {
  std::set<std::string> extents;
  for (Val* x : kernel.parallelExtents()[loop->parallelType()]) extents.insert(x->toInlineString());
  return extents.size() > 1;
}

// The logical axis is iterated directly by one loop that cannot overrun it.
bool boundedByLoop(Kernel& kernel, IterDomain* id, const std::vector<ForLoop*>& loops) {
  for (ForLoop* loop : loops) {
    if (loop->iterDomain()->extent() != id->extent() || id->definition() != nullptr) continue;
    ParallelType p = loop->parallelType();
    bool hw = isThreadDim(p) || isBlockDim(p);
    if (loop->iterDomain()->definition() != nullptr) continue;
    if (!hw || !parallelDimMayOverrun(kernel, loop)) return true;
  }
  return false;
}

}  // namespace

void insertPredicates(Kernel& kernel) {
  Fusion& ir = kernel.ir();
  FusionGuard fg(&ir);
  for (Expr* e : kernel.computeOrder()) {
    const std::vector<ForLoop*>& loops = kernel.loopsOf().at(e);
    auto* out = e->output(0)->as<TensorIndex>()->view();
    const std::vector<Val*>& logical = kernel.outputLogicalIndices().at(e);
    Val* pred = constBool(true);
    const auto& ids = out->getLogicalDomain();
    for (size_t i = 0; i < ids.size(); ++i) {
      if (ids[i]->isBroadcast()) continue;
      // Logical axes that are loop axes themselves are bounded by their loop.
      bool is_loop_axis = std::find(out->getLoopDomain().begin(), out->getLoopDomain().end(),
                                    ids[i]) != out->getLoopDomain().end();
      if (is_loop_axis && boundedByLoop(kernel, ids[i], loops)) continue;
      pred = SIB::logicalAnd(pred, SIB::lt(logical[i], ids[i]->extent()));
    }
    for (ForLoop* loop : loops) {
      ParallelType p = loop->parallelType();
      if ((isThreadDim(p) || isBlockDim(p)) && parallelDimMayOverrun(kernel, loop))
        pred = SIB::logicalAnd(pred, SIB::lt(loop->index(), loop->stop()));
    }
    if (pred->constValue() && asBool(*pred->constValue())) continue;
    Scope& scope = loops.empty() ? kernel.body() : loops.back()->body();
    auto it = std::find(scope.exprs().begin(), scope.exprs().end(), e);
    MF_ASSERT(it != scope.exprs().end(), "expr not in its scope");
    auto* guard = IrBuilder::createIn<IfThenElse>(&ir, pred);
    guard->thenBody().push_back(e);
    *it = guard;
  }
}

}  // namespace mf
