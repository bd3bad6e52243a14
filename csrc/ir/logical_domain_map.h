//! PairwiseLogicalDomainMap: which consumer axis each logical axis of a producer becomes
//! through the one expr between them (nvFuser's logical_domain_map.h). Axes are never shared
//! between tensors (every op creates fresh output axes), so this positional map, derived
//! from the op's semantics, is the base of the fusion-wide IdModel, of transform replay and
//! of lowering's producer indexing.
#pragma once

#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/tensor_view.h"

namespace mf {

using IdMap = std::unordered_map<IterDomain*, IterDomain*>;

class PairwiseLogicalDomainMap {
 public:
  //! `consumer` must be an output of an expr that reads `producer`.
  PairwiseLogicalDomainMap(const TensorView* producer, const TensorView* consumer);

  //! Whether a broadcast axis maps to a non-broadcast one (the broadcast producer axis of
  //! `[M, N] + broadcast([N])` to the consumer's M). True by default; the exact IdModel sets
  //! it false.
  PairwiseLogicalDomainMap& mapBroadcast(bool map) {
    map_broadcast_ = map;
    return *this;
  }

  //! Producer logical (non-reduction) axis -> consumer root-or-logical axis. Pointwise ops
  //! and reductions map by position (an input axis to the Reduction axis that reduces it); a
  //! BroadcastOp skips the consumer's new axes; the layout op maps `in` to `out` by position and
  //! its offsets to nothing.
  IdMap mapProducerToConsumer() const;
  //! The inverse of mapProducerToConsumer.
  IdMap mapConsumerToProducer() const;
  //! The mapped (producer, consumer) pairs in producer logical order.
  std::vector<std::pair<IterDomain*, IterDomain*>> pairs() const;

 private:
  const TensorView* producer_;
  const TensorView* consumer_;
  bool map_broadcast_ = true;
};

//! Whether loop axis `axis` of `producer` is derived from a broadcast axis whose mapped axis
//! in `consumer` is not a broadcast: a loop over that producer axis alone would run over
//! extent 1 where the consumer runs over its full extent.
bool coversBroadcastAgainst(const TensorView* producer, int64_t axis, const TensorView* consumer);

//! The TensorViews `tv`'s definition reads / the TensorViews computed from `tv`.
std::vector<TensorView*> producerTvsOf(const TensorView* tv);
std::vector<TensorView*> consumerTvsOf(const TensorView* tv);

}  // namespace mf
