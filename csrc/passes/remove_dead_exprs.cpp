#include <unordered_set>
#include <vector>

#include "ir/fusion.h"
#include "ir/statement.h"
#include "passes/passes.h"

namespace mf {

void removeDeadExprs(Fusion& fusion, const FusionPassRequest&) {
  const std::vector<Expr*> live = fusion.exprs();
  const std::unordered_set<const Expr*> alive(live.begin(), live.end());
  std::vector<Expr*> dead;
  for (const auto& s : fusion.statements()) {
    auto* e = dynamic_cast<Expr*>(s.get());
    if (e == nullptr || alive.count(e)) continue;
    // Tensor exprs only: a scalar expr may still define an extent that a live tensor reads.
    for (Val* out : e->outputs())
      if (out->kind() == ValKind::TensorView) {
        dead.push_back(e);
        break;
      }
  }
  // Detaching does not care about order: each expr only leaves its operands' uses.
  for (Expr* e : dead) fusion.removeExpr(e);
}

}  // namespace mf
