// indexTensors: every tensor operand becomes a TensorIndex into its storage.
#include <algorithm>
#include <optional>

#include "ir/builder.h"
#include "ir/exprs.h"
#include "ir/id_model.h"
#include "ir/logical_domain_map.h"
#include "lower/index_compute.h"
#include "lower/passes.h"

namespace mf {
namespace {

Scope& innermostScope(Kernel& kernel, Expr* e) {
  const std::vector<ForLoop*>& loops = kernel.loopsOf().at(e);
  return loops.empty() ? kernel.body() : loops.back()->body();
}

void replaceInScope(Scope& scope, Expr* old_expr, Expr* new_expr) {
  auto it = std::find(scope.exprs().begin(), scope.exprs().end(), old_expr);
  MF_ASSERT(it != scope.exprs().end(), "expr not found in its scope: {}", old_expr->toString());
  *it = new_expr;
}

// Logical indices of producer `p` read by the expr computing `c` at `c_root` (the indices of
// c's root domain, its logical domain when it has none): each producer axis reads at its
// mapped consumer axis; a broadcast or reduction axis at 0. `to_consumer` receives, per
// allocation axis of `p`, the consumer root axis it maps to (null for none).
std::vector<Val*> producerLogical(TensorView* p, TensorView* c, const std::vector<Val*>& c_root,
                                  std::vector<IterDomain*>& to_consumer) {
  IdMap p2c = PairwiseLogicalDomainMap(p, c).mapProducerToConsumer();
  const std::vector<IterDomain*>& c_ids = c->getMaybeRootDomain();
  std::vector<Val*> out;
  for (IterDomain* id : p->getLogicalDomain()) {
    // A reduction axis of the producer holds no data (its index never reaches an offset).
    if (id->isBroadcast() || id->isReduction()) {
      out.push_back(constInt(0));
      continue;
    }
    auto pos = std::find(c_ids.begin(), c_ids.end(), p2c.at(id)) - c_ids.begin();
    out.push_back(c_root.at(static_cast<size_t>(pos)));
  }
  to_consumer.clear();
  for (IterDomain* id : p->getMaybeAllocationDomain()) {
    auto it = p2c.find(id);
    to_consumer.push_back(id->isBroadcast() || it == p2c.end() ? nullptr : it->second);
  }
  return out;
}

TensorIndex* indexOf(Kernel& kernel, TensorView* tv, const std::vector<Val*>& logical,
                     const std::vector<Val*>* loop_indices, const MergedIndexSource* merged) {
  Val* offset = nullptr;
  if (tv->getMemoryType() == MemoryType::Global) {
    offset = globalOffset(kernel, tv, logical, merged);
  } else {
    std::vector<Val*> loop =
        loop_indices ? *loop_indices : indicesFromLogical(tv, logical, tv->getLoopDomain());
    offset = localOffset(tv, loop);
  }
  return IrBuilder::createIn<TensorIndex>(&kernel.ir(), tv, offset);
}

// A register or shared producer scheduled like its consumer (its loop axes permissively
// mapped to the consumer's, position by position) is read at the consumer's loop indices:
// it was written at those. Going through its logical indices instead would divide and
// take remainders to find the loop indices again (a register array indexed by `i % 8`, not
// a constant after unrolling, lives in local memory), and would lose where the consumer's
// loops run over an axis the producer broadcasts.
//
// A reduction's register result has fewer loop axes than its reader (an rfactor tensor
// [.., r serial, r unroll, i v] read by the block reduction [.., r tidy, i v]) or more (the
// block reduction read by the output's copy [.., i v]); its buffer axes (the v) are read at
// the consumer's loop axis each maps to, one to one: the axis it was written at.
std::optional<std::vector<Val*>> sharedLoopIndices(const IdModel& model, TensorView* p,
                                                   TensorView* c, const std::vector<Val*>& c_loop) {
  if (p->getMemoryType() == MemoryType::Global) return std::nullopt;
  auto mapped = [&](int64_t i, int64_t j) {
    return model.areMapped(p->axis(i), c->axis(j), IdMappingMode::Permissive);
  };
  bool by_position = p->nDims() == c->nDims();
  for (int64_t i = 0; by_position && i < p->nDims(); ++i) by_position = mapped(i, i);
  if (by_position) return c_loop;
  const bool reduction_result = p->definition() != nullptr && p->definition()->isA<ReductionOp>();
  if (!reduction_result || p->getMemoryType() != MemoryType::Local) return std::nullopt;
  std::vector<Val*> p_loop(static_cast<size_t>(p->nDims()), constInt(0));
  for (int64_t i = 0; i < p->nDims(); ++i) {
    if (!heldInBuffer(p, i)) continue;
    std::optional<int64_t> match;
    for (int64_t j = 0; j < c->nDims(); ++j) {
      if (!mapped(i, j)) continue;
      if (match) return std::nullopt;
      match = j;
    }
    if (!match) return std::nullopt;
    p_loop[static_cast<size_t>(i)] = c_loop[static_cast<size_t>(*match)];
  }
  return p_loop;
}

// `acc = init` for the reduction `red`, stored where `out_index` points (its offset depends on
// the iteration loops only), placed before the first reduction loop: the reduction loops that
// follow combine into the identity. A buffer allocated inside that loop (inlined past a
// threadIdx.x reduction axis, which is no loop in the code) is initialized right after its
// allocation instead. Iteration axes nested inside the reduction loops (an outer reduction's
// vector: [.., r serial, r unroll, i vector]) get init loops of their own, which reuse the
// output's loop indices (as nvFuser's init loops do), so `out_index` addresses them:
//   FOR i7 in iS{4}: T2[i7] = set(0)          <- the init loop
//   FOR i5 in rS{n}: FOR i7 in iS{4}: T2[i7] = reduction(..)
// Records the init's loops.
Expr* initReduction(Kernel& kernel, ReductionOp* red, TensorIndex* out_index,
                    const std::vector<ForLoop*>& loops) {
  auto* out = red->out()->as<TensorView>();
  size_t first = 0;
  while (first < loops.size() && !out->axis(static_cast<int64_t>(first))->isReduction()) ++first;
  MF_ASSERT(first < loops.size(), "{} has no reduction loop", red->toString());
  auto* acc = IrBuilder::create<TensorIndex>(out, out_index->index());
  Expr* init =
      IrBuilder::create<LoadStoreOp>(std::vector<Val*>{red->init()}, std::vector<Val*>{acc});
  const size_t alloc_pos = static_cast<size_t>(out->computeAtPosition());
  const bool in_allocation = out->getMemoryType() != MemoryType::Global && alloc_pos > first;
  const size_t depth = in_allocation ? alloc_pos : first;
  Scope& scope = depth == 0 ? kernel.body() : loops[depth - 1]->body();
  std::vector<Expr*>& exprs = scope.exprs();
  auto it = std::find(exprs.begin(), exprs.end(), loops[first]);
  if (in_allocation) {
    it = std::find_if(exprs.begin(), exprs.end(), [&](Expr* x) {
      auto* a = dynamic_cast<Allocate*>(x);
      return a != nullptr && a->buffer() == out;
    });
    MF_ASSERT(it != exprs.end(), "the allocation of {} is not in its scope", out->toString());
    ++it;
  }
  MF_ASSERT(in_allocation || it != exprs.end(),
            "the first reduction loop of {} is not in its scope", red->toString());
  std::vector<ForLoop*> init_loops(loops.begin(), loops.begin() + depth);
  Expr* placed = init;
  Scope* inner = nullptr;
  for (size_t i = depth; i < loops.size(); ++i) {
    if (out->axis(static_cast<int64_t>(i))->isReduction()) continue;
    auto* loop =
        IrBuilder::create<ForLoop>(loops[i]->iterDomain(), loops[i]->index(), loops[i]->stop());
    if (inner == nullptr)
      placed = loop;
    else
      inner->push_back(loop);
    inner = &loop->body();
    init_loops.push_back(loop);
  }
  if (inner != nullptr) inner->push_back(init);
  scope.exprs().insert(it, placed);
  kernel.reductionInits().insert(init);
  kernel.loopsOf()[init] = std::move(init_loops);
  return init;
}

}  // namespace

void indexTensors(Kernel& kernel) {
  Fusion& ir = kernel.ir();
  FusionGuard fg(&ir);
  const IdModel model(ir);
  std::unordered_map<Expr*, std::vector<ForLoop*>> lowered_loops;
  std::vector<Expr*> lowered_order;
  for (Expr* e : kernel.computeOrder()) {
    const std::vector<ForLoop*>& loops = kernel.loopsOf().at(e);
    auto* out = e->output(0)->as<TensorView>();
    std::vector<Val*> loop_indices;
    int64_t width = 1;
    for (int64_t i = 0; i < out->nDims(); ++i) {
      bool vec = loops[i]->parallelType() == ParallelType::Vectorize;
      if (vec) width = *out->axis(i)->extent()->constInt();
      // A whole-vector copy is addressed by its first element.
      loop_indices.push_back(vec ? constInt(0) : loops[i]->index());
    }
    const IndexMap walk = indexMapFromLoop(out, loop_indices, &model);
    std::vector<Val*> c_logical = indicesInMap(walk, out->domain()->loopSource());
    // An rfactor tensor reads its producer at its root indices, and its bounds are there too.
    std::vector<Val*> c_root =
        out->domain()->hasRoot() ? indicesInMap(walk, out->getMaybeRootDomain()) : c_logical;

    std::vector<Val*> ins;
    auto* layout = dynamic_cast<PreprocessGroupedMatmulInputSf*>(e);
    for (Val* v : e->inputs()) {
      auto* p = dynamic_cast<TensorView*>(v);
      if (p == nullptr) {
        ins.push_back(v);
      } else if (layout && v != layout->in()) {
        // Offsets are read whole by the runtime function: pass the base pointer.
        ins.push_back(IrBuilder::create<TensorIndex>(p, constInt(0)));
      } else {
        std::optional<std::vector<Val*>> shared = sharedLoopIndices(model, p, out, loop_indices);
        MergedIndexSource merged{&walk, {}};
        std::vector<Val*> p_logical = producerLogical(p, out, c_root, merged.consumer_axes);
        ins.push_back(indexOf(kernel, p, p_logical, shared ? &*shared : nullptr, &merged));
      }
    }
    TensorIndex* out_index = nullptr;
    if (layout && out->domain()->loopFromAllocation()) {
      // Gather form: the loops run over the padded buffer [rows, Kp]; the runtime function
      // gets the flat position and finds each element's source itself.
      ins[0] = IrBuilder::create<TensorIndex>(layout->in()->as<TensorView>(), constInt(0));
      Val* kp = out->getMaybeAllocationDomain()[1]->extent();
      ins.push_back(
          SimplifyingIrBuilder::add(SimplifyingIrBuilder::mul(c_logical[0], kp), c_logical[1]));
      out_index = IrBuilder::create<TensorIndex>(out, constInt(0));
    } else if (layout) {
      // The runtime function computes the swizzled position from the logical index.
      ins.push_back(c_logical[0]);
      ins.push_back(c_logical[1]);
      out_index = IrBuilder::create<TensorIndex>(out, constInt(0));
    } else {
      // The output's own axes: its allocation axes are (when logical) the walk's targets.
      MergedIndexSource merged{&walk, out->getMaybeAllocationDomain()};
      out_index = indexOf(kernel, out, c_logical, &loop_indices, &merged);
    }
    Expr* lowered = e->newObject(&ir, ins, {out_index});
    if (auto* red = dynamic_cast<ReductionOp*>(e)) {
      Expr* init = initReduction(kernel, red, out_index, loops);
      kernel.outputIndices()[init] = walk;
      lowered_loops[init] = kernel.loopsOf().at(init);
      lowered_order.push_back(init);
    }
    replaceInScope(innermostScope(kernel, e), e, lowered);
    if (width > 1) kernel.vectorWidth()[lowered] = width;
    kernel.outputIndices()[lowered] = walk;
    lowered_loops[lowered] = loops;
    lowered_order.push_back(lowered);
  }
  kernel.loopsOf() = std::move(lowered_loops);
  kernel.computeOrder() = std::move(lowered_order);
}

}  // namespace mf
