// analyzeKernel: the kernel summary from the validated schedule, and the checks that need the
// whole kernel's launch (limits of the hardware, 32-bit indices).
#include <algorithm>
#include <limits>

#include "ir/builder.h"
#include "ir/exprs.h"
#include "lower/index_compute.h"
#include "lower/passes.h"

namespace mf {
namespace {

void addParams(const Fusion& ir, KernelSummary& s) {
  using Kind = KernelParameter::Kind;
  for (size_t i = 0; i < ir.inputs().size(); ++i)
    s.params.push_back({Kind::Input, ir.inputs()[i], static_cast<int64_t>(i)});
  // An output that is an input is the input's buffer: one parameter, not two.
  for (size_t i = 0; i < ir.outputs().size(); ++i)
    if (!ir.outputs()[i]->isFusionInput())
      s.params.push_back({Kind::Output, ir.outputs()[i], static_cast<int64_t>(i)});
  for (TensorView* tv : ir.allTvs())
    if (tv->getMemoryType() == MemoryType::Global && !tv->isFusionInput() && !tv->isFusionOutput())
      s.params.push_back({Kind::Intermediate, tv});
  if (s.has_error_flag) s.params.push_back({Kind::ErrorFlag, nullptr});
  if (s.grid_reduction_dtype) {
    s.params.push_back({Kind::GridWork, nullptr});
    s.params.push_back({Kind::GridSemaphores, nullptr});
  }
}

// Reductions across blocks need a work buffer and semaphores: one group of slots per thread
// and block for each (validateSchedule allows several only when they finish in place, or when
// they are one group of groupReductions: one call, the members' slots one after the other).
void addGridReduction(const Fusion& ir, KernelSummary& s) {
  const std::vector<TensorView*> grids = gridReductions(ir);
  if (grids.empty()) return;
  s.grid_reductions = static_cast<int64_t>(grids.size());
  s.grid_reductions_finish_in_place = gridReductionsFinishInPlace(ir);
  // One type for the work buffer: the in-place form's share one (validateSchedule); a group's
  // members (the returning form) may differ: each value takes a slot of the widest.
  s.grid_reduction_dtype = computeType(grids.front()->dtype());
  for (TensorView* out : grids)
    if (dataTypeSizeBit(computeType(out->dtype())) > dataTypeSizeBit(*s.grid_reduction_dtype))
      s.grid_reduction_dtype = computeType(out->dtype());
  s.grid_reduction_dim = gridReductionDim(grids.front());
  s.grid_reduction_group = 0;
  for (TensorView* out : grids) {
    // The group: iteration axes after the first reduction axis (constant: validateSchedule).
    const auto& loop = out->getLoopDomain();
    auto first =
        std::find_if(loop.begin(), loop.end(), [](IterDomain* id) { return id->isReduction(); });
    int64_t group = 1;
    for (auto it = first; it != loop.end(); ++it)
      if (!(*it)->isReduction() && !isThreadDim((*it)->parallelType()) &&
          !isBlockDim((*it)->parallelType()))
        group *= *(*it)->extent()->constInt();
    s.grid_reduction_group += group;
  }
}

// Every loop of a tensor expr's output bound to a thread or block index is launched; the
// launch is as wide as the widest such loop.
void addParallelDims(const Fusion& ir, KernelSummary& s) {
  constexpr ParallelType kOrder[] = {ParallelType::TIDx, ParallelType::TIDy, ParallelType::TIDz,
                                     ParallelType::BIDx, ParallelType::BIDy, ParallelType::BIDz};
  for (ParallelType p : kOrder) {
    ParallelDimension dim{p, {}, std::nullopt};
    for (Expr* e : ir.exprs())
      for (Val* out : e->outputs())
        for (IterDomain* id : out->as<TensorView>()->getLoopDomain()) {
          if (id->parallelType() != p) continue;
          std::string printed = id->extent()->toInlineString();
          bool seen = std::any_of(dim.extents.begin(), dim.extents.end(),
                                  [&](Val* x) { return x->toInlineString() == printed; });
          if (!seen) dim.extents.push_back(id->extent());
        }
    if (dim.extents.empty()) continue;
    dim.constant_size = 1;
    for (Val* e : dim.extents)
      dim.constant_size =
          e->isConst() ? std::max(*dim.constant_size, *e->constInt()) : std::optional<int64_t>();
    s.parallel_dims.push_back(std::move(dim));
  }
}

// Threads per SM a tile-form layout op kernel asks ptxas to leave registers for
// (KernelSummary::min_blocks_per_sm): 12 blocks of 128.
constexpr int64_t kLayoutTileThreadsPerSm = 1536;

// What codegen tells nvcc and ptxas about the block: its thread count when constant, and the
// constant sizes of its thread dimensions when a block reduction's index math divides by them.
void addBlockSize(const Fusion& ir, KernelSummary& s) {
  int64_t threads = 1;
  bool any = false, constant = true;
  for (const ParallelDimension& d : s.parallel_dims) {
    if (!isThreadDim(d.type)) continue;
    any = true;
    constant = constant && d.constant_size.has_value();
    threads *= d.constant_size.value_or(1);
  }
  if (any && constant) s.block_threads = threads;
  for (Expr* e : ir.exprs())
    if (auto* op = dynamic_cast<PreprocessGroupedMatmulInputSf*>(e);
        op && op->form() == LayoutOpForm::Tile && s.block_threads)
      s.min_blocks_per_sm = std::max<int64_t>(1, kLayoutTileThreadsPerSm / *s.block_threads);
  for (TensorView* tv : ir.allTvs())
    for (IterDomain* id : tv->getLoopDomain())
      s.assume_block_size |= id->isReduction() && id->parallelType() == ParallelType::TIDx;
}

// Whole-vector set() copies read and write their global operands a vector at a time. The
// gather-form layout op vectorizes its own padded buffer, checked on the device.
void addVectorized(const Fusion& ir, KernelSummary& s) {
  for (Expr* e : ir.exprs()) {
    if (!e->isA<LoadStoreOp>()) continue;
    auto* out = e->output(0)->as<TensorView>();
    IterDomain* inner = out->nDims() > 0 ? out->axis(out->nDims() - 1) : nullptr;
    if (inner == nullptr || inner->parallelType() != ParallelType::Vectorize) continue;
    int64_t width = *inner->extent()->constInt();
    for (Val* v : {e->input(0), e->output(0)}) {
      auto* tv = v->as<TensorView>();
      bool seen = std::any_of(s.vectorized.begin(), s.vectorized.end(),
                              [&](const VectorizedAccess& a) { return a.tv == tv; });
      if (tv->getMemoryType() == MemoryType::Global && !seen) s.vectorized.push_back({tv, width});
    }
  }
}

int64_t positionOf(const std::vector<Val*>& vals, const Val* v) {
  return std::find(vals.begin(), vals.end(), v) - vals.begin();
}

void addLayoutOp(const Fusion& ir, KernelSummary& s) {
  for (Expr* e : ir.exprs()) {
    // groupedBlockQuantize writes its scales with the layout op's runtime function.
    if (auto* gq = dynamic_cast<GroupedBlockQuantizationOp*>(e)) {
      s.has_error_flag = true;
      s.error_op = "groupedBlockQuantize";
      if (gq->blockScales()->isFusionOutput())
        s.padded_outputs.push_back({positionOf(ir.outputs(), gq->blockScales()),
                                    positionOf(ir.inputs(), gq->inputOffsets()),
                                    positionOf(ir.inputs(), gq->outputOffsets())});
      continue;
    }
    auto* op = dynamic_cast<PreprocessGroupedMatmulInputSf*>(e);
    if (op == nullptr) continue;
    s.has_error_flag = true;
    if (op->out()->isFusionOutput())
      s.padded_outputs.push_back({positionOf(ir.outputs(), op->out()),
                                  positionOf(ir.inputs(), op->inputOffsets()),
                                  positionOf(ir.inputs(), op->outputOffsets())});
  }
}

// Shared tensors: static when their size is a constant, else a slice of dynamic shared memory.
void addSharedMemory(Fusion& ir, KernelSummary& s) {
  FusionGuard fg(&ir);
  for (TensorView* tv : ir.allTvs()) {
    if (tv->getMemoryType() != MemoryType::Shared) continue;
    Val* bytes =
        SimplifyingIrBuilder::mul(localBufferSize(tv), constInt(dataTypeSize(tv->dtype())));
    Val* aligned =
        SimplifyingIrBuilder::mul(SimplifyingIrBuilder::ceilDiv(bytes, constInt(16)), constInt(16));
    if (std::optional<int64_t> c = aligned->constInt()) {
      s.static_smem_bytes += *c;
      continue;
    }
    Val* offset = s.dynamic_smem_bytes != nullptr ? s.dynamic_smem_bytes : constInt(0);
    s.dynamic_smem_offsets.emplace_back(tv, offset);
    s.dynamic_smem_bytes = SimplifyingIrBuilder::add(offset, aligned);
  }
}

// Constant extents are known now: a launch they make impossible is reported at compile time
// rather than by the driver.
void checkConstantLaunch(const KernelSummary& s) {
  std::vector<int64_t> sizes;
  for (const ParallelDimension& d : s.parallel_dims) {
    int64_t n = 1;
    for (Val* e : d.extents) n = std::max(n, e->constInt().value_or(1));
    sizes.push_back(n);
  }
  checkLaunchLimits(s.parallel_dims, sizes, "constant extents");
}

// With 32-bit indices every constant extent, split factor and constant-shaped tensor's
// element count must fit in an int.
void checkInt32(const Fusion& ir) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  auto check = [&](TensorView* tv, Val* v, std::string_view what) {
    std::optional<int64_t> c = v->constInt();
    MF_CHECK(!c || *c <= kMax,
             "{}: {} {} does not fit the kernel's 32-bit indices; compile with "
             "CompileOptions::index_type = Int64",
             tv->toString(), what, *c);
  };
  for (TensorView* tv : ir.allTvs()) {
    for (IterDomain* id : tv->domain()->allIds()) check(tv, id->extent(), "the constant extent");
    for (Expr* t : tv->domain()->allTransforms())
      visitIdExpr(
          t, [&](Split* split) { check(tv, split->factor(), "the split factor"); },
          [](Merge*) {},  // a merge has no scalar operand
          [&](Resize* resize) {
            check(tv, resize->left(), "the resize width");
            check(tv, resize->right(), "the resize width");
          });
    int64_t numel = 1;
    bool constant = true;
    for (IterDomain* id : tv->getMaybeAllocationDomain()) {
      std::optional<int64_t> c = id->extent()->constInt();
      constant = constant && c.has_value();
      if (c) numel = *c > 0 && numel > kMax / *c ? kMax + 1 : numel * *c;
    }
    MF_CHECK(!constant || numel <= kMax,
             "{}: more than {} elements do not fit the kernel's 32-bit indices; compile with "
             "CompileOptions::index_type = Int64",
             tv->toString(), kMax);
  }
}

}  // namespace

void analyzeKernel(Kernel& kernel) {
  const Fusion& ir = kernel.ir();
  KernelSummary s;
  addLayoutOp(ir, s);
  addGridReduction(ir, s);
  addParams(ir, s);
  addParallelDims(ir, s);
  addBlockSize(ir, s);
  addVectorized(ir, s);
  addSharedMemory(kernel.ir(), s);
  checkConstantLaunch(s);
  if (kernel.indexType() == DataType::Int32) checkInt32(ir);
  kernel.summary() = std::move(s);
}

}  // namespace mf
