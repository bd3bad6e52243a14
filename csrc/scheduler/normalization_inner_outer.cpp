#include "scheduler/normalization_inner_outer.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/id_model.h"
#include "ir/shape_exprs.h"
#include "ir/traversal.h"
#include "ops/reduction.h"
#include "scheduler/normalization_inner.h"
#include "scheduler/normalization_utils.h"
#include "scheduler/registry_utils.h"
#include "scheduler/tools/cache.h"
#include "scheduler/tools/inlining.h"
#include "scheduler/tools/transform_propagator.h"
#include "support/hash.h"
#include "support/shared_memory.h"

namespace mf {
namespace {

constexpr int64_t kMaxVectorBytes = 16;
// Vectors per thread: fewer than the inner persistent scheduler's 4, since each thread also
// keeps a running sum per outer reduction for each of its row elements.
constexpr int64_t kTargetBatch = 2;
constexpr int64_t kWarp = 32;
constexpr int64_t kMaxThreadsPerRow = 512;
// Threads per block the schedule fills with rows (TIDy) when a row takes fewer.
constexpr int64_t kBlockThreads = 128;
// Threads per SM the grid aims for: two blocks of 256 (the layer norm backward kernel takes
// 128 registers per thread, so two fill the register file and one block's loads overlap the
// other's block reductions: 592 -> 428 us on the H100); not more, since the last block reads
// every block's partial sums (docs/reductions.md).
constexpr int64_t kGridThreadsPerSm = 512;
// The static shared memory the column sums may take (sums_in_shared): 48 KiB less the block
// reductions' scratch, which codegen then makes 8 KiB, and its flags.
constexpr int64_t kMaxSharedSumsBytes =
    kStaticSharedBytes - kSmallBlockReduceScratchBytes - kRuntimeSharedFlagBytes;

// The shared memory of the column sums in shared memory: per outer reduction one padded row
// of batch x vector floats per thread.
int64_t sharedSumsBytes(const InnerOuterPersistentParams& p, int64_t outer_reductions) {
  return outer_reductions * p.threads_per_row * p.rows_per_block *
         (p.persistent_batch * p.vectorization_factor + 1) * 4;
}

std::vector<IterDomain*> dataAxes(const TensorView* tv) {
  return TensorDomain::noReductions(tv->getLogicalDomain());
}

bool isSupportedExpr(const Expr* e) {
  return e->isA<UnaryOp>() || e->isA<BinaryOp>() || e->isA<TernaryOp>() ||
         (e->isA<LoadStoreOp>() && !isPermute(e)) || e->isA<BroadcastOp>() || e->isA<ReductionOp>();
}

InnerOuterNormalization analyzeOrAssert(Fusion* fusion) {
  auto analysis = analyzeInnerOuterNormalization(fusion);
  MF_ASSERT(std::holds_alternative<InnerOuterNormalization>(analysis),
            "InnerOuterPersistentScheduler: not an inner-outer normalization: {}",
            std::get<std::string>(analysis));
  return std::get<InnerOuterNormalization>(analysis);
}

// The fusion's [M, N] tensor inputs and outputs (analyzeInnerOuterNormalization: the others
// have one axis): the accesses that are vectorized.
std::vector<TensorView*> fullInputsOutputs(Fusion* fusion) {
  std::vector<TensorView*> tvs;
  auto full = [&](TensorView* tv) { return dataAxes(tv).size() == 2; };
  for (Val* v : fusion->inputs())
    if (auto* tv = dynamic_cast<TensorView*>(v); tv && !tv->uses().empty() && full(tv))
      tvs.push_back(tv);
  for (Val* v : fusion->outputs())
    if (auto* tv = v->as<TensorView>(); !tv->isFusionInput() && full(tv)) tvs.push_back(tv);
  return tvs;
}

// The widest vector (at most 16 bytes of the widest [M, N] tensor) that divides N and, for
// each [M, N] input, its row stride and its element 0's alignment; an input whose innermost
// allocation axis is not the row, or is not contiguous, is read element by element.
int64_t vectorizationFactor(Fusion* fusion, SchedulerRuntimeInfo& runtime_info, int64_t n) {
  const std::vector<TensorView*> tvs = fullInputsOutputs(fusion);
  int64_t max_bytes = 1;
  for (TensorView* tv : tvs) max_bytes = std::max(max_bytes, dataTypeSize(tv->dtype()));
  auto fits = [&](int64_t v) {
    if (n % v != 0) return false;
    for (TensorView* tv : tvs) {
      if (!tv->isFusionInput()) continue;  // outputs are fresh contiguous allocations
      std::optional<std::vector<AllocationAxis>> layout = runtime_info.allocationLayout(tv);
      if (!layout || layout->size() != 2 || layout->back().id != dataAxes(tv).back() ||
          layout->back().stride != 1 || !layout->back().contiguous)
        return false;
      if (layout->front().size > 1 && layout->front().stride % v != 0) return false;
      if (runtime_info.alignment(tv) % (v * dataTypeSize(tv->dtype())) != 0) return false;
    }
    return true;
  };
  int64_t vect = kMaxVectorBytes / max_bytes;
  while (vect > 1 && !fits(vect)) vect /= 2;
  return vect;
}

struct Extents {
  int64_t rows = 0;
  int64_t row = 0;
};

Extents extentsOf(const InnerOuterNormalization& norm, SchedulerRuntimeInfo& runtime_info) {
  const std::vector<IterDomain*> axes = dataAxes(norm.reference);
  return {runtime_info.extent(axes[0]), runtime_info.extent(axes[1])};
}

}  // namespace

std::variant<InnerOuterNormalization, std::string> analyzeInnerOuterNormalization(Fusion* fusion) {
  const std::vector<Expr*> exprs = fusion->exprs();
  InnerOuterNormalization norm;
  for (Expr* e : exprs) {
    if (!isSupportedExpr(e))
      return fmt::format("{} is not a pointwise, broadcast or reduction op", e->toString());
    auto* red = dynamic_cast<ReductionOp*>(e);
    if (red == nullptr) continue;
    auto* out = red->out()->as<TensorView>();
    const std::vector<IterDomain*>& axes = out->getLogicalDomain();
    if (axes.size() == 2 && !axes[0]->isReduction() && axes[1]->isReduction())
      norm.inner_reductions.push_back(out);
    else if (axes.size() == 2 && axes[0]->isReduction() && !axes[1]->isReduction())
      norm.outer_reductions.push_back(out);
    else
      return fmt::format(
          "{} reduces neither axis 1 (the row) nor axis 0 (the rows) of a 2-D tensor alone",
          out->toString());
  }
  if (norm.inner_reductions.empty() && norm.outer_reductions.empty())
    return std::string("the fusion has no reduction");
  if (norm.inner_reductions.empty())
    return std::string(
        "not an inner-outer pattern: no reduction over the row (axis 1) of a 2-D tensor");
  if (norm.outer_reductions.empty())
    return std::string(
        "not an inner-outer pattern: no reduction over the rows (axis 0) of a 2-D tensor (an "
        "inner normalization alone is the inner persistent scheduler's)");
  norm.reference =
      norm.inner_reductions.front()->definition()->as<ReductionOp>()->in()->as<TensorView>();

  IdModel model(*fusion);
  const std::vector<IterDomain*> ref_axes = dataAxes(norm.reference);
  // `tv`'s data axes are concrete and map, in order, to the reference's axes `which`.
  auto mapsTo = [&](const TensorView* tv, const std::vector<int64_t>& which) {
    const std::vector<IterDomain*> axes = dataAxes(tv);
    if (axes.size() != which.size()) return false;
    for (size_t i = 0; i < axes.size(); ++i)
      if (axes[i]->isBroadcast() ||
          !model.areMapped(axes[i], ref_axes[which[i]], IdMappingMode::Exact))
        return false;
    return true;
  };
  auto isFull = [&](const TensorView* tv) { return mapsTo(tv, {0, 1}); };
  if (!isFull(norm.reference))
    return fmt::format("{} reduces {}, which has broadcast axes",
                       norm.inner_reductions.front()->toString(), norm.reference->toString());
  for (const auto* reds : {&norm.inner_reductions, &norm.outer_reductions})
    for (TensorView* red : *reds)
      if (!isFull(red->definition()->as<ReductionOp>()->in()->as<TensorView>()))
        return fmt::format("{} and {} reduce tensors of different shapes", red->toString(),
                           norm.inner_reductions.front()->toString());
  for (TensorView* red : norm.outer_reductions)
    if (!red->isFusionOutput() || !red->uses().empty())
      return fmt::format(
          "the outer reduction {} is {}; the last block of the grid reduction finishes the "
          "column sums, so an outer reduction's result must be a fusion output nothing reads",
          red->toString(), red->isFusionOutput() ? "also read in the fusion" : "not an output");
  for (Val* v : fusion->outputs()) {
    auto* tv = v->as<TensorView>();
    const bool outer = std::count(norm.outer_reductions.begin(), norm.outer_reductions.end(), tv);
    if (!outer && !isFull(tv))
      return fmt::format("output {} has neither the shape of {} nor is an outer reduction",
                         tv->toString(), norm.reference->toString());
  }
  for (Val* v : fusion->inputs()) {
    auto* tv = dynamic_cast<TensorView*>(v);
    if (tv == nullptr || tv->uses().empty() || isFull(tv) || mapsTo(tv, {1}) || mapsTo(tv, {0}))
      continue;
    return fmt::format("input {} has neither the shape of {}, of its row nor of its rows",
                       tv->toString(), norm.reference->toString());
  }
  // A broadcast takes a per-row value over the row or a row-shaped value over the rows.
  for (Expr* e : exprs) {
    auto* bcast = dynamic_cast<BroadcastOp*>(e);
    if (bcast == nullptr) continue;
    auto* in = bcast->in()->as<TensorView>();
    const std::vector<bool>& flags = bcast->isBroadcastDims();
    const bool over_row = flags == std::vector<bool>{false, true} && mapsTo(in, {0});
    const bool over_rows = flags == std::vector<bool>{true, false} && mapsTo(in, {1});
    if (!over_row && !over_rows)
      return fmt::format(
          "{} broadcasts neither a per-row value over the row of {} nor a row "
          "over its rows",
          e->toString(), norm.reference->toString());
    if (over_rows) norm.bytes_per_element += dataTypeSize(in->dtype());
  }
  for (TensorView* tv : persistentBuffers(fusion))
    if (isFull(tv)) norm.bytes_per_element += dataTypeSize(tv->dtype());
  for (TensorView* red : norm.outer_reductions)
    norm.bytes_per_element += dataTypeSize(computeType(red->dtype()));
  return norm;
}

std::string InnerOuterPersistentParams::toString() const {
  return fmt::format(
      "InnerOuterPersistentParams(row_extent = {}, vectorization_factor = {}, persistent_batch "
      "= {}, threads_per_row = {}, rows_per_block = {}, grid_blocks = {}, project_to_inputs = "
      "{}, sums_in_shared = {}, index_type = {}, {}{})",
      row_extent, vectorization_factor, persistent_batch, threads_per_row, rows_per_block,
      grid_blocks, project_to_inputs, sums_in_shared, index_type, lparams.toString(),
      minBlocksString());
}

size_t InnerOuterPersistentParams::hash() const {
  uint64_t h = HeuristicParams::hash();
  for (int64_t v :
       {row_extent, vectorization_factor, persistent_batch, threads_per_row, rows_per_block,
        grid_blocks, int64_t{project_to_inputs}, int64_t{sums_in_shared}})
    h = hashCombine(h, static_cast<uint64_t>(v));
  return h;
}

bool InnerOuterPersistentParams::sameAs(const HeuristicParams* other_base) const {
  auto* o = dynamic_cast<const InnerOuterPersistentParams*>(other_base);
  return o != nullptr && HeuristicParams::sameAs(o) && o->row_extent == row_extent &&
         o->vectorization_factor == vectorization_factor &&
         o->persistent_batch == persistent_batch && o->threads_per_row == threads_per_row &&
         o->rows_per_block == rows_per_block && o->grid_blocks == grid_blocks &&
         o->project_to_inputs == project_to_inputs && o->sums_in_shared == sums_in_shared;
}

std::unique_ptr<HeuristicParams> InnerOuterPersistentParams::clone() const {
  return std::make_unique<InnerOuterPersistentParams>(*this);
}

bool InnerOuterPersistentScheduler::canScheduleCompileTime(Fusion* fusion) {
  if (std::optional<std::string> why = commonScheduleRejectReason(fusion)) return reject(*why);
  auto analysis = analyzeInnerOuterNormalization(fusion);
  if (auto* why = std::get_if<std::string>(&analysis)) return reject(*why);
  return true;
}

bool InnerOuterPersistentScheduler::canScheduleRunTime(Fusion* fusion,
                                                       SchedulerRuntimeInfo& runtime_info) {
  const InnerOuterNormalization norm = analyzeOrAssert(fusion);
  const Extents e = extentsOf(norm, runtime_info);
  if (e.rows * e.row == 0)
    return reject(
        fmt::format("{} is empty ({} rows of {})", norm.reference->toString(), e.rows, e.row));
  const int64_t bytes = e.row * norm.bytes_per_element;
  if (bytes > kMaxPersistentBytesPerRow)
    return reject(
        fmt::format("a row of {} elements needs {} bytes of registers ({} per element: persistent "
                    "buffers, weights and outer sums), more than the {} bytes a row may take",
                    e.row, bytes, norm.bytes_per_element, kMaxPersistentBytesPerRow));
  return true;
}

std::unique_ptr<HeuristicParams> InnerOuterPersistentScheduler::computeHeuristics(
    Fusion* fusion, SchedulerRuntimeInfo& runtime_info) {
  const InnerOuterNormalization norm = analyzeOrAssert(fusion);
  const Extents e = extentsOf(norm, runtime_info);
  auto params = std::make_unique<InnerOuterPersistentParams>();
  params->index_type = runtime_info.indexType();
  params->row_extent = e.row;
  const int64_t vect = vectorizationFactor(fusion, runtime_info, e.row);
  params->vectorization_factor = vect;
  const int64_t vectors = e.row / vect;
  // A power of two of whole warps (the block all-reduce's width; nvcc folds the register
  // indices), about kTargetBatch vectors each.
  const int64_t threads =
      std::clamp<int64_t>(lastPow2(ceilDiv(vectors, kTargetBatch)), kWarp, kMaxThreadsPerRow);
  params->threads_per_row = threads;
  params->persistent_batch = ceilDiv(vectors, threads);
  params->rows_per_block = std::max<int64_t>(1, kBlockThreads / threads);
  const int64_t block_threads = threads * params->rows_per_block;
  const DeviceDescription& device = runtime_info.device();
  const int64_t blocks_per_sm = std::max<int64_t>(1, kGridThreadsPerSm / block_threads);
  params->grid_blocks = std::min(ceilDiv(e.rows, params->rows_per_block),
                                 std::min(device.sm_count * blocks_per_sm, kMaxGridDimYZ));
  params->lparams.bind(threads, ParallelType::TIDx);
  params->lparams.bind(params->rows_per_block, ParallelType::TIDy);
  params->lparams.bind(params->grid_blocks, ParallelType::BIDy);
  return params;
}

FusionPassRequest InnerOuterPersistentScheduler::fusionPasses(Fusion* fusion,
                                                              const HeuristicParams* params_base) {
  auto* params = dynamic_cast<const InnerOuterPersistentParams*>(params_base);
  MF_ASSERT(params != nullptr, "InnerOuterPersistentScheduler::fusionPasses: expected its params");
  const InnerOuterNormalization norm = analyzeOrAssert(fusion);
  FusionPassRequest request;
  // Register buffers and the block reduction's width must be constants.
  request.passes.push_back("specializeExtents");
  request.known_extents.push_back({dataAxes(norm.reference)[1], params->row_extent});
  return request;
}

// nvFuser's projection of persistent buffers to the inputs: a tensor that the row's inner
// reductions read (directly or through other exprs) and that other exprs read too (the row's
// outputs after the reductions, the column sums) is recomputed from the fusion inputs for
// those others, when pointwise ops, casts and broadcasts compute it. Then only the inputs'
// register copies (dy and x in their own dtype) stay live across the row's reductions, not
// the float tensors computed from them: half the registers for bf16 rows.
void projectToInputs(Fusion* fusion) {
  auto inner = [](const Expr* e) {
    return e->isA<ReductionOp>() && !e->output(0)->as<TensorView>()->axis(0)->isReduction();
  };
  const std::unordered_set<const Val*> feeds = upstreamOf(fusion->exprs(), inner);
  auto feeding = [&](const Expr* e) { return inner(e) || feeds.count(e->output(0)) > 0; };
  std::vector<TensorView*> buffers;
  for (TensorView* tv : fusion->allTvs())
    if (!tv->isFusionInput() && feeds.count(tv) && recomputable(tv)) buffers.push_back(tv);
  for (TensorView* tv : buffers) {
    std::vector<Expr*> others;
    for (Expr* use : tv->uses())
      if (!feeding(use)) others.push_back(use);
    // The 1-D tensors (the weight as float, a row's mean) are read as they are: the [M, N]
    // values are what is recomputed.
    for (Expr* use : others)
      replaceInputInExpr(use, tv, recomputeFromInputs(tv, [](const TensorView* t) {
                           return TensorDomain::noReductions(t->getLogicalDomain()).size() < 2;
                         }));
  }
}

// The first inner reduction, then every tensor, as
//   [BIDy, serial rows, TIDy, TIDx, batch, (Vectorize)]
// (the vector axis split even when 1 wide, so the axes sit at the same positions).
void InnerOuterPersistentScheduler::applySchedule(Fusion* fusion,
                                                  const HeuristicParams* params_base) {
  auto* params = dynamic_cast<const InnerOuterPersistentParams*>(params_base);
  MF_ASSERT(params != nullptr, "InnerOuterPersistentScheduler::schedule: expected its params");
  FusionGuard fg(fusion);
  if (params->project_to_inputs) projectToInputs(fusion);
  const InnerOuterNormalization norm = analyzeOrAssert(fusion);
  if (params->sums_in_shared) {
    const int64_t bytes = sharedSumsBytes(*params, std::ssize(norm.outer_reductions));
    MF_CHECK(bytes <= kMaxSharedSumsBytes,
             "InnerOuterPersistentParams::sums_in_shared: {} column sums of rows of {} elements "
             "({} threads of {} values) take {} bytes of shared memory; at most {} fit beside the "
             "block reductions' scratch",
             norm.outer_reductions.size(), params->row_extent,
             params->threads_per_row * params->rows_per_block,
             params->persistent_batch * params->vectorization_factor, bytes, kMaxSharedSumsBytes);
  }
  const std::vector<TensorView*> full = fullInputsOutputs(fusion);
  // The outer reductions are written by their grid reduction's last block, directly.
  const StagedTensors staged = stageInputsAndOutputs(
      fusion, {.cache_broadcast_uses = true, .forks_last = true}, norm.outer_reductions);
  std::vector<TensorView*> vectorized;
  for (size_t i = 0; i < staged.inputs.size(); ++i)
    if (std::count(full.begin(), full.end(), staged.inputs[i]))
      vectorized.push_back(staged.input_caches[i]);
  for (TensorView* out : staged.outputs)
    if (std::count(full.begin(), full.end(), out)) vectorized.push_back(out);
  std::vector<TensorView*> inner, outer;
  for (Expr* e : fusion->exprs())
    if (auto* red = dynamic_cast<ReductionOp*>(e)) {
      auto* out = red->out()->as<TensorView>();
      (out->axis(0)->isReduction() ? outer : inner).push_back(out);
    }

  TensorView* reference = inner.front();
  const int64_t vect = params->vectorization_factor;
  reference->split(1, vect);                     // [M, N / vect, vect]
  reference->split(1, params->threads_per_row);  // [M, batch, TIDx, vect]
  reference->reorder({{2, 1}});                  // [M, TIDx, batch, vect]
  reference->split(0, params->rows_per_block);   // [M / TIDy, TIDy, TIDx, batch, vect]
  reference->split(0, params->grid_blocks, /*inner_split=*/false);  // [BIDy, rows, TIDy, ..]
  reference->axis(0)->parallelize(ParallelType::BIDy);
  reference->axis(2)->parallelize(ParallelType::TIDy);
  reference->axis(3)->parallelize(ParallelType::TIDx);
  IterDomain* vector_axis = reference->axis(5);
  if (vect > 1) vector_axis->parallelize(ParallelType::Vectorize);

  propagateTransforms(reference);
  parallelizeAllLike(reference, {}, {ParallelType::BIDy, ParallelType::TIDx, ParallelType::TIDy});
  if (vect > 1) {
    parallelizeAllLike(reference, vectorized, {ParallelType::Vectorize});
    vector_axis->parallelize(ParallelType::Serial);
  }
  for (TensorView* red : inner) {
    MF_ASSERT(red->nDims() == 6 && red->axis(4)->isReduction(),
              "InnerOuterPersistentScheduler: {} was not scheduled like {}", red->toString(),
              reference->toString());
    red->rFactor({4, 5});  // each thread's batch and vector, then the block over TIDx
  }
  // The row's inner reductions that read none of each other's results reduce in one runtime
  // call, one barrier pair per row for all of them (layer norm backward's sum(w * dy) and
  // sum(w * dy * xhat)); the others keep a call each.
  std::vector<TensorView*> grouped;
  for (TensorView* red : inner) {
    const std::vector<TensorView*> reads = tensorViews({red->definition()->input(0)});
    if (std::none_of(grouped.begin(), grouped.end(), [&](TensorView* g) {
          return std::find(reads.begin(), reads.end(), g) != reads.end();
        }))
      grouped.push_back(red);
  }
  if (grouped.size() > 1) groupReductions(grouped);
  for (TensorView* red : outer) {
    MF_ASSERT(red->nDims() == 6 && red->axis(1)->isReduction(),
              "InnerOuterPersistentScheduler: {} was not scheduled like {}", red->toString(),
              reference->toString());
    // Each thread's running column sums over its serial rows, [BIDy, r rows, TIDy, TIDx,
    // batch, vect]; the output then reduces them across TIDy and BIDy, its [batch, vect]
    // the group of one grid reduction call: [TIDx, rBIDy, rTIDy, batch, vect].
    TensorView* running = red->rFactor({1});
    if (params->sums_in_shared) {
      // One row of batch x vect sums per thread, padded by a word: a warp's threads then
      // update 32 different banks.
      running->setMemoryType(MemoryType::Shared);
      running->padBufferRows(params->persistent_batch * vect, 1);
    }
    red->reorder({{2, 0}});
  }
  inlineMost();
  // A buffer read on both sides of an inner reduction stops before the row's first axis
  // (TIDx): a register array of batch x vect elements per thread, filled once per row.
  constexpr int64_t kRowPos = 3;
  for (TensorView* tv : persistentBuffers(fusion))
    if (!tv->isFusionInput() && tv->computeAtPosition() > kRowPos) tv->inlineAt(kRowPos);
}

}  // namespace mf
