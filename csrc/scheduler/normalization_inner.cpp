#include "scheduler/normalization_inner.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "ir/exprs.h"
#include "ir/fusion.h"
#include "scheduler/normalization_utils.h"
#include "scheduler/registry_utils.h"
#include "scheduler/tools/cache.h"
#include "scheduler/tools/inlining.h"
#include "scheduler/tools/transform_propagator.h"
#include "support/hash.h"

namespace mf {
namespace {

constexpr int64_t kMaxVectorBytes = 16;
// Vectors per thread a block-per-row schedule aims for: the threads per row follow from it
// (nvFuser's heuristic on an H200 picks a batch of 4 and 128 threads for a bf16 row of 4096).
constexpr int64_t kTargetBatch = 4;
constexpr int64_t kWarp = 32;
constexpr int64_t kMaxThreadsPerBlock = 1024;
// Threads per block the schedule fills with rows when a row takes fewer.
constexpr int64_t kBlockThreads = 128;

InnerNormalization analyzeOrAssert(Fusion* fusion) {
  auto analysis = analyzeInnerNormalization(fusion);
  MF_ASSERT(std::holds_alternative<InnerNormalization>(analysis),
            "InnerPersistentScheduler: not an inner normalization: {}",
            std::get<std::string>(analysis));
  return std::get<InnerNormalization>(analysis);
}

// The reference's axes split into rows and row, with their run-time extents.
struct RowShape {
  std::vector<int64_t> row_extents;
  int64_t rows = 1;
  int64_t row = 1;
};

RowShape rowShape(const InnerNormalization& norm, SchedulerRuntimeInfo& runtime_info) {
  RowShape shape;
  const std::vector<IterDomain*> axes =
      TensorDomain::noReductions(norm.reference->getLogicalDomain());
  const size_t first_row_axis = axes.size() - static_cast<size_t>(norm.row_rank);
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t n = runtime_info.extent(axes[i]);
    if (i < first_row_axis) {
      shape.rows *= n;
    } else {
      shape.row *= n;
      shape.row_extents.push_back(n);
    }
  }
  return shape;
}

// The tensors whose accesses are vectorized: tensor inputs with uses and outputs. Each has
// the full shape or the row's (analyzeInnerNormalization), so its innermost axis is the row's,
// or is reshaped from or to the full shape (a reshape keeps the row-major order: the row's
// innermost axis runs over consecutive elements of its innermost axis).
std::vector<TensorView*> vectorizedInputsOutputs(Fusion* fusion) {
  std::vector<TensorView*> tvs;
  for (Val* v : fusion->inputs())
    if (auto* tv = dynamic_cast<TensorView*>(v); tv && !tv->uses().empty()) tvs.push_back(tv);
  for (Val* v : fusion->outputs())
    if (!v->isFusionInput() && v->uses().empty()) tvs.push_back(v->as<TensorView>());
  return tvs;
}

// The widest vector (a power of two of at most 16 bytes of the widest tensor) that divides
// the row's innermost extent and, for every vectorized input, every other stride and its
// element 0's alignment; an input whose innermost allocation axis is not the row's innermost
// axis, or not declared contiguous, is read element by element.
int64_t vectorizationFactor(Fusion* fusion, SchedulerRuntimeInfo& runtime_info,
                            int64_t inner_extent) {
  const std::vector<TensorView*> tvs = vectorizedInputsOutputs(fusion);
  int64_t max_bytes = 1;
  for (TensorView* tv : tvs) max_bytes = std::max(max_bytes, dataTypeSize(tv->dtype()));
  int64_t vect = kMaxVectorBytes / max_bytes;
  auto fits = [&](int64_t v) {
    if (inner_extent % v != 0) return false;
    for (TensorView* tv : tvs) {
      if (!tv->isFusionInput()) continue;  // outputs are fresh contiguous allocations
      std::optional<std::vector<AllocationAxis>> layout = runtime_info.allocationLayout(tv);
      const std::vector<IterDomain*> axes = TensorDomain::noReductions(tv->getLogicalDomain());
      if (!layout || layout->empty() || layout->back().id != axes.back()) return false;
      if (layout->back().stride != 1 || !layout->back().contiguous) return false;
      // An input read through a reshape: its own innermost extent too, so that no vector
      // spans two of its rows.
      if (layout->back().size % v != 0) return false;
      for (size_t i = 0; i + 1 < layout->size(); ++i)
        if ((*layout)[i].size > 1 && (*layout)[i].stride % v != 0) return false;
      if (runtime_info.alignment(tv) % (v * dataTypeSize(tv->dtype())) != 0) return false;
    }
    return true;
  };
  while (vect > 1 && !fits(vect)) vect /= 2;
  return vect;
}

}  // namespace

int64_t PersistentParams::rowElements() const {
  int64_t n = 1;
  for (int64_t e : row_extents) n *= e;
  return n;
}

std::string PersistentParams::toString() const {
  return fmt::format(
      "PersistentParams(row_extents = [{}], vectorization_factor = {}, persistent_batch = {}, "
      "threads_per_row = {}, rows_per_block = {}, index_type = {}, {})",
      fmt::join(row_extents, ", "), vectorization_factor, persistent_batch, threads_per_row,
      rows_per_block, index_type, lparams.toString());
}

size_t PersistentParams::hash() const {
  uint64_t h = HeuristicParams::hash();
  for (int64_t v : row_extents) h = hashCombine(h, static_cast<uint64_t>(v));
  for (int64_t v : {vectorization_factor, persistent_batch, threads_per_row, rows_per_block})
    h = hashCombine(h, static_cast<uint64_t>(v));
  return h;
}

bool PersistentParams::sameAs(const HeuristicParams* other_base) const {
  auto* other = dynamic_cast<const PersistentParams*>(other_base);
  return other != nullptr && HeuristicParams::sameAs(other) && other->row_extents == row_extents &&
         other->vectorization_factor == vectorization_factor &&
         other->persistent_batch == persistent_batch && other->threads_per_row == threads_per_row &&
         other->rows_per_block == rows_per_block;
}

std::unique_ptr<HeuristicParams> PersistentParams::clone() const {
  return std::make_unique<PersistentParams>(*this);
}

bool InnerPersistentScheduler::canScheduleCompileTime(Fusion* fusion) {
  if (std::optional<std::string> why = commonScheduleRejectReason(fusion)) return reject(*why);
  if (std::optional<std::string> why = resizeOpRejectReason(fusion, "inner persistent"))
    return reject(*why);
  if (fusion->outputs().empty())
    return reject("the fusion has no outputs; the inner persistent scheduler computes tensors");
  auto analysis = analyzeInnerNormalization(fusion);
  if (auto* why = std::get_if<std::string>(&analysis)) return reject(*why);
  return true;
}

bool InnerPersistentScheduler::canScheduleRunTime(Fusion* fusion,
                                                  SchedulerRuntimeInfo& runtime_info) {
  const InnerNormalization norm = analyzeOrAssert(fusion);
  const RowShape shape = rowShape(norm, runtime_info);
  if (shape.rows * shape.row == 0)
    return reject(fmt::format("{} is empty ({} rows of {})", norm.reference->toString(), shape.rows,
                              shape.row));
  const int64_t bytes = shape.row * norm.persistentBytesPerElement();
  if (bytes > kMaxPersistentBytesPerRow) {
    std::vector<std::string> buffers;
    for (TensorView* tv : norm.live_buffers) buffers.push_back(tv->toString());
    return reject(fmt::format(
        "a row of {} elements needs {} bytes of registers for its persistent buffers ({}), "
        "more than the {} bytes a row may take",
        shape.row, bytes, fmt::join(buffers, ", "), kMaxPersistentBytesPerRow));
  }
  return true;
}

std::unique_ptr<HeuristicParams> InnerPersistentScheduler::computeHeuristics(
    Fusion* fusion, SchedulerRuntimeInfo& runtime_info) {
  const InnerNormalization norm = analyzeOrAssert(fusion);
  const RowShape shape = rowShape(norm, runtime_info);
  auto params = std::make_unique<PersistentParams>();
  params->index_type = runtime_info.indexType();
  params->row_extents = shape.row_extents;
  const int64_t vect = vectorizationFactor(fusion, runtime_info, shape.row_extents.back());
  params->vectorization_factor = vect;
  const int64_t vectors = shape.row / vect;

  int64_t bytes_per_element = norm.persistentBytesPerElement();
  for (TensorView* tv : vectorizedInputsOutputs(fusion))
    bytes_per_element = std::max(bytes_per_element, dataTypeSize(tv->dtype()));
  if (shape.row * bytes_per_element <= kMaxThreadRowBytes) {
    // A short row (NVFP4's 16, a softmax of 13): one thread per row, rows across the block.
    params->threads_per_row = 1;
    params->persistent_batch = vectors;
    params->rows_per_block = kBlockThreads;
    params->lparams.bind(kBlockThreads, ParallelType::TIDx);
  } else {
    // A long row: about kTargetBatch vectors per thread, over a power of two of whole warps
    // (a power of two, so that nvcc folds a register index `(i * threads + tid) / threads`
    // to `i` and the persistent buffers stay in registers); rows share a block when a row
    // takes less than kBlockThreads threads.
    const int64_t threads =
        std::clamp<int64_t>(lastPow2(ceilDiv(vectors, kTargetBatch)), kWarp, kMaxThreadsPerBlock);
    params->threads_per_row = threads;
    params->persistent_batch = ceilDiv(vectors, threads);
    params->rows_per_block = std::max<int64_t>(1, kBlockThreads / threads);
    params->lparams.bind(threads, ParallelType::TIDx);
    if (params->rows_per_block > 1)
      params->lparams.bind(params->rows_per_block, ParallelType::TIDy);
  }
  params->lparams.bind(ceilDiv(shape.rows, params->rows_per_block), ParallelType::BIDx);
  return params;
}

FusionPassRequest InnerPersistentScheduler::fusionPasses(Fusion* fusion,
                                                         const HeuristicParams* params_base) {
  auto* params = dynamic_cast<const PersistentParams*>(params_base);
  MF_ASSERT(params != nullptr,
            "InnerPersistentScheduler::fusionPasses: expected persistent params");
  const InnerNormalization norm = analyzeOrAssert(fusion);
  FusionPassRequest request;
  // Register buffers and the block reduction's width must be constants: the row's axes (and
  // every axis exactly mapped to them, a weight's) take their run-time extents.
  request.passes.push_back("specializeExtents");
  const std::vector<IterDomain*> axes =
      TensorDomain::noReductions(norm.reference->getLogicalDomain());
  const size_t first_row_axis = axes.size() - params->row_extents.size();
  for (size_t i = 0; i < params->row_extents.size(); ++i)
    request.known_extents.push_back({axes[first_row_axis + i], params->row_extents[i]});
  if (params->threads_per_row > 1) {
    request.passes.push_back("multiplyByRowReciprocals");
    request.row_rank = norm.row_rank;
  }
  return request;
}

// The first reduction, then every tensor, as
//   block per row:  [BIDx, (TIDy), TIDx, batch, (Vectorize)]
//   thread per row: [BIDx, TIDx, batch, (Vectorize)]
// with the vector axis split even when 1 wide (an axis of extent 1), so the axes sit at the
// same positions in every form.
void InnerPersistentScheduler::applySchedule(Fusion* fusion, const HeuristicParams* params_base) {
  auto* params = dynamic_cast<const PersistentParams*>(params_base);
  MF_ASSERT(params != nullptr, "InnerPersistentScheduler::schedule: expected persistent params");
  FusionGuard fg(fusion);
  // The fusion as fusionPasses' passes left it: row extents constant, divisions by a
  // broadcast row value rewritten (the reductions and the row rank are the same).
  InnerNormalization norm = analyzeOrAssert(fusion);

  // Stage inputs and outputs through registers: the input's copy is the persistent buffer
  // (or feeds it through a cast, and a broadcast weight reads it too), and a vectorized
  // access is a copy. An output that other exprs also read (residual add + RMS norm's h)
  // gets a copy (cacheFork) from its register buffer, vectorized like the others: its
  // element-by-element 2-byte stores took residual RMS norm to 0.47x a device copy.
  const StagedTensors staged =
      stageInputsAndOutputs(fusion, {.cache_broadcast_uses = true, .forks_last = true});
  std::vector<TensorView*> vectorized = staged.input_caches;
  vectorized.insert(vectorized.end(), staged.outputs.begin(), staged.outputs.end());
  vectorized.insert(vectorized.end(), staged.forked_copies.begin(), staged.forked_copies.end());
  // A reduction that was an output without readers is now its output's producer (the
  // output a copy of it): the reductions again, as staged.
  norm.reductions.clear();
  for (Expr* e : fusion->exprs())
    if (e->isA<ReductionOp>()) norm.reductions.push_back(e->output(0)->as<TensorView>());

  TensorView* reference = norm.reductions.front();
  const int64_t iter_rank = reference->nDims() - norm.row_rank;
  mergeRange(reference, iter_rank, reference->nDims());
  mergeRange(reference, 0, iter_rank);  // [rows, row]
  const int64_t vect = params->vectorization_factor;
  const bool block_per_row = params->threads_per_row > 1;
  reference->split(1, vect);  // [rows, row / vect, vect]
  // The position of the batch axis; the axes left of it are the loops a persistent buffer
  // shares with its readers (threads, so they take no registers).
  int64_t batch_pos = 0;
  if (block_per_row) {
    reference->split(1, params->threads_per_row);  // [rows, batch, TIDx, vect]
    reference->reorder({{2, 1}});                  // [rows, TIDx, batch, vect]
    batch_pos = 2;
    if (params->rows_per_block > 1) {
      reference->split(0, params->rows_per_block);
      reference->axis(1)->parallelize(ParallelType::TIDy);
      batch_pos = 3;
    }
    reference->axis(batch_pos - 1)->parallelize(ParallelType::TIDx);
  } else {
    reference->split(0, params->rows_per_block);  // [BIDx, TIDx, batch, vect]
    reference->axis(1)->parallelize(ParallelType::TIDx);
    batch_pos = 2;
  }
  reference->axis(0)->parallelize(ParallelType::BIDx);
  IterDomain* vector_axis = reference->axis(-1);
  if (vect > 1) vector_axis->parallelize(ParallelType::Vectorize);

  propagateTransforms(reference);
  parallelizeAllLike(reference, {}, {ParallelType::BIDx, ParallelType::TIDx, ParallelType::TIDy});
  if (vect > 1) {
    parallelizeAllLike(reference, vectorized, {ParallelType::Vectorize});
    vector_axis->parallelize(ParallelType::Serial);
  }

  // Block per row: each thread reduces its batch and vector serially (the rfactor tensor,
  // [BIDx, (TIDy), TIDx, r batch, r vect]), then the block all-reduces across TIDx.
  if (block_per_row) {
    for (TensorView* red : norm.reductions) {
      MF_ASSERT(red->nDims() == batch_pos + 2 && red->axis(batch_pos)->isReduction(),
                "InnerPersistentScheduler: {} was not scheduled like {}", red->toString(),
                reference->toString());
      red->rFactor({batch_pos, batch_pos + 1});
    }
  }
  inlineMost();
  // A tensor read on both sides of a reduction cannot share a loop over the row with its
  // readers (the reduction must finish in between, and with a block reduction the threads
  // of the row are such a loop): it stops before the row's first axis, a register array
  // of batch x vect elements per thread, filled once.
  const int64_t row_pos = block_per_row ? batch_pos - 1 : batch_pos;
  for (TensorView* tv : persistentBuffers(fusion))
    if (!tv->isFusionInput() && tv->computeAtPosition() > row_pos) tv->inlineAt(row_pos);
}

}  // namespace mf
