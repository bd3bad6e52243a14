//! Transform propagation and parallelization for whole fusions (nvFuser's TransformPropagator
//! over a MaxLogicalDomainInfoSpanningTree, and scheduler_utils' parallelizeAllLike). A
//! scheduler transforms one reference tensor, then calls propagateTransforms, then
//! parallelizeAllLike, then inlines (scheduler/tools/inlining.h).
#pragma once

#include <unordered_map>
#include <vector>

#include "ir/logical_domain_map.h"
#include "ir/tensor_view.h"

namespace mf {

//! Replays `reference`'s loop transforms onto every other TensorView of its fusion, walking a
//! spanning tree of producer/consumer edges from `reference` that reaches each tensor by
//! the path that preserves the most of the reference's logical axes (an edge into a broadcast
//! axis, or to an axis the tensor lacks, drops one). Each tensor is replayed from its tree
//! parent (TransformReplay::replayPasC / replayCasP, all positions), so its previous loop
//! transforms and compute-at position are replaced. A tensor whose loop domain runs over a
//! declared allocation domain (the layout op's gather form) keeps its loop domain and ends
//! the walk. A reshape's output (ViewOp) is reached from a consumer, its producer then
//! replayed through the reshape's root -> logical transforms; a reshape that only merges axes
//! is also reached from its producer when nothing else reaches it (its loop split back into
//! its root's axes, then TransformReplay::replayOnLoop); a tensor reachable otherwise only is
//! left alone (propagatedAxes lacks it: schedulers refuse such a fusion).
void propagateTransforms(TensorView* reference);

//! nvFuser's spelling of propagateTransforms(reference):
//!   TransformPropagator propagator(tv);
//!   MaxLogicalDomainInfoSpanningTree(tv).traverse(&propagator);
class TransformPropagator {
 public:
  explicit TransformPropagator(TensorView* from) : from_(from) {}
  TensorView* from() const { return from_; }

 private:
  TensorView* from_;
};

//! The tree rooted at `reference` that propagateTransforms walks; traverse() replays the
//! propagator's tensor, which must be the root (a UserError naming both otherwise).
class MaxLogicalDomainInfoSpanningTree {
 public:
  explicit MaxLogicalDomainInfoSpanningTree(TensorView* reference) : reference_(reference) {}
  void traverse(TransformPropagator* propagator) const;

 private:
  TensorView* reference_;
};

//! The spanning tree propagateTransforms walks, without replaying anything: for `reference`
//! and every tensor the walk reaches, the reference's logical axes that reach it along the
//! tree (reference axis -> its axis). A scheduler checks with it that a tensor it must
//! transform like the reference (a second reduction) gets the transforms of the axes that
//! matter (its reduction axes) before it schedules.
std::unordered_map<const TensorView*, IdMap> propagatedAxes(TensorView* reference);

//! The same walk as tree edges: each reached tensor -> the tensor it is replayed from (null
//! for `reference`).
std::unordered_map<const TensorView*, const TensorView*> propagationParents(TensorView* reference);

//! Copies the parallel types of `reference`'s loop axes onto the permissively mapped loop
//! axes (ir/id_model.h) of `tvs` (empty: every TensorView of the fusion), only the `types`
//! listed (empty: all). Permissive, so that a broadcast producer's axes are bound like the
//! consumer's axes they share a loop with. Vectorize goes only to fusion inputs and outputs
//! of set() copies (the only vectorizable computation), never to a broadcast axis.
void parallelizeAllLike(TensorView* reference, const std::vector<TensorView*>& tvs = {},
                        std::vector<ParallelType> types = {});

namespace scheduler_utils {
using ::mf::parallelizeAllLike;  //!< nvFuser's namespace for it
}  // namespace scheduler_utils

//! Merges the loop axes [begin, end) of `tv` into one at `begin` (outer to inner): how a
//! scheduler flattens the reference's iteration or reduction axes before splitting them.
void mergeRange(TensorView* tv, int64_t begin, int64_t end);

//! Keeps a grid dimension within its launch limit: loop axis `pos` of `tv` (bound to a
//! block dimension, with possibly more than `limit` blocks) becomes a serial loop over
//! chunks of `limit` blocks, the chunk keeps the dimension, and the serial loop moves
//! outermost.   [iS{n}: BIDx] -> [iS{ceilDiv(n, limit)}: serial, iS{limit}: BIDx]
void limitGridAxis(TensorView* tv, int64_t pos, int64_t limit);

}  // namespace mf
