// indexTensors: every tensor operand becomes a TensorIndex into its storage.
#include <algorithm>
#include <optional>

#include "ir/builder.h"
#include "ir/exprs.h"
#include "ir/id_model.h"
#include "ir/logical_domain_map.h"
#include "ir/op_traits.h"
#include "ir/shape_exprs.h"
#include "lower/index_compute.h"
#include "lower/nan_bits.h"
#include "lower/passes.h"

namespace mf {
namespace {

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
// Its output index records the reduction's axis indices and that it starts the reduction.
void initReduction(Kernel& kernel, ReductionOp* red, TensorIndex* out_index,
                   const std::vector<ForLoop*>& loops) {
  auto* out = red->out()->as<TensorView>();
  size_t first = 0;
  while (first < loops.size() && !out->axis(static_cast<int64_t>(first))->isReduction()) ++first;
  MF_ASSERT(first < loops.size(), "{} has no reduction loop", red->toString());
  auto* acc = IrBuilder::create<TensorIndex>(out, out_index->index());
  acc->setAxisIndices(out_index->axisIndices());
  acc->setStartsReduction();
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
  }
  if (inner != nullptr) inner->push_back(init);
  scope.exprs().insert(it, placed);
}

// The thread dimension a reduction's output reduces across (Serial for a serial reduction),
// and whether it reduces across blocks too.
std::pair<ParallelType, bool> reducedAcross(const ReductionOp* red) {
  ParallelType across = ParallelType::Serial;
  bool grid = false;
  for (IterDomain* id : red->out()->as<TensorView>()->getLoopDomain()) {
    if (!id->isReduction()) continue;
    if (isThreadDim(id->parallelType())) across = id->parallelType();
    grid = grid || isBlockDim(id->parallelType());
  }
  return {across, grid};
}

// A reduction across threads (validateSchedule: across threadIdx.x or threadIdx.y) or blocks
// (blockIdx.x or .y, with or without threads) becomes the runtime's all-reduce on the indexed
// operands; a grid reduction finished in place (KernelSummary) the runtime's two-level tree.
Expr* lowerCrossThreadReduction(Fusion& ir, ReductionOp* red, ParallelType across, bool grid,
                                bool in_place, Val* in, TensorIndex* out) {
  const RuntimeCallForm form =
      grid ? RuntimeCallForm::GridAllReduce : RuntimeCallForm::BlockAllReduce;
  const std::string function =
      grid ? fmt::format(
                 "{}{}", in_place ? "mf_gridReduceInPlace" : "mf_gridAllReduce",
                 gridReductionDim(red->out()->as<TensorView>()) == ParallelType::BIDx ? "X" : "Y")
           : fmt::format("mf_blockAllReduce{}", across == ParallelType::TIDy ? "Y" : "X");
  return IrBuilder::createIn<RuntimeCall>(
      &ir, std::vector<Val*>{in, red->init()}, std::vector<Val*>{out}, form, function,
      RuntimeCall::Params{.combine = red->opType(), .across = across});
}

// The layout op's three forms. Scatter (loops over logical [M, K]): the runtime function
// computes the swizzled position from the element's logical (row, col). Gather and Tile (the
// loops run over the padded buffer [rows, Kp]): it gets the flat position and finds each
// element's source itself (Tile: with the rest of its block), so its input is passed as a
// base pointer. The output is the buffer's base,
// the offsets are read whole (base pointers).
Expr* lowerLayoutOp(Fusion& ir, PreprocessGroupedMatmulInputSf* layout,
                    const std::vector<Val*>& indexed, const std::vector<Val*>& c_logical,
                    int64_t width) {
  auto* out = layout->out()->as<TensorView>();
  std::vector<Val*> operands(indexed.begin(), indexed.begin() + 5);
  if (out->domain()->loopFromAllocation()) {
    operands[0] = IrBuilder::create<TensorIndex>(layout->in()->as<TensorView>(), constInt(0));
    Val* kp = out->getMaybeAllocationDomain()[1]->extent();
    operands.push_back(
        SimplifyingIrBuilder::add(SimplifyingIrBuilder::mul(c_logical[0], kp), c_logical[1]));
    auto* out_index = IrBuilder::create<TensorIndex>(out, constInt(0));
    if (layout->form() == LayoutOpForm::Tile) {
      // The threads of the block: loop axis 1, TIDx (validateSchedule, checkLayoutTile).
      const int64_t threads = out->axis(1)->extent()->constInt().value();
      return IrBuilder::createIn<RuntimeCall>(
          &ir, std::move(operands), std::vector<Val*>{out_index}, RuntimeCallForm::LayoutTile,
          "mf_layoutOpTile", RuntimeCall::Params{.vector_width = width, .threads = threads});
    }
    return IrBuilder::createIn<RuntimeCall>(&ir, std::move(operands), std::vector<Val*>{out_index},
                                            RuntimeCallForm::LayoutGather, "mf_layoutOpGather",
                                            RuntimeCall::Params{.vector_width = width});
  }
  operands.push_back(c_logical[0]);
  operands.push_back(c_logical[1]);
  auto* out_index = IrBuilder::create<TensorIndex>(out, constInt(0));
  return IrBuilder::createIn<RuntimeCall>(
      &ir, std::move(operands), std::vector<Val*>{out_index}, RuntimeCallForm::LayoutScatter,
      "mf_preprocessGroupedMatmulInputSf", RuntimeCall::Params{});
}

// The block quantizations (one call per `width` consecutive 16-value blocks of a row): the
// loops run over the scales (output 0), whose innermost axis (Vectorize, of extent `width`)
// holds the blocks of one call; the quantized output (output 1) is scheduled alike, its
// innermost axis the calls' 16 * width values, so its walk gives the first block's first
// element. The input, read whole by the runtime function, is addressed at that element too
// (it has the quantized output's logical shape); the global scale is read at its only
// element. The call is given the first block's scale column and the number of columns, and
// quantizes the blocks of the call below that. Grouped: the scales are the padded buffer's
// base and the runtime function finds the scales' positions from (row, col).
Expr* lowerBlockQuantize(Kernel& kernel, Expr* e, const std::vector<Val*>& ins,
                         const std::vector<IndexMap>& walks, const std::vector<Val*>& c_logical,
                         const std::vector<Val*>& loop_indices, int64_t width) {
  Fusion& ir = kernel.ir();
  auto* scales = e->output(0)->as<TensorView>();
  auto* quantized = e->output(1)->as<TensorView>();
  auto* in = e->input(0)->as<TensorView>();
  const std::vector<Val*> q_logical = indicesInMap(walks[1], quantized->domain()->loopSource());
  Val* in_index = indexOf(kernel, in, q_logical, nullptr, nullptr);
  MergedIndexSource q_merged{&walks[1], quantized->getMaybeAllocationDomain()};
  Val* q_index = indexOf(kernel, quantized, q_logical, &loop_indices, &q_merged);
  Val* gs = constFloat(1.0, DataType::Float);
  RuntimeCall::Params params;
  params.vector_width = width;
  // The block's threads (loop axis 1, TIDx, a constant split) let a warp's calls share memory.
  if (scales->nDims() > 1 && scales->axis(1)->parallelType() == ParallelType::TIDx)
    params.threads = scales->axis(1)->extent()->constInt().value_or(0);
  if (auto* bq = dynamic_cast<BlockQuantizationOp*>(e)) {
    if (bq->globalScale() != nullptr) gs = ins[1];
    MergedIndexSource s_merged{&walks[0], scales->getMaybeAllocationDomain()};
    Val* s_index = indexOf(kernel, scales, c_logical, &loop_indices, &s_merged);
    Val* columns = scales->getLogicalDomain().back()->extent();
    return IrBuilder::createIn<RuntimeCall>(
        &ir, std::vector<Val*>{in_index, gs, columns, c_logical.back()},
        std::vector<Val*>{s_index, q_index}, RuntimeCallForm::BlockQuantize, "mf_blockQuantize",
        params);
  }
  auto* gq = e->as<GroupedBlockQuantizationOp>();
  if (gq->globalScale() != nullptr) gs = ins[5];
  auto* s_base = IrBuilder::create<TensorIndex>(scales, constInt(0));
  return IrBuilder::createIn<RuntimeCall>(
      &ir,
      std::vector<Val*>{in_index, gs, ins[1], ins[2], ins[3], ins[4], c_logical[0], c_logical[1]},
      std::vector<Val*>{s_base, q_index}, RuntimeCallForm::GroupedBlockQuantize,
      "mf_groupedBlockQuantize", params);
}

// A reshape, squeeze or expand moves one element per index: a copy once indexed (the
// relation between the two index spaces is in the indices).
bool isShapeCopy(const Expr* e) {
  return e->isA<ViewOp>() || e->isA<SqueezeOp>() || e->isA<ExpandOp>();
}

// The resize ops become selections (docs/resize_ops.md). A pad reads its input only inside
// it, at its root indices `c_root` (out - left): `out = (0 <= i && i < extent) ? in : value`,
// codegen's `?:` evaluating the read only then; a bound that cannot fail (a crop) is left
// out, and with none left it is a copy. A slice is a copy: its root indices (out + start)
// are inside its input. A cat of n inputs is n - 1 selections by the index along its axis,
// innermost input first: `out = in[n-1]`, then `out = i < offset[k+1] ? in[k] : out`.
std::vector<Expr*> lowerResizeOp(Fusion& ir, Expr* e, const std::vector<Val*>& ins, Val* out,
                                 const IndexMap& walk, const std::vector<Val*>& c_logical) {
  if (auto* pad = dynamic_cast<PadOp*>(e)) {
    auto* tv = pad->out()->as<TensorView>();
    Val* pred = constBool(true);
    for (size_t a : pad->paddedAxes()) {
      auto* r = dynamic_cast<Resize*>(tv->getLogicalDomain()[a]->definition());
      MF_ASSERT(r != nullptr, "{}: axis {} is padded but not resized", e->toString(), a);
      std::optional<int64_t> left = r->left()->constInt(), right = r->right()->constInt();
      // The root axis's own index (a broadcast's too: padding it makes other elements).
      Val* i = walk.at(r->in());
      if (!left || *left > 0)
        pred = SimplifyingIrBuilder::logicalAnd(pred, SimplifyingIrBuilder::le(constInt(0), i));
      if (!right || *right > 0)
        pred =
            SimplifyingIrBuilder::logicalAnd(pred, SimplifyingIrBuilder::lt(i, r->in()->extent()));
    }
    if (pred->constValue())
      return {
          IrBuilder::createIn<LoadStoreOp>(&ir, std::vector<Val*>{ins[0]}, std::vector<Val*>{out})};
    return {IrBuilder::createIn<TernaryOp>(&ir, std::vector<Val*>{pred, ins[0], ins[1]},
                                           std::vector<Val*>{out}, TernaryOpType::Where)};
  }
  if (e->isA<SliceOp>())
    return {
        IrBuilder::createIn<LoadStoreOp>(&ir, std::vector<Val*>{ins[0]}, std::vector<Val*>{out})};
  auto* cat = e->as<CatOp>();
  const size_t n = ins.size();
  Val* at = c_logical.at(static_cast<size_t>(cat->dim()));
  std::vector<Expr*> lowered{
      IrBuilder::createIn<LoadStoreOp>(&ir, std::vector<Val*>{ins[n - 1]}, std::vector<Val*>{out})};
  for (size_t k = n - 1; k-- > 0;) {
    Val* before_next = SimplifyingIrBuilder::lt(at, cat->offset(k + 1));
    auto* prev = IrBuilder::createIn<TensorIndex>(&ir, out->as<TensorIndex>()->view(),
                                                  out->as<TensorIndex>()->index());
    auto* next = IrBuilder::createIn<TensorIndex>(&ir, out->as<TensorIndex>()->view(),
                                                  out->as<TensorIndex>()->index());
    lowered.push_back(
        IrBuilder::createIn<TernaryOp>(&ir, std::vector<Val*>{before_next, ins[k], prev},
                                       std::vector<Val*>{next}, TernaryOpType::Where));
  }
  return lowered;
}

}  // namespace

void indexTensors(Kernel& kernel) {
  Fusion& ir = kernel.ir();
  FusionGuard fg(&ir);
  const IdModel model(ir);
  for (const auto& [e, loops] : kernel.computeExprs()) {
    // The loops were built from the first output's loop domain (siblings share it).
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
      } else if (readsOperandWhole(e, v)) {
        // Operands the runtime function reads whole (the layout op's offsets): the base pointer.
        ins.push_back(IrBuilder::create<TensorIndex>(p, constInt(0)));
      } else {
        std::optional<std::vector<Val*>> shared = sharedLoopIndices(model, p, out, loop_indices);
        MergedIndexSource merged{&walk, {}};
        std::vector<Val*> p_logical = producerLogical(p, out, c_root, merged.consumer_axes);
        ins.push_back(indexOf(kernel, p, p_logical, shared ? &*shared : nullptr, &merged));
      }
    }
    // Each output's own walk: siblings have the first output's loop domain.
    std::vector<IndexMap> walks;
    for (Val* o : e->outputs())
      walks.push_back(o == out ? walk
                               : indexMapFromLoop(o->as<TensorView>(), loop_indices, &model));
    Expr* lowered = nullptr;
    std::vector<Expr*> resize_steps;  // a resize op's selections, `lowered` the last
    if (layout) {
      lowered = lowerLayoutOp(ir, layout, ins, c_logical, width);
    } else if (isBlockQuantization(e)) {
      lowered = lowerBlockQuantize(kernel, e, ins, walks, c_logical, loop_indices, width);
    } else {
      // The outputs' own axes: their allocation axes are (when logical) the walk's targets.
      std::vector<Val*> outs;
      for (size_t i = 0; i < e->outputs().size(); ++i) {
        auto* tv = e->output(i)->as<TensorView>();
        MergedIndexSource merged{&walks[i], tv->getMaybeAllocationDomain()};
        outs.push_back(indexOf(
            kernel, tv, i == 0 ? c_logical : indicesInMap(walks[i], tv->domain()->loopSource()),
            &loop_indices, &merged));
      }
      auto* red = dynamic_cast<ReductionOp*>(e);
      auto [across, grid] =
          red != nullptr ? reducedAcross(red) : std::pair(ParallelType::Serial, false);
      if (isResizeOp(e)) {
        resize_steps = lowerResizeOp(ir, e, ins, outs[0], walk, c_logical);
        lowered = resize_steps.back();
      } else {
        lowered = across != ParallelType::Serial || grid
                      ? lowerCrossThreadReduction(ir, red, across, grid,
                                                  kernel.summary().grid_reductions_finish_in_place,
                                                  ins[0], outs[0]->as<TensorIndex>())
                  : isShapeCopy(e)
                      ? IrBuilder::createIn<LoadStoreOp>(&ir, std::vector<Val*>{ins[0]}, outs)
                      : e->newObject(&ir, ins, outs);
      }
    }
    if (resize_steps.empty()) resize_steps.push_back(lowered);
    for (Expr* step : resize_steps)
      for (size_t i = 0; i < step->outputs().size(); ++i) {
        auto* ti = step->output(i)->as<TensorIndex>();
        ti->setAxisIndices(walks[i]);
        ti->setVectorWidth(width);
        if (nanBitsMayBeAny(e, ti->view())) ti->setAnyNaNBits();
      }
    if (auto* red = dynamic_cast<ReductionOp*>(e))
      initReduction(kernel, red, lowered->output(0)->as<TensorIndex>(), loops);
    Scope& scope = loops.empty() ? kernel.body() : loops.back()->body();
    replaceInScope(scope, e, resize_steps.front());
    auto at = std::find(scope.exprs().begin(), scope.exprs().end(), resize_steps.front());
    scope.exprs().insert(at + 1, resize_steps.begin() + 1, resize_steps.end());
  }
}

}  // namespace mf
