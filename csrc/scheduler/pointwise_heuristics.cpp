// The pointwise scheduler's heuristics (PointwiseParams from the run-time sizes) and its
// checks; pointwise.cpp applies the parameters.
#include "scheduler/pointwise.h"

#include <fmt/format.h>

#include <algorithm>

#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/op_traits.h"
#include "scheduler/pointwise_utils.h"
#include "scheduler/registry_utils.h"
#include "scheduler/vectorize_helper.h"
#include "support/hash.h"
#include "support/shared_memory.h"

namespace mf {
namespace {

// nvFuser's kThreadX: threads per block of every pointwise schedule.
constexpr int64_t kBlockSize = 128;
constexpr int64_t kMaxVectorBytes = 16;
constexpr int64_t kMaxUnroll = 4;
// Bytes of one tensor a thread keeps in flight (vector x unroll); more costs registers
// without adding bandwidth.
constexpr int64_t kMaxBytesInFlightPerThread = 32;

// Per break point b of the reference axes: the bytes per element of the inputs and outputs
// with a concrete axis left of b (lhs) and right of it (rhs). A tensor on one side only is a
// broadcast along the other: a 2-D schedule reads it once per block row or column.
struct BroadcastMultiple {
  int64_t lhs = 0;
  int64_t rhs = 0;
};

std::vector<BroadcastMultiple> broadcastMultiples(const PointwiseDomainMap& map,
                                                  const std::vector<IterDomain*>& ref_axes) {
  std::vector<BroadcastMultiple> multiples(ref_axes.size() + 1);
  for (TensorView* tv : map.inputsAndOutputs()) {
    std::vector<bool> has(ref_axes.size(), false);
    for (IterDomain* id : tv->getLogicalDomain())
      for (size_t i = 0; i < ref_axes.size(); ++i)
        if (!id->isBroadcast() && !id->isReduction() && !ref_axes[i]->isBroadcast() &&
            map.areMapped(id, ref_axes[i]))
          has[i] = true;
    const int64_t bytes = dataTypeSize(tv->dtype());
    for (size_t b = 0; b <= ref_axes.size(); ++b) {
      if (std::any_of(has.begin(), has.begin() + b, [](bool h) { return h; }))
        multiples[b].lhs += bytes;
      if (std::any_of(has.begin() + b, has.end(), [](bool h) { return h; }))
        multiples[b].rhs += bytes;
    }
  }
  return multiples;
}

// Vectors per thread: doubled while the grid still fills a whole wave of resident blocks
// and a thread keeps at most kMaxBytesInFlightPerThread of each tensor in flight.
int64_t unrollFactor(int64_t total_blocks, int64_t vector_bytes, const DeviceDescription& device) {
  const int64_t blocks_per_wave = device.sm_count * (device.max_threads_per_sm / kBlockSize);
  int64_t unroll = 1;
  while (unroll * 2 <= kMaxUnroll && vector_bytes * unroll * 2 <= kMaxBytesInFlightPerThread &&
         ceilDiv(total_blocks, unroll * 2) >= blocks_per_wave)
    unroll *= 2;
  return unroll;
}

// The 2-D split chosen by the break-point search.
struct BreakPointSplit {
  int64_t break_point = 0;
  int64_t bdimx = kBlockSize;
  int64_t bdimy = 1;
  bool flip_grid_binding = false;
  bool outer_broadcast_dominated = false;
};

// nvFuser's break-point search. A 1-D schedule moves about n * dtype_sum^2 "byte pairs";
// break point b moves n * lhs_b * rhs_b. Take the cheapest b that saves at least 10% and
// leaves more than a warp of vectors on the right.
BreakPointSplit chooseBreakPoint(const PointwiseDomainMap& map,
                                 const std::vector<IterDomain*>& ref_axes,
                                 const std::vector<int64_t>& elem_counts, int64_t n_elems,
                                 int64_t max_vect, const DeviceDescription& device) {
  BreakPointSplit best;
  int64_t dtype_sum = 0;
  for (TensorView* tv : map.inputsAndOutputs()) dtype_sum += dataTypeSize(tv->dtype());
  const std::vector<BroadcastMultiple> multiples = broadcastMultiples(map, ref_axes);
  int64_t min_cost = dtype_sum * dtype_sum * 9;  // must beat 90% of 1-D (cost scaled by 10)
  for (size_t b = 1; b < ref_axes.size(); ++b) {
    int64_t right = 1;
    for (size_t i = b; i < ref_axes.size(); ++i) right *= elem_counts[i];
    const int64_t left = n_elems / right;
    if (left <= 1) continue;
    const int64_t cost = multiples[b].lhs * multiples[b].rhs * 10;
    if (cost >= min_cost) continue;
    const int64_t after_vect = ceilDiv(right, max_vect);
    if (after_vect <= device.warp_size) continue;
    min_cost = cost;
    best.break_point = static_cast<int64_t>(b);
    best.bdimx = std::min(after_vect, device.warp_size);
    while (best.bdimx * 2 <= kBlockSize && after_vect % (best.bdimx * 2) == 0) best.bdimx *= 2;
    best.bdimy = kBlockSize / best.bdimx;
    best.flip_grid_binding = multiples[b].lhs <= multiples[b].rhs &&
                             device.l2_cache_bytes < right * multiples[b].rhs * 2;
    best.outer_broadcast_dominated = multiples[b].lhs < multiples[b].rhs;
  }
  return best;
}

}  // namespace

// The layout op's form (docs/layout_op.md, "Three schedules"). The tile form takes the op
// when it is the kernel's only expr and reads a fusion input (a block loads the input rows
// of its slab itself, at data-dependent rows). A block's slab is threads x per_thread
// positions, moved as 16-byte vectors (per_thread = U vectors); it must be whole column
// quads of a 128-row tile that divide the padded row's Kp / 4 quads, so that no slab
// straddles two tiles, and its shared staging (the slab) must fit the 48 KiB of static
// shared memory. 128 threads (else 256), then the most vectors per thread, at most
// kMaxVectorsPerThread, that still leave 4 blocks per SM. Measured on the H200 (fp8, K = 448
// and 512, G = 8..128, docs/layout_op.md): 128 threads x 2 vectors of 16 bytes beat 1 vector
// by 10-30%, and 4 vectors, 256 threads, or a block looping over 2-8 slabs with the next
// slab's loads in flight were no faster than 2 (the same within 3%, or up to 10% slower at
// G = 32). Sets
// the params (the launch included) and returns true, or returns false with the reason the op
// is written per element in `params.layout_form`.
bool chooseLayoutTile(Fusion* fusion, const PreprocessGroupedMatmulInputSf* op,
                      SchedulerRuntimeInfo& runtime_info, PointwiseParams& params) {
  auto* in = op->in()->as<TensorView>();
  if (!in->isFusionInput()) {
    params.layout_form = fmt::format(
        "per element: its input {} is computed in the kernel ({}), and the tile form stages a "
        "fusion input",
        in->toInlineString(), in->definition()->opName());
    return false;
  }
  if (fusion->exprs().size() != 1) {
    params.layout_form = fmt::format(
        "per element: the kernel computes {} other exprs, and the tile form writes the op alone",
        fusion->exprs().size() - 1);
    return false;
  }
  constexpr int64_t kMaxVectorsPerThread = 2;
  const std::vector<IterDomain*>& alloc = op->out()->as<TensorView>()->getMaybeAllocationDomain();
  const int64_t numel = runtime_info.extent(alloc[0]) * runtime_info.extent(alloc[1]);
  const int64_t quads = ceilDiv(runtime_info.extent(in->getLogicalDomain()[1]), 4);
  const int64_t elem = dataTypeSize(in->dtype());
  const int64_t min_blocks = 4 * runtime_info.device().sm_count;
  // The widest vector that some slab takes; of its slabs, the largest that still gives
  // min_blocks blocks (else the smallest), fewer threads on a tie. Lab (H200, fp8 K = 448/512,
  // tools/bench/layout_tile_lab.sh): 256 threads of two vectors against 128 of two, 1.22 vs
  // 1.24x a copy at G = 32, 1.14 vs 1.15 at G = 128, 1.09 vs 1.12 at G = 8 M = 1Mi.
  for (int64_t vector = std::max<int64_t>(kMaxVectorBytes / elem, 1); vector >= 1; vector /= 2) {
    int64_t threads = 0, best = 0;
    auto slabOf = [&](int64_t t, int64_t u) { return t * u * vector; };
    for (int64_t t : {128, 256})
      for (int64_t u = 1; u <= kMaxVectorsPerThread; ++u) {
        const int64_t slab = slabOf(t, u);
        if (slab % 512 != 0 || quads % (slab / 512) != 0) continue;
        if (slab * elem > kStaticSharedBytes) continue;
        const bool enough = ceilDiv(numel, slab) >= min_blocks;
        const int64_t current = best == 0 ? 0 : slabOf(threads, best);
        if (best == 0 || (enough && slab > current)) {
          threads = t;
          best = u;
        }
      }
    if (best == 0) continue;
    const int64_t per_thread = best * vector;
    params.schedule_kind = PointwiseScheduleKind::LayoutTile;
    params.vectorization_factor = per_thread;
    params.block_size = threads;
    params.lparams = LaunchParams();
    params.lparams.bind(threads, ParallelType::TIDx);
    params.lparams.bind(ceilDiv(numel, threads * per_thread), ParallelType::BIDx);
    // Loads are whole vectors where the input's rows allow (the runtime checks each).
    const TensorMetadata* meta = runtime_info.inputMetadata(in);
    const bool vector_loads =
        meta != nullptr && meta->strides[1] == 1 && meta->strides[0] % vector == 0 &&
        meta->storage_offset % vector == 0 && meta->base_alignment % (vector * elem) == 0;
    params.layout_form = fmt::format(
        "tile: {} threads x {} elements per block ({} column quads of a 128-row tile, {} "
        "vectors of {} per thread), input rows loaded {}",
        threads, per_thread, threads * per_thread / 512, best, vector,
        vector_loads ? "as whole vectors"
                     : fmt::format("element by element (row stride {}, storage offset {})",
                                   meta ? meta->strides[0] : 0, meta ? meta->storage_offset : 0));
    return true;
  }
  params.layout_form = fmt::format(
      "per element: no slab of whole column quads of {} fits {}-byte elements", quads, elem);
  return false;
}

namespace {

// The block quantization of a fusion, or null (it is then the fusion's only expr).
Expr* blockQuantizeOf(Fusion* fusion) {
  for (Expr* e : fusion->exprs())
    if (isBlockQuantization(e)) return e;
  return nullptr;
}

// Four blocks of a row per thread (the lab, tools/bench/quantize_lab, on the H100: 1.11-1.14x
// the bytes-moved floor with each warp's quads through shared memory, 1.20-1.26x without,
// 1.30-1.45x for one block per thread: the per-call work (indices, the group's search, the
// scales' position) is shared by four blocks, their 128 bytes are loaded at once and their
// scales are one 4-byte word of the layout). Rows of fewer blocks take one block per call, so
// that no thread idles on a row's remainder.
void chooseBlockQuantize(Expr* op, SchedulerRuntimeInfo& runtime_info, PointwiseParams& params) {
  params.schedule_kind = PointwiseScheduleKind::BlockQuantize;
  const auto& logical = op->output(0)->as<TensorView>()->getLogicalDomain();
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < logical.size(); ++i) rows *= runtime_info.extent(logical[i]);
  const int64_t columns = runtime_info.extent(logical.back());
  params.vectorization_factor = columns >= 4 ? 4 : 1;
  const int64_t calls = rows * ceilDiv(columns, params.vectorization_factor);
  params.lparams = LaunchParams();
  params.lparams.bind(params.block_size, ParallelType::TIDx);
  if (calls > 0) params.lparams.bind(ceilDiv(calls, params.block_size), ParallelType::BIDx);
  params.layout_form =
      fmt::format("block quantize: {} block(s) of 16 values per thread, {} blocks, scales {}",
                  params.vectorization_factor, rows * columns,
                  op->isA<GroupedBlockQuantizationOp>()
                      ? "at their swizzled positions (the layout op's runtime function)"
                      : "stored plainly");
}

}  // namespace

std::string PointwiseParams::toString() const {
  return fmt::format(
      "PointwiseParams(vectorization_factor = {}, unroll_factor_inner = {}, "
      "unroll_factor_outer = {}, break_point = {}, split_block = {}, split_grid_y = {}, "
      "flip_grid_binding = {}, block_size = {}, index_type = {}, {}{})",
      vectorization_factor, unroll_factor_inner, unroll_factor_outer, break_point, split_block,
      split_grid_y, flip_grid_binding, block_size, index_type, lparams.toString(),
      layout_form.empty() ? "" : ", layout op: " + layout_form);
}

size_t PointwiseParams::hash() const {
  uint64_t h = HeuristicParams::hash();
  for (int64_t v : {vectorization_factor, unroll_factor_inner, unroll_factor_outer, break_point,
                    int64_t{split_block}, int64_t{split_grid_y}, int64_t{split_grid_x},
                    int64_t{flip_grid_binding}, block_size, static_cast<int64_t>(schedule_kind)})
    h = hashCombine(h, static_cast<uint64_t>(v));
  return h;
}

bool PointwiseParams::sameAs(const HeuristicParams* other_base) const {
  auto* other = dynamic_cast<const PointwiseParams*>(other_base);
  return other != nullptr && HeuristicParams::sameAs(other) &&
         other->vectorization_factor == vectorization_factor &&
         other->unroll_factor_inner == unroll_factor_inner &&
         other->unroll_factor_outer == unroll_factor_outer && other->break_point == break_point &&
         other->split_block == split_block && other->split_grid_y == split_grid_y &&
         other->split_grid_x == split_grid_x && other->schedule_kind == schedule_kind &&
         other->flip_grid_binding == flip_grid_binding && other->block_size == block_size;
}

PointwiseParams::LaunchBasis PointwiseParams::launchBasis() const {
  return {{break_point, block_size, int64_t{split_block}},
          {vectorization_factor, unroll_factor_inner, unroll_factor_outer, int64_t{split_grid_y},
           int64_t{split_grid_x}, int64_t{flip_grid_binding}}};
}

void PointwiseParams::followEditedFields() {
  if (!launch_basis_ || schedule_kind != PointwiseScheduleKind::BreakPointGrid) return;
  const LaunchBasis now = launchBasis();
  if (now == *launch_basis_) return;
  lparams.unbind(ParallelType::BIDx);
  lparams.unbind(ParallelType::BIDy);
  if (now.block != launch_basis_->block) {
    lparams.unbind(ParallelType::TIDx);
    lparams.unbind(ParallelType::TIDy);
  }
  launch_basis_ = now;
}

std::unique_ptr<HeuristicParams> PointwiseParams::clone() const {
  return std::make_unique<PointwiseParams>(*this);
}

bool PointWiseScheduler::canScheduleCompileTime(Fusion* fusion) {
  if (fusion->outputs().empty())
    return reject("the fusion has no outputs; the pointwise scheduler computes tensors");
  for (TensorView* tv : fusion->allTvs())
    for (IterDomain* id : tv->getLogicalDomain())
      if (id->isReduction())
        return reject(
            fmt::format("no support for reduction ops: {} has a reduction axis", tv->toString()));
  if (std::optional<std::string> why = commonScheduleRejectReason(fusion)) return reject(*why);
  // A block quantization is alone in its fusion (commonScheduleRejectReason): its own schedule.
  if (blockQuantizeOf(fusion) != nullptr) return true;
  if (std::optional<std::string> why = symbolicAxisRejectReason(fusion)) return reject(*why);
  PointwiseDomainMap map(fusion);
  std::string why_not;
  TensorView* reference = findReferenceTensor(fusion, map, &why_not);
  if (reference == nullptr) return reject(why_not);
  if (std::optional<std::string> why = shapeOpsRejectReason(fusion, reference)) return reject(*why);
  if (std::optional<std::string> why = resizeRejectReason(fusion, reference)) return reject(*why);
  return true;
}

bool PointWiseScheduler::canScheduleRunTime(Fusion* fusion, SchedulerRuntimeInfo& runtime_info) {
  if (blockQuantizeOf(fusion) != nullptr) return true;
  // A schedule iterates over the reference: when it is empty, an output that is not (one
  // broadcast along the empty axis) would never be written.
  PointwiseDomainMap map(fusion);
  TensorView* reference = findReferenceTensor(fusion, map);
  auto numel = [&](const TensorView* tv) {
    int64_t n = 1;
    for (IterDomain* id : tv->getLogicalDomain())
      if (!id->isReduction()) n *= runtime_info.extent(id);
    return n;
  };
  if (numel(reference) != 0) return true;
  for (Val* out : fusion->outputs())
    if (!out->isFusionInput() && numel(out->as<TensorView>()) != 0)
      return reject(fmt::format("the reference {} is empty but output {} is not",
                                reference->toInlineString(), out->toInlineString()));
  return true;
}

namespace {

std::unique_ptr<PointwiseParams> pointwiseHeuristics(Fusion* fusion,
                                                     SchedulerRuntimeInfo& runtime_info) {
  auto params = std::make_unique<PointwiseParams>();
  params->index_type = runtime_info.indexType();
  params->block_size = kBlockSize;
  params->lparams.bind(kBlockSize, ParallelType::TIDx);
  if (Expr* quantize = blockQuantizeOf(fusion)) {
    chooseBlockQuantize(quantize, runtime_info, *params);
    return params;
  }

  PointwiseDomainMap map(fusion);
  TensorView* reference = findReferenceTensor(fusion, map);
  MF_ASSERT(reference != nullptr, "computeHeuristics: no reference tensor (canSchedule refused)");
  const std::vector<IterDomain*> ref_axes = referenceAxesInAllocationOrder(reference);
  std::vector<int64_t> elem_counts;
  int64_t n_elems = 1;
  for (IterDomain* id : ref_axes) {
    elem_counts.push_back(runtime_info.extent(id));
    n_elems *= elem_counts.back();
  }
  // Nothing to compute: the default 1-D parameters, no grid bound.
  if (n_elems == 0) return params;
  // A 0-dim reference, or one of broadcast axes only: one element, computed by one thread
  // (serial loops of extent 1; a tensor squeezed to 0-dim from it is read by that thread).
  if (std::all_of(ref_axes.begin(), ref_axes.end(),
                  [](IterDomain* id) { return id->isBroadcast(); })) {
    params->lparams = LaunchParams();
    return params;
  }

  if (auto* op = dynamic_cast<const PreprocessGroupedMatmulInputSf*>(reference->definition())) {
    if (chooseLayoutTile(fusion, op, runtime_info, *params)) return params;
  } else {
    for (Expr* e : fusion->exprs())
      if (e->isA<PreprocessGroupedMatmulInputSf>())
        params->layout_form = fmt::format("per element: the reference tensor is {}, not its output",
                                          reference->toInlineString());
  }

  const DeviceDescription& device = runtime_info.device();
  const std::vector<TensorView*> vect_tvs = vectorizableInputsOutputs(map, reference);
  int64_t max_dtype_bytes = 1;
  for (TensorView* tv : vect_tvs)
    max_dtype_bytes = std::max(max_dtype_bytes, dataTypeSize(tv->dtype()));
  // nvFuser: fewer elements per vector with many vectorized tensors (registers), and no
  // vectorization when there is less than one wave of blocks.
  int64_t max_vect =
      ceilDiv(kMaxVectorBytes / max_dtype_bytes,
              std::max<int64_t>(lastPow2(std::max<int64_t>(vect_tvs.size(), 1)) >> 2, 1));
  if (n_elems < device.sm_count * kBlockSize || vect_tvs.empty()) max_vect = 1;

  BreakPointSplit split_2d;
  if (n_elems * 2 > device.sm_count * kBlockSize)
    split_2d = chooseBreakPoint(map, ref_axes, elem_counts, n_elems, max_vect, device);

  const int64_t vect =
      vect_tvs.empty() ? 1
                       : std::min(max_vect, vectorizationFactor(runtime_info, map, reference,
                                                                split_2d.break_point, vect_tvs));
  params->vectorization_factor = vect;
  params->break_point = split_2d.break_point;

  if (split_2d.break_point == 0) {
    const int64_t blocks = ceilDiv(n_elems, vect * kBlockSize);
    params->unroll_factor_inner = unrollFactor(blocks, vect * max_dtype_bytes, device);
    const int64_t gdim_x = ceilDiv(blocks, params->unroll_factor_inner);
    params->split_grid_x = gdim_x > kMaxGridDimX;
    params->lparams.bind(std::min(gdim_x, kMaxGridDimX), ParallelType::BIDx);
    return params;
  }

  int64_t right = 1;
  for (size_t i = split_2d.break_point; i < ref_axes.size(); ++i) right *= elem_counts[i];
  const int64_t left = n_elems / right;
  const int64_t blocks = ceilDiv(left, split_2d.bdimy) * ceilDiv(right, split_2d.bdimx * vect);
  const int64_t unroll = unrollFactor(blocks, vect * max_dtype_bytes, device);
  (split_2d.outer_broadcast_dominated ? params->unroll_factor_outer : params->unroll_factor_inner) =
      unroll;
  const int64_t gdim_left = ceilDiv(left, split_2d.bdimy * params->unroll_factor_outer);
  const int64_t gdim_right = ceilDiv(right, split_2d.bdimx * vect * params->unroll_factor_inner);
  params->flip_grid_binding = split_2d.flip_grid_binding;
  params->split_block = split_2d.bdimy > 1;
  const int64_t gdim_y = split_2d.flip_grid_binding ? gdim_right : gdim_left;
  const int64_t gdim_x = split_2d.flip_grid_binding ? gdim_left : gdim_right;
  params->split_grid_y = gdim_y > kMaxGridDimYZ;
  params->lparams.bind(split_2d.bdimx, ParallelType::TIDx);
  if (params->split_block) params->lparams.bind(split_2d.bdimy, ParallelType::TIDy);
  params->split_grid_x = gdim_x > kMaxGridDimX;
  params->lparams.bind(std::min(gdim_x, kMaxGridDimX), ParallelType::BIDx);
  params->lparams.bind(std::min(gdim_y, kMaxGridDimYZ), ParallelType::BIDy);
  return params;
}

}  // namespace

std::unique_ptr<HeuristicParams> PointWiseScheduler::computeHeuristics(
    Fusion* fusion, SchedulerRuntimeInfo& runtime_info) {
  std::unique_ptr<PointwiseParams> params = pointwiseHeuristics(fusion, runtime_info);
  params->noteLaunchBasis();
  return params;
}

}  // namespace mf
