#include "ops/layout.h"

#include "ir/block_scaling_factor_layout.h"
#include "ir/builder.h"
#include "ir/fusion.h"
#include "ops/operands.h"

namespace mf {
namespace {
constexpr std::string_view kOp = "preprocessGroupedMatmulInputSf";
}  // namespace

void checkGroupOffsets(std::string_view op, TensorView* input_offsets, TensorView* output_offsets) {
  for (auto [name, off] :
       {std::pair{"input_offsets", input_offsets}, std::pair{"output_offsets", output_offsets}}) {
    MF_CHECK(off->getLogicalDomain().size() == 1, "{}: {} {} must be 1-D [G], got rank {}", op,
             name, off->toString(), off->getLogicalDomain().size());
    MF_CHECK(off->dtype() == DataType::Int32 || off->dtype() == DataType::Int64,
             "{}: {} {} must be Int32 or Int64, got {}", op, name, off->toInlineString(),
             off->dtype());
  }
  MF_CHECK(input_offsets->dtype() == output_offsets->dtype(),
           "{}: input_offsets {} and output_offsets {} must have the same dtype, got {} and {}", op,
           input_offsets->toInlineString(), output_offsets->toInlineString(),
           input_offsets->dtype(), output_offsets->dtype());
  Val* g = input_offsets->getLogicalDomain()[0]->extent();
  Val* g_out = output_offsets->getLogicalDomain()[0]->extent();
  auto gi = g->constInt(), go = g_out->constInt();
  MF_CHECK(!gi || !go || *gi == *go,
           "{}: input_offsets {} has {} groups but output_offsets {} has {}", op,
           input_offsets->toInlineString(), *gi, output_offsets->toInlineString(), *go);
}

TensorView* blockScalingFactorOutput(std::vector<IterDomain*> logical, Val* g,
                                     BlockScalingFactorLayout layout, DataType dtype) {
  MF_ASSERT(logical.size() == 2, "blockScalingFactorOutput: [M, K] expected");
  Val* m = logical[0]->extent();
  Val* k = logical[1]->extent();
  // Worst-case padding (BlockScalingFactorGeometry::paddedRows / paddedCols, symbolically):
  // each group can need up to tile_rows - 1 pad rows; columns round up to tile_cols.
  const BlockScalingFactorGeometry geometry = blockScalingFactorGeometry(layout);
  Val* padded_rows =
      SimplifyingIrBuilder::add(m, SimplifyingIrBuilder::mul(g, constInt(geometry.tile_rows - 1)));
  Val* padded_cols = SimplifyingIrBuilder::mul(
      SimplifyingIrBuilder::ceilDiv(k, constInt(geometry.tile_cols)), constInt(geometry.tile_cols));
  std::vector<IterDomain*> allocation = {IterDomainBuilder(padded_rows).build(),
                                         IterDomainBuilder(padded_cols).build()};
  auto* td = IrBuilder::create<TensorDomain>(std::move(logical));
  td->setDeclaredAllocationDomain(allocation, {true, true});
  return IrBuilder::create<TensorView>(td, dtype);
}

TensorView* preprocessGroupedMatmulInputSf(TensorView* input, TensorView* input_offsets,
                                           TensorView* output_offsets,
                                           BlockScalingFactorLayout layout) {
  // The op builds into its input's fusion.
  checkOperand(kOp, "input", input, input ? input->fusion() : nullptr, "the input's");
  checkOperand(kOp, "input_offsets", input_offsets, input->fusion(), "the input's");
  checkOperand(kOp, "output_offsets", output_offsets, input->fusion(), "the input's");
  MF_CHECK(layout == BlockScalingFactorLayout::Block128x4,
           "{}: unknown layout {} for output of {}; the only layout is Block128x4", kOp,
           static_cast<int>(layout), input->toInlineString());
  std::vector<IterDomain*> in_ids;
  for (IterDomain* id : input->getLogicalDomain())
    if (!id->isReduction()) in_ids.push_back(id);
  MF_CHECK(in_ids.size() == 2, "{}: input {} must be 2-D [M, K], got rank {}", kOp,
           input->toString(), in_ids.size());
  checkGroupOffsets(kOp, input_offsets, output_offsets);

  Fusion* f = input->fusion();
  FusionGuard fg(f);
  Val* k = in_ids[1]->extent();
  Val* g = input_offsets->getLogicalDomain()[0]->extent();
  TensorView* out = blockScalingFactorOutput({in_ids[0]->freshCopy(), in_ids[1]->freshCopy()}, g,
                                             layout, input->dtype());
  IrBuilder::create<PreprocessGroupedMatmulInputSf>(
      std::vector<Val*>{input, input_offsets, output_offsets, k, g}, std::vector<Val*>{out},
      layout);
  return out;
}

}  // namespace mf
