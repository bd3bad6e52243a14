//! Helpers the reduction schedulers share (Reduction here; InnerPersistent builds on them):
//! finding a fusion's ReductionOps and checking that they are one reduction pattern, which
//! tensors come before and after the reductions, and staging inputs and outputs through
//! register copies (nvFuser's reduction_scheduler_utils / scheduler_utils, in miniature).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/tensor_view.h"
#include "scheduler/runtime_info.h"

namespace mf {

class Fusion;
class ReductionOp;

//! The fusion's ReductionOps in topological order.
std::vector<ReductionOp*> reductionOps(Fusion* fusion);

//! The output tensors of reductionOps(fusion).
std::vector<TensorView*> reductionTvs(Fusion* fusion);

//! Why the reductions of `fusion` are not one pattern a reduction scheduler can tile with one
//! loop nest, or nullopt when they are:
//!   - there is at least one ReductionOp;
//!   - every expr is a pointwise op (unary, binary, ternary, set), a broadcast or a reduction;
//!   - every ReductionOp reduces the same logical positions of an input of the same rank with
//!     broadcast axes at the same positions (equal run-time extents are the run-time check,
//!     sameReductionExtentsRejectReason);
//!   - the reduced positions are the innermost or the outermost logical positions (an inner
//!     or an outer reduction; a reduction of a middle axis is refused).
std::optional<std::string> reductionPatternRejectReason(Fusion* fusion);

//! Why the ReductionOps' inputs differ in a run-time extent (nullopt when they agree).
std::optional<std::string> sameReductionExtentsRejectReason(Fusion* fusion,
                                                            SchedulerRuntimeInfo& runtime_info);

//! True when the reduced axes of `red` (a ReductionOp output) are its innermost logical
//! positions (an inner reduction; a reduction of every axis is inner too); false when they
//! are the outermost (an outer reduction).
bool isInnerReduction(const TensorView* red);

//! The tensors computed from a reduction output (directly or through other tensors): the
//! post-reduction part of the fusion, which the schedule iterates over the reduction's
//! iteration axes only.
std::vector<TensorView*> postReductionTvs(Fusion* fusion);

//! Why the reductions of `fusion` (`red` the first) cannot be its one loop nest: some input's
//! or output's concrete axis maps (IdModel's exact graph) to none of the reductions' logical
//! axes, iteration or reduction, e.g. an unrelated output of another shape; nullopt when every
//! axis maps.
std::optional<std::string> unmappedAxisRejectReason(Fusion* fusion, const TensorView* red);

//! True when every tensor of `fusion` feeds a reduction or is computed from one (a fusion
//! input must feed one): nothing is computed beside the reductions. A grid reduction needs it (the
//! blocks that do not finish the reduction stop there).
bool everyTensorFeedsOrFollowsReductions(Fusion* fusion);

//! The number of concrete (neither reduction nor broadcast) logical axes of `tv`.
int64_t concreteAxisCount(const TensorView* tv);

//! Stages every tensor input through a register copy (cacheAfter of its uses that are not
//! broadcasts: a broadcast reads the input directly, see moveBroadcastsToInputs), and every
//! output through one (cacheBefore, or cacheFork for an output that is also read). Returns
//! the input copies, one per cached input, and the inputs they copy, in input order.
struct CachedTensors {
  std::vector<TensorView*> inputs;        //!< fusion inputs that got a copy
  std::vector<TensorView*> input_caches;  //!< their register copies, same order
};
CachedTensors cacheInputsAndOutputs(Fusion* fusion);

//! The input tensors of `fusion` that have the reduction input's full shape: as many
//! concrete axes as `red`'s logical domain has axes. A reduction schedule reads them with
//! vector loads along the innermost reduced (inner) or iteration (outer) axis.
std::vector<TensorView*> fullShapeInputs(Fusion* fusion, const TensorView* red);

//! The largest power of two <= `max_width` that, for every tensor of `tvs` (fusion inputs),
//! divides its innermost `inner_elems` run (contiguous, row-major in its allocation) and the
//! alignment of its element 0 in elements. 1 when any is laid out otherwise.
int64_t innerVectorizationFactor(SchedulerRuntimeInfo& runtime_info,
                                 const std::vector<TensorView*>& tvs, int64_t inner_elems,
                                 int64_t max_width);

}  // namespace mf
