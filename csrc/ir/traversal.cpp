#include "ir/traversal.h"

#include <algorithm>
#include <unordered_map>

#include "ir/fusion.h"
#include "ir/kernel_ir.h"
#include "ir/tensor_view.h"

namespace mf {

std::vector<Statement*> dependenciesOf(Statement* s, bool members) {
  std::vector<Statement*> deps;
  if (auto* e = dynamic_cast<Expr*>(s)) {
    for (Val* v : e->inputs()) deps.push_back(v);
    return deps;
  }
  auto* v = static_cast<Val*>(s);
  if (v->definition()) deps.push_back(v->definition());
  if (!members) return deps;
  switch (v->kind()) {
    case ValKind::TensorView:
      deps.push_back(v->as<TensorView>()->domain());
      break;
    case ValKind::TensorDomain: {
      const auto* td = v->as<TensorDomain>();
      for (IterDomain* id : td->allIds()) deps.push_back(id);
      break;
    }
    case ValKind::IterDomain:
      deps.push_back(v->as<IterDomain>()->extent());
      break;
    case ValKind::TensorIndex: {
      const auto* ti = v->as<TensorIndex>();
      deps.push_back(ti->view());
      deps.push_back(ti->index());
      break;
    }
    case ValKind::Scalar:
      break;
  }
  return deps;
}

std::vector<Statement*> topologicalOrder(
    const std::vector<Statement*>& roots,
    const std::function<std::vector<Statement*>(Statement*)>& deps) {
  enum class State { InProgress, Done };
  std::unordered_map<Statement*, State> state;
  std::vector<Statement*> order;
  // Iterative post-order DFS: deep extent chains must not overflow the stack.
  struct Frame {
    Statement* s;
    std::vector<Statement*> deps;
    size_t next = 0;
  };
  for (Statement* root : roots) {
    if (state.count(root)) continue;
    std::vector<Frame> stack;
    stack.push_back({root, deps(root)});
    state[root] = State::InProgress;
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next == f.deps.size()) {
        state[f.s] = State::Done;
        order.push_back(f.s);
        stack.pop_back();
        continue;
      }
      Statement* d = f.deps[f.next++];
      auto it = state.find(d);
      if (it != state.end()) {
        MF_ASSERT(it->second == State::Done, "cycle in the IR through {}", d->toString());
        continue;
      }
      state[d] = State::InProgress;
      stack.push_back({d, deps(d)});
    }
  }
  return order;
}

std::vector<Statement*> getStmts(const std::vector<Val*>& roots, bool members) {
  return topologicalOrder(std::vector<Statement*>(roots.begin(), roots.end()),
                          [members](Statement* s) { return dependenciesOf(s, members); });
}

std::vector<Expr*> tensorExprs(const std::vector<Val*>& roots) {
  std::vector<Expr*> out;
  for (Statement* s : getStmts(roots, /*members=*/false)) {
    auto* e = dynamic_cast<Expr*>(s);
    if (e != nullptr && std::any_of(e->outputs().begin(), e->outputs().end(),
                                    [](Val* v) { return v->kind() == ValKind::TensorView; }))
      out.push_back(e);
  }
  return out;
}

std::vector<TensorView*> tensorViews(const std::vector<Val*>& roots) {
  std::vector<TensorView*> out;
  for (Statement* s : getStmts(roots, /*members=*/false))
    if (auto* tv = dynamic_cast<TensorView*>(s)) out.push_back(tv);
  return out;
}

}  // namespace mf
