//! Transform replay (nvFuser's TransformReplay): rebuilds one tensor's loop domain by
//! replaying another's loop transforms (split, merge; reorder is the order of the result)
//! through the logical map between them, so their leading loop axes are the same axes
//! (IdModel-mapped). The brick of the transform propagator, cacheBefore/cacheAfter and the
//! schedulers. Replay creates fresh, serial axes: parallel types are not copied, and a
//! declared allocation domain (the layout op's output) is never touched.
#pragma once

#include "ir/logical_domain_map.h"

namespace mf {

class TransformReplay {
 public:
  //! Replays on `producer`'s logical domain the loop transforms of `consumer` that its first
  //! `consumer_pos` loop axes need (negative counts from the end: -1 is all), through
  //! PairwiseLogicalDomainMap (a consumer axis broadcast from the producer's broadcast axis
  //! maps to it). The producer's loop becomes the images of those axes in the consumer's
  //! order, then its other axes (images of further consumer axes first). A consumer axis
  //! with no producer counterpart (a BroadcastOp's new axis) is left out: a merge with it
  //! is skipped. Returns the producer position matching `consumer_pos`. The producer's
  //! previous loop transforms are dropped, so replay before inlining.
  static int64_t replayPasC(TensorView* producer, const TensorView* consumer,
                            int64_t consumer_pos = -1);
  //! The same from a producer onto its consumer: the consumer's axes with no producer
  //! counterpart come last.
  static int64_t replayCasP(TensorView* consumer, const TensorView* producer,
                            int64_t producer_pos = -1);
  //! The general form: `reference_to_target` maps logical axes of `reference` to logical
  //! axes of `target`.
  static int64_t replay(TensorView* target, const TensorView* reference,
                        const IdMap& reference_to_target, int64_t reference_pos);
  //! The same onto `target`'s current loop domain, whose transforms stay below the replayed
  //! ones: `reference_to_loop` maps logical axes of `reference` to loop axes of `target`.
  //! How a reshape's merged output takes its producer's loop: its merged axis split back into
  //! the producer's axes first (transform_propagator.cpp).
  static int64_t replayOnLoop(TensorView* target, const TensorView* reference,
                              const IdMap& reference_to_loop, int64_t reference_pos = -1);
};

}  // namespace mf
