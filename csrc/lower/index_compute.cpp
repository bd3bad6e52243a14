#include "lower/index_compute.h"

#include <algorithm>

#include "ir/builder.h"

namespace mf {

// Registers are per thread and hold the axes right of the compute-at position; shared memory
// is per block and also holds every thread-bound axis (one element per thread), inlined or
// not.
bool heldInBuffer(const TensorView* tv, int64_t i) {
  IterDomain* id = tv->axis(i);
  if (isBlockDim(id->parallelType()) || id->isBroadcast() || id->isReduction()) return false;
  if (isThreadDim(id->parallelType())) return tv->getMemoryType() == MemoryType::Shared;
  return i >= tv->computeAtPosition();
}

namespace {

// Whether a loop over `id` runs over another extent than its own: it is, or is derived from,
// a broadcast axis that a consumer iterates.
bool isPromoted(IterDomain* id, const IdModel& model) {
  if (Expr* def = id->definition()) {
    for (Val* in : def->inputs())
      if (auto* in_id = dynamic_cast<IterDomain*>(in); in_id != nullptr && isPromoted(in_id, model))
        return true;
    return false;
  }
  if (!id->isBroadcast()) return false;
  for (IterDomain* other : model.group(id, IdMappingMode::Permissive))
    if (!other->isBroadcast() && !other->isReduction() && other->definition() == nullptr)
      return true;
  return false;
}

}  // namespace

Val* promotedExtent(IterDomain* id, const IdModel* model) {
  if (model == nullptr) return id->extent();
  if (id->definition() != nullptr)
    return visitIdExpr(
        id->definition(),
        [&](Merge* m) {
          return SimplifyingIrBuilder::mul(promotedExtent(m->outer(), model),
                                           promotedExtent(m->inner(), model));
        },
        [&](Split* s) {
          // The side the factor is not on divides the promoted input: the inner axis of an
          // outer split (a grid split of a merge with a broadcast) steps by the consumer's
          // extent.
          if (!isPromoted(s->in(), *model) || (id == s->inner()) == s->innerSplit())
            return id->extent();
          return SimplifyingIrBuilder::ceilDiv(promotedExtent(s->in(), model), s->factor());
        },
        // A resized axis runs over its own extent, unless it resizes a promoted broadcast
        // (a pad's Resize replayed onto a producer's broadcast axis, `x >= bcast(y)` padded):
        // then over the promoted extent resized alike (`1 - 1 + 1` is not the loop's).
        [&](Resize* r) {
          if (!isPromoted(r->in(), *model)) return id->extent();
          return SimplifyingIrBuilder::add(
              SimplifyingIrBuilder::add(promotedExtent(r->in(), model), r->left()), r->right());
        });
  if (!id->isBroadcast()) return id->extent();
  for (IterDomain* other : model->group(id, IdMappingMode::Permissive))
    if (!other->isBroadcast() && !other->isReduction() && other->definition() == nullptr)
      return other->extent();
  return id->extent();
}

IndexMap indexMapFromLoop(TensorView* tv, const std::vector<Val*>& loop_indices,
                          const IdModel* model) {
  FusionGuard fg(tv->fusion());
  IndexMap idx;
  for (size_t i = 0; i < loop_indices.size(); ++i)
    idx[tv->axis(static_cast<int64_t>(i))] = loop_indices[i];
  std::vector<Expr*> transforms = tv->domain()->allTransforms();
  for (auto it = transforms.rbegin(); it != transforms.rend(); ++it) {
    visitIdExpr(
        *it,
        [&](Split* s) {
          if (!idx.count(s->outer()) || !idx.count(s->inner())) return;
          idx[s->in()] = SimplifyingIrBuilder::add(
              SimplifyingIrBuilder::mul(idx[s->outer()], promotedExtent(s->inner(), model)),
              idx[s->inner()]);
        },
        [&](Merge* m) {
          if (!idx.count(m->out())) return;
          // The loop runs over the promoted extents: a broadcast merged in steps by the extent
          // its consumer iterates, and its own index is then forced to 0 below.
          Val* inner_extent = promotedExtent(m->inner(), model);
          idx[m->outer()] = SimplifyingIrBuilder::div(idx[m->out()], inner_extent);
          idx[m->inner()] = SimplifyingIrBuilder::mod(idx[m->out()], inner_extent);
        },
        [&](Resize* r) {
          // A broadcast out axis (a slice to one element) has no loop: its index is 0.
          Val* out = idx.count(r->out()) ? idx[r->out()] : constInt(0);
          idx[r->in()] = SimplifyingIrBuilder::sub(out, r->left());
        });
  }
  return idx;
}

std::vector<Val*> indicesInMap(const IndexMap& walk, const std::vector<IterDomain*>& targets) {
  std::vector<Val*> out;
  for (IterDomain* id : targets) {
    auto it = walk.find(id);
    out.push_back(it != walk.end() && !id->isBroadcast() ? it->second : constInt(0));
  }
  return out;
}

std::vector<Val*> indicesFromLogical(TensorView* tv, const std::vector<Val*>& logical_indices,
                                     const std::vector<IterDomain*>& targets) {
  FusionGuard fg(tv->fusion());
  std::unordered_map<IterDomain*, Val*> idx;
  const auto& logical = tv->getLogicalDomain();
  for (size_t i = 0; i < logical.size(); ++i) idx[logical[i]] = logical_indices[i];
  for (Expr* e : tv->domain()->allTransforms()) {
    visitIdExpr(
        e,
        [&](Split* s) {
          if (!idx.count(s->in())) return;
          idx[s->outer()] = SimplifyingIrBuilder::div(idx[s->in()], s->inner()->extent());
          idx[s->inner()] = SimplifyingIrBuilder::mod(idx[s->in()], s->inner()->extent());
        },
        [&](Merge* m) {
          if (!idx.count(m->outer()) || !idx.count(m->inner())) return;
          idx[m->out()] = SimplifyingIrBuilder::add(
              SimplifyingIrBuilder::mul(idx[m->outer()], m->inner()->extent()), idx[m->inner()]);
        },
        [&](Resize* r) {
          if (!idx.count(r->in())) return;
          idx[r->out()] = SimplifyingIrBuilder::add(idx[r->in()], r->left());
        });
  }
  std::vector<Val*> out;
  for (IterDomain* id : targets) {
    auto it = idx.find(id);
    MF_ASSERT(it != idx.end(), "no index for {} of {}", id->toString(), tv->toString());
    out.push_back(it->second);
  }
  return out;
}

namespace {

// The merge that defines `id`, or null (a root axis, or another transform's output).
Merge* mergeOf(IterDomain* id) {
  if (id->definition() == nullptr) return nullptr;
  return visitIdExpr(
      id->definition(), [](Split*) -> Merge* { return nullptr; }, [](Merge* m) { return m; },
      [](Resize*) -> Merge* { return nullptr; });
}

}  // namespace

std::vector<IterDomain*> mergedAxes(IterDomain* id) {
  Merge* m = mergeOf(id);
  if (m == nullptr) return {id};
  std::vector<IterDomain*> axes = mergedAxes(m->outer());
  std::vector<IterDomain*> inner = mergedAxes(m->inner());
  axes.insert(axes.end(), inner.begin(), inner.end());
  return axes;
}

Val* MergedIndexSource::find(size_t first, size_t end) const {
  const std::vector<IterDomain*> run(consumer_axes.begin() + static_cast<int64_t>(first),
                                     consumer_axes.begin() + static_cast<int64_t>(end));
  if (std::find(run.begin(), run.end(), nullptr) != run.end()) return nullptr;
  for (const auto& [id, index] : *walk)
    if (mergeOf(id) != nullptr && mergedAxes(id) == run) return index;
  return nullptr;
}

Val* globalOffset(Kernel& kernel, TensorView* tv, const std::vector<Val*>& logical_indices,
                  const MergedIndexSource* merged) {
  FusionGuard fg(tv->fusion());
  const auto& alloc = tv->getMaybeAllocationDomain();
  std::vector<Val*> alloc_idx = indicesFromLogical(tv, logical_indices, alloc);
  const Contiguity& contig = tv->getContiguity();
  // Reduction axes hold no data: the kernel's tensor argument has one stride per other axis.
  auto holdsData = [&](size_t j) { return !alloc[j]->isBroadcast() && !alloc[j]->isReduction(); };
  // The innermost non-broadcast allocation axis has stride 1 when contiguous.
  int64_t innermost = -1;
  for (int64_t j = static_cast<int64_t>(alloc.size()) - 1; j >= 0; --j)
    if (holdsData(j)) {
      innermost = j;
      break;
    }
  const bool unit_inner = innermost >= 0 && contig[innermost].value_or(false);
  // The longest run [run_begin, innermost] of contiguous data axes one merged index covers.
  size_t run_begin = alloc.size();
  Val* run_index = nullptr;
  if (merged != nullptr && unit_inner) {
    for (int64_t j = innermost - 1; j >= 0 && holdsData(j) && contig[j].value_or(false); --j)
      if (Val* index = merged->find(static_cast<size_t>(j), static_cast<size_t>(innermost) + 1)) {
        run_begin = static_cast<size_t>(j);
        run_index = index;
      }
  }
  Val* offset = constInt(0);
  int64_t stride_pos = 0;
  for (size_t j = 0; j < alloc.size(); ++j) {
    if (alloc[j]->isReduction()) continue;
    const int64_t pos = stride_pos++;
    if (alloc[j]->isBroadcast() || j > run_begin) continue;
    if (j == run_begin) {
      offset = SimplifyingIrBuilder::add(offset, run_index);
      continue;
    }
    bool unit = static_cast<int64_t>(j) == innermost && unit_inner;
    Val* stride = unit ? constInt(1) : kernel.strideOf(tv, pos);
    offset = SimplifyingIrBuilder::add(offset, SimplifyingIrBuilder::mul(alloc_idx[j], stride));
  }
  return offset;
}

Val* localOffset(TensorView* tv, const std::vector<Val*>& loop_indices) {
  FusionGuard fg(tv->fusion());
  Val* offset = constInt(0);
  for (int64_t i = 0; i < tv->nDims(); ++i)
    if (heldInBuffer(tv, i))
      offset = SimplifyingIrBuilder::add(SimplifyingIrBuilder::mul(offset, tv->axis(i)->extent()),
                                         loop_indices[i]);
  if (tv->bufferRow() == 0) return offset;
  // Padded rows (TensorView::padBufferRows): each full row before this element adds a pad.
  Val* rows_before = SimplifyingIrBuilder::div(offset, constInt(tv->bufferRow()));
  return SimplifyingIrBuilder::add(
      offset, SimplifyingIrBuilder::mul(rows_before, constInt(tv->bufferRowPad())));
}

Val* localBufferSize(TensorView* tv) {
  FusionGuard fg(tv->fusion());
  Val* size = constInt(1);
  for (int64_t i = 0; i < tv->nDims(); ++i)
    if (heldInBuffer(tv, i)) size = SimplifyingIrBuilder::mul(size, tv->axis(i)->extent());
  if (tv->bufferRow() == 0) return size;
  Val* rows = SimplifyingIrBuilder::ceilDiv(size, constInt(tv->bufferRow()));
  return SimplifyingIrBuilder::mul(rows, constInt(tv->bufferRow() + tv->bufferRowPad()));
}

Val* parallelIndex(Fusion& ir, ParallelType p) {
  MF_ASSERT(isThreadDim(p) || isBlockDim(p), "parallelIndex of {}", toString(p));
  return IrBuilder::createIn<Scalar>(&ir, DataType::Index,
                                     fmt::format("((mf_index_t){})", toString(p)));
}

}  // namespace mf
