#include "scheduler/tools/cache.h"

#include <algorithm>
#include <unordered_set>

#include "ir/builder.h"
#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/op_traits.h"
#include "ir/shape_exprs.h"
#include "ops/arith.h"

namespace mf {
namespace {

// A new register tensor with fresh copies of `tv`'s logical axes, in `tv`'s fusion. A copy
// of a reduction's result (`data_only`) has no reduction axes: they hold no data.
TensorView* freshLike(const TensorView* tv, bool data_only = false) {
  FusionGuard fg(tv->fusion());
  std::vector<IterDomain*> ids;
  for (IterDomain* id : tv->getLogicalDomain())
    if (!data_only || !id->isReduction()) ids.push_back(id->freshCopy());
  return IrBuilder::create<TensorView>(IrBuilder::create<TensorDomain>(ids), tv->dtype());
}

// Gives `to` (whose logical axes are `from`'s data axes, in order) `from`'s allocation domain
// without its reduction axes, with their contiguity: the memory layout of a reduction's result
// kept by a copy of it (staging, forking).
void copyDataAllocation(const TensorDomain* from, TensorView* to) {
  const std::vector<IterDomain*> data = TensorDomain::noReductions(from->logical());
  const std::vector<IterDomain*>& own = from->maybeAllocation();
  std::vector<IterDomain*> alloc;
  Contiguity contiguity;
  for (size_t i = 0; i < own.size(); ++i) {
    if (own[i]->isReduction()) continue;
    auto it = std::find(data.begin(), data.end(), own[i]);
    MF_CHECK(it != data.end(),
             "staging {}: its allocation domain is not a permutation of its logical domain",
             to->toString());
    alloc.push_back(to->getLogicalDomain()[it - data.begin()]);
    contiguity.push_back(from->contiguity()[i]);
  }
  to->setAllocationDomain(alloc, contiguity);
}

bool hasReductionAxis(const TensorView* tv) {
  const auto& ids = tv->getLogicalDomain();
  return std::any_of(ids.begin(), ids.end(), [](IterDomain* id) { return id->isReduction(); });
}

// A copy `to = set(from)`.
// SegmentSet makes the copy a segment boundary (nvFuser's cacheBefore(SegmenterSet)).
void addCopy(TensorView* from, TensorView* to, LoadStoreOpType op = LoadStoreOpType::Set) {
  IrBuilder::createIn<LoadStoreOp>(from->fusion(), std::vector<Val*>{from}, std::vector<Val*>{to},
                                   op);
}

// A permute is a LoadStoreOp too, but its output's axes are not its input's in order.
bool isPointwise(const Expr* e) {
  return e->isA<UnaryOp>() || e->isA<BinaryOp>() || e->isA<TernaryOp>() ||
         (e->isA<LoadStoreOp>() && !isPermute(e));
}

}  // namespace

StagedTensors stageInputsAndOutputs(Fusion* fusion, const StagingOptions& options,
                                    const std::vector<TensorView*>& unstaged_outputs) {
  StagedTensors staged;
  for (Val* v : std::vector<Val*>(fusion->inputs())) {
    auto* tv = dynamic_cast<TensorView*>(v);
    if (tv == nullptr) continue;
    std::vector<Expr*> uses;
    for (Expr* use : tv->uses())
      if ((options.cache_broadcast_uses || !use->isA<BroadcastOp>()) && !readsOperandWhole(use, tv))
        uses.push_back(use);
    if (uses.empty()) continue;
    staged.inputs.push_back(tv);
    staged.input_caches.push_back(tv->cacheAfter(uses));
  }
  auto staged_here = [&](TensorView* tv) {
    return !tv->isFusionInput() && !outputWrittenByRuntimeFunction(tv->definition()) &&
           std::find(unstaged_outputs.begin(), unstaged_outputs.end(), tv) ==
               unstaged_outputs.end();
  };
  const std::vector<Val*> outputs = fusion->outputs();
  for (Val* v : outputs) {
    auto* tv = v->as<TensorView>();
    if (!staged_here(tv)) continue;
    if (tv->uses().empty()) {
      tv->cacheBefore();
      staged.outputs.push_back(tv);
    } else if (!options.forks_last) {
      staged.forked_copies.push_back(tv->cacheFork());
    }
  }
  if (options.forks_last)
    for (Val* v : outputs)
      if (auto* tv = v->as<TensorView>(); staged_here(tv) && !tv->uses().empty())
        staged.forked_copies.push_back(tv->cacheFork());
  return staged;
}

Expr* replaceInputInExpr(Expr* e, Val* old, Val* replacement) {
  std::vector<Val*> ins = e->inputs();
  std::replace(ins.begin(), ins.end(), old, replacement);
  // The rebuilt expr takes over the outputs' definition; removing `e` then only unhooks
  // its uses.
  Expr* rebuilt = e->newObject(e->fusion(), ins, e->outputs());
  e->fusion()->removeExpr(e);
  return rebuilt;
}

bool recomputable(const TensorView* tv) {
  if (tv->isFusionInput()) return true;
  const Expr* def = tv->definition();
  if (def == nullptr || def->outputs().size() != 1 ||
      !(def->isA<UnaryOp>() || def->isA<BinaryOp>() || def->isA<TernaryOp>() ||
        def->isA<BroadcastOp>() ||
        (def->isA<LoadStoreOp>() && def->as<LoadStoreOp>()->opType() == LoadStoreOpType::Set &&
         !def->output(0)->as<TensorView>()->domain()->hasRoot())))
    return false;
  return std::all_of(def->inputs().begin(), def->inputs().end(), [](const Val* in) {
    auto* t = dynamic_cast<const TensorView*>(in);
    return t == nullptr || recomputable(t);
  });
}

TensorView* recomputeFromInputs(TensorView* tv,
                                const std::function<bool(const TensorView*)>& reused) {
  MF_ASSERT(recomputable(tv), "recomputeFromInputs: {} is not recomputable", tv->toString());
  std::function<TensorView*(TensorView*)> copyOf = [&](TensorView* t) {
    if (t->isFusionInput()) return t;
    Expr* def = t->definition();
    std::vector<Val*> inputs;
    for (Val* in : def->inputs()) {
      auto* p = dynamic_cast<TensorView*>(in);
      inputs.push_back(p == nullptr || (reused && reused(p)) ? in : copyOf(p));
    }
    TensorView* copy = freshLike(t);
    def->newObject(t->fusion(), inputs, {copy});
    return copy;
  };
  return copyOf(tv);
}

void removeDeadExprs(Fusion& fusion) {
  std::vector<Expr*> live = fusion.exprs();
  std::unordered_set<Expr*> keep(live.begin(), live.end());
  std::vector<Expr*> dead;
  for (const auto& s : fusion.statements())
    if (auto* e = dynamic_cast<Expr*>(s.get());
        e && !keep.count(e) && !e->outputs().empty() && e->output(0)->kind() == ValKind::TensorView)
      dead.push_back(e);
  for (Expr* e : dead) fusion.removeExpr(e);
}

void moveBroadcastsToInputs(Fusion& fusion) {
  FusionGuard fg(&fusion);
  for (bool changed = true; changed;) {
    changed = false;
    for (Expr* e : fusion.exprs()) {
      auto* bcast = dynamic_cast<BroadcastOp*>(e);
      if (bcast == nullptr) continue;
      auto* in = bcast->in()->as<TensorView>();
      Expr* def = in->definition();
      if (def == nullptr) continue;
      auto* out = bcast->out()->as<TensorView>();
      std::vector<Val*> ins;
      if (auto* inner = dynamic_cast<BroadcastOp*>(def)) {
        // broadcast(broadcast(x, f), g): one broadcast of x whose flags are g with f's
        // flags substituted at g's kept positions.
        std::vector<bool> flags;
        size_t next = 0;
        for (bool g : bcast->isBroadcastDims())
          flags.push_back(g || inner->isBroadcastDims()[next++]);
        IrBuilder::create<BroadcastOp>(std::vector<Val*>{inner->in()}, std::vector<Val*>{out},
                                       flags);
      } else if (isPointwise(def)) {
        for (Val* v : def->inputs()) {
          auto* tv = dynamic_cast<TensorView*>(v);
          ins.push_back(tv ? broadcast(tv, bcast->isBroadcastDims()) : v);
        }
        def->newObject(&fusion, ins, {out});
      } else {
        continue;  // e.g. the layout op: its output is never broadcast (segmenter rule)
      }
      // `out` now has the new definition; the old broadcast only hangs on to `in`.
      fusion.removeExpr(bcast);
      removeDeadExprs(fusion);
      changed = true;
      break;
    }
  }
}

TensorView* TensorView::cacheAfter(LoadStoreOpType op_type, std::vector<Expr*> cached_uses) {
  MF_CHECK(!domain()->allocationDeclared(),
           "cacheAfter: {} has a declared (padded) allocation domain; nothing can read it "
           "element by element",
           toString());
  if (cached_uses.empty()) cached_uses = uses();
  // A reduction's result is read by its data axes: the copy has those alone.
  TensorView* cache = freshLike(this, /*data_only=*/true);
  for (Expr* use : cached_uses) replaceInputInExpr(use, this, cache);
  addCopy(this, cache, op_type);
  return cache;
}

TensorView* TensorView::cacheBefore() {
  return cacheBefore(LoadStoreOpType::Set);
}

TensorView* TensorView::cacheAfter(std::vector<Expr*> cached_uses) {
  return cacheAfter(LoadStoreOpType::Set, std::move(cached_uses));
}

TensorView* TensorView::cacheBefore(LoadStoreOpType op_type) {
  Expr* def = definition();
  MF_CHECK(def != nullptr, "cacheBefore: {} has no definition (a fusion input?)", toString());
  if (domain()->hasRoot() && !hasReductionAxis(this)) {
    // A reshape, permute, pad or slice: the cache takes the domain (root, logical and the
    // transforms between them, Resize included) with the definition, and this tensor becomes
    // a plain copy of fresh copies of its logical axes.
    MF_CHECK(!domain()->hasAllocation(),
             "cacheBefore: {} has a root domain and an allocation domain, which cannot be staged",
             toString());
    TensorDomain* td = domain();
    std::vector<IterDomain*> ids;
    for (IterDomain* id : getLogicalDomain()) ids.push_back(id->freshCopy());
    setDomain(IrBuilder::createIn<TensorDomain>(fusion(), ids, td->contiguity()));
    TensorView* cache = IrBuilder::createIn<TensorView>(fusion(), td, dtype());
    def->newObject(fusion(), def->inputs(), {cache});
    fusion()->removeExpr(def);
    addCopy(cache, this, op_type);
    return cache;
  }
  TensorView* cache = freshLike(this);
  // The definition now computes the cache; this tensor becomes its copy. Consumers keep
  // reading this tensor.
  def->newObject(fusion(), def->inputs(), {cache});
  fusion()->removeExpr(def);
  if (hasReductionAxis(this)) {
    // The cache does the reduction; this copy holds the result's data axes only, in the
    // same memory layout.
    TensorDomain* reduced = domain();
    setDomain(IrBuilder::createIn<TensorDomain>(fusion(),
                                                TensorDomain::noReductions(getLogicalDomain())));
    if (reduced->hasAllocation()) copyDataAllocation(reduced, this);
  }
  addCopy(cache, this, op_type);
  return cache;
}

TensorView* TensorView::cacheFork() {
  MF_CHECK(isFusionOutput(), "cacheFork: {} is not a fusion output", toString());
  TensorView* copy = freshLike(this, /*data_only=*/true);
  // The new output keeps the memory layout (a permutation of its logical data axes).
  if (domain()->hasAllocation() && !domain()->allocationDeclared()) {
    copyDataAllocation(domain(), copy);
    // This tensor becomes a register intermediate: a reduction's layout is now the copy's,
    // and its own would stop the scheduler's rFactor.
    if (hasReductionAxis(this))
      setDomain(IrBuilder::createIn<TensorDomain>(fusion(), getLogicalDomain()));
  }
  addCopy(this, copy);
  fusion()->replaceInputOrOutput(this, copy);
  setMemoryType(MemoryType::Local);
  return copy;
}

}  // namespace mf
