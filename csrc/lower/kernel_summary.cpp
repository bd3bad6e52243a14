#include "lower/kernel_summary.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "ir/expr_evaluator.h"
#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/tensor_view.h"

namespace mf {
namespace {

std::vector<std::string> printed(const std::vector<Val*>& vals) {
  std::vector<std::string> out;
  for (Val* v : vals) out.push_back(v->toInlineString());
  return out;
}

}  // namespace

const ParallelDimension* KernelSummary::dimension(ParallelType p) const {
  for (const ParallelDimension& d : parallel_dims)
    if (d.type == p) return &d;
  return nullptr;
}

void checkLaunchLimits(const std::vector<ParallelDimension>& dims,
                       const std::vector<int64_t>& sizes, std::string_view what) {
  // The limits of every device since sm_30 (CUDA C++ Programming Guide, "Technical
  // Specifications per Compute Capability").
  int64_t threads = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    ParallelType p = dims[i].type;
    int64_t limit = p == ParallelType::TIDz                              ? 64
                    : isThreadDim(p)                                     ? 1024
                    : p == ParallelType::BIDy || p == ParallelType::BIDz ? 65535
                                                                         : (int64_t{1} << 31) - 1;
    MF_CHECK(sizes[i] <= limit,
             "{} launch {} = {} (extents: {}), past the limit of {}; split the axes bound to {} "
             "and bind "
             "the outer part to another dimension or leave it serial",
             what, toString(p), sizes[i], fmt::join(printed(dims[i].extents), ", "), limit,
             toString(p));
    if (isThreadDim(p)) threads *= sizes[i];
  }
  MF_CHECK(threads <= 1024,
           "{} launch {} threads per block, past the limit of 1024; bind fewer or narrower axes "
           "to TIDx, TIDy and TIDz",
           what, threads);
}

std::vector<int64_t> KernelSummary::launchSizes(ExpressionEvaluator& ee) const {
  std::vector<int64_t> sizes;
  for (const ParallelDimension& d : parallel_dims) {
    int64_t n = 0;
    for (Val* e : d.extents) n = std::max(n, ee.evaluateInt(e, "a parallelized extent"));
    sizes.push_back(n);
  }
  checkLaunchLimits(parallel_dims, sizes, "these inputs");
  return sizes;
}

std::string KernelSummary::describeError(int flag) const {
  std::string what;
  if (flag & 1) what += " a computed position fell outside the padded output buffer;";
  if (flag & 2)
    what +=
        " input_offsets are not valid group starts (first must be 0, "
        "non-decreasing, at most M);";
  if (flag & 4) what += " output_offsets are not each group's start rounded up to 128 rows;";
  return fmt::format(
      "{}: bad offsets detected on the GPU (error flag {}):{} no element was written out of "
      "bounds",
      error_op, flag, what);
}

namespace {

std::string_view kindName(KernelParameter::Kind k) {
  switch (k) {
    case KernelParameter::Kind::Input:
      return "input";
    case KernelParameter::Kind::Output:
      return "output";
    case KernelParameter::Kind::Intermediate:
      return "intermediate";
    case KernelParameter::Kind::ErrorFlag:
      return "error flag";
    case KernelParameter::Kind::GridWork:
      return "grid work";
    case KernelParameter::Kind::GridSemaphores:
      return "grid semaphores";
  }
  return "?";
}

// How the signature declares a parameter that is no IR value.
std::string_view unnamedParameter(KernelParameter::Kind k) {
  switch (k) {
    case KernelParameter::Kind::GridWork:
      return "void* mf_grid_work";
    case KernelParameter::Kind::GridSemaphores:
      return "unsigned* mf_grid_semaphores";
    default:
      return "int* mf_error";
  }
}

}  // namespace

std::vector<TensorView*> gridReductions(const Fusion& ir) {
  std::vector<TensorView*> grids;
  for (Expr* e : ir.exprs()) {
    if (!e->isA<ReductionOp>()) continue;
    auto* out = e->output(0)->as<TensorView>();
    const auto& loop = out->getLoopDomain();
    if (std::any_of(loop.begin(), loop.end(), [](IterDomain* id) {
          return id->isReduction() && isBlockDim(id->parallelType());
        }))
      grids.push_back(out);
  }
  return grids;
}

ParallelType gridReductionDim(const TensorView* out) {
  for (IterDomain* id : out->getLoopDomain())
    if (id->isReduction() && isBlockDim(id->parallelType())) return id->parallelType();
  return ParallelType::Serial;
}

int64_t gridReductionCalls(const std::vector<TensorView*>& grids) {
  std::set<int64_t> groups;
  int64_t alone = 0;
  for (TensorView* tv : grids) {
    const int64_t group = tv->definition()->as<ReductionOp>()->group();
    group < 0 ? ++alone : (groups.insert(group), 0);
  }
  return alone + static_cast<int64_t>(groups.size());
}

bool gridReductionsFinishInPlace(const Fusion& ir) {
  const std::vector<TensorView*> grids = gridReductions(ir);
  const bool outputs_only = std::all_of(grids.begin(), grids.end(), [](TensorView* tv) {
    return tv->getMemoryType() == MemoryType::Global && tv->isFusionOutput() && tv->uses().empty();
  });
  // The returning form does for one call that writes every output.
  return !grids.empty() && outputs_only &&
         (gridReductionCalls(grids) > 1 || ir.outputs().size() > grids.size());
}

std::string KernelSummary::toString() const {
  std::string s = "%summary {\n  params:\n";
  for (const KernelParameter& p : params) {
    std::string index = p.index >= 0 ? fmt::format(" {}", p.index) : "";
    s += fmt::format("    {}{}: {}\n", kindName(p.kind), index,
                     p.val != nullptr ? p.val->toString() : unnamedParameter(p.kind));
  }
  s += fmt::format("  shared memory: {} static bytes, dynamic {}\n", static_smem_bytes,
                   dynamic_smem_bytes != nullptr ? dynamic_smem_bytes->toInlineString() : "none");
  s += "  launch:\n";
  for (const ParallelDimension& d : parallel_dims) {
    std::vector<std::string> extents = printed(d.extents);
    s += extents.size() == 1
             ? fmt::format("    {} = {}\n", mf::toString(d.type), extents[0])
             : fmt::format("    {} = max({})\n", mf::toString(d.type), fmt::join(extents, ", "));
  }
  if (block_threads) s += fmt::format("  block threads: {} (launch bounds)\n", *block_threads);
  if (min_blocks_per_sm)
    s += fmt::format("  blocks per SM: {} (launch bounds)\n", *min_blocks_per_sm);
  if (assume_block_size) {
    std::vector<std::string> sizes;
    for (const ParallelDimension& d : parallel_dims)
      if (isThreadDim(d.type) && d.constant_size)
        sizes.push_back(fmt::format("{} = {}", mf::toString(d.type), *d.constant_size));
    s += fmt::format("  block size assumed (block reduction): {}\n", fmt::join(sizes, ", "));
  }
  for (const VectorizedAccess& v : vectorized)
    s += fmt::format("  vectorized: T{} by {}\n", v.tv->name(), v.width);
  if (has_error_flag) s += "  error flag: layout op\n";
  if (grid_reduction_dtype)
    s += fmt::format("  grid reduction: {}{}\n", *grid_reduction_dtype,
                     grid_reduction_group > 1
                         ? fmt::format(", {} values per thread", grid_reduction_group)
                         : "");
  if (grid_reductions_finish_in_place)
    s += fmt::format("  grid reductions: {}, finished in place by the last block\n",
                     grid_reductions);
  s += fmt::format("  min compute capability: {}.{}\n", min_compute_capability.first,
                   min_compute_capability.second);
  return s + "} // %summary\n";
}

}  // namespace mf
