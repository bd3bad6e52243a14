//! Index math between a tensor's domains: loop indices back to logical indices (through the
//! loop domain's split/merge history), logical indices forward to allocation or loop
//! indices, and the final offset into global memory (dot product with strides, or a merged
//! index where the merge covers contiguous allocation axes) or into a register buffer
//! (linearized over the axes it holds).
#pragma once

#include <unordered_map>
#include <vector>

#include "ir/id_model.h"
#include "lower/kernel.h"

namespace mf {

//! The index of every IterDomain the walk back from `tv`'s loop indices (`loop_indices[i]`
//! for tv->axis(i)) reaches: its loop axes, each split/merge axis on the way, and the axes
//! the loop domain is derived from (loopSource(): logical, or a declared allocation domain;
//! and, through root -> logical splits/merges, the root domain). Split: in = outer *
//! inner_extent + inner; Merge: outer = out / inner_extent, inner = out % inner_extent. With
//! `model`, inner_extent is promotedExtent: a merge whose inner input is (or contains) a
//! broadcast axis that a consumer iterates divides by that iteration axis's extent instead of
//! 1, and an outer split of such a merge steps by ceilDiv(the promoted extent, factor) (the
//! loop it shares with the consumer runs over it; nvFuser's loop promotion).
IndexMap indexMapFromLoop(TensorView* tv, const std::vector<Val*>& loop_indices,
                          const IdModel* model = nullptr);

//! The indices of `targets` in a walk: 0 for a broadcast axis (also when merged away or when
//! its loop is shared with a consumer that iterates there) and for an axis it did not reach.
std::vector<Val*> indicesInMap(const IndexMap& walk, const std::vector<IterDomain*>& targets);

//! The extent a loop over `id` runs: its own, except that a broadcast axis a consumer
//! iterates (permissively mapped to an iteration axis) runs over that axis's extent, a
//! merge over the product of its inputs', and the side of a split the factor is not on over
//! ceilDiv(its promoted input, factor) (nvFuser's loop promotion). Without `model`, the
//! extent itself.
Val* promotedExtent(IterDomain* id, const IdModel* model);

//! The index a thread or block dimension `p` gives each thread, `((mf_index_t)threadIdx.y)`,
//! as a named Index scalar of `ir`.
Val* parallelIndex(Fusion& ir, ParallelType p);

//! Indices of `targets` (axes derived from tv's logical domain) given logical indices:
//! Split: outer = in / inner_extent, inner = in % inner_extent; Merge: outer * inner_extent +
//! inner.
std::vector<Val*> indicesFromLogical(TensorView* tv, const std::vector<Val*>& logical_indices,
                                     const std::vector<IterDomain*>& targets);

//! The axes `id` merges, outer to inner: a merge output's are its outer's then its inner's;
//! any other axis is its own.
std::vector<IterDomain*> mergedAxes(IterDomain* id);

//! A merged index the consumer's loop walk computed, for contiguity-aware indexing of a
//! global operand `tv` of the expr: `consumer_axes[j]` is the consumer axis that allocation
//! axis j of `tv` maps to (null when none), and `walk` the consumer's IndexMap. The index of
//! a walk axis that merges exactly the consumer axes of allocation axes [first, end) is that
//! run's row-major index, when the extents agree (mapped axes: equal at run time).
struct MergedIndexSource {
  const IndexMap* walk = nullptr;
  std::vector<IterDomain*> consumer_axes;

  //! The walk's index of a merge of exactly consumer_axes[first, end), or null.
  Val* find(size_t first, size_t end) const;
};

//! Element offset of logical element `logical_indices` in a global tensor: the allocation
//! indices dotted with the tensor's strides (the innermost contiguous stride is 1; broadcast
//! axes contribute nothing). With `merged`, a run of allocation axes declared contiguous down
//! to the innermost (unit-stride) axis, that one merged loop axis covers, is addressed by the
//! merged index itself: `i / T0.size[1] * T0.stride[0] + i % T0.size[1]` becomes `i`. The
//! run's strides are then the products of the inner sizes, which the declared contiguity
//! guarantees (size-1 axes are never stepped along; see checkContiguity).
Val* globalOffset(Kernel& kernel, TensorView* tv, const std::vector<Val*>& logical_indices,
                  const MergedIndexSource* merged = nullptr);

//! Whether loop axis `i` of `tv` (a register or shared tensor) is an axis of its buffer, one
//! that localOffset linearizes over.
bool heldInBuffer(const TensorView* tv, int64_t i);

//! Offset into the buffer of a local (register) or shared tensor, given its loop indices:
//! row-major over the loop axes right of its compute-at position that are not bound to
//! blocks, nor to threads for a register buffer; plus, for a buffer with padded rows
//! (TensorView::padBufferRows), `pad` elements per full row before it.
Val* localOffset(TensorView* tv, const std::vector<Val*>& loop_indices);

//! The number of elements of `tv`'s register buffer (product of the extents localOffset
//! linearizes over, rounded up to whole rows with their padding when padded).
Val* localBufferSize(TensorView* tv);

}  // namespace mf
