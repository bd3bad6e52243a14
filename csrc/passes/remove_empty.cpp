#include <optional>
#include <unordered_set>
#include <vector>

#include "ir/builder.h"
#include "ir/expr_evaluator.h"
#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/mutator.h"
#include "ir/op_traits.h"
#include "ir/resize_exprs.h"
#include "ir/scalar_ops.h"
#include "ir/tensor_view.h"
#include "passes/passes.h"

namespace mf {
namespace {

// What RemoveEmpty does to one tensor.
enum class Rewrite {
  None,
  FullOfZeros,     // an empty tensor: its definition becomes full(0)
  FullOfIdentity,  // a reduction over an empty axis into a non-empty result: full(init)
};

bool hasZeroExtent(const std::vector<IterDomain*>& ids, ExpressionEvaluator& ee) {
  for (IterDomain* id : ids) {
    std::optional<ScalarValue> v = ee.evaluate(id->extent());
    if (v && asInt(*v) == 0) return true;
  }
  return false;
}

// A full cannot take over `tv` itself when `tv` has reduction axes (a full has data axes
// only) or a root domain (a full has nothing to transform from).
bool replacedByNewTensor(TensorView* tv) {
  return tv->domain()->hasRoot() ||
         tv->getLogicalDomain().size() != TensorDomain::noReductions(tv->getLogicalDomain()).size();
}

Rewrite rewriteOf(TensorView* tv, ExpressionEvaluator& ee) {
  Expr* def = tv->definition();
  if (def == nullptr || tv->isFusionInput() || def->isA<FullOp>()) return Rewrite::None;
  // The layout op's padded buffer is not empty when its logical rows are, and a declared
  // allocation (kept when only the definition changes) is the user's to keep.
  if (def->outputs().size() != 1 || outputWrittenByRuntimeFunction(def) ||
      (replacedByNewTensor(tv) && tv->domain()->hasAllocation()))
    return Rewrite::None;
  const std::vector<IterDomain*> kept = TensorDomain::noReductions(tv->getLogicalDomain());
  if (hasZeroExtent(kept, ee)) return Rewrite::FullOfZeros;
  if (def->isA<ReductionOp>() && hasZeroExtent(tv->getLogicalDomain(), ee))
    return Rewrite::FullOfIdentity;
  return Rewrite::None;
}

// Every extent of the fusion's tensor inputs becomes its value: the fulls made below have
// constant shapes, so a group holding one needs no input to know its sizes.
void specializeInputExtents(Fusion& fusion, ExpressionEvaluator& ee) {
  IrMutator mutator;
  std::unordered_set<Val*> seen;
  for (Val* in : fusion.inputs()) {
    auto* tv = dynamic_cast<TensorView*>(in);
    if (tv == nullptr) continue;
    for (IterDomain* id : tv->getLogicalDomain()) {
      Val* extent = id->extent();
      if (extent->isConst() || extent->definition() != nullptr || !seen.insert(extent).second)
        continue;
      mutator.registerMutation(extent, constInt(ee.evaluateInt(extent, "an input extent")));
    }
  }
  mutator.mutate(fusion);
}

// Replaces `tv`, in every use and among the outputs, by `full(fill)` of its data axes.
void replaceByFull(Fusion& fusion, TensorView* tv, Val* fill) {
  if (!replacedByNewTensor(tv)) {
    // Same axes: only the definition changes (an output keeps its identity and layout).
    fusion.removeExpr(tv->definition());
    IrBuilder::create<FullOp>(std::vector<Val*>{fill}, std::vector<Val*>{tv});
    return;
  }
  std::vector<IterDomain*> ids;
  for (IterDomain* id : TensorDomain::noReductions(tv->getLogicalDomain()))
    ids.push_back(id->freshCopy());
  auto* full = IrBuilder::create<TensorView>(IrBuilder::create<TensorDomain>(ids), tv->dtype());
  IrBuilder::create<FullOp>(std::vector<Val*>{fill}, std::vector<Val*>{full});
  for (Expr* use : std::vector<Expr*>(tv->uses())) {
    std::vector<Val*> inputs = use->inputs();
    for (Val*& v : inputs)
      if (v == tv) v = full;
    // The new expr takes over the outputs; then the old one is detached and deleted.
    use->newObject(&fusion, inputs, use->outputs());
    fusion.removeExpr(use);
  }
  if (tv->isFusionOutput()) fusion.replaceInputOrOutput(tv, full);
}

// The inputs of a cat whose pieces are not empty along its axis (each CatOp input is its
// piece padded to the output's extent; the pieces are the pads' inputs).
std::vector<PadOp*> nonEmptyInputs(const CatOp* cat_op, ExpressionEvaluator& ee) {
  std::vector<PadOp*> kept;
  for (Val* in : cat_op->inputs()) {
    auto* padded = dynamic_cast<PadOp*>(in->definition());
    MF_ASSERT(padded != nullptr, "{}: a cat input that is not a pad", cat_op->toString());
    const auto ids = TensorDomain::noReductions(padded->in()->as<TensorView>()->getLogicalDomain());
    if (!hasZeroExtent({ids.at(static_cast<size_t>(cat_op->dim()))}, ee)) kept.push_back(padded);
  }
  return kept;
}

bool hasEmptyCatInput(Fusion& fusion, ExpressionEvaluator& ee) {
  for (Expr* e : fusion.exprs())
    if (auto* c = dynamic_cast<CatOp*>(e); c && nonEmptyInputs(c, ee).size() < c->inputs().size())
      return true;
  return false;
}

// A cat with empty inputs becomes the cat of the others (nvFuser's RemoveEmptyPass): a CatOp
// of their pads, whose widths already count the empty pieces as 0; with one left, a copy of
// that piece. A cat of empty inputs only is empty itself (a full, above). The dropped pads
// are dead then (removeDeadExprs).
void dropEmptyCatInputs(Fusion& fusion, ExpressionEvaluator& ee) {
  FusionGuard fg(&fusion);
  for (Expr* e : fusion.exprs()) {
    auto* cat_op = dynamic_cast<CatOp*>(e);
    if (cat_op == nullptr) continue;
    const std::vector<PadOp*> kept = nonEmptyInputs(cat_op, ee);
    if (kept.size() == cat_op->inputs().size() || kept.empty()) continue;
    Val* out = cat_op->out();
    const int64_t dim = cat_op->dim();
    fusion.removeExpr(cat_op);
    if (kept.size() == 1) {
      IrBuilder::create<LoadStoreOp>(std::vector<Val*>{kept[0]->in()}, std::vector<Val*>{out},
                                     LoadStoreOpType::Set);
    } else {
      std::vector<Val*> inputs;
      for (PadOp* p : kept) inputs.push_back(p->out());
      IrBuilder::create<CatOp>(inputs, std::vector<Val*>{out}, dim);
    }
  }
}

}  // namespace

void removeEmpty(Fusion& fusion, const FusionPassRequest& request) {
  MF_ASSERT(request.evaluator != nullptr,
            "removeEmpty needs the run-time extents: request.evaluator, the inputs bound");
  ExpressionEvaluator& ee = *request.evaluator;
  auto anyRewrite = [&] {
    for (TensorView* tv : fusion.allTvs())
      if (rewriteOf(tv, ee) != Rewrite::None) return true;
    return hasEmptyCatInput(fusion, ee);
  };
  if (!anyRewrite()) return;
  specializeInputExtents(fusion, ee);
  // In topological order: a consumer of a replaced tensor that is empty too is replaced in
  // turn, and the first full then feeds nothing (removed below).
  for (TensorView* tv : fusion.allTvs()) {
    switch (rewriteOf(tv, ee)) {
      case Rewrite::None:
        break;
      case Rewrite::FullOfZeros:
        replaceByFull(fusion, tv, constValue(castScalar(int64_t{0}, tv->dtype()), tv->dtype()));
        break;
      case Rewrite::FullOfIdentity:
        replaceByFull(fusion, tv, tv->definition()->as<ReductionOp>()->init());
        break;
    }
  }
  // A broadcast of a full is a full of the broadcast's shape (sum with keep_dim): the
  // pointwise scheduler moves broadcasts to the inputs, which a full is not.
  for (TensorView* tv : fusion.allTvs()) {
    auto* bcast = dynamic_cast<BroadcastOp*>(tv->definition());
    if (bcast == nullptr) continue;
    auto* full = dynamic_cast<FullOp*>(bcast->in()->definition());
    if (full == nullptr) continue;
    Val* fill = full->fillValue();
    fusion.removeExpr(bcast);
    IrBuilder::create<FullOp>(std::vector<Val*>{fill}, std::vector<Val*>{tv});
  }
  dropEmptyCatInputs(fusion, ee);
  removeDeadExprs(fusion, request);
}

}  // namespace mf
