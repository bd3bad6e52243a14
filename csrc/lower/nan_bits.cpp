// NaN-reach analysis: which lowered writes may carry any NaN's bits.
#include "lower/nan_bits.h"

#include <algorithm>

#include "ir/exprs.h"
#include "ir/tensor_view.h"

namespace mf {
namespace {

bool nanBitsReachOnlyArithmetic(const TensorView* tv, int depth) {
  // A few pass-through steps cover max-then-broadcast chains; deeper ones stay canonical.
  constexpr int kMaxPassThrough = 8;
  if (depth > kMaxPassThrough || tv->getMemoryType() != MemoryType::Local || tv->isFusionOutput() ||
      tv->uses().empty())
    return false;
  auto passesOn = [depth](const Expr* use) {
    return std::all_of(use->outputs().begin(), use->outputs().end(), [depth](const Val* v) {
      auto* next = dynamic_cast<const TensorView*>(v);
      return next != nullptr && next->dtype() == DataType::Float &&
             nanBitsReachOnlyArithmetic(next, depth + 1);
    });
  };
  return std::all_of(tv->uses().begin(), tv->uses().end(), [&](const Expr* use) {
    if (auto* b = dynamic_cast<const BinaryOp*>(use)) {
      BinaryOpType t = b->opType();
      if (t == BinaryOpType::Maximum || t == BinaryOpType::Minimum) return passesOn(use);
      return t == BinaryOpType::Add || t == BinaryOpType::Sub || t == BinaryOpType::Mul ||
             t == BinaryOpType::Div || isPredicateOp(t);
    }
    if (auto* u = dynamic_cast<const UnaryOp*>(use))
      return isFloatOnlyOp(u->opType()) || u->opType() == UnaryOpType::LogicalNot;
    if (auto* r = dynamic_cast<const ReductionOp*>(use))
      return (r->opType() == BinaryOpType::Maximum || r->opType() == BinaryOpType::Minimum) &&
             passesOn(use);
    if (use->isA<BroadcastOp>()) return passesOn(use);
    if (auto* ls = dynamic_cast<const LoadStoreOp*>(use))
      return ls->opType() == LoadStoreOpType::Set && passesOn(use);
    return false;
  });
}

bool isMaxOrMin(BinaryOpType t) {
  return t == BinaryOpType::Maximum || t == BinaryOpType::Minimum;
}

}  // namespace

bool nanBitsMayBeAny(const Expr* e, const TensorView* out) {
  bool changes_code = false;
  if (auto* u = dynamic_cast<const UnaryOp*>(e))
    changes_code = u->opType() == UnaryOpType::Cast && out->dtype() == DataType::Float &&
                   isNarrowFloat(u->in()->dtype());
  else if (auto* b = dynamic_cast<const BinaryOp*>(e))
    changes_code = isMaxOrMin(b->opType()) && computeType(b) == DataType::Float;
  else if (auto* r = dynamic_cast<const ReductionOp*>(e))
    changes_code = isMaxOrMin(r->opType()) && computeType(out->dtype()) == DataType::Float;
  return changes_code && nanBitsReachOnlyArithmetic(out, /*depth=*/0);
}

}  // namespace mf
