// insertPredicates: bounds checks for loops that may overrun their tensor.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ir/builder.h"
#include "ir/id_model.h"
#include "lower/index_compute.h"
#include "lower/passes.h"

namespace mf {
namespace {

// The parallel types whose loops need their own guard: launched wider than their extent when
// another loop bound alike is not the same axis (IdModel exact group: the same extent).
std::unordered_set<ParallelType> mixedParallelTypes(const std::vector<Kernel::LoopNested>& exprs,
                                                    const IdModel& model) {
  std::unordered_map<ParallelType, IterDomain*> first;
  std::unordered_set<ParallelType> mixed;
  for (const auto& [e, loops] : exprs)
    for (ForLoop* loop : loops)
      if (auto [it, added] = first.try_emplace(loop->parallelType(), loop->iterDomain());
          !added && !model.areMapped(it->second, loop->iterDomain(), IdMappingMode::Exact))
        mixed.insert(loop->parallelType());
  return mixed;
}

// Splits the executor proves divisible at launch. A vectorized copy of a fusion input or
// output is checked (KernelExecutor's checkVectorizable) to run along axes holding a multiple
// of the vector width, so the copy's split by the width of those axes' merge divides; so does
// every split IdModel maps to it (the same axis: equal extents at run time). The pointwise
// scheduler's vector split is one: [i0 * i1] -> [ceilDiv(i0 * i1, 8), 8].
class DivisibleSplits {
 public:
  DivisibleSplits(const Fusion& ir, const IdModel& model) : model_(model) {
    for (Expr* e : ir.exprs()) {
      auto* copy = dynamic_cast<LoadStoreOp*>(e);
      if (copy == nullptr) continue;
      auto* in = dynamic_cast<TensorView*>(copy->in());
      auto* out = copy->out()->as<TensorView>();
      if (in == nullptr || out->nDims() == 0) continue;
      const bool checked = (in->isFusionInput() && in->getMemoryType() == MemoryType::Global) ||
                           (out->isFusionOutput() && out->getMemoryType() == MemoryType::Global);
      IterDomain* vector = out->axis(out->nDims() - 1);
      Split* split = vector->definition() == nullptr
                         ? nullptr
                         : visitIdExpr(
                               vector->definition(), [](Split* s) { return s; },
                               [](Merge*) -> Split* { return nullptr; },
                               [](Resize*) -> Split* { return nullptr; });
      if (!checked || vector->parallelType() != ParallelType::Vectorize || split == nullptr ||
          split->inner() != vector || !mergedFromLogical(out, split->in()))
        continue;
      vectorized_.push_back(split);
    }
  }

  bool divisible(Split* s) const {
    std::optional<int64_t> in = s->in()->extent()->constInt();
    std::optional<int64_t> factor = s->factor()->constInt();
    if (in && factor && *factor != 0 && *in % *factor == 0) return true;
    return factor && std::any_of(vectorized_.begin(), vectorized_.end(), [&](Split* v) {
             return v->factor()->constInt() == factor &&
                    model_.areMapped(v->in(), s->in(), IdMappingMode::Exact);
           });
  }

 private:
  // Whether `id` is a logical axis of `tv` or a merge of such: the executor checks the
  // extent of exactly those axes.
  static bool mergedFromLogical(TensorView* tv, IterDomain* id) {
    const auto& logical = tv->getLogicalDomain();
    const std::vector<IterDomain*> axes = mergedAxes(id);
    return std::all_of(axes.begin(), axes.end(), [&](IterDomain* a) {
      return std::find(logical.begin(), logical.end(), a) != logical.end();
    });
  }

  const IdModel& model_;
  std::vector<Split*> vectorized_;
};

// Whether the index of each axis of `tv`, computed from its loop indices the way
// indexMapFromLoop does, can reach past the axis's extent. Loop indices cannot (a
// parallel loop launched wider is guarded by its own predicate); a split's input can when
// the split is not divisible or an output can; a merge's outer when the merge's output can;
// a merge's inner never (it is a remainder).
std::unordered_map<IterDomain*, bool> mayOverrun(TensorView* tv, const DivisibleSplits& splits) {
  std::unordered_map<IterDomain*, bool> over;
  for (IterDomain* id : tv->getLoopDomain()) over[id] = false;
  std::vector<Expr*> transforms = tv->domain()->allTransforms();
  for (auto it = transforms.rbegin(); it != transforms.rend(); ++it) {
    visitIdExpr(
        *it,
        [&](Split* s) {
          if (!over.count(s->outer()) || !over.count(s->inner())) return;
          over[s->in()] = over[s->outer()] || over[s->inner()] || !splits.divisible(s);
        },
        [&](Merge* m) {
          if (!over.count(m->out())) return;
          over[m->outer()] = over[m->out()];
          over[m->inner()] = false;
        },
        // in = out - left < in's extent = out's - right: in bounds with out when right <= 0.
        [&](Resize* r) {
          if (!over.count(r->out())) return;
          std::optional<int64_t> right = r->right()->constInt();
          over[r->in()] = over[r->out()] || !right || *right > 0;
        });
  }
  return over;
}

// The axes of `tv` whose index can be negative: a Resize's input, in = out - left, unless
// left is a constant <= 0 (a slice's crop) and out's index cannot be negative itself (a crop
// inside a pad's loop: pad(crop(x)) reads x below 0). Loop indices, and the axes split and
// merge derive from them, never are.
std::unordered_set<IterDomain*> mayUnderrun(TensorView* tv) {
  std::unordered_set<IterDomain*> under;
  std::vector<Expr*> transforms = tv->domain()->allTransforms();
  for (auto it = transforms.rbegin(); it != transforms.rend(); ++it)
    if (auto* r = dynamic_cast<Resize*>(*it)) {
      std::optional<int64_t> left = r->left()->constInt();
      if (!left || *left > 0 || under.count(r->out())) under.insert(r->in());
    }
  return under;
}

// The axis whose bounds check is equivalent to `id`'s (which may overrun), nearest the loop
// domain, and its extent: a merge's outer is in bounds exactly when the merge's output is
// (`i / n < m` is `i < m * n`, without the division); a divisible split's input exactly when
// its outer is, given an inner that cannot overrun (`o * 8 + v < n` is `o < n / 8` when 8
// divides n), which takes the vector's element index out of the check. Stops at a split that
// may not divide (the check must see its inner index) and at a reduction/iteration boundary
// (a block reduction's write guard checks iteration axes only).
std::pair<IterDomain*, Val*> hoistedBound(IterDomain* id, const IdModel& model,
                                          const std::unordered_map<IterDomain*, bool>& over,
                                          const DivisibleSplits& splits,
                                          const std::unordered_map<IterDomain*, Expr*>& use) {
  Val* extent = id->extent();
  for (auto it = use.find(id); it != use.end(); it = use.find(id)) {
    // The next axis nearer the loop domain with an equivalent check, or null to stop.
    IterDomain* next = visitIdExpr(
        it->second,
        [&](Merge* m) -> IterDomain* {
          if (m->outer() != id || m->inner()->isReduction() != id->isReduction()) return nullptr;
          extent = SimplifyingIrBuilder::mul(extent, promotedExtent(m->inner(), &model));
          return m->out();
        },
        [&](Split* s) -> IterDomain* {
          auto inner = over.find(s->inner());
          if (!splits.divisible(s) || inner == over.end() || inner->second) return nullptr;
          // The inner extent divides: the factor of an inner split, the rest of an outer one
          // (a reshape's splits are outer splits by the output size).
          extent = SimplifyingIrBuilder::div(extent,
                                             s->innerSplit() ? s->factor() : s->inner()->extent());
          return s->outer();
        },
        [](Resize*) -> IterDomain* { return nullptr; });  // the check needs in's own index
    if (next == nullptr) break;
    id = next;
  }
  return {id, extent};
}

// Whether `e` computes registers from registers only, with an op that cannot fault: then it
// needs no guard (nvFuser's predicate elimination). Outside the bounds it computes values
// nobody reads: its consumers are guarded where they read memory or reduce, and each reads
// the elements its own guard lets through, which this expr computed from guarded loads.
// Integer division and modulo are kept guarded (a divisor of 0 is undefined behaviour).
bool computesRegistersOnly(const Expr* e) {
  if (e->isA<ReductionOp>() || e->isA<RuntimeCall>()) return false;
  auto isRegister = [](const Val* v) {
    auto* ti = dynamic_cast<const TensorIndex*>(v);
    return ti == nullptr || ti->view()->getMemoryType() == MemoryType::Local;
  };
  if (!std::all_of(e->inputs().begin(), e->inputs().end(), isRegister) ||
      !std::all_of(e->outputs().begin(), e->outputs().end(), isRegister))
    return false;
  if (auto* b = dynamic_cast<const BinaryOp*>(e))
    return !(isIntegralType(b->out()->dtype()) &&
             (b->opType() == BinaryOpType::Div || b->opType() == BinaryOpType::Mod ||
              b->opType() == BinaryOpType::CeilDiv));
  return true;
}

// The compute exprs in the order indexTensors lowered them: the tree's, except that each
// reduction's init comes right before its reduction (the init sits before the reduction
// loops, ahead of producers computed inside them). Scalars are numbered as they are created,
// so building the predicates in this order keeps their names, hence the generated kernels.
std::vector<Kernel::LoopNested> loweringOrder(std::vector<Kernel::LoopNested> walk) {
  std::vector<Kernel::LoopNested> order, inits;
  auto writes = [](const Expr* e, const TensorView* tv) {
    return std::any_of(e->outputs().begin(), e->outputs().end(),
                       [&](Val* o) { return o->as<TensorIndex>()->view() == tv; });
  };
  for (Kernel::LoopNested& n : walk) {
    if (n.expr->outputs().size() == 1 && n.expr->output(0)->as<TensorIndex>()->startsReduction()) {
      inits.push_back(std::move(n));
      continue;
    }
    for (auto it = inits.begin(); it != inits.end();) {
      if (!writes(n.expr, it->expr->output(0)->as<TensorIndex>()->view())) {
        ++it;
        continue;
      }
      order.push_back(std::move(*it));
      it = inits.erase(it);
    }
    order.push_back(std::move(n));
  }
  MF_ASSERT(inits.empty(), "a reduction init without its reduction");
  return order;
}

}  // namespace

void insertPredicates(Kernel& kernel) {
  Fusion& ir = kernel.ir();
  FusionGuard fg(&ir);
  IdModel model(ir);
  const DivisibleSplits splits(ir, model);
  const std::vector<Kernel::LoopNested> exprs = loweringOrder(kernel.computeExprs());
  const std::unordered_set<ParallelType> mixed = mixedParallelTypes(exprs, model);
  for (const auto& [e, loops] : exprs) {
    // Every thread of the block (or grid) must reach a collective call: its predicates are
    // passed in instead of wrapping it.
    auto* call = dynamic_cast<RuntimeCall*>(e);
    // The tile-form layout op bounds every access itself, and every thread of the block must
    // reach its barrier: no guard, and predicates that hold everywhere.
    if (call != nullptr && call->form() == RuntimeCallForm::LayoutTile) {
      call->setPredicates(constBool(true), constBool(true));
      continue;
    }
    const bool collective = call != nullptr && call->collectiveScope() != CollectiveScope::None;
    Val* pred = constBool(true);
    // A collective call's write predicate: the bounds of the axes its outputs are indexed by.
    Val* write = collective ? constBool(true) : nullptr;
    std::vector<std::string> checks;  // printed, over all outputs
    for (Val* o : e->outputs()) {
      auto* ti = o->as<TensorIndex>();
      TensorView* out = ti->view();
      const IndexMap& walk = ti->axisIndices();
      std::unordered_map<IterDomain*, bool> over = mayOverrun(out, splits);
      std::unordered_map<IterDomain*, Expr*> use;
      for (Expr* t : out->domain()->allTransforms())
        for (Val* in : t->inputs())
          if (auto* id = dynamic_cast<IterDomain*>(in)) use[id] = t;
      // The axes the loops cover: logical, or the padded buffer of a gather-form layout op.
      // An rfactor tensor's root: its logical axes are split pieces of the root's (a pad's
      // or slice's root is its input's shape: its logical axes are the ones written).
      const bool rfactor = out->domain()->hasRoot() && out->definition() != nullptr &&
                           out->definition()->isA<ReductionOp>();
      const auto& ids = rfactor ? out->getMaybeRootDomain() : out->domain()->loopSource();
      const std::unordered_set<IterDomain*> under = mayUnderrun(out);
      // An init runs outside the reduction loops: it must happen even for an empty reduction.
      const bool is_init = ti->startsReduction();
      std::vector<IterDomain*> checked;
      // The index the loops give `id`, a resized broadcast's included (indicesInMap reads
      // every broadcast at 0, where the element is).
      auto indexOf = [&](IterDomain* id) {
        auto it = walk.find(id);
        return id->isBroadcast() && it != walk.end() ? it->second
                                                     : indicesInMap(walk, {id}).front();
      };
      for (IterDomain* id : ids) {
        // A broadcast axis of a tensor in memory is guarded when the loops can move its
        // index off its one element: the outer of a merge with a concrete axis (`i / 5` over
        // a 128-thread loop), a slice to one element run over a pad's loop. Otherwise the
        // loop's other positions overwrite the element with values of reads predicated off.
        if (id->isBroadcast() &&
            (out->getMemoryType() == MemoryType::Local || indexOf(id)->isConst()))
          continue;
        if (is_init && id->isReduction()) continue;
        // A producer run over its consumer's padded loop: its index starts below 0 there.
        if (under.count(id)) {
          Val* index = indexOf(id);
          pred =
              SimplifyingIrBuilder::logicalAnd(pred, SimplifyingIrBuilder::le(constInt(0), index));
          if (collective && !id->isReduction())
            write = SimplifyingIrBuilder::logicalAnd(write,
                                                     SimplifyingIrBuilder::le(constInt(0), index));
        }
        auto it = over.find(id);
        if (it != over.end() && !it->second) continue;
        // An init's loops stop before the reduction loops: keep its checks on its own axes.
        auto [bound, extent] = is_init ? std::pair<IterDomain*, Val*>(id, id->extent())
                                       : hoistedBound(id, model, over, splits, use);
        if (std::find(checked.begin(), checked.end(), bound) != checked.end()) continue;
        checked.push_back(bound);
        Val* in_bounds = SimplifyingIrBuilder::lt(indexOf(bound), extent);
        // Sibling outputs, indexed alike, repeat each other's checks.
        if (e->outputs().size() > 1) {
          const std::string printed = in_bounds->toInlineString();
          if (std::find(checks.begin(), checks.end(), printed) != checks.end()) continue;
          checks.push_back(printed);
        }
        pred = SimplifyingIrBuilder::logicalAnd(pred, in_bounds);
        if (collective && !id->isReduction())
          write = SimplifyingIrBuilder::logicalAnd(write, in_bounds);
      }
      // A split's inner that can overrun (the inner of a reshape's outer split, itself split
      // by a 2-D schedule: `[4099, 65]` with 65 split by 32) aliases the next outer index
      // (`in = outer * 65 + inner`), which no logical bound sees: a tensor in memory checks
      // that inner itself, or threads past the 65th write the next row's elements.
      if (out->getMemoryType() != MemoryType::Local && !collective)
        for (Expr* t : out->domain()->allTransforms()) {
          auto* s = dynamic_cast<Split*>(t);
          if (s == nullptr || s->inner()->isBroadcast() || s->inner()->isReduction()) continue;
          auto it = over.find(s->inner());
          if (it == over.end() || !it->second) continue;
          pred = SimplifyingIrBuilder::logicalAnd(
              pred, SimplifyingIrBuilder::lt(indexOf(s->inner()), s->inner()->extent()));
        }
    }
    for (ForLoop* loop : loops) {
      ParallelType p = loop->parallelType();
      if ((isThreadDim(p) || isBlockDim(p)) && mixed.count(p)) {
        Val* in_launch = SimplifyingIrBuilder::lt(loop->index(), loop->stop());
        pred = SimplifyingIrBuilder::logicalAnd(pred, in_launch);
        if (collective && !loop->iterDomain()->isReduction())
          write = SimplifyingIrBuilder::logicalAnd(write, in_launch);
      }
    }
    if (collective) {
      // One thread updates a shared or global output; each thread its own registers.
      const bool shared_output = std::any_of(e->outputs().begin(), e->outputs().end(), [](Val* o) {
        return o->as<TensorIndex>()->view()->getMemoryType() != MemoryType::Local;
      });
      if (shared_output) {
        // (A grid reduction that reduces no thread dimension leaves each thread its own.)
        const ParallelType across = call->params().across;
        if (across != ParallelType::Serial) {
          auto tid = std::find_if(loops.begin(), loops.end(),
                                  [&](ForLoop* l) { return l->parallelType() == across; });
          MF_ASSERT(tid != loops.end(), "{}: no loop over {}", e->toString(), toString(across));
          write = SimplifyingIrBuilder::logicalAnd(
              write, SimplifyingIrBuilder::eq((*tid)->index(), constInt(0)));
        }
        // The threads of a launched thread dimension that no loop here binds all hold the
        // result: one of them updates it (nvFuser's FusionReduction6 rfactored: [BIDx, rTIDx]
        // in a block of 8 threadIdx.y rows).
        for (const ParallelDimension& d : kernel.summary().parallel_dims)
          if (isThreadDim(d.type) && std::none_of(loops.begin(), loops.end(), [&](ForLoop* l) {
                return l->parallelType() == d.type;
              }))
            write = SimplifyingIrBuilder::logicalAnd(
                write, SimplifyingIrBuilder::eq(parallelIndex(ir, d.type), constInt(0)));
      }
      call->setPredicates(pred, write);
      continue;
    }
    const bool is_init =
        e->outputs().size() == 1 && e->output(0)->as<TensorIndex>()->startsReduction();
    if ((pred->constValue() && asBool(*pred->constValue())) ||
        (!is_init && computesRegistersOnly(e)))
      continue;
    Scope& scope = loops.empty() ? kernel.body() : loops.back()->body();
    auto it = std::find(scope.exprs().begin(), scope.exprs().end(), e);
    MF_ASSERT(it != scope.exprs().end(), "expr not in its scope");
    auto* guard = IrBuilder::createIn<IfThenElse>(&ir, pred);
    guard->thenBody().push_back(e);
    *it = guard;
  }
}

}  // namespace mf
