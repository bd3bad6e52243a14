//! Index math between a tensor's domains: loop indices back to logical indices (through the
//! loop domain's split/merge history), logical indices forward to allocation or loop
//! indices, and the final offset into global memory (dot product with strides) or into a
//! register buffer (linearized over the axes it holds).
#pragma once

#include <unordered_map>
#include <vector>

#include "ir/id_model.h"
#include "lower/kernel.h"

namespace mf {

//! Logical indices of `tv` from the indices of its loop axes (`loop_indices[i]` for
//! tv->axis(i)): Split: in = outer * inner_extent + inner; Merge: outer = out / inner_extent,
//! inner = out % inner_extent. When the loop domain is derived from a declared allocation
//! domain (TensorDomain::loopSource()), these are that domain's indices instead.
//! With `model`, a merge whose inner input is (or contains) a broadcast axis that a consumer
//! iterates divides by that iteration axis's extent instead of 1 (the loop it shares with
//! the consumer runs over it; nvFuser's loop promotion).
std::vector<Val*> logicalIndicesFromLoop(TensorView* tv, const std::vector<Val*>& loop_indices,
                                         const IdModel* model = nullptr);

//! The same walk back from the loop indices, for `targets` (axes the loop domain is derived
//! from: loopSource(), or the root domain, reached through root -> logical splits/merges).
//! `model` promotes broadcasts in merges as logicalIndicesFromLoop does.
std::vector<Val*> indicesFromLoop(TensorView* tv, const std::vector<Val*>& loop_indices,
                                  const std::vector<IterDomain*>& targets,
                                  const IdModel* model = nullptr);

//! Indices of `targets` (axes derived from tv's logical domain) given logical indices:
//! Split: outer = in / inner_extent, inner = in % inner_extent; Merge: outer * inner_extent +
//! inner.
std::vector<Val*> indicesFromLogical(TensorView* tv, const std::vector<Val*>& logical_indices,
                                     const std::vector<IterDomain*>& targets);

//! Element offset of logical element `logical_indices` in a global tensor: the allocation
//! indices dotted with the tensor's strides (the innermost contiguous stride is 1; broadcast
//! axes contribute nothing).
Val* globalOffset(Kernel& kernel, TensorView* tv, const std::vector<Val*>& logical_indices);

//! Offset into the buffer of a local (register) or shared tensor, given its loop indices:
//! row-major over the loop axes right of its compute-at position that are not bound to
//! blocks, nor to threads for a register buffer.
Val* localOffset(TensorView* tv, const std::vector<Val*>& loop_indices);

//! The number of elements of `tv`'s register buffer (product of the extents localOffset
//! linearizes over).
Val* localBufferSize(TensorView* tv);

}  // namespace mf
