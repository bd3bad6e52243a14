#include "ir/op_traits.h"

#include <fmt/format.h>

#include <algorithm>

#include "ir/block_scaling_factor_layout.h"
#include "ir/exprs.h"
#include "ir/shape_exprs.h"
#include "ir/tensor_view.h"

namespace mf {

bool readsOperandWhole(const Expr* e, const Val* operand) {
  if (auto* op = dynamic_cast<const PreprocessGroupedMatmulInputSf*>(e))
    return op->inputOffsets() == operand || op->outputOffsets() == operand;
  // The block quantizations' runtime function reads every operand itself: the input (its
  // blocks, with 16-byte loads), the global scale and the offsets.
  if (isBlockQuantization(e))
    return operand->kind() == ValKind::TensorView &&
           std::find(e->inputs().begin(), e->inputs().end(), operand) != e->inputs().end();
  return false;
}

bool isReadWhole(const Val* v) {
  return std::any_of(v->uses().begin(), v->uses().end(),
                     [&](const Expr* use) { return readsOperandWhole(use, v); });
}

bool outputWrittenByRuntimeFunction(const Expr* e) {
  return e != nullptr && (e->isA<PreprocessGroupedMatmulInputSf>() || isBlockQuantization(e));
}

bool isBlockQuantization(const Expr* e) {
  return e != nullptr && (e->isA<BlockQuantizationOp>() || e->isA<GroupedBlockQuantizationOp>());
}

int64_t blockQuantizationBlockSize(const Expr* e) {
  if (auto* bq = dynamic_cast<const BlockQuantizationOp*>(e)) return bq->blockSize();
  if (auto* gq = dynamic_cast<const GroupedBlockQuantizationOp*>(e)) return gq->blockSize();
  MF_ASSERT(false, "{} is not a block quantization", e->toString());
  return 0;
}

std::string_view runtimeFunctionOpName(const Expr* e) {
  if (e->isA<BlockQuantizationOp>()) return "blockQuantize";
  if (e->isA<GroupedBlockQuantizationOp>()) return "groupedBlockQuantize";
  return "preprocessGroupedMatmulInputSf";
}

std::string readOfRuntimeFunctionOutputMessage(const Expr* e, const Expr* use) {
  const Val* out = e->output(0);
  for (const Val* o : e->outputs())
    if (std::find(use->inputs().begin(), use->inputs().end(), o) != use->inputs().end()) out = o;
  if (e->isA<BlockQuantizationOp>())
    return fmt::format(
        "unsafe use of the output of blockQuantize: {} is read by {}; its kernel writes its "
        "outputs for a block-scaled GEMM, and no kernel reads float4 or the scales it writes "
        "in the same fusion: make them fusion outputs and read them in another fusion",
        out->toString(), use->output(0)->toString());
  return fmt::format(
      "unsafe use of the output of {}: {} is read by {}, but only a block-scaled grouped GEMM "
      "can read the padded, swizzled layout; do not use it in the fusion",
      runtimeFunctionOpName(e), out->toString(), use->output(0)->toString());
}

bool isResizeOp(const Expr* e) {
  return e->isA<PadOp>() || e->isA<SliceOp>() || e->isA<CatOp>();
}

bool squeezesIterationAxis(const Expr* e) {
  auto* squeeze = dynamic_cast<const SqueezeOp*>(e);
  if (squeeze == nullptr) return false;
  const auto ids = TensorDomain::noReductions(squeeze->in()->as<TensorView>()->getLogicalDomain());
  for (size_t d = 0; d < ids.size(); ++d)
    if (squeeze->isSqueezeDims().at(d) && !ids[d]->isBroadcast()) return true;
  return false;
}

OperandExtentRule operandExtentRule(const Expr* e) {
  OperandExtentRule rule;
  // A broadcast and the shape ops (reshape, squeeze, expand, permute) relate their extents
  // through their IR (root/logical transforms, flags), and a pad's or slice's output axes are
  // resized: nothing is compared position by position. A cat's operands are its inputs padded
  // to its extents: they align (ir/resize_exprs.h).
  if (e->isA<BroadcastOp>() || e->isA<ViewOp>() || e->isA<SqueezeOp>() || e->isA<ExpandOp>() ||
      isPermute(e) || e->isA<PadOp>() || e->isA<SliceOp>())
    return rule;
  // The block quantizations have one data operand (the global scale is 0-dim, the offsets
  // have G entries): nothing to compare; its last extent is whole blocks.
  if (isBlockQuantization(e)) {
    rule.last_extent_multiple_of.emplace_back(e->input(0)->as<TensorView>(),
                                              blockQuantizationBlockSize(e));
    return rule;
  }
  auto* out = e->output(0)->as<TensorView>();
  if (auto* layout = dynamic_cast<const PreprocessGroupedMatmulInputSf*>(e)) {
    rule.aligned.push_back(layout->in()->as<TensorView>());
  } else {
    for (Val* v : e->inputs())
      if (auto* tv = dynamic_cast<TensorView*>(v)) rule.aligned.push_back(tv);
  }
  // A reduction's input has the reduced axes too; a reduction result read by another op
  // (a segment crossing aside) has axes that hold no data: compare the data axes only.
  rule.rank = e->isA<ReductionOp>() ? out->getLogicalDomain().size()
                                    : TensorDomain::noReductions(out->getLogicalDomain()).size();
  return rule;
}

BlockScalingFactorGeometry blockScalingFactorGeometry(BlockScalingFactorLayout layout) {
  switch (layout) {
    case BlockScalingFactorLayout::Block128x4:
      return {128, 4};
  }
  MF_ASSERT(false, "blockScalingFactorGeometry: unknown layout {}", static_cast<int>(layout));
  return {};
}

}  // namespace mf
