// The transpose scheduler: its checks, heuristics and schedule (transpose.h).
#include "scheduler/transpose.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/shape_exprs.h"
#include "scheduler/pointwise_utils.h"
#include "scheduler/registry_utils.h"
#include "scheduler/tools/cache.h"
#include "scheduler/tools/inlining.h"
#include "scheduler/tools/transform_propagator.h"
#include "scheduler/vectorize_helper.h"
#include "support/hash.h"
#include "support/shared_memory.h"

namespace mf {
namespace {

constexpr int64_t kMaxVectorBytes = 16;

// The fusion as the transpose scheduler sees it: the reference (an output covering every
// axis, as the pointwise scheduler picks it), its axes in allocation order (axis 1, the
// reference's innermost, last; axis 2 at `axis2`) and the full-rank inputs and outputs of
// each group. Inputs and outputs with fewer or broadcast axes (a bias) belong to neither:
// they are read per element in group 1's loops.
struct TransposeGroups {
  TensorView* reference = nullptr;
  size_t reference_pos = 0;
  std::vector<IterDomain*> axes;
  int64_t axis2 = 0;
  std::vector<TensorView*> group1;
  std::vector<TensorView*> group2;
};

bool contains(const std::vector<TensorView*>& tvs, const Val* tv) {
  return std::find(tvs.begin(), tvs.end(), tv) != tvs.end();
}

// `tv`'s logical axes in the order of the reference's `axes` (each mapped to one), or nullopt
// when `tv` is not a full-rank tensor of concrete axes.
std::optional<std::vector<IterDomain*>> inReferenceOrder(const TensorView* tv,
                                                         const std::vector<IterDomain*>& axes,
                                                         const PointwiseDomainMap& map) {
  const std::vector<IterDomain*> logical = TensorDomain::noReductions(tv->getLogicalDomain());
  if (logical.size() != axes.size()) return std::nullopt;
  std::vector<IterDomain*> order;
  for (IterDomain* ref_id : axes) {
    auto it = std::find_if(logical.begin(), logical.end(), [&](IterDomain* id) {
      return !id->isBroadcast() && map.areMapped(id, ref_id);
    });
    if (it == logical.end()) return std::nullopt;
    order.push_back(*it);
  }
  return order;
}

// The position in the reference's axes of `tv`'s innermost allocation axis (`order` is
// inReferenceOrder of `tv`), or nullopt when that axis is none of them (an allocation domain
// not derived from the logical one, as the layout op's padded output has).
std::optional<int64_t> innermostAxis(const TensorView* tv, const std::vector<IterDomain*>& order) {
  const std::vector<IterDomain*> alloc = TensorDomain::noReductions(tv->getMaybeAllocationDomain());
  auto it = alloc.empty() ? order.end() : std::find(order.begin(), order.end(), alloc.back());
  if (it == order.end()) return std::nullopt;
  return it - order.begin();
}

// The groups, or nullopt with the reason in `why` (what canScheduleCompileTime refuses).
std::optional<TransposeGroups> transposeGroups(Fusion* fusion, std::string& why) {
  auto refuse = [&](std::string reason) -> std::optional<TransposeGroups> {
    why = std::move(reason);
    return std::nullopt;
  };
  if (fusion->outputs().empty())
    return refuse("the fusion has no outputs; the transpose scheduler computes tensors");
  if (std::optional<std::string> r = commonScheduleRejectReason(fusion)) return refuse(*r);
  if (std::optional<std::string> r = symbolicAxisRejectReason(fusion)) return refuse(*r);
  for (Expr* e : fusion->exprs())
    if (!e->isA<UnaryOp>() && !e->isA<BinaryOp>() && !e->isA<TernaryOp>() &&
        !e->isA<BroadcastOp>() && !e->isA<LoadStoreOp>())
      return refuse(
          fmt::format("{} is computed by {}; the transpose scheduler takes pointwise "
                      "ops, broadcasts and permutes only",
                      e->output(0)->toString(), e->opName()));
  for (TensorView* tv : fusion->allTvs())
    if (dataTypeSizeBit(tv->dtype()) < 8)
      return refuse(
          fmt::format("{} has sub-byte elements, which a shared-memory tile cannot move one by one",
                      tv->toString()));
  PointwiseDomainMap map(fusion);
  TransposeGroups g;
  g.reference = findReferenceTensor(fusion, map, &why);
  if (g.reference == nullptr) return std::nullopt;
  const auto& outs = fusion->outputs();
  g.reference_pos =
      static_cast<size_t>(std::find(outs.begin(), outs.end(), g.reference) - outs.begin());
  g.axes = referenceAxesInAllocationOrder(g.reference);
  if (g.axes.size() < 2)
    return refuse(fmt::format("nothing is transposed: the reference {} has fewer than two axes",
                              g.reference->toString()));
  if (!inReferenceOrder(g.reference, g.axes, map))
    return refuse(fmt::format("the reference {} has broadcast axes", g.reference->toString()));
  const int64_t axis1 = static_cast<int64_t>(g.axes.size()) - 1;
  g.axis2 = axis1;
  for (TensorView* tv : map.inputsAndOutputs()) {
    std::optional<std::vector<IterDomain*>> order = inReferenceOrder(tv, g.axes, map);
    if (!order) continue;
    const std::optional<int64_t> innermost = innermostAxis(tv, *order);
    if (!innermost)
      return refuse(
          fmt::format("{} has an allocation domain that is not a permutation of its "
                      "logical domain; the transpose scheduler tiles logical axes",
                      tv->toString()));
    const int64_t inner = *innermost;
    if (inner == axis1) {
      g.group1.push_back(tv);
      continue;
    }
    if (g.axis2 != axis1 && inner != g.axis2)
      return refuse(fmt::format(
          "{} and {} have innermost allocation axes {} and {}, other than {}, the reference's; "
          "the transpose scheduler tiles two innermost axes",
          g.group2.front()->toString(), tv->toString(), g.axes[g.axis2]->toString(),
          g.axes[inner]->toString(), g.axes[axis1]->toString()));
    g.axis2 = inner;
    g.group2.push_back(tv);
  }
  if (g.group2.empty())
    return refuse(
        fmt::format("nothing is transposed: every full-rank input and output has {}, "
                    "the reference's innermost allocation axis, innermost",
                    g.axes[axis1]->toString()));
  return g;
}

TransposeGroups transposeGroupsOrThrow(Fusion* fusion) {
  std::string why;
  std::optional<TransposeGroups> g = transposeGroups(fusion, why);
  MF_CHECK(g.has_value(), "the transpose scheduler cannot schedule this fusion: {}", why);
  return *g;
}

int64_t maxDtypeBytes(const std::vector<TensorView*>& tvs) {
  int64_t bytes = 1;
  for (TensorView* tv : tvs) bytes = std::max(bytes, dataTypeSize(tv->dtype()));
  return bytes;
}

// One 4-byte bank of padding per shared row (at least one element): a column of a tile of
// 32-bank rows then spans every bank.
int64_t rowPad(const TensorView* tv) {
  return std::max<int64_t>(1, 4 / dataTypeSize(tv->dtype()));
}

// Bytes of shared memory the tiles of group 2 take (one per input, one per computed output).
int64_t sharedBytes(const TransposeGroups& g, const TransposeParams& p) {
  int64_t bytes = 0;
  for (TensorView* tv : g.group2) {
    if (tv->isFusionOutput() && tv->isFusionInput()) continue;
    const int64_t row = tv->isFusionInput() ? p.tile_size2 : p.tile_size1;
    const int64_t rows = p.tile_size1 * p.tile_size2 / row;
    bytes += rows * (row + rowPad(tv)) * dataTypeSize(tv->dtype());
  }
  return bytes;
}

// Square 64 x 64 tiles and 16 elements of a tile per thread (a 256-thread block), whatever the
// element size: on an H100, fp32 [32Ki, 4Ki] transposes at 0.99x the copy's rate with them
// (367 us; the copy 363 us), at 0.95x with 32 x 32 tiles of 128 threads (384 us;
// tools/bench/transpose_bench). 32 x 32
// tiles of 8 elements per thread when a transposed extent (`e1`, `e2`) is under 64 or the
// 64 x 64 tiles of group 2 do not fit in static shared memory.
TransposeParams tileParams(const TransposeGroups& g, int64_t e1, int64_t e2) {
  TransposeParams p;
  p.tile_size1 = p.tile_size2 = 64;
  p.elements_per_thread = 16;
  if (e1 >= 64 && e2 >= 64 && sharedBytes(g, p) <= kStaticSharedBytes) return p;
  p.tile_size1 = p.tile_size2 = 32;
  p.elements_per_thread = 8;
  return p;
}

// The extents of the transposed axes (axis 1, axis 2) at run time.
std::pair<int64_t, int64_t> transposedExtents(const TransposeGroups& g,
                                              SchedulerRuntimeInfo& runtime_info) {
  return {runtime_info.extent(g.axes.back()), runtime_info.extent(g.axes[g.axis2])};
}

// Tiles `tv`, whose logical axes in the reference's allocation order are `order` (axis 1
// last, axis 2 at `axis2`), and maps a tile to a block, along axis 1 (`along_axis1`) or 2:
//   [others..., a2, a1] -> [BIDx{others x tiles}, Unroll, TIDx, (vector)]
// the tile [t2, t1] (or [t1, t2]) merged and split by the vector width and the block size.
// Every tensor tiled so shares the BIDx axis (IdModel maps it), whichever way it walks the
// tile. Returns the vector axis, left serial (nullptr for a width of 1).
IterDomain* tileLoop(TensorView* tv, const std::vector<IterDomain*>& order, int64_t axis2,
                     bool along_axis1, const TransposeParams& p) {
  tv->setLoopDomain(order);
  const int64_t n = tv->nDims();
  tv->split(n - 1, p.tile_size1);
  IterDomain *a1o = tv->axis(n - 1), *a1i = tv->axis(n);
  tv->split(axis2, p.tile_size2);
  IterDomain *a2o = tv->axis(axis2), *a2i = tv->axis(axis2 + 1);
  std::vector<IterDomain*> loop;
  for (IterDomain* id : tv->getLoopDomain())
    if (id != a1o && id != a1i && id != a2o && id != a2i) loop.push_back(id);
  loop.insert(loop.end(), {a2o, a1o});
  loop.insert(loop.end(), {along_axis1 ? a2i : a1i, along_axis1 ? a1i : a2i});
  tv->setLoopDomain(loop);
  mergeRange(tv, 0, n);  // [grid, tile outer, tile inner]
  const int64_t vector = along_axis1 ? p.vectorize_factor1 : p.vectorize_factor2;
  if (vector > 1) tv->split(2, vector);
  tv->merge(1)->split(1, p.blockSize());
  tv->axis(0)->parallelize(ParallelType::BIDx);
  tv->axis(1)->parallelize(ParallelType::Unroll);
  tv->axis(2)->parallelize(ParallelType::TIDx);
  if (p.split_grid_x) limitGridAxis(tv, 0, kMaxGridDimX);
  return vector > 1 ? tv->axis(tv->nDims() - 1) : nullptr;
}

}  // namespace

std::string TransposeParams::toString() const {
  return fmt::format(
      "TransposeParams(tile_size1 = {}, tile_size2 = {}, vectorize_factor1 = {}, "
      "vectorize_factor2 = {}, elements_per_thread = {}, split_grid_x = {}, shared tile rows "
      "padded by one 4-byte bank, index_type = {}, {})",
      tile_size1, tile_size2, vectorize_factor1, vectorize_factor2, elements_per_thread,
      split_grid_x, index_type, lparams.toString());
}

size_t TransposeParams::hash() const {
  uint64_t h = HeuristicParams::hash();
  for (int64_t v : {tile_size1, tile_size2, vectorize_factor1, vectorize_factor2,
                    elements_per_thread, int64_t{split_grid_x}})
    h = hashCombine(h, static_cast<uint64_t>(v));
  return h;
}

bool TransposeParams::sameAs(const HeuristicParams* other_base) const {
  auto* other = dynamic_cast<const TransposeParams*>(other_base);
  return other != nullptr && HeuristicParams::sameAs(other) && other->tile_size1 == tile_size1 &&
         other->tile_size2 == tile_size2 && other->vectorize_factor1 == vectorize_factor1 &&
         other->vectorize_factor2 == vectorize_factor2 &&
         other->elements_per_thread == elements_per_thread && other->split_grid_x == split_grid_x;
}

std::unique_ptr<HeuristicParams> TransposeParams::clone() const {
  return std::make_unique<TransposeParams>(*this);
}

bool TransposeScheduler::canScheduleCompileTime(Fusion* fusion) {
  std::string why;
  return transposeGroups(fusion, why).has_value() || reject(why);
}

bool TransposeScheduler::canScheduleRunTime(Fusion* fusion, SchedulerRuntimeInfo& runtime_info) {
  const TransposeGroups g = transposeGroupsOrThrow(fusion);
  const auto [e1, e2] = transposedExtents(g, runtime_info);
  const TransposeParams p = tileParams(g, e1, e2);
  IterDomain *a1 = g.axes.back(), *a2 = g.axes[g.axis2];
  if (e1 < p.tile_size1 || e2 < p.tile_size2)
    return reject(fmt::format(
        "the transposed axes {} and {} have extents {} and {}, smaller than the {}x{} tile; "
        "the pointwise scheduler takes them",
        a1->toString(), a2->toString(), e1, e2, p.tile_size1, p.tile_size2));
  if (const int64_t bytes = sharedBytes(g, p); bytes > kStaticSharedBytes)
    return reject(
        fmt::format("the tiles of the {} transposed inputs and outputs take {} bytes "
                    "of shared memory, more than {}",
                    g.group2.size(), bytes, kStaticSharedBytes));
  return true;
}

std::unique_ptr<HeuristicParams> TransposeScheduler::computeHeuristics(
    Fusion* fusion, SchedulerRuntimeInfo& runtime_info) {
  const TransposeGroups g = transposeGroupsOrThrow(fusion);
  const auto [e1, e2] = transposedExtents(g, runtime_info);
  auto params = std::make_unique<TransposeParams>(tileParams(g, e1, e2));
  params->index_type = runtime_info.indexType();
  // Each group's vector: at most 16 bytes and the tile, and a width every tensor of the group
  // allows along its innermost axis (extent, strides, alignment: vectorize_helper.h).
  PointwiseDomainMap map(fusion);
  auto vectorWidth = [&](const std::vector<TensorView*>& tvs, int64_t tile) {
    TensorView* ref = tvs.front();
    const int64_t inner = static_cast<int64_t>(referenceAxesInAllocationOrder(ref).size()) - 1;
    return std::min({kMaxVectorBytes / maxDtypeBytes(tvs), tile,
                     vectorizationFactor(runtime_info, map, ref, inner, tvs)});
  };
  params->vectorize_factor1 = vectorWidth(g.group1, params->tile_size1);
  params->vectorize_factor2 = vectorWidth(g.group2, params->tile_size2);

  int64_t tiles = 1;
  for (size_t i = 0; i < g.axes.size(); ++i) {
    const int64_t extent = runtime_info.extent(g.axes[i]);
    const bool a1 = i + 1 == g.axes.size(), a2 = static_cast<int64_t>(i) == g.axis2;
    tiles *= a1 ? ceilDiv(extent, params->tile_size1)
                : (a2 ? ceilDiv(extent, params->tile_size2) : extent);
  }
  params->lparams.bind(params->blockSize(), ParallelType::TIDx);
  params->split_grid_x = tiles > kMaxGridDimX;
  if (tiles > 0) params->lparams.bind(std::min(tiles, kMaxGridDimX), ParallelType::BIDx);
  return params;
}

// The schedule, for x[M, N] -> y = x.t() * 2 (group 1: y; group 2: x):
//   x -> xr = set(x) (registers, vectors along N) -> xs = set(xr) (shared, padded rows of N)
//     -> permute, mul (registers, along M) -> y (vectors along M)
// A group-2 output o = set(v) becomes v -> os (shared, rows along axis 1) -> or (registers,
// along axis 2) -> o (vectors along axis 2). Every tensor shares the tile's BIDx axis; the
// shared tiles are computed there, so lowering puts a __syncthreads between their writes
// and their transposed reads (insertSyncs).
void TransposeScheduler::applySchedule(Fusion* fusion, const HeuristicParams* params_base) {
  auto* params = dynamic_cast<const TransposeParams*>(params_base);
  MF_ASSERT(params != nullptr, "TransposeScheduler::schedule: expected transpose heuristics");
  FusionGuard fg(fusion);
  const TransposeGroups g = transposeGroupsOrThrow(fusion);
  std::vector<bool> output_group2;
  for (Val* out : fusion->outputs()) output_group2.push_back(contains(g.group2, out));

  moveBroadcastsToInputs(*fusion);
  const StagedTensors staged = stageInputsAndOutputs(fusion);
  std::vector<TensorView*> form2, vectorized1, vectorized2, loads, tiles;
  for (size_t i = 0; i < staged.inputs.size(); ++i) {
    TensorView* cache = staged.input_caches[i];
    if (contains(g.group1, staged.inputs[i])) vectorized1.push_back(cache);
    if (!contains(g.group2, staged.inputs[i])) continue;
    TensorView* tile = cache->cacheAfter();
    tile->setMemoryType(MemoryType::Shared);
    tile->padBufferRows(params->tile_size2, rowPad(tile));
    form2.insert(form2.end(), {cache, tile});
    vectorized2.push_back(cache);
    loads.push_back(cache);
  }
  for (size_t i = 0; i < output_group2.size(); ++i) {
    auto* out = fusion->outputs()[i]->as<TensorView>();
    if (out->isFusionInput() || out->definition() == nullptr) continue;
    if (!output_group2[i]) {
      if (contains(staged.outputs, out)) vectorized1.push_back(out);
      continue;
    }
    auto* src = out->definition()->input(0)->as<TensorView>();
    TensorView* tile = src->cacheAfter({out->definition()});
    tile->setMemoryType(MemoryType::Shared);
    tile->padBufferRows(params->tile_size1, rowPad(tile));
    form2.insert(form2.end(), {tile->cacheAfter(), out});
    vectorized2.push_back(out);
  }

  TensorView* reference = fusion->outputs().at(g.reference_pos)->as<TensorView>();
  const std::vector<IterDomain*> axes = referenceAxesInAllocationOrder(reference);
  IterDomain* vector1 = tileLoop(reference, axes, g.axis2, true, *params);
  propagateTransforms(reference);
  std::vector<TensorView*> form1;
  for (TensorView* tv : fusion->allTvs())
    if (!tv->isFusionInput() && !contains(form2, tv)) form1.push_back(tv);
  parallelizeAllLike(reference, form1,
                     {ParallelType::BIDx, ParallelType::TIDx, ParallelType::Unroll});
  if (vector1 != nullptr && !vectorized1.empty()) {
    vector1->parallelize(ParallelType::Vectorize);
    parallelizeAllLike(reference, vectorized1, {ParallelType::Vectorize});
    if (!contains(vectorized1, reference)) vector1->parallelize(ParallelType::Serial);
  }
  PointwiseDomainMap map(fusion);
  for (TensorView* tv : form2) {
    std::optional<std::vector<IterDomain*>> order = inReferenceOrder(tv, axes, map);
    MF_ASSERT(order.has_value(), "{} is not a full-rank tensor of the transpose", tv->toString());
    IterDomain* vector2 = tileLoop(tv, *order, g.axis2, false, *params);
    if (vector2 != nullptr && contains(vectorized2, tv))
      vector2->parallelize(ParallelType::Vectorize);
  }
  inlineMost();
  // Each thread loads all its vectors of a tile before it stores any into shared memory.
  for (TensorView* tv : loads) tv->inlineAt(params->split_grid_x ? 2 : 1);
}

}  // namespace mf
