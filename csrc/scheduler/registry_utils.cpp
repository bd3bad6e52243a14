#include "scheduler/registry_utils.h"

#include <fmt/format.h>

#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/op_traits.h"

namespace mf {
namespace {

// The ops whose runtime function reads operands whole and writes its outputs itself (the
// layout op, the block quantizations): those operands are fusion inputs of the kernel, the
// outputs are fusion outputs nothing else reads.
std::optional<std::string> runtimeFunctionRejectReason(const Expr* op) {
  const std::string_view name = runtimeFunctionOpName(op);
  const bool layout = op->isA<PreprocessGroupedMatmulInputSf>();
  for (Val* v : op->inputs())
    if (readsOperandWhole(op, v) && !v->isFusionInput())
      return fmt::format(
          "{}: {} {} must be a fusion input (its runtime function reads {} from global memory)",
          name, layout ? "the offsets" : "its operand", v->toInlineString(),
          layout ? "them" : "it");
  for (Val* out : op->outputs()) {
    if (!out->isFusionOutput())
      return fmt::format(
          "{}: its output {} must be a fusion output (only a block-scaled {} "
          "may read {})",
          name, out->toInlineString(), layout ? "grouped GEMM" : "GEMM",
          layout ? "that layout" : "it");
    if (!out->uses().empty()) return readOfRuntimeFunctionOutputMessage(op, out->uses().front());
  }
  if (!op->isA<PreprocessGroupedMatmulInputSf>() && op->fusion()->exprs().size() != 1)
    return fmt::format("{} is scheduled alone, and this kernel computes {} other exprs", name,
                       op->fusion()->exprs().size() - 1);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> commonScheduleRejectReason(Fusion* fusion) {
  for (Expr* e : fusion->exprs()) {
    if (isSegmentSet(e))
      return fmt::format("`{}` marks a segment boundary; the segmenter cuts the fusion there",
                         e->toString());
    if (outputWrittenByRuntimeFunction(e))
      if (std::optional<std::string> why = runtimeFunctionRejectReason(e)) return why;
    // float4 elements have no byte address: kernels neither read nor compute them; only a
    // block quantization's runtime function writes them (two per byte).
    if (!isBlockQuantization(e))
      for (const std::vector<Val*>* vals : {&e->inputs(), &e->outputs()})
        for (Val* v : *vals)
          if (v->dtype() == DataType::Float4_e2m1fn && v->kind() == ValKind::TensorView)
            return fmt::format(
                "`{}` {} the float4_e2m1fn tensor {}: kernels do not read or compute float4 "
                "elements yet; only blockQuantize and groupedBlockQuantize write them",
                e->toString(), vals == &e->inputs() ? "reads" : "computes", v->toInlineString());
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
