// insertSyncs: block barriers around shared-memory tensors (read-after-write and
// write-after-read).
#include <algorithm>

#include "ir/builder.h"
#include "lower/passes.h"

namespace mf {
namespace {

bool readsShared(const Expr* e, const TensorView* tv) {
  return std::any_of(e->inputs().begin(), e->inputs().end(), [&](Val* v) {
    auto* ti = dynamic_cast<TensorIndex*>(v);
    return ti != nullptr && ti->view() == tv;
  });
}

// The statement of `scope` that is or contains `loop` (or the expr itself when loop is null).
std::vector<Expr*>::iterator statementHolding(Scope& scope, Expr* e, ForLoop* loop) {
  Expr* target = loop != nullptr ? static_cast<Expr*>(loop) : e;
  auto it = std::find(scope.exprs().begin(), scope.exprs().end(), target);
  if (it != scope.exprs().end() || loop != nullptr) return it;
  // The expr may be wrapped in its guard.
  return std::find_if(scope.exprs().begin(), scope.exprs().end(), [&](Expr* s) {
    auto* ite = dynamic_cast<IfThenElse*>(s);
    return ite != nullptr &&
           std::find(ite->thenBody().exprs().begin(), ite->thenBody().exprs().end(), e) !=
               ite->thenBody().exprs().end();
  });
}

}  // namespace

void insertSyncs(Kernel& kernel) {
  Fusion& ir = kernel.ir();
  const std::vector<Kernel::LoopNested> order = kernel.computeExprs();
  for (size_t w = 0; w < order.size(); ++w) {
    for (Val* written : order[w].expr->outputs()) {
      auto* out = dynamic_cast<TensorIndex*>(written);
      if (out == nullptr || out->view()->getMemoryType() != MemoryType::Shared) continue;
      const TensorView* tv = out->view();
      auto reader =
          std::find_if(order.begin() + static_cast<std::ptrdiff_t>(w) + 1, order.end(),
                       [&](const Kernel::LoopNested& r) { return readsShared(r.expr, tv); });
      if (reader == order.end()) continue;
      // The loops both are in: the barrier goes into the innermost one, before the statement
      // holding the reader.
      const std::vector<ForLoop*>& wl = order[w].loops;
      const std::vector<ForLoop*>& rl = reader->loops;
      size_t common = 0;
      while (common < wl.size() && common < rl.size() && wl[common] == rl[common]) ++common;
      Scope& scope = common == 0 ? kernel.body() : rl[common - 1]->body();
      auto at = statementHolding(scope, reader->expr, common < rl.size() ? rl[common] : nullptr);
      MF_ASSERT(at != scope.exprs().end(), "the reader of {} is not in its scope", tv->toString());
      scope.exprs().insert(at, IrBuilder::createIn<BlockSync>(&ir));
      // A serial loop around both runs the write again after this iteration's reads.
      for (size_t l = common; l-- > 0;) {
        ParallelType p = rl[l]->parallelType();
        if (isThreadDim(p) || isBlockDim(p)) continue;
        rl[l]->body().push_back(IrBuilder::createIn<BlockSync>(&ir));
        break;
      }
    }
  }
}

}  // namespace mf
