#include <vector>

#include "ir/builder.h"
#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/tensor_view.h"
#include "passes/passes.h"

namespace mf {
namespace {

// reciprocal(s) and broadcast(r, flags) built node by node as ops/arith.cpp builds them (the
// same nodes in the same order, so the kernels keep their names); passes/ sits below ops/.
TensorView* reciprocalOf(TensorView* s) {
  std::vector<IterDomain*> ids;
  for (IterDomain* id : TensorDomain::noReductions(s->getLogicalDomain()))
    ids.push_back(id->isBroadcast()
                      ? IterDomainBuilder(constInt(1)).iterType(IterType::Broadcast).build()
                      : id->freshCopy());
  auto* out = IrBuilder::create<TensorView>(IrBuilder::create<TensorDomain>(ids), s->dtype());
  IrBuilder::create<UnaryOp>(std::vector<Val*>{s}, std::vector<Val*>{out}, UnaryOpType::Reciprocal);
  return out;
}

TensorView* broadcastOf(TensorView* x, const std::vector<bool>& flags) {
  const std::vector<IterDomain*> in_ids = TensorDomain::noReductions(x->getLogicalDomain());
  std::vector<IterDomain*> ids;
  size_t next = 0;
  for (bool b : flags)
    ids.push_back(b ? IterDomainBuilder(constInt(1)).iterType(IterType::Broadcast).build()
                    : in_ids[next++]->freshCopy());
  auto* out = IrBuilder::create<TensorView>(IrBuilder::create<TensorDomain>(ids), x->dtype());
  IrBuilder::create<BroadcastOp>(std::vector<Val*>{x}, std::vector<Val*>{out}, flags);
  return out;
}

}  // namespace

void multiplyByRowReciprocals(Fusion& fusion, const FusionPassRequest& request) {
  const int64_t row_rank = request.row_rank;
  for (Expr* e : fusion.exprs()) {
    auto* div = dynamic_cast<BinaryOp*>(e);
    if (div == nullptr || div->opType() != BinaryOpType::Div) continue;
    auto* x = dynamic_cast<TensorView*>(div->lhs());
    auto* divisor = dynamic_cast<TensorView*>(div->rhs());
    if (x == nullptr || divisor == nullptr || div->output(0)->dtype() != DataType::Float ||
        divisor->dtype() != DataType::Float || computeType(div) != DataType::Float)
      continue;
    auto* bcast = dynamic_cast<BroadcastOp*>(divisor->definition());
    if (bcast == nullptr) continue;
    const std::vector<bool>& flags = bcast->isBroadcastDims();
    const auto first_row = static_cast<int64_t>(flags.size()) - row_rank;
    bool over_row = first_row >= 0;
    for (int64_t i = 0; over_row && i < static_cast<int64_t>(flags.size()); ++i)
      over_row = flags[i] == (i >= first_row);
    if (!over_row) continue;
    TensorView* inverse = broadcastOf(reciprocalOf(bcast->in()->as<TensorView>()), flags);
    Val* out = div->output(0);
    fusion.removeExpr(div);
    IrBuilder::create<BinaryOp>(std::vector<Val*>{x, inverse}, std::vector<Val*>{out},
                                BinaryOpType::Mul);
    // The old broadcast is dead now unless something else reads it.
    if (divisor->uses().empty() && !divisor->isFusionOutput()) fusion.removeExpr(bcast);
  }
}

}  // namespace mf
