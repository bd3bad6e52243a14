#include "scheduler/registry_utils.h"

#include <fmt/format.h>

#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/op_traits.h"

namespace mf {
namespace {

std::optional<std::string> layoutOpRejectReason(const PreprocessGroupedMatmulInputSf* op) {
  for (Val* offsets : op->inputs())
    if (readsOperandWhole(op, offsets) && !offsets->isFusionInput())
      return fmt::format(
          "preprocessGroupedMatmulInputSf: the offsets {} must be a fusion input (its runtime "
          "function reads them from global memory)",
          offsets->toInlineString());
  Val* out = op->out();
  if (!out->isFusionOutput())
    return fmt::format(
        "preprocessGroupedMatmulInputSf: its output {} must be a fusion output (only a "
        "block-scaled grouped GEMM may read that layout)",
        out->toInlineString());
  if (!out->uses().empty()) return readOfRuntimeFunctionOutputMessage(op, out->uses().front());
  return std::nullopt;
}

}  // namespace

std::optional<std::string> commonScheduleRejectReason(Fusion* fusion) {
  for (Expr* e : fusion->exprs()) {
    if (isSegmentSet(e))
      return fmt::format("`{}` marks a segment boundary; the segmenter cuts the fusion there",
                         e->toString());
    if (auto* op = dynamic_cast<PreprocessGroupedMatmulInputSf*>(e))
      if (std::optional<std::string> why = layoutOpRejectReason(op)) return why;
    // The CPU reference evaluates them; their kernel (one thread per 16-value block) is the
    // next step of the NVFP4 issue (docs/numerics.md).
    if (e->isA<BlockQuantizationOp>() || e->isA<GroupedBlockQuantizationOp>())
      return fmt::format(
          "{}: no scheduler generates its kernel yet; ReferenceEvaluator computes it: `{}`",
          e->isA<BlockQuantizationOp>() ? "blockQuantize" : "groupedBlockQuantize", e->toString());
  }
  return std::nullopt;
}

std::optional<std::string> resizeOpRejectReason(Fusion* fusion, std::string_view scheduler) {
  for (Expr* e : fusion->exprs())
    if (isResizeOp(e))
      return fmt::format(
          "the {} scheduler does not schedule resize ops (pad, slice, cat): `{}`; only the "
          "pointwise scheduler does",
          scheduler, e->toString());
  return std::nullopt;
}

}  // namespace mf
