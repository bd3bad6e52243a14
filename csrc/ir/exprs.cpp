#include "ir/exprs.h"

#include "ir/fusion.h"
#include "ir/tensor_view.h"

namespace mf {

std::string_view toString(UnaryOpType t) {
  switch (t) {
#define MF_OP_NAME(e, s) \
  case UnaryOpType::e:   \
    return s;
    MF_UNARY_OPS(MF_OP_NAME)
#undef MF_OP_NAME
  }
  return "?";
}

std::string_view toString(BinaryOpType t) {
  switch (t) {
#define MF_OP_NAME(e, s) \
  case BinaryOpType::e:  \
    return s;
    MF_BINARY_OPS(MF_OP_NAME)
#undef MF_OP_NAME
  }
  return "?";
}

std::string_view toString(TernaryOpType t) {
  switch (t) {
#define MF_OP_NAME(e, s) \
  case TernaryOpType::e: \
    return s;
    MF_TERNARY_OPS(MF_OP_NAME)
#undef MF_OP_NAME
  }
  return "?";
}

std::string_view toString(BlockScalingFactorLayout l) {
  switch (l) {
    case BlockScalingFactorLayout::Block128x4:
      return "Block128x4";
  }
  return "?";
}

bool isInfix(BinaryOpType t) {
  using enum BinaryOpType;
  return t != CeilDiv && t != Maximum && t != Minimum && t != Pow;
}

DataType computeType(const BinaryOp* op) {
  DataType t = op->out()->dtype();
  if (isPredicateOp(op->opType())) {
    // Kernel IR operands (TensorIndex) count as tensors.
    bool ta = op->lhs()->kind() != ValKind::Scalar, tb = op->rhs()->kind() != ValKind::Scalar;
    t = (ta == tb) ? promoteTypes(op->lhs()->dtype(), op->rhs()->dtype())
        : ta       ? promoteWithScalar(op->lhs()->dtype(), op->rhs()->dtype())
                   : promoteWithScalar(op->rhs()->dtype(), op->lhs()->dtype());
  }
  return computeType(t);
}

bool isFloatOnlyOp(UnaryOpType t) {
  using enum UnaryOpType;
  return t == Exp || t == Log || t == Sqrt || t == Rsqrt || t == Reciprocal || t == Tanh ||
         t == Sigmoid || t == Sin || t == Cos;
}

bool isPredicateOp(BinaryOpType t) {
  using enum BinaryOpType;
  return t == Eq || t == Ne || t == Lt || t == Le || t == Gt || t == Ge || t == LogicalAnd ||
         t == LogicalOr;
}

UnaryOp::UnaryOp(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs, UnaryOpType op)
    : Expr(f, ExprKind::UnaryOp, std::move(ins), std::move(outs)), op_(op) {}
Expr* UnaryOp::newObject(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs) const {
  return IrBuilder::createIn<UnaryOp>(f, std::move(ins), std::move(outs), op_);
}

BinaryOp::BinaryOp(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs, BinaryOpType op)
    : Expr(f, ExprKind::BinaryOp, std::move(ins), std::move(outs)), op_(op) {}
Expr* BinaryOp::newObject(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs) const {
  return IrBuilder::createIn<BinaryOp>(f, std::move(ins), std::move(outs), op_);
}

TernaryOp::TernaryOp(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs, TernaryOpType op)
    : Expr(f, ExprKind::TernaryOp, std::move(ins), std::move(outs)), op_(op) {}
Expr* TernaryOp::newObject(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs) const {
  return IrBuilder::createIn<TernaryOp>(f, std::move(ins), std::move(outs), op_);
}

LoadStoreOp::LoadStoreOp(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs,
                         LoadStoreOpType op)
    : Expr(f, ExprKind::LoadStoreOp, std::move(ins), std::move(outs)), op_(op) {}
Expr* LoadStoreOp::newObject(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs) const {
  return IrBuilder::createIn<LoadStoreOp>(f, std::move(ins), std::move(outs), op_);
}

bool isSegmentSet(const Expr* e) {
  auto* op = dynamic_cast<const LoadStoreOp*>(e);
  return op != nullptr && op->opType() == LoadStoreOpType::SegmentSet;
}

BroadcastOp::BroadcastOp(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs,
                         std::vector<bool> is_broadcast_dims)
    : Expr(f, ExprKind::BroadcastOp, std::move(ins), std::move(outs)),
      is_broadcast_dims_(std::move(is_broadcast_dims)) {}
Expr* BroadcastOp::newObject(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs) const {
  return IrBuilder::createIn<BroadcastOp>(f, std::move(ins), std::move(outs), is_broadcast_dims_);
}

ReductionOp::ReductionOp(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs, BinaryOpType op)
    : Expr(f, ExprKind::ReductionOp, std::move(ins), std::move(outs)), op_(op) {
  MF_ASSERT(inputs().size() == 2 && outputs().size() == 1 && init()->isConst(),
            "ReductionOp takes {{in, init}} with a constant init and has one output");
  MF_ASSERT(op == BinaryOpType::Add || op == BinaryOpType::Mul || op == BinaryOpType::Maximum ||
                op == BinaryOpType::Minimum,
            "ReductionOp: {} is not a reduction op", mf::toString(op));
}
Expr* ReductionOp::newObject(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs) const {
  auto* copy = IrBuilder::createIn<ReductionOp>(f, std::move(ins), std::move(outs), op_);
  copy->setGroup(group_);
  return copy;
}

std::string_view reductionOpName(BinaryOpType t) {
  switch (t) {
    case BinaryOpType::Add:
      return "add";
    case BinaryOpType::Mul:
      return "mul";
    case BinaryOpType::Maximum:
      return "max";
    case BinaryOpType::Minimum:
      return "min";
    default:
      return toString(t);
  }
}

PreprocessGroupedMatmulInputSf::PreprocessGroupedMatmulInputSf(Fusion* f, std::vector<Val*> ins,
                                                               std::vector<Val*> outs,
                                                               BlockScalingFactorLayout layout)
    : Expr(f, ExprKind::PreprocessGroupedMatmulInputSf, std::move(ins), std::move(outs)),
      layout_(layout) {
  MF_ASSERT(inputs().size() == 5 && outputs().size() == 1, "layout op arity");
}
Expr* PreprocessGroupedMatmulInputSf::newObject(Fusion* f, std::vector<Val*> ins,
                                                std::vector<Val*> outs) const {
  auto* op = IrBuilder::createIn<PreprocessGroupedMatmulInputSf>(f, std::move(ins), std::move(outs),
                                                                 layout_);
  op->tile_ = tile_;
  return op;
}

LayoutOpForm PreprocessGroupedMatmulInputSf::form() const {
  if (!out()->as<TensorView>()->domain()->loopFromAllocation()) return LayoutOpForm::Scatter;
  return tile_ ? LayoutOpForm::Tile : LayoutOpForm::Gather;
}

BlockQuantizationOp::BlockQuantizationOp(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs,
                                         int64_t block_size)
    : Expr(f, ExprKind::BlockQuantizationOp, std::move(ins), std::move(outs)),
      block_size_(block_size) {
  MF_ASSERT((inputs().size() == 1 || inputs().size() == 2) && outputs().size() == 2,
            "blockQuantize arity");
}
Expr* BlockQuantizationOp::newObject(Fusion* f, std::vector<Val*> ins,
                                     std::vector<Val*> outs) const {
  return IrBuilder::createIn<BlockQuantizationOp>(f, std::move(ins), std::move(outs), block_size_);
}

GroupedBlockQuantizationOp::GroupedBlockQuantizationOp(Fusion* f, std::vector<Val*> ins,
                                                       std::vector<Val*> outs,
                                                       BlockScalingFactorLayout layout,
                                                       int64_t block_size)
    : Expr(f, ExprKind::GroupedBlockQuantizationOp, std::move(ins), std::move(outs)),
      layout_(layout),
      block_size_(block_size) {
  MF_ASSERT((inputs().size() == 5 || inputs().size() == 6) && outputs().size() == 2,
            "groupedBlockQuantize arity");
}
Expr* GroupedBlockQuantizationOp::newObject(Fusion* f, std::vector<Val*> ins,
                                            std::vector<Val*> outs) const {
  return IrBuilder::createIn<GroupedBlockQuantizationOp>(f, std::move(ins), std::move(outs),
                                                         layout_, block_size_);
}

FullOp::FullOp(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs)
    : Expr(f, ExprKind::FullOp, std::move(ins), std::move(outs)) {
  MF_ASSERT(inputs().size() == 1 && outputs().size() == 1 &&
                fillValue()->kind() == ValKind::Scalar && out()->kind() != ValKind::Scalar,
            "FullOp takes a scalar fill value and has one tensor output");
}
Expr* FullOp::newObject(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs) const {
  return IrBuilder::createIn<FullOp>(f, std::move(ins), std::move(outs));
}

}  // namespace mf
