#include "ir/mutator.h"

#include <unordered_set>

#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/shape_exprs.h"
#include "ir/tensor_view.h"
#include "ir/traversal.h"

namespace mf {
namespace {

// A Val comes after its definition and members; an Expr after its inputs and its outputs'
// members, so that it is rebuilt once, with both its inputs' and its outputs' replacements
// (a split whose output axis got a new extent must define the new axis).
std::vector<Statement*> mutationOrder(const std::vector<Val*>& roots) {
  auto deps = [](Statement* s) {
    auto* e = dynamic_cast<Expr*>(s);
    if (e == nullptr) return dependenciesOf(s);
    std::vector<Statement*> d(e->inputs().begin(), e->inputs().end());
    for (Val* out : e->outputs())
      for (Statement* m : dependenciesOf(out))
        if (m != e) d.push_back(m);
    return d;
  };
  return topologicalOrder(std::vector<Statement*>(roots.begin(), roots.end()), deps);
}

template <typename T>
bool mapAll(const IrMutator& m, std::vector<T*>& v) {
  bool changed = false;
  for (T*& x : v) {
    T* y = m.maybeMutated(x);
    changed = changed || y != x;
    x = y;
  }
  return changed;
}

}  // namespace

void IrMutator::registerMutation(Val* old, Val* replacement) {
  MF_ASSERT(old != nullptr && replacement != nullptr, "registerMutation of a null value");
  MF_ASSERT(old->fusion() == replacement->fusion(),
            "registerMutation: {} and {} are in "
            "different fusions",
            old->toString(), replacement->toString());
  MF_ASSERT(old->kind() == replacement->kind(), "registerMutation: {} and {} are different kinds",
            old->toString(), replacement->toString());
  MF_ASSERT(old->kind() != ValKind::TensorView || old->dtype() == replacement->dtype(),
            "registerMutation: {} and {} have different dtypes", old->toString(),
            replacement->toString());
  if (old != replacement) mutations_[old] = replacement;
}

Val* IrMutator::maybeMutated(Val* v) const {
  for (size_t steps = 0; steps <= mutations_.size(); ++steps) {
    auto it = mutations_.find(v);
    if (it == mutations_.end()) return v;
    v = it->second;
  }
  MF_ASSERT(false, "registerMutation: the replacements of {} form a cycle", v->toString());
}

void IrMutator::mutate(const std::vector<Val*>& roots) {
  std::unordered_set<Val*> done;
  for (Statement* s : mutationOrder(roots)) {
    if (auto* e = dynamic_cast<Expr*>(s)) {
      // Outputs first: their replacements (new axes) are what the rebuilt expr defines.
      for (Val* out : e->outputs())
        if (done.insert(out).second) dispatch(out);
      dispatch(e);  // may delete e
    } else if (done.insert(static_cast<Val*>(s)).second) {
      dispatch(s);
    }
  }
}

void IrMutator::mutate(Fusion& fusion) {
  std::vector<Val*> roots = fusion.inputs();
  roots.insert(roots.end(), fusion.outputs().begin(), fusion.outputs().end());
  mutate(roots);
  for (Val* v : roots)
    if (Val* m = maybeMutated(v); m != v) fusion.replaceInputOrOutput(v, m);
}

void IrMutator::handle(Scalar*) {
  // A scalar has no members: it changes only through registerMutation.
}

void IrMutator::handle(IterDomain* id) {
  if (mutations_.count(id)) return;
  Val* extent = maybeMutated(id->extent());
  if (extent == id->extent()) return;
  registerMutation(id, IterDomainBuilder(id).extent(extent).build(id->fusion()));
}

void IrMutator::handle(TensorDomain* td) {
  if (mutations_.count(td)) return;
  std::vector<IterDomain*> root = td->root(), logical = td->logical(),
                           allocation = td->allocation(), loop = td->loop();
  bool changed = mapAll(*this, root);
  changed = mapAll(*this, logical) || changed;
  changed = mapAll(*this, allocation) || changed;
  changed = mapAll(*this, loop) || changed;
  if (!changed) return;
  // An axis whose IterType changed may change whether it takes a contiguity flag: a
  // Broadcast or Reduction axis takes none; an axis that becomes Iteration (or Symbolic)
  // takes `false`, which claims nothing about its stride.
  Contiguity contiguity = td->contiguity();
  const std::vector<IterDomain*>& alloc = allocation.empty() ? logical : allocation;
  for (size_t i = 0; i < alloc.size(); ++i) {
    if (alloc[i]->isBroadcast() || alloc[i]->isReduction())
      contiguity[i] = std::nullopt;
    else if (!contiguity[i].has_value())
      contiguity[i] = false;
  }
  auto* c = IrBuilder::createIn<TensorDomain>(td->fusion(), root, logical, allocation, loop,
                                              std::move(contiguity), td->allocationDeclared());
  // The rebuilt split/merge exprs must still connect the domains (a subclass may change
  // them); only a declared allocation domain is exempt, as when it was set.
  if (c->hasAllocation() && !c->allocationDeclared())
    validateDomainEquivalence(c->logical(), c->allocation(), "IrMutator: allocation domain");
  validateDomainEquivalence(c->loopSource(), c->loop(), "IrMutator: loop domain");
  registerMutation(td, c);
}

void IrMutator::handle(TensorView* tv) {
  if (mutations_.count(tv)) return;
  if (TensorDomain* td = maybeMutated(tv->domain()); td != tv->domain()) tv->setDomain(td);
}

#define MF_MUTATE_EXPR(T)           \
  void IrMutator::handle(T* node) { \
    mutateExpr(node);               \
  }
MF_FOR_ALL_FUSION_EXPRS(MF_MUTATE_EXPR)
#undef MF_MUTATE_EXPR

void IrMutator::mutateExpr(Expr* e) {
  std::vector<Val*> ins = e->inputs(), outs = e->outputs();
  bool changed = mapAll(*this, ins);
  size_t computed_elsewhere = 0;
  for (Val*& out : outs) {
    Val* m = maybeMutated(out);
    if (m == out) continue;
    // A replacement computed elsewhere (or a fusion input) keeps its own definition: `e`
    // goes on defining the old value, which nothing uses now.
    if (m->definition() != nullptr || m->isFusionInput()) {
      ++computed_elsewhere;
      continue;
    }
    changed = true;
    out = m;
  }
  // With every output computed elsewhere, `e` computes nothing in use: left alone. An expr
  // with another output still in use is rebuilt (on its new inputs, with its new outputs).
  if (!changed || computed_elsewhere == outs.size()) return;
  e->newObject(e->fusion(), std::move(ins), std::move(outs));
  e->fusion()->removeExpr(e);
}

}  // namespace mf
