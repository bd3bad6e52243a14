// The pointwise scheduler's schedules: PointwiseParams (pointwise_heuristics.cpp) applied to
// the fusion. `schedule_kind` picks the schedule; today one, the break-point grid.
#include "scheduler/pointwise.h"

#include <algorithm>

#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/op_traits.h"
#include "scheduler/pointwise_utils.h"
#include "scheduler/tools/cache.h"
#include "scheduler/tools/inlining.h"
#include "scheduler/tools/transform_propagator.h"
#include "scheduler/vectorize_helper.h"

namespace mf {
namespace {

// Puts `ids` (loop axes of `tv`) first, in that order.
void reorderLoopTo(TensorView* tv, const std::vector<IterDomain*>& ids) {
  std::vector<std::pair<int64_t, int64_t>> old_to_new;
  const auto& loop = tv->getLoopDomain();
  for (size_t i = 0; i < ids.size(); ++i)
    old_to_new.emplace_back(std::find(loop.begin(), loop.end(), ids[i]) - loop.begin(),
                            static_cast<int64_t>(i));
  tv->reorder(old_to_new);
}

// Orders the (unscheduled) loop like the allocation domain, so that the merged axis walks
// memory in order (permuted outputs keep coalesced writes).
void reorderLoopLikeAllocation(TensorView* tv) {
  reorderLoopTo(tv, referenceAxesInAllocationOrder(tv));
}

// The position of the loop axis of `tv` bound to `p`.
int64_t axisBoundTo(const TensorView* tv, ParallelType p) {
  for (int64_t i = 0; i < tv->nDims(); ++i)
    if (tv->axis(i)->parallelType() == p) return i;
  MF_ASSERT(false, "{} binds no axis to {}", tv->toString(), toString(p));
  return -1;
}

// A tensor's broadcast axes the reference does not have come last in its replayed loop,
// after the vector axis: extent-1 loops, so the vector axis goes after them (the iteration
// order is the same).
void moveVectorAxisInnermost(TensorView* tv) {
  const std::vector<IterDomain*>& loop = tv->getLoopDomain();
  auto v = std::find_if(loop.begin(), loop.end(), [](IterDomain* id) {
    return id->parallelType() == ParallelType::Vectorize;
  });
  if (v == loop.end() || v + 1 == loop.end()) return;
  if (!std::all_of(v + 1, loop.end(), [](IterDomain* id) { return id->isBroadcast(); })) return;
  tv->reorder({{v - loop.begin(), tv->nDims() - 1}});
}

// nvFuser's pointwise schedule of the reference, in its 1-D and 2-D forms:
//   1-D: [merged] -> [(serial), BIDx, (Unroll), TIDx, (Vectorize)]
//   2-D: [left | right] -> [(serial), BIDy, BIDx, (Unroll_l), (Unroll_r), (TIDy), TIDx, (V)]
// (the grid sides swapped with flip_grid_binding); split factors of 1 are left out, and a
// serial loop takes what is past the grid's launch limits. Returns the vector axis (or
// nullptr), bound on the reference.
IterDomain* scheduleBreakPointGrid(TensorView* reference, const PointwiseParams& params) {
  // The reference's loop in its allocation order, merged left and right of the break point.
  reorderLoopLikeAllocation(reference);

  const int64_t n = reference->nDims();
  const int64_t bp = params.break_point;
  const int64_t vect = params.vectorization_factor;
  const int64_t ur = params.unroll_factor_inner, ul = params.unroll_factor_outer;
  IterDomain* vector_axis = nullptr;

  const std::vector<IterDomain*>& loop = reference->getLoopDomain();
  if (std::all_of(loop.begin(), loop.end(), [](IterDomain* id) { return id->isBroadcast(); })) {
    // A 0-dim reference, or one of broadcast axes only: one element, serial loops (its
    // heuristics bind no parallel dimension).
  } else if (bp == 0) {
    mergeRange(reference, 0, n);
    if (vect > 1) reference->split(0, vect);
    reference->split(0, params.block_size);
    if (ur > 1) reference->split(0, ur);
    int64_t pos = 0;
    reference->axis(pos++)->parallelize(ParallelType::BIDx);
    if (ur > 1) reference->axis(pos++)->parallelize(ParallelType::Unroll);
    reference->axis(pos++)->parallelize(ParallelType::TIDx);
    if (vect > 1) vector_axis = reference->axis(pos);
  } else {
    mergeRange(reference, bp, n);  // [left axes..., R]
    mergeRange(reference, 0, bp);  // [L, R]
    const int64_t bdimx = params.lparams.getDimOrOne(ParallelType::TIDx);
    const int64_t bdimy = params.split_block ? params.lparams.getDim(ParallelType::TIDy) : 1;
    // Right: R -> [R_grid, (Ur), TIDx, (V)]; left: L -> [L_grid, (Ul), (TIDy)].
    if (vect > 1) reference->split(1, vect);
    reference->split(1, bdimx);
    if (ur > 1) reference->split(1, ur);
    if (bdimy > 1) reference->split(0, bdimy);
    if (ul > 1) reference->split(0, ul);
    int64_t pos = 0;
    IterDomain* l_grid = reference->axis(pos++);
    IterDomain* l_unroll = ul > 1 ? reference->axis(pos++) : nullptr;
    IterDomain* tidy = bdimy > 1 ? reference->axis(pos++) : nullptr;
    IterDomain* r_grid = reference->axis(pos++);
    IterDomain* r_unroll = ur > 1 ? reference->axis(pos++) : nullptr;
    IterDomain* tidx = reference->axis(pos++);
    if (vect > 1) vector_axis = reference->axis(pos);
    std::vector<IterDomain*> order = {l_grid, r_grid};
    for (IterDomain* id : {l_unroll, r_unroll, tidy, tidx, vector_axis})
      if (id != nullptr) order.push_back(id);
    reorderLoopTo(reference, order);
    l_grid->parallelize(params.flip_grid_binding ? ParallelType::BIDx : ParallelType::BIDy);
    r_grid->parallelize(params.flip_grid_binding ? ParallelType::BIDy : ParallelType::BIDx);
    if (l_unroll) l_unroll->parallelize(ParallelType::Unroll);
    if (r_unroll) r_unroll->parallelize(ParallelType::Unroll);
    if (tidy) tidy->parallelize(ParallelType::TIDy);
    tidx->parallelize(ParallelType::TIDx);
    // More than 65535 blocks along y: BIDy takes chunks of 65535, a serial loop the rest.
    if (params.split_grid_y)
      limitGridAxis(reference, params.flip_grid_binding ? 1 : 0, kMaxGridDimYZ);
  }
  // More than 2^31 - 1 blocks along x: BIDx takes chunks of kMaxGridDimX, a serial loop
  // the rest (after y's, so that x's loop is the outermost).
  if (params.split_grid_x)
    limitGridAxis(reference, axisBoundTo(reference, ParallelType::BIDx), kMaxGridDimX);
  return vector_axis;
}

// The layout op alone in its tile form (docs/layout_op.md): the loops run over the padded
// buffer, a block per slab of block_size * vectorization_factor positions; nothing is staged
// (the runtime function loads the input rows and writes the output itself).
void scheduleLayoutTile(Fusion* fusion, const PointwiseParams& params) {
  for (Expr* e : fusion->exprs()) {
    auto* op = dynamic_cast<PreprocessGroupedMatmulInputSf*>(e);
    if (op == nullptr) continue;
    auto* out = op->out()->as<TensorView>();
    out->setLoopDomain(out->getMaybeAllocationDomain());
    out->merge(0)->split(0, params.vectorization_factor)->split(0, params.block_size);
    out->axis(0)->parallelize(ParallelType::BIDx);
    out->axis(1)->parallelize(ParallelType::TIDx);
    out->axis(2)->parallelize(ParallelType::Vectorize);
    op->setForm(LayoutOpForm::Tile);
  }
}

// A block quantization alone: each thread quantizes `vectorization_factor` (W) consecutive
// 16-value blocks of a row. The scales [.., Kb] have their last axis split by W and the
// quantized values [.., K] theirs by 16 * W, then both are merged and split by the block
// size, so they share the loops [BIDx, TIDx, W] and the innermost axis (Vectorize: no loop)
// is the call's: W scales and 16 * W values. A row's last call quantizes the blocks left
// when W does not divide Kb (its runtime function stops at the row's end). Nothing is staged:
// the runtime function reads the input and writes both outputs.
void scheduleBlockQuantize(Fusion* fusion, const PointwiseParams& params) {
  const int64_t w = params.vectorization_factor;
  for (Expr* e : fusion->exprs()) {
    if (!isBlockQuantization(e)) continue;
    auto* scales = e->output(0)->as<TensorView>();
    auto* quantized = e->output(1)->as<TensorView>();
    const int64_t n = scales->nDims();
    scales->split(n - 1, w);
    quantized->split(n - 1, 16 * w);
    for (TensorView* tv : {scales, quantized}) {
      for (int64_t i = 1; i < n; ++i) tv->merge(0);
      tv->split(0, params.block_size);
      tv->axis(0)->parallelize(ParallelType::BIDx);
      tv->axis(1)->parallelize(ParallelType::TIDx);
      tv->axis(2)->parallelize(ParallelType::Vectorize);
    }
  }
}

}  // namespace

// Stages the inputs and outputs, schedules the reference as `schedule_kind` says, then
// propagates it to every tensor, vectorizes the copies of the vectorizable inputs and
// outputs and inlines everything as deep as it goes.
void PointWiseScheduler::applySchedule(Fusion* fusion, const HeuristicParams* params_base) {
  auto* params = dynamic_cast<const PointwiseParams*>(params_base);
  MF_ASSERT(params != nullptr, "PointWiseScheduler::schedule: expected pointwise heuristics");
  FusionGuard fg(fusion);
  if (params->schedule_kind == PointwiseScheduleKind::LayoutTile) {
    scheduleLayoutTile(fusion, *params);
    return;
  }
  if (params->schedule_kind == PointwiseScheduleKind::BlockQuantize) {
    scheduleBlockQuantize(fusion, *params);
    return;
  }
  // Decided on the fusion as the heuristics saw it: the reference (by output position) and
  // which inputs and outputs move whole vectors.
  PointwiseDomainMap map(fusion);
  TensorView* reference = findReferenceTensor(fusion, map);
  MF_ASSERT(reference != nullptr, "PointWiseScheduler::schedule: no reference tensor");
  const size_t reference_pos =
      static_cast<size_t>(std::find(fusion->outputs().begin(), fusion->outputs().end(), reference) -
                          fusion->outputs().begin());
  const std::vector<TensorView*> vectorized_io = vectorizableInputsOutputs(map, reference);
  auto isVectorizedIo = [&](TensorView* tv) {
    return std::find(vectorized_io.begin(), vectorized_io.end(), tv) != vectorized_io.end();
  };

  moveBroadcastsToInputs(*fusion);

  // Stage inputs and outputs through registers: a vectorized access is a copy. The layout
  // op's offsets (read whole by its runtime function) and broadcasts (after
  // moveBroadcastsToInputs they read the input directly; their outputs have the full rank a
  // replay needs) read the input itself. A forked output's copy is written element by
  // element: its source also feeds other exprs, and a vectorized copy would keep it out of
  // their innermost loop.
  const StagedTensors staged = stageInputsAndOutputs(fusion);
  std::vector<TensorView*> vectorized;
  for (size_t i = 0; i < staged.inputs.size(); ++i)
    if (isVectorizedIo(staged.inputs[i])) vectorized.push_back(staged.input_caches[i]);
  for (TensorView* tv : staged.outputs)
    if (isVectorizedIo(tv)) vectorized.push_back(tv);
  reference = fusion->outputs().at(reference_pos)->as<TensorView>();
  const bool reference_vectorized =
      std::find(vectorized.begin(), vectorized.end(), reference) != vectorized.end();

  IterDomain* vector_axis = nullptr;
  switch (params->schedule_kind) {
    case PointwiseScheduleKind::BreakPointGrid:
      vector_axis = scheduleBreakPointGrid(reference, *params);
      break;
    case PointwiseScheduleKind::LayoutTile:
    case PointwiseScheduleKind::BlockQuantize:
      break;  // scheduled above
  }
  // The vector axis is bound on the reference even when the reference itself is written
  // element by element (the layout op), so that parallelizeAllLike finds it.
  if (vector_axis != nullptr) vector_axis->parallelize(ParallelType::Vectorize);

  propagateTransforms(reference);
  parallelizeAllLike(reference, {},
                     {ParallelType::BIDx, ParallelType::BIDy, ParallelType::TIDx,
                      ParallelType::TIDy, ParallelType::Unroll});
  if (vector_axis != nullptr) {
    // (An empty list would mean every tensor to parallelizeAllLike: a forked output, the only
    // vectorizable one, is written element by element.)
    if (!vectorized.empty()) parallelizeAllLike(reference, vectorized, {ParallelType::Vectorize});
    if (!reference_vectorized) vector_axis->parallelize(ParallelType::Serial);
    for (TensorView* tv : vectorized) moveVectorAxisInnermost(tv);
  }
  inlineMost();
}

}  // namespace mf
