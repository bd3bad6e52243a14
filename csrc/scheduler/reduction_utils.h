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
//!   - the first reduction's reduction axes reach every other reduction's along the tree
//!     propagateTransforms walks from it (propagatedAxes), so the schedule of the first is
//!     replayed onto every other.
//! Any set of positions is one pattern: the schedule gathers the iteration axes and the
//! reduction axes into one axis each (isInnerReduction says which is inner).
std::optional<std::string> reductionPatternRejectReason(Fusion* fusion);

//! Why the ReductionOps' inputs differ in a run-time extent (nullopt when they agree).
std::optional<std::string> sameReductionExtentsRejectReason(Fusion* fusion,
                                                            SchedulerRuntimeInfo& runtime_info);

//! True when the innermost non-broadcast axis, in allocation order, of the input of `red` (a
//! ReductionOp output) is reduced: an inner reduction, whose merged reduction axis is tiled
//! along threadIdx.x (a reduction of every axis is inner too). False: an outer reduction,
//! whose merged iteration axis is tiled along threadIdx.x. Broadcast axes do not count; the
//! other axes need not be adjacent (nvFuser canonicalizes any reduction so, merging the
//! iteration axes into one and the reduction axes into another).
bool isInnerReduction(const TensorView* red);

//! The elements of `red`'s innermost run of reduced logical axes (the product of the
//! run-time extents of the reduction axes at the end of its logical domain; 1 when its last
//! axis is not reduced): the part of the merged reduction axis that is contiguous in a
//! row-major input, which a vector load must not cross. [r0, i1, r2] gives r2.
int64_t innerReducedRun(SchedulerRuntimeInfo& runtime_info, const TensorView* red);

//! The elements of `red`'s innermost run of iteration logical axes (the product of the
//! run-time extents of the non-reduction axes at the end of its logical domain; 1 when its
//! last axis is reduced): the part of an outer reduction's merged iteration axis that is
//! contiguous in a row-major input. [i0, r1, i2] gives i2.
int64_t innerIterationRun(SchedulerRuntimeInfo& runtime_info, const TensorView* red);

//! The tensors computed from a reduction output (directly or through other tensors): the
//! post-reduction part of the fusion, which the schedule iterates over the reduction's
//! iteration axes only.
std::vector<TensorView*> postReductionTvs(Fusion* fusion);

//! Why the reductions of `fusion` (`red` the first) cannot be its one loop nest: some input's
//! or output's concrete axis maps (IdModel's exact graph) to none of the reductions' logical
//! axes, iteration or reduction, e.g. an unrelated output of another shape; nullopt when every
//! axis maps.
std::optional<std::string> unmappedAxisRejectReason(Fusion* fusion, const TensorView* red);

//! Why the tensors around the reductions of `fusion` keep it from being one reduction kernel:
//! a tensor after the reductions reads one that feeds them (other than a reduction's
//! result), a fusion input is read both after them and beside them (neither feeding nor
//! following: its one register copy lives inside their loops), or a tensor computed beside
//! them has a broadcast axis where they reduce, which the schedule would split like the
//! reduced axis and bind to its threads; nullopt when none happens.
std::optional<std::string> besideBroadcastRejectReason(Fusion* fusion);

//! True when every tensor of `fusion` feeds a reduction or is computed from one (a fusion
//! input must feed one): nothing is computed beside the reductions. A grid reduction needs it (the
//! blocks that do not finish the reduction stop there).
bool everyTensorFeedsOrFollowsReductions(Fusion* fusion);

//! The number of concrete (neither reduction nor broadcast) logical axes of `tv`.
int64_t concreteAxisCount(const TensorView* tv);

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
