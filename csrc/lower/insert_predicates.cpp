// insertPredicates: bounds checks for loops that may overrun their tensor.
#include <algorithm>

#include "ir/builder.h"
#include "ir/id_model.h"
#include "lower/passes.h"

namespace mf {
namespace {

// A parallel loop needs its own guard when its dimension is launched wider than its extent:
// when another loop bound to the same dimension is not the same axis (IdModel exact group,
// hence the same extent at run time).
bool parallelDimMayOverrun(Kernel& kernel, const IdModel& model, ForLoop* loop) {
  for (const auto& [e, loops] : kernel.loopsOf())
    for (ForLoop* other : loops)
      if (other->parallelType() == loop->parallelType() &&
          !model.areMapped(other->iterDomain(), loop->iterDomain(), IdMappingMode::Exact))
        return true;
  return false;
}

bool divisible(Split* s) {
  std::optional<int64_t> in = s->in()->extent()->constInt();
  std::optional<int64_t> factor = s->factor()->constInt();
  return in && factor && *factor != 0 && *in % *factor == 0;
}

// Whether the index of each axis of `tv`, computed from its loop indices the way
// logicalIndicesFromLoop does, can reach past the axis's extent. Loop indices cannot (a
// parallel loop launched wider is guarded by its own predicate); a split's input can when
// the split is not provably divisible or an output can; a merge's outer when the merge's
// output can; a merge's inner never (it is a remainder).
std::unordered_map<IterDomain*, bool> mayOverrun(TensorView* tv) {
  std::unordered_map<IterDomain*, bool> over;
  for (IterDomain* id : tv->getLoopDomain()) over[id] = false;
  std::vector<Expr*> transforms = tv->domain()->allTransforms();
  for (auto it = transforms.rbegin(); it != transforms.rend(); ++it) {
    if (auto* s = dynamic_cast<Split*>(*it)) {
      if (!over.count(s->outer()) || !over.count(s->inner())) continue;
      over[s->in()] = over[s->outer()] || over[s->inner()] || !divisible(s);
    } else if (auto* m = dynamic_cast<Merge*>(*it)) {
      if (!over.count(m->out())) continue;
      over[m->outer()] = over[m->out()];
      over[m->inner()] = false;
    }
  }
  return over;
}

// The thread dimension a block reduction reduces across (Serial for other exprs).
ParallelType blockReductionDim(const Expr* e) {
  if (!e->isA<ReductionOp>()) return ParallelType::Serial;
  for (IterDomain* id : e->output(0)->as<TensorIndex>()->view()->getLoopDomain())
    if (id->isReduction() && isThreadDim(id->parallelType())) return id->parallelType();
  return ParallelType::Serial;
}

}  // namespace

void insertPredicates(Kernel& kernel) {
  Fusion& ir = kernel.ir();
  FusionGuard fg(&ir);
  IdModel model(ir);
  for (Expr* e : kernel.computeOrder()) {
    const std::vector<ForLoop*>& loops = kernel.loopsOf().at(e);
    auto* out = e->output(0)->as<TensorIndex>()->view();
    const std::vector<Val*>& logical = kernel.outputLogicalIndices().at(e);
    std::unordered_map<IterDomain*, bool> over = mayOverrun(out);
    Val* pred = constBool(true);
    // A block reduction's write predicate: the bounds of the axes its output is indexed by.
    const ParallelType reduced_dim = blockReductionDim(e);
    const bool block_reduction = reduced_dim != ParallelType::Serial;
    Val* write = block_reduction ? constBool(true) : nullptr;
    // The axes the loops cover: logical, or the padded buffer of a gather-form layout op.
    // An rfactor tensor's root: its logical axes are split pieces of the root's.
    const auto& ids =
        out->domain()->hasRoot() ? out->getMaybeRootDomain() : out->domain()->loopSource();
    // An init runs outside the reduction loops: it must happen even for an empty reduction.
    const bool is_init = kernel.reductionInits().count(e) > 0;
    for (size_t i = 0; i < ids.size(); ++i) {
      if (ids[i]->isBroadcast() || (is_init && ids[i]->isReduction())) continue;
      auto it = over.find(ids[i]);
      if (it != over.end() && !it->second) continue;
      Val* in_bounds = SIB::lt(logical[i], ids[i]->extent());
      pred = SIB::logicalAnd(pred, in_bounds);
      if (block_reduction && !ids[i]->isReduction()) write = SIB::logicalAnd(write, in_bounds);
    }
    for (ForLoop* loop : loops) {
      ParallelType p = loop->parallelType();
      if ((isThreadDim(p) || isBlockDim(p)) && parallelDimMayOverrun(kernel, model, loop)) {
        Val* in_launch = SIB::lt(loop->index(), loop->stop());
        pred = SIB::logicalAnd(pred, in_launch);
        if (block_reduction && !loop->iterDomain()->isReduction())
          write = SIB::logicalAnd(write, in_launch);
      }
    }
    if (block_reduction) {
      // One thread updates a shared or global output; each thread its own registers.
      if (out->getMemoryType() != MemoryType::Local) {
        auto tid = std::find_if(loops.begin(), loops.end(),
                                [&](ForLoop* l) { return l->parallelType() == reduced_dim; });
        write = SIB::logicalAnd(write, SIB::eq((*tid)->index(), constInt(0)));
      }
      kernel.inlinePredicates()[e] = {pred, write};
      continue;
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
