//! Which axes of a pointwise fusion are the same, and the reference tensor a pointwise
//! schedule is built around (nvFuser's PointwiseDomainMap / findReferenceTensor).
//!
//! Two axes are the same when IdModel's exact graph maps them (ir/id_model.h): by position
//! through pointwise ops, through a broadcast (the input's axes to the output's
//! non-broadcast positions) and through the layout op (its data input to its output; its
//! offsets map to nothing, as in nvFuser). A broadcast axis never maps to a concrete one, so
//! one broadcast concretized to two different axes leaves them distinct.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/id_model.h"
#include "ir/tensor_view.h"

namespace mf {

class Fusion;

class PointwiseDomainMap {
 public:
  explicit PointwiseDomainMap(Fusion* fusion);

  //! True when `a` and `b` are the same axis of the fusion.
  bool areMapped(const IterDomain* a, const IterDomain* b) const {
    return model_.areMapped(a, b, IdMappingMode::Exact);
  }
  //! areMapped, or related through Resize exprs (pad, slice, cat): a resized axis and the
  //! axis it resizes are one loop of a pointwise schedule (the producer runs over its
  //! consumer's padded loop, predicated by its own extent). covers() and vectorization ask
  //! this; `[i0] -> pad -> [i0 + 2]` and a cat's inputs along its axis are the same loop.
  bool areMappedThroughResize(const IterDomain* a, const IterDomain* b) const;
  //! The Resize exprs of the fusion whose output is (mapped to) an axis related to `id` by
  //! areMappedThroughResize.
  std::vector<Resize*> resizesOf(const IterDomain* id) const;
  //! The tensors a reference must cover: every output, and every input with a use except
  //! the layout op's offsets (read by index, not per element). Deduplicated, inputs first.
  const std::vector<TensorView*>& inputsAndOutputs() const { return inputs_outputs_; }
  //! True when every concrete axis of inputsAndOutputs() maps to a concrete logical axis
  //! of `tv` (or to a reshape's root axis whose derived axes do: coveredThroughViews); otherwise
  //! `missing` (if given) gets the first axis it lacks, e.g. `iS2{i1} of T1`.
  bool covers(const TensorView* tv, std::string* missing = nullptr) const;
  //! The same for the axes of `targets` only.
  bool covers(const TensorView* tv, const std::vector<TensorView*>& targets,
              std::string* missing = nullptr) const;

  //! `have` and the root axes of the fusion's reshapes whose derived logical axes `have`
  //! covers (transitively): what a schedule of a tensor with the axes `have` reaches through
  //! replay onto the reshapes' producers.
  std::vector<IterDomain*> coveredThroughViews(std::vector<IterDomain*> have) const;

 private:
  // `id`, and the axes Resize exprs defining members of its exact group resize, transitively.
  std::vector<const IterDomain*> resizeSources(const IterDomain* id) const;

  IdModel model_;
  std::vector<Resize*> resizes_;
  std::vector<TensorView*> inputs_outputs_;
  std::vector<TensorView*> views_;  // the outputs of ViewOps
};

//! Why a pointwise schedule around `reference` cannot run `fusion`'s resize ops (pad, slice,
//! cat), or nullopt: each resize op's output must be the reference or one of its producers
//! (transitively), so that its producers are replayed from it over its resized loop.
std::optional<std::string> resizeRejectReason(Fusion* fusion, TensorView* reference);

//! The output a pointwise schedule starts from: one whose logical domain covers every axis
//! of every input and output (PointwiseDomainMap::covers). Among several, the first that
//! is not also a fusion input, then the one with the most concrete axes, then the first
//! that passes resizeRejectReason and shapeOpsRejectReason (the first if none does). nullptr when
//! none covers; then `why_not` (if given) says what each output lacks.
TensorView* findReferenceTensor(Fusion* fusion, const PointwiseDomainMap& map,
                                std::string* why_not = nullptr);

//! Why the pointwise schedule built around `reference` cannot take the fusion's shape ops
//! (docs/shape_ops.md), or nullopt. It replays the reference's schedule onto a reshape's
//! producer through the reshape (root -> logical, then the loop), never from a producer onto
//! a reshape, so it refuses: a tensor a reshape
//! reads that another expr reads too (two index spaces for one loop); a tensor the
//! propagation reaches other than from its reshape, or not at all (the reference upstream of a
//! reshape); a reshape or permute output with an allocation domain; a squeeze of an Iteration
//! axis, or of a broadcast axis another use iterates (IdModel Permissive: the squeeze's loop
//! would drop what the other's covers); a broadcast computed from
//! a shape op (moveBroadcastsToInputs cannot lift it to an input, and a replay onto its
//! producer cannot reproduce the new axis: a reshape to size-1 axes followed by more ops).
std::optional<std::string> shapeOpsRejectReason(Fusion* fusion, TensorView* reference);

//! The first Symbolic axis of the fusion (a dynamic reshape or expand not concretized), as a
//! reason to refuse: no scheduler takes one.
std::optional<std::string> symbolicAxisRejectReason(Fusion* fusion);

}  // namespace mf
