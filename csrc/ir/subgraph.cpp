#include "ir/subgraph.h"

#include <algorithm>
#include <unordered_set>

#include "ir/cloner.h"
#include "ir/tensor_view.h"
#include "ir/traversal.h"

namespace mf {
namespace {

bool contains(const std::vector<Val*>& v, const Val* x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// `exprs` in topological order (producers first), whatever order they were given in: the
// depth-first post-order from their outputs, walking back only through member exprs, so
// the cost is the subgraph's, not that of everything upstream of it. For a convex set (no
// path leaves it and comes back) that is the order a walk of the whole fusion gives.
std::vector<Expr*> sortedExprs(const std::vector<Expr*>& exprs) {
  std::unordered_set<const Statement*> members(exprs.begin(), exprs.end());
  std::vector<Statement*> roots;
  for (Expr* e : exprs) roots.insert(roots.end(), e->outputs().begin(), e->outputs().end());
  auto deps = [&](Statement* s) {
    if (auto* e = dynamic_cast<Expr*>(s))
      return std::vector<Statement*>(e->inputs().begin(), e->inputs().end());
    Expr* def = static_cast<Val*>(s)->definition();
    return def && members.count(def) ? std::vector<Statement*>{def} : std::vector<Statement*>{};
  };
  std::vector<Expr*> order;
  for (Statement* s : topologicalOrder(roots, deps))
    if (members.count(s)) order.push_back(s->as<Expr>());
  return order;
}

std::unordered_set<const Val*> producedBy(const std::vector<Expr*>& exprs) {
  std::unordered_set<const Val*> produced;
  for (Expr* e : exprs) produced.insert(e->outputs().begin(), e->outputs().end());
  return produced;
}

// The Split/Merge exprs between a tensor's logical and allocation domains, in order.
std::vector<Expr*> allocationTransforms(const TensorDomain* td) {
  std::unordered_set<const Statement*> needed;
  std::vector<IterDomain*> work = td->allocation();
  std::unordered_set<IterDomain*> logical(td->logical().begin(), td->logical().end());
  while (!work.empty()) {
    IterDomain* id = work.back();
    work.pop_back();
    Expr* def = id->definition();
    if (logical.count(id) || def == nullptr || !needed.insert(def).second) continue;
    for (Val* in : def->inputs())
      if (auto* in_id = dynamic_cast<IterDomain*>(in)) work.push_back(in_id);
  }
  std::vector<Expr*> order;
  for (Expr* e : td->allTransforms())
    if (needed.count(e)) order.push_back(e);
  return order;
}

// A boundary tensor as a segment input: fresh logical axes, the same allocation domain
// (replayed from the new axes) and contiguity; no producer history. An extent the producer
// computed (a reshape's `( i0 * i1 )`) becomes a fresh symbolic scalar, bound from the
// input's size like any input extent; every use of that extent in the copy maps to it
// (nvFuser's convertInputRfactorsToRoots). Without this the copy would hold the expression
// over extents of tensors it does not have. The reduction axes of a reduction's result hold
// no data and are left out: the segment reads a tensor of the result's data axes (as the
// segment's input metadata describes it).
TensorView* copyBoundaryTensor(IrCloner& cloner, const TensorView* tv) {
  Fusion* to = cloner.to();
  const TensorDomain* td = tv->domain();
  std::vector<IterDomain*> logical;
  for (IterDomain* id : td->logical()) {
    if (id->isReduction()) continue;
    Val* extent = id->extent();
    if (extent->definition() != nullptr && !cloner.map().count(extent))
      cloner.registerClone(extent, IrBuilder::createIn<Scalar>(to, extent->dtype()));
    IterDomain* c = IterDomainBuilder(id)
                        .extent(cloner.clone(extent))
                        .parallelType(ParallelType::Serial)
                        .build(to);
    cloner.registerClone(id, c);
    logical.push_back(c);
  }
  TensorDomain* domain = nullptr;
  if (logical.size() != td->logical().size()) {
    MF_CHECK(!td->hasAllocation(),
             "segment boundary {}: a reduction's result with an allocation domain cannot cross "
             "segments",
             tv->toString());
    domain = IrBuilder::createIn<TensorDomain>(to, logical);
  } else if (!td->hasAllocation()) {
    domain = IrBuilder::createIn<TensorDomain>(to, logical, td->contiguity());
  } else {
    domain = IrBuilder::createIn<TensorDomain>(to, logical);
    if (td->allocationDeclared()) {
      domain->setDeclaredAllocationDomain(cloner.clone(td->allocation()), td->contiguity());
    } else {
      for (Expr* e : allocationTransforms(td)) cloner.clone(e);
      domain->setAllocationDomain(cloner.clone(td->allocation()), td->contiguity());
    }
  }
  auto* c = IrBuilder::createIn<TensorView>(to, domain, tv->dtype());
  cloner.registerClone(tv, c);
  return c;
}

}  // namespace

std::vector<Val*> subgraphInputs(const std::vector<Expr*>& exprs) {
  std::unordered_set<const Val*> produced = producedBy(exprs);
  std::vector<Val*> inputs;
  for (Expr* e : sortedExprs(exprs)) {
    for (Val* in : e->inputs()) {
      bool boundary = in->kind() == ValKind::TensorView || in->isFusionInput();
      if (boundary && !produced.count(in) && !contains(inputs, in)) inputs.push_back(in);
    }
  }
  // A scalar operand over an extent no input binds (a variance's `max(i2 - 1, 0)` after its
  // reduction, its input elsewhere): the fusion input with that extent comes along, for it.
  auto binds = [](const Val* tensor, const Val* extent) {
    auto* tv = dynamic_cast<const TensorView*>(tensor);
    return tv != nullptr && std::any_of(tv->getLogicalDomain().begin(),
                                        tv->getLogicalDomain().end(), [&](IterDomain* id) {
                                          return !id->isReduction() && id->extent() == extent;
                                        });
  };
  for (Expr* e : exprs)
    for (Val* in : e->inputs()) {
      if (in->kind() == ValKind::TensorView || in->isFusionInput()) continue;
      for (Statement* s : getStmts({in}, /*members=*/false)) {
        auto* leaf = dynamic_cast<Val*>(s);
        if (leaf == nullptr || leaf->definition() != nullptr || leaf->isConst() ||
            std::any_of(inputs.begin(), inputs.end(), [&](Val* v) { return binds(v, leaf); }))
          continue;
        for (Val* f_in : e->fusion()->inputs())
          if (binds(f_in, leaf)) {
            inputs.push_back(f_in);
            break;
          }
      }
    }
  return inputs;
}

std::vector<Val*> subgraphOutputs(const std::vector<Expr*>& exprs) {
  std::unordered_set<const Statement*> members(exprs.begin(), exprs.end());
  std::vector<Val*> outputs;
  for (Expr* e : sortedExprs(exprs)) {
    for (Val* out : e->outputs()) {
      if (out->kind() != ValKind::TensorView) continue;
      bool used_outside = std::any_of(out->uses().begin(), out->uses().end(),
                                      [&](Expr* use) { return !members.count(use); });
      if (out->isFusionOutput() || used_outside) outputs.push_back(out);
    }
  }
  return outputs;
}

SubgraphCopy copySubgraph(const Fusion& fusion, const std::vector<Expr*>& exprs,
                          const std::vector<Val*>& inputs, const std::vector<Val*>& outputs) {
  for (Expr* e : exprs) {
    MF_CHECK(e != nullptr, "copySubgraph: an expr is null");
    MF_CHECK(e->fusion() == &fusion, "copySubgraph: `{}` belongs to another fusion", e->toString());
  }
  std::unordered_set<const Val*> produced = producedBy(exprs);
  for (Val* in : inputs) {
    MF_CHECK(in != nullptr && in->fusion() == &fusion,
             "copySubgraph: input {} is null or of another fusion", in ? in->toString() : "(null)");
    MF_CHECK(!produced.count(in), "copySubgraph: input {} is computed by the copied exprs",
             in->toInlineString());
  }
  std::vector<Expr*> order = sortedExprs(exprs);
  for (Expr* e : order)
    for (Val* in : e->inputs())
      MF_CHECK(in->kind() != ValKind::TensorView || produced.count(in) || contains(inputs, in),
               "copySubgraph: `{}` reads {}, which is neither computed by the copied exprs nor "
               "an input of the copy",
               e->toString(), in->toInlineString());
  for (Val* out : outputs)
    MF_CHECK(out != nullptr && out->kind() == ValKind::TensorView &&
                 (produced.count(out) || contains(inputs, out)),
             "copySubgraph: output {} is not a tensor computed by the copied exprs",
             out ? out->toString() : "(null)");

  SubgraphCopy result{std::make_unique<Fusion>(), {}};
  Fusion& copy = *result.fusion;
  IrCloner cloner(&copy, /*scalar_definitions=*/true);
  std::vector<Val*> new_inputs;
  for (Val* in : inputs) {
    auto* tv = dynamic_cast<TensorView*>(in);
    new_inputs.push_back(tv ? copyBoundaryTensor(cloner, tv) : cloner.clone(in));
  }
  for (Expr* e : order) {
    cloner.clone(e);
    // An output's domain came with it; the split/merge exprs between its domains did not.
    for (Val* out : e->outputs())
      if (auto* tv = dynamic_cast<TensorView*>(out))
        for (Expr* t : tv->domain()->allTransforms()) cloner.clone(t);
  }
  // An extent of a fusion input the copy reached without the input (a cat's pad widened by
  // the extent of another input's slice, `i0 - 2`): the input joins the copy, unread, so
  // that its sizes bind the extent (a kernel gets it as a parameter).
  std::unordered_set<const Val*> bound;
  for (Val* in : inputs)
    if (auto* tv = dynamic_cast<TensorView*>(in))
      for (IterDomain* id : tv->getLogicalDomain()) bound.insert(id->extent());
  for (Val* in : fusion.inputs()) {
    auto* tv = dynamic_cast<TensorView*>(in);
    if (tv == nullptr || contains(inputs, tv)) continue;
    const auto& logical = tv->getLogicalDomain();
    const bool reached = std::any_of(logical.begin(), logical.end(), [&](IterDomain* id) {
      Val* e = id->extent();
      return e->definition() == nullptr && !e->isConst() && !bound.count(e) &&
             cloner.map().count(e);
    });
    if (!reached) continue;
    new_inputs.push_back(copyBoundaryTensor(cloner, tv));
    for (IterDomain* id : logical) bound.insert(id->extent());
  }
  // Scalar inputs of the original the copy reached (a split factor, an operand's chain).
  for (Val* in : fusion.inputs())
    if (in->kind() == ValKind::Scalar && cloner.map().count(in) && !contains(inputs, in))
      new_inputs.push_back(cloner.clone(in));
  copy.keepNames(fusion, cloner);
  for (Val* in : new_inputs) copy.addInput(in);
  for (Val* out : outputs) copy.addOutput(cloner.clone(out));
  for (const auto& [from, to] : cloner.map())
    if (auto* v = dynamic_cast<const Val*>(from)) result.old_to_new[v] = to->as<Val>();
  return result;
}

SubgraphCopy copySubgraph(const Fusion& fusion, const std::vector<Expr*>& exprs) {
  return copySubgraph(fusion, exprs, subgraphInputs(exprs), subgraphOutputs(exprs));
}

}  // namespace mf
