#include "scheduler/reduction.h"

#include <fmt/format.h>

#include <algorithm>

#include "ir/exprs.h"
#include "ir/fusion.h"
#include "scheduler/reduction_utils.h"
#include "scheduler/registry_utils.h"
#include "scheduler/tools/cache.h"
#include "scheduler/tools/inlining.h"
#include "scheduler/tools/transform_propagator.h"
#include "support/hash.h"

namespace mf {
namespace {

constexpr int64_t kMaxVectorBytes = 16;
constexpr int64_t kMaxUnroll = 4;
constexpr int64_t kWarp = 32;
// Threads along a row of an inner reduction: enough for each to load about
// kTargetInnerVectors vectors (a row of 4Ki floats: 128 threads x 8 vectors), at most 512.
// Fewer threads per row and more loads per thread cost less in block reductions: on the
// H200, fp32 [32Ki, 4Ki] takes 125 us with 64 or 128 threads per row and 167 us with 512
// (tools/bench/reduction_tune, docs/reductions.md).
constexpr int64_t kTargetInnerVectors = 8;
constexpr int64_t kMaxInnerBdimx = 512;
// A row shared by a grid reduction (too few rows to fill the SMs) takes whole 1024-thread
// blocks, a full wave of them: 128Mi floats in 138 us against 145 us with twice as many
// 512-thread blocks.
constexpr int64_t kCrossBlockBdimx = 1024;
// Threads of a block when rows are short (several rows per block on threadIdx.y).
constexpr int64_t kMinBlockThreads = 128;
// Threads of an outer reduction's block: columns on threadIdx.x times reduced rows on
// threadIdx.y.
constexpr int64_t kOuterBlockThreads = 512;
constexpr int64_t kMaxOuterBdimx = 128;
// Bytes an outer reduction's thread loads per unrolled group of rows: two 16-byte vectors
// (2048 threads per SM then keep 64 KiB in flight, well above what HBM's latency needs),
// aiming to keep the running sums and the loads within the 32 registers per thread that 4
// blocks of 512 per SM allow.
constexpr int64_t kOuterBytesInFlight = 32;
// A grid reduction aims at one full wave of resident blocks (as many per SM as its threads
// allow) and leaves every thread at least kMinSerialSteps serial steps to amortize the
// partial results' round trip through global memory.
constexpr int64_t kMinSerialSteps = 4;

// The product of the run-time extents of `red`'s reduction (or iteration) logical axes.
int64_t extentProduct(SchedulerRuntimeInfo& info, const TensorView* red, bool reduction) {
  int64_t n = 1;
  for (IterDomain* id : red->getLogicalDomain())
    if (id->isReduction() == reduction) n *= info.extent(id);
  return n;
}

size_t reducedAxisCount(const TensorView* red) {
  const auto& ids = red->getLogicalDomain();
  return std::count_if(ids.begin(), ids.end(), [](IterDomain* id) { return id->isReduction(); });
}

// An output that also feeds the reduction is written through a cacheFork copy, a tensor
// beside the reduction (validateSchedule refuses it next to a grid reduction).
bool anyOutputFeedsReduction(Fusion* fusion) {
  const std::vector<TensorView*> after = postReductionTvs(fusion);
  const std::vector<TensorView*> reds = reductionTvs(fusion);
  return std::any_of(fusion->outputs().begin(), fusion->outputs().end(), [&](Val* v) {
    auto* tv = v->as<TensorView>();
    return !tv->isFusionInput() && !tv->uses().empty() &&
           std::find(after.begin(), after.end(), tv) == after.end() &&
           std::find(reds.begin(), reds.end(), tv) == reds.end();
  });
}

// Whether the fusion's structure allows a grid reduction: one reduction (a kernel holds one
// grid reduction) and nothing computed beside it (see everyTensorFeedsOrFollowsReductions
// and anyOutputFeedsReduction).
bool gridReductionAllowed(Fusion* fusion) {
  return reductionOps(fusion).size() == 1 && everyTensorFeedsOrFollowsReductions(fusion) &&
         !anyOutputFeedsReduction(fusion);
}

// Whether each output should be shared by several blocks: allowed, and fewer blocks than SMs.
bool mayCrossBlocks(bool allowed, int64_t blocks, const DeviceDescription& device) {
  return allowed && blocks > 0 && blocks < device.sm_count;
}

// Blocks per output along the reduced axis: 1 unless mayCrossBlocks; otherwise one full
// wave of `block_threads`-thread blocks, rounded down (the extra blocks of a partial second
// wave would take as long as the first), while each thread keeps kMinSerialSteps of its
// `serial_steps`.
int64_t crossBlockFactor(bool allowed, int64_t blocks, int64_t block_threads, int64_t serial_steps,
                         const DeviceDescription& device) {
  if (!mayCrossBlocks(allowed, blocks, device)) return 1;
  const int64_t blocks_per_sm = std::max<int64_t>(1, device.max_threads_per_sm / block_threads);
  const int64_t gy =
      std::min(blocks_per_sm * device.sm_count / blocks, serial_steps / kMinSerialSteps);
  return std::clamp<int64_t>(gy, 1, kMaxGridDimYZ);
}

// The widest element of the full-shaped inputs (1 when there are none).
int64_t widestElement(const std::vector<TensorView*>& full) {
  int64_t bytes = 1;
  for (TensorView* tv : full) bytes = std::max(bytes, dataTypeSize(tv->dtype()));
  return bytes;
}

// Elements per thread along the merged iteration axis of an outer reduction: kMaxVectorBytes
// of the widest full-shaped input, if the innermost run of iteration axes
// (innerIterationRun), the dense row-major strides and the alignment allow. A trailing
// broadcast axis (from a broadcast op before the reduction) gives 1: the vector would not run
// along the inputs' innermost axis.
int64_t outerVectorizationFactor(Fusion* fusion, SchedulerRuntimeInfo& info, const TensorView* red,
                                 int64_t i_elems) {
  const std::vector<TensorView*> full = fullShapeInputs(fusion, red);
  if (full.empty() || i_elems == 0 || red->getLogicalDomain().back()->isBroadcast()) return 1;
  return innerVectorizationFactor(info, full, innerIterationRun(info, red),
                                  kMaxVectorBytes / widestElement(full));
}

// Whether `out` (a fusion output) is a register-to-global copy whose innermost loop axis is
// the vector split of the merged iteration axis (an inner split by `vect`, not a reduction),
// stepping through `out`'s innermost allocated axis (an output with a permuted allocation
// domain stores its columns apart: random fusion seed 4042), and whose vector fits
// kMaxVectorBytes (the width follows the inputs: an int64 sum of int8 or a float output of
// bf16 is stored an element at a time). Outputs are allocated dense and aligned, and the
// executor checks the run at launch.
bool endsInVector(TensorView* out, int64_t vect) {
  if (out->isFusionInput() || out->nDims() == 0 || out->definition() == nullptr ||
      !out->definition()->isA<LoadStoreOp>() ||
      vect * dataTypeSizeBit(out->dtype()) > kMaxVectorBytes * 8)
    return false;
  IterDomain* last = out->axis(-1);
  Split* split = last->definition() == nullptr ? nullptr
                                               : visitIdExpr(
                                                     last->definition(), [](Split* s) { return s; },
                                                     [](Merge*) -> Split* { return nullptr; },
                                                     [](Resize*) -> Split* { return nullptr; });
  if (split == nullptr || split->inner() != last || last->isReduction() || last->isBroadcast() ||
      last->extent()->constInt() != vect)
    return false;
  const std::vector<IterDomain*>& alloc = out->getMaybeAllocationDomain();
  auto innermost = std::find_if(alloc.rbegin(), alloc.rend(), [](IterDomain* id) {
    return !id->isReduction() && !id->isBroadcast();
  });
  return innermost != alloc.rend() && runsAlong(last, *innermost);
}

void setCrossBlock(ReductionParams& params, int64_t grid_y) {
  if (grid_y <= 1) return;
  params.cross_block = true;
  params.grid_y = grid_y;
  params.lparams.bind(grid_y, ParallelType::BIDy);
}

}  // namespace

std::string ReductionParams::toString() const {
  return fmt::format(
      "ReductionParams({}, vectorization_factor = {}, unroll_factor = {}, bdimx = {}, "
      "bdimy = {}, cross_block = {}, grid_y = {}, index_type = {}, {})",
      inner_reduction ? "inner" : "outer", vectorization_factor, unroll_factor, bdimx, bdimy,
      cross_block, grid_y, index_type, lparams.toString());
}

size_t ReductionParams::hash() const {
  uint64_t h = HeuristicParams::hash();
  for (int64_t v : {int64_t{inner_reduction}, vectorization_factor, unroll_factor, bdimx, bdimy,
                    int64_t{cross_block}, grid_y, int64_t{split_grid_x}})
    h = hashCombine(h, static_cast<uint64_t>(v));
  return h;
}

bool ReductionParams::sameAs(const HeuristicParams* other_base) const {
  auto* other = dynamic_cast<const ReductionParams*>(other_base);
  return other != nullptr && HeuristicParams::sameAs(other) &&
         other->inner_reduction == inner_reduction &&
         other->vectorization_factor == vectorization_factor &&
         other->unroll_factor == unroll_factor && other->bdimx == bdimx && other->bdimy == bdimy &&
         other->cross_block == cross_block && other->grid_y == grid_y &&
         other->split_grid_x == split_grid_x;
}

std::unique_ptr<HeuristicParams> ReductionParams::clone() const {
  return std::make_unique<ReductionParams>(*this);
}

bool ReductionScheduler::canScheduleCompileTime(Fusion* fusion) {
  if (fusion->outputs().empty())
    return reject("the fusion has no outputs; the reduction scheduler computes tensors");
  if (std::optional<std::string> why = commonScheduleRejectReason(fusion)) return reject(*why);
  if (std::optional<std::string> why = reductionPatternRejectReason(fusion)) return reject(*why);
  const TensorView* red = reductionTvs(fusion).front();
  if (std::optional<std::string> why = unmappedAxisRejectReason(fusion, red)) return reject(*why);
  const int64_t kept = concreteAxisCount(red);
  for (TensorView* tv : postReductionTvs(fusion))
    if (concreteAxisCount(tv) > kept)
      return reject(fmt::format(
          "{} follows the reduction {} but has more concrete axes than its result (a broadcast "
          "back to the input's shape: a persistent kernel or a separate segment)",
          tv->toString(), red->toString()));
  if (std::optional<std::string> why = besideBroadcastRejectReason(fusion)) return reject(*why);
  return true;
}

bool ReductionScheduler::canScheduleRunTime(Fusion* fusion, SchedulerRuntimeInfo& runtime_info) {
  if (std::optional<std::string> why = sameReductionExtentsRejectReason(fusion, runtime_info))
    return reject(*why);
  return true;
}

std::unique_ptr<HeuristicParams> ReductionScheduler::computeHeuristics(
    Fusion* fusion, SchedulerRuntimeInfo& runtime_info) {
  auto params = std::make_unique<ReductionParams>();
  params->index_type = runtime_info.indexType();
  const TensorView* red = reductionTvs(fusion).front();
  params->inner_reduction = isInnerReduction(red);
  const int64_t r_elems = extentProduct(runtime_info, red, /*reduction=*/true);
  const int64_t i_elems = extentProduct(runtime_info, red, /*reduction=*/false);
  const DeviceDescription& device = runtime_info.device();
  const bool grid_allowed = gridReductionAllowed(fusion);

  if (params->inner_reduction) {
    const std::vector<TensorView*> full = fullShapeInputs(fusion, red);
    // A vector runs along the innermost reduced axes only: [r0, i1, r2] merges r0 and r2 to
    // one axis, contiguous in r2 runs.
    const int64_t vect =
        full.empty() || r_elems == 0
            ? 1
            : innerVectorizationFactor(runtime_info, full, innerReducedRun(runtime_info, red),
                                       kMaxVectorBytes / widestElement(full));
    const int64_t after_vect = std::max<int64_t>(ceilDiv(r_elems, vect), 1);
    // A warp-multiple of threads per row (the block reduction shuffles whole warps).
    int64_t bdimx =
        std::min(kMaxInnerBdimx, roundUp(ceilDiv(after_vect, kTargetInnerVectors), kWarp));
    // Short rows: several rows per block, so a block still has kMinBlockThreads threads.
    int64_t bdimy = std::max<int64_t>(1, std::min(kMinBlockThreads / bdimx, ceilPow2(i_elems)));
    // Too few rows for the SMs and rows long enough to share: whole blocks per row.
    const int64_t cross_bdimx = std::min(kCrossBlockBdimx, device.max_threads_per_block);
    if (mayCrossBlocks(grid_allowed, ceilDiv(i_elems, bdimy), device) &&
        after_vect >= cross_bdimx * kMinSerialSteps) {
      bdimx = cross_bdimx;
      bdimy = 1;
    }
    params->vectorization_factor = vect;
    params->unroll_factor = lastPow2(std::min(kMaxUnroll, ceilDiv(after_vect, bdimx)));
    params->bdimx = bdimx;
    params->bdimy = bdimy;
    params->lparams.bind(bdimx, ParallelType::TIDx);
    if (bdimy > 1) params->lparams.bind(bdimy, ParallelType::TIDy);
    // No iteration axis (every axis reduced): one block per output, no BIDx axis.
    const bool has_iter = red->nDims() > static_cast<int64_t>(reducedAxisCount(red));
    const int64_t blocks = i_elems == 0 ? 0 : ceilDiv(i_elems, bdimy);
    params->split_grid_x = has_iter && blocks > kMaxGridDimX;
    if (has_iter && blocks > 0)
      params->lparams.bind(std::min(blocks, kMaxGridDimX), ParallelType::BIDx);
    setCrossBlock(*params,
                  crossBlockFactor(grid_allowed, blocks, bdimx * bdimy,
                                   ceilDiv(after_vect, bdimx * params->unroll_factor), device));
    return params;
  }

  // Outer: each thread keeps a vector of adjacent columns (16 bytes of the widest full-shaped
  // input: one load per row step), the vectors on threadIdx.x, fewer per block while there
  // are fewer blocks than SMs (32 threads of 4 floats: a warp reads 512 contiguous bytes).
  const int64_t vect = outerVectorizationFactor(fusion, runtime_info, red, i_elems);
  const int64_t i_vectors = ceilDiv(i_elems, vect);
  // A power of two, so that halving keeps whole warps.
  int64_t bdimx =
      std::min(kMaxOuterBdimx, ceilPow2(roundUp(std::max<int64_t>(i_vectors, 1), kWarp)));
  while (bdimx > kWarp && ceilDiv(i_vectors, bdimx) < device.sm_count) bdimx /= 2;
  params->vectorization_factor = vect;
  const int64_t bdimy =
      std::max<int64_t>(1, std::min(kOuterBlockThreads / bdimx, ceilPow2(r_elems)));
  const int64_t max_unroll = std::max<int64_t>(
      1, kOuterBytesInFlight / (vect * widestElement(fullShapeInputs(fusion, red))));
  params->unroll_factor =
      lastPow2(std::min({kMaxUnroll, max_unroll, std::max<int64_t>(ceilDiv(r_elems, bdimy), 1)}));
  params->bdimx = bdimx;
  params->bdimy = bdimy;
  params->lparams.bind(bdimx, ParallelType::TIDx);
  params->lparams.bind(bdimy, ParallelType::TIDy);
  const int64_t blocks = ceilDiv(i_vectors, bdimx);
  params->split_grid_x = blocks > kMaxGridDimX;
  if (blocks > 0) params->lparams.bind(std::min(blocks, kMaxGridDimX), ParallelType::BIDx);
  setCrossBlock(*params, crossBlockFactor(grid_allowed, blocks, bdimx * bdimy,
                                          ceilDiv(r_elems, bdimy * params->unroll_factor), device));
  return params;
}

// The schedule of the first reduction (the reference): its loop axes reordered to
// [iteration..., reduction...] (broadcasts join the iteration axes; nvFuser's
// canonicalDimReduction), merged to [I, R]:
//   inner: [I] -> [BIDx, (TIDy)], R -> [(BIDy), TIDx | serial, (Unroll), (v)]
//   outer: [I] -> [BIDx, TIDx, (v)], R -> [(BIDy), TIDy | serial, (Unroll)], the vector v of
//          I last: [BIDx, TIDx, (BIDy), TIDy | serial, (Unroll), (v)]
// then the same for every tensor (propagateTransforms), and every reduction rfactored at the
// part right of `|`: each thread reduces its elements in registers, then the block reduces
// across the thread axis left of `|`, then (cross_block) the grid across blockIdx.y.
void ReductionScheduler::applySchedule(Fusion* fusion, const HeuristicParams* params_base) {
  auto* params = dynamic_cast<const ReductionParams*>(params_base);
  MF_ASSERT(params != nullptr, "ReductionScheduler::schedule: expected reduction heuristics");
  FusionGuard fg(fusion);

  const std::vector<TensorView*> full_inputs =
      fullShapeInputs(fusion, reductionTvs(fusion).front());
  moveBroadcastsToInputs(*fusion);
  const StagedTensors cached = stageInputsAndOutputs(fusion);
  const std::vector<TensorView*> reds = reductionTvs(fusion);
  TensorView* ref = reds.front();

  // [iteration..., reduction...], merged to [I, R] ([R] when every axis is reduced).
  std::vector<std::pair<int64_t, int64_t>> old_to_new;
  int64_t n_iter = 0;
  for (int64_t i = 0; i < ref->nDims(); ++i)
    if (!ref->axis(i)->isReduction()) old_to_new.emplace_back(i, n_iter++);
  int64_t next = n_iter;
  for (int64_t i = 0; i < ref->nDims(); ++i)
    if (ref->axis(i)->isReduction()) old_to_new.emplace_back(i, next++);
  ref->reorder(old_to_new);
  mergeRange(ref, n_iter, ref->nDims());
  if (n_iter > 0) mergeRange(ref, 0, n_iter);
  const bool has_iter = n_iter > 0;

  const int64_t vect = params->vectorization_factor;
  const int64_t unroll = params->unroll_factor;
  const bool cross = params->cross_block;
  std::vector<int64_t> rfactor_axes;
  if (params->inner_reduction) {
    const int64_t r = has_iter ? 1 : 0;
    // R -> [(BIDy), serial, (Unroll), TIDx, (v)] -> [(BIDy), TIDx, serial, (Unroll), (v)]: a
    // block of the grid reduction takes a contiguous chunk of the row.
    if (vect > 1) ref->split(r, vect);
    ref->split(r, params->bdimx);
    if (unroll > 1) ref->split(r, unroll);
    if (cross) ref->split(r, params->grid_y, /*inner_split=*/false);
    const int64_t t = r + (cross ? 1 : 0);
    const int64_t tidx = t + (unroll > 1 ? 2 : 1);
    ref->reorder({{tidx, t}});
    ref->axis(t)->parallelize(ParallelType::TIDx);
    if (cross) ref->axis(r)->parallelize(ParallelType::BIDy);
    for (int64_t i = t + 1; i < ref->nDims(); ++i) rfactor_axes.push_back(i);
    if (unroll > 1) ref->axis(t + 2)->parallelize(ParallelType::Unroll);
    if (has_iter) {
      if (params->bdimy > 1) {
        ref->split(0, params->bdimy);
        ref->axis(1)->parallelize(ParallelType::TIDy);
        for (int64_t& a : rfactor_axes) ++a;
      }
      ref->axis(0)->parallelize(ParallelType::BIDx);
    }
  } else {
    MF_ASSERT(has_iter, "an outer reduction has iteration axes");
    // I -> [BIDx, TIDx, (v)]; R -> [(BIDy), serial, (Unroll), TIDy] -> [(BIDy), TIDy, serial,
    // (Unroll)]; the vector last, inside the reduction loops: the rfactor tensor accumulates
    // v columns per thread, [BIDx, TIDx, (BIDy), TIDy, r serial, r (Unroll), v], the block
    // and grid reductions reduce the v values in one call (a group).
    if (vect > 1) {
      ref->split(0, vect);
      ref->reorder({{1, 2}});
    }
    ref->split(0, params->bdimx);
    ref->split(2, params->bdimy);
    if (unroll > 1) ref->split(2, unroll);
    if (cross) ref->split(2, params->grid_y, /*inner_split=*/false);
    const int64_t t = cross ? 3 : 2;
    ref->reorder({{ref->nDims() - (vect > 1 ? 2 : 1), t}});
    ref->axis(0)->parallelize(ParallelType::BIDx);
    ref->axis(1)->parallelize(ParallelType::TIDx);
    if (cross) ref->axis(2)->parallelize(ParallelType::BIDy);
    ref->axis(t)->parallelize(ParallelType::TIDy);
    // The vector's loops (the rfactor's running sums, the block reduction's group, a store
    // that is not a whole vector) are unrolled: the v values stay in registers.
    if (vect > 1) ref->axis(-1)->parallelize(ParallelType::Unroll);
    rfactor_axes.push_back(t + 1);
    if (unroll > 1) {
      ref->axis(t + 2)->parallelize(ParallelType::Unroll);
      rfactor_axes.push_back(t + 2);
    }
  }

  // Past gridDim.x's limit: a serial loop (inserted at 0) over chunks of the BIDx axis (0).
  if (params->split_grid_x) {
    limitGridAxis(ref, 0, kMaxGridDimX);
    for (int64_t& a : rfactor_axes) ++a;
  }

  propagateTransforms(ref);
  parallelizeAllLike(ref, {},
                     {ParallelType::BIDx, ParallelType::BIDy, ParallelType::TIDx,
                      ParallelType::TIDy, ParallelType::Unroll});
  // reductionPatternRejectReason checked that the propagation reaches every reduction's
  // reduction axes (propagatedAxes).
  for (TensorView* red : reds)
    MF_ASSERT(red->nDims() == ref->nDims(), "{} was not scheduled like the reference {}",
              red->toString(), ref->toString());
  if (!rfactor_axes.empty())
    for (TensorView* red : reds) red->rFactor(rfactor_axes);

  // The full-shaped inputs' copies load whole vectors along the reduced (inner) or iteration
  // (outer) axis; an outer reduction's outputs store whole vectors of their columns.
  if (vect > 1) {
    for (size_t i = 0; i < cached.inputs.size(); ++i)
      if (std::find(full_inputs.begin(), full_inputs.end(), cached.inputs[i]) != full_inputs.end())
        cached.input_caches[i]->axis(-1)->parallelize(ParallelType::Vectorize);
    if (!params->inner_reduction)
      for (Val* v : fusion->outputs())
        if (auto* out = v->as<TensorView>(); endsInVector(out, vect))
          out->axis(-1)->parallelize(ParallelType::Vectorize);
  }
  inlineMost();
}

}  // namespace mf
