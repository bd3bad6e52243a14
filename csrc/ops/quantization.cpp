#include "ops/quantization.h"

#include "ir/builder.h"
#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/tensor_view.h"
#include "ops/layout.h"
#include "ops/operands.h"

namespace mf {
namespace {

// The checks both ops make (UserError naming `op`): the input's dtype and its last extent, the
// supported block size and dtype, a 0-dim floating global scale. Returns the input's axes.
std::vector<IterDomain*> checkQuantizeOperands(std::string_view op, TensorView* input,
                                               TensorView* global_scale, int64_t block_size,
                                               DataType out_dtype) {
  checkOperand(op, "input", input, input ? input->fusion() : nullptr, "the input's");
  if (global_scale != nullptr)
    checkOperand(op, "global_scaling_factor", global_scale, input->fusion(), "the input's");
  MF_CHECK(block_size == 16, "{}: block_size must be 16 (NVFP4's block), got {}", op, block_size);
  MF_CHECK(out_dtype == DataType::Float4_e2m1fn,
           "{}: out_dtype must be Float4_e2m1fn (NVFP4), got {}", op, out_dtype);
  const DataType dt = input->dtype();
  MF_CHECK(dt == DataType::Float || dt == DataType::BFloat16 || dt == DataType::Half,
           "{}: input {} must be Float, BFloat16 or Half, got {}", op, input->toInlineString(), dt);
  std::vector<IterDomain*> ids = TensorDomain::noReductions(input->getLogicalDomain());
  MF_CHECK(!ids.empty(),
           "{}: input {} must have at least one axis (the blocks' axis), got a 0-dim tensor", op,
           input->toInlineString());
  if (auto k = ids.back()->extent()->constInt())
    MF_CHECK(*k % block_size == 0,
             "{}: the last extent of input {} must be a multiple of the block size {}, got {}", op,
             input->toInlineString(), block_size, *k);
  if (global_scale != nullptr) {
    MF_CHECK(TensorDomain::noReductions(global_scale->getLogicalDomain()).empty(),
             "{}: global_scaling_factor {} must be a 0-dim tensor, got rank {}", op,
             global_scale->toInlineString(), global_scale->getLogicalDomain().size());
    MF_CHECK(isFloatingType(global_scale->dtype()) && !isSubByteType(global_scale->dtype()),
             "{}: global_scaling_factor {} must be floating, got {}", op,
             global_scale->toInlineString(), global_scale->dtype());
  }
  return ids;
}

// [.., K] -> [.., K / block_size]: the scales' axes (fresh copies of all but the last).
std::vector<IterDomain*> scaleAxes(const std::vector<IterDomain*>& ids, int64_t block_size) {
  std::vector<IterDomain*> out;
  for (size_t d = 0; d + 1 < ids.size(); ++d) out.push_back(ids[d]->freshCopy());
  out.push_back(
      IterDomainBuilder(SimplifyingIrBuilder::div(ids.back()->extent(), constInt(block_size)))
          .build());
  return out;
}

std::vector<IterDomain*> freshCopies(const std::vector<IterDomain*>& ids) {
  std::vector<IterDomain*> out;
  for (IterDomain* id : ids) out.push_back(id->freshCopy());
  return out;
}

}  // namespace

BlockQuantizationResults blockQuantize(TensorView* input, TensorView* global_scaling_factor,
                                       int64_t block_size, bool swizzle_scales,
                                       DataType out_dtype) {
  constexpr std::string_view kOp = "blockQuantize";
  const std::vector<IterDomain*> ids =
      checkQuantizeOperands(kOp, input, global_scaling_factor, block_size, out_dtype);
  MF_CHECK(!swizzle_scales,
           "{}: swizzle_scales = true is not supported; groupedBlockQuantize writes the scales "
           "of input {} in the swizzled layout",
           kOp, input->toInlineString());
  FusionGuard fg(input->fusion());
  auto* scales = IrBuilder::create<TensorView>(
      IrBuilder::create<TensorDomain>(scaleAxes(ids, block_size)), DataType::Float8_e4m3fn);
  auto* quantized = IrBuilder::create<TensorView>(IrBuilder::create<TensorDomain>(freshCopies(ids)),
                                                  DataType::Float4_e2m1fn);
  std::vector<Val*> inputs = {input};
  if (global_scaling_factor != nullptr) inputs.push_back(global_scaling_factor);
  IrBuilder::create<BlockQuantizationOp>(std::move(inputs), std::vector<Val*>{scales, quantized},
                                         block_size);
  return {quantized, scales};
}

BlockQuantizationResults groupedBlockQuantize(TensorView* input, TensorView* input_offsets,
                                              TensorView* output_offsets,
                                              BlockScalingFactorLayout layout,
                                              TensorView* global_scaling_factor, int64_t block_size,
                                              DataType out_dtype) {
  constexpr std::string_view kOp = "groupedBlockQuantize";
  const std::vector<IterDomain*> ids =
      checkQuantizeOperands(kOp, input, global_scaling_factor, block_size, out_dtype);
  checkOperand(kOp, "input_offsets", input_offsets, input->fusion(), "the input's");
  checkOperand(kOp, "output_offsets", output_offsets, input->fusion(), "the input's");
  MF_CHECK(layout == BlockScalingFactorLayout::Block128x4,
           "{}: unknown layout {} for the scales of {}; the only layout is Block128x4", kOp,
           static_cast<int>(layout), input->toInlineString());
  MF_CHECK(ids.size() == 2, "{}: input {} must be 2-D [M, K], got rank {}", kOp, input->toString(),
           ids.size());
  checkGroupOffsets(kOp, input_offsets, output_offsets);
  FusionGuard fg(input->fusion());
  Val* g = input_offsets->getLogicalDomain()[0]->extent();
  std::vector<IterDomain*> scale_ids = scaleAxes(ids, block_size);
  Val* cols = scale_ids[1]->extent();
  TensorView* scales =
      blockScalingFactorOutput(std::move(scale_ids), g, layout, DataType::Float8_e4m3fn);
  auto* quantized = IrBuilder::create<TensorView>(IrBuilder::create<TensorDomain>(freshCopies(ids)),
                                                  DataType::Float4_e2m1fn);
  std::vector<Val*> inputs = {input, input_offsets, output_offsets, cols, g};
  if (global_scaling_factor != nullptr) inputs.push_back(global_scaling_factor);
  IrBuilder::create<GroupedBlockQuantizationOp>(
      std::move(inputs), std::vector<Val*>{scales, quantized}, layout, block_size);
  return {quantized, scales};
}

}  // namespace mf
