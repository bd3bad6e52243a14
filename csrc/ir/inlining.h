//! Inlining: which loop axes a producer shares with its consumers (its compute-at position)
//! and the structural map that decides whether two loop axes are the same loop.
#pragma once

#include <string>

#include "ir/tensor_view.h"

namespace mf {

//! A canonical description of loop axis `axis` of `tv` in terms of its logical positions,
//! e.g. "split(merge(L0, L1), 128).outer". Two axes (of tensors of equal rank, or of a
//! broadcast producer mapped through its flags) with equal signatures are the same loop.
//! `position_map[i]` renames logical position i (empty: identity).
std::string loopAxisSignature(const TensorView* tv, int64_t axis,
                              const std::vector<int64_t>& position_map = {});

//! Maps the logical positions of `producer` to those of `consumer` (identity, or through a
//! BroadcastOp's flags).
std::vector<int64_t> producerToConsumerPositions(const TensorView* producer,
                                                 const TensorView* consumer);

//! Whether loop axis `axis` of `producer` is derived from a broadcast axis whose mapped
//! axis in `consumer` is not a broadcast (the producer's extent there is 1, the consumer's
//! is not).
bool coversBroadcastAgainst(const TensorView* producer, int64_t axis, const TensorView* consumer);

//! Number of leading loop axes of `producer` that map to every consumer's (ignoring `pos`):
//! same split/merge history and parallel type, not vectorized, and not a broadcast where the
//! consumer iterates.
int64_t maxInlinePosition(const TensorView* producer);

//! Sets the compute-at position of every TensorView of the current fusion that is neither
//! an input nor an output to its largest legal value.
void inlineMost();

}  // namespace mf
