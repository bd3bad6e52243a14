#include "ops/arith.h"

#include <fmt/ranges.h>

#include <algorithm>

#include "ir/builder.h"
#include "ir/fusion.h"
#include "ops/operands.h"

namespace mf {
namespace {

std::vector<IterDomain*> logicalNoReductions(TensorView* tv) {
  return TensorDomain::noReductions(tv->getLogicalDomain());
}

// Implicit broadcasting (numpy's right alignment, as nvFuser's maybeBroadcast): a tensor
// operand of lower rank than the highest gets leading Broadcast axes (a BroadcastOp). Rank
// counts the logical axes that are not Reduction axes; scalars stay as they are.
std::vector<Val*> broadcastToCommonRank(std::vector<Val*> operands) {
  size_t rank = 0;
  for (Val* v : operands)
    if (auto* tv = dynamic_cast<TensorView*>(v))
      rank = std::max(rank, logicalNoReductions(tv).size());
  for (Val*& v : operands) {
    auto* tv = dynamic_cast<TensorView*>(v);
    if (tv == nullptr || logicalNoReductions(tv).size() == rank) continue;
    std::vector<bool> flags(rank, false);
    std::fill_n(flags.begin(), rank - logicalNoReductions(tv).size(), true);
    v = broadcast(tv, flags);
  }
  return operands;
}

// A fresh output tensor for a pointwise op over `operands` (tensors of equal rank): each
// axis takes the extent of the first non-broadcast operand axis at its position.
TensorView* newPointwiseOutput(std::string_view op, const std::vector<Val*>& operands,
                               DataType dtype) {
  std::vector<TensorView*> tvs;
  for (Val* v : operands)
    if (auto* tv = dynamic_cast<TensorView*>(v)) tvs.push_back(tv);
  MF_ASSERT(!tvs.empty(), "pointwise output without a tensor operand");
  size_t rank = logicalNoReductions(tvs[0]).size();
  for (TensorView* tv : tvs)
    MF_ASSERT(logicalNoReductions(tv).size() == rank, "{}: operands {} and {} of unequal ranks", op,
              tvs[0]->toString(), tv->toString());
  std::vector<IterDomain*> out_ids;
  for (size_t i = 0; i < rank; ++i) {
    IterDomain* pick = nullptr;
    for (TensorView* tv : tvs) {
      IterDomain* id = logicalNoReductions(tv)[i];
      if (id->isBroadcast()) continue;
      // An Iteration axis wins over a Symbolic one (nvFuser): the consumer of a dynamic
      // reshape and a concrete tensor is concrete.
      if (pick == nullptr || (pick->isSymbolic() && !id->isSymbolic())) {
        pick = id;
        continue;
      }
      auto a = pick->extent()->constInt(), b = id->extent()->constInt();
      MF_CHECK(!a || !b || *a == *b, "{}: axis {} has extent {} in {} but {} in {}", op, i, *a,
               tvs[0]->toString(), *b, tv->toString());
    }
    if (pick == nullptr) {
      out_ids.push_back(IterDomainBuilder(constInt(1)).iterType(IterType::Broadcast).build());
    } else {
      out_ids.push_back(pick->freshCopy());  // Iteration or Symbolic, as `pick`
    }
  }
  auto* td = IrBuilder::create<TensorDomain>(out_ids);
  return IrBuilder::create<TensorView>(td, dtype);
}

DataType unaryOutType(UnaryOpType op, Val* x) {
  DataType t = x->dtype();
  if (op == UnaryOpType::LogicalNot) return DataType::Bool;
  if (isFloatOnlyOp(op) && !isFloatingType(t)) return DataType::Float;
  MF_CHECK(!(t == DataType::Bool && op == UnaryOpType::Neg),
           "neg: {} is Bool; negation of booleans is not defined, use logicalNot",
           x->toInlineString());
  return t;
}

DataType binaryOutType(BinaryOpType op, Val* a, Val* b) {
  bool ta = a->kind() == ValKind::TensorView, tb = b->kind() == ValKind::TensorView;
  DataType t = (ta == tb) ? promoteTypes(a->dtype(), b->dtype())
               : ta       ? promoteWithScalar(a->dtype(), b->dtype())
                          : promoteWithScalar(b->dtype(), a->dtype());
  if (op == BinaryOpType::LogicalAnd || op == BinaryOpType::LogicalOr) {
    MF_CHECK(a->dtype() == DataType::Bool && b->dtype() == DataType::Bool,
             "{}: operands must be Bool, got {} and {}", toString(op), a->dtype(), b->dtype());
  }
  return isPredicateOp(op) ? DataType::Bool : t;
}

}  // namespace

Val* unaryOp(UnaryOpType op, Val* x) {
  checkOperand(toString(op), "x", x, activeFusion(toString(op)));
  if (auto* tv = dynamic_cast<TensorView*>(x)) return unaryOp(op, tv);
  Val* out = IrBuilder::create<Scalar>(unaryOutType(op, x));
  IrBuilder::create<UnaryOp>(std::vector<Val*>{x}, std::vector<Val*>{out}, op);
  return out;
}

TensorView* unaryOp(UnaryOpType op, TensorView* x) {
  checkOperand(toString(op), "x", x, activeFusion(toString(op)));
  TensorView* out = newPointwiseOutput(toString(op), {x}, unaryOutType(op, x));
  IrBuilder::create<UnaryOp>(std::vector<Val*>{x}, std::vector<Val*>{out}, op);
  return out;
}

Val* binaryOp(BinaryOpType op, Val* a, Val* b) {
  Fusion* f = activeFusion(toString(op));
  checkOperand(toString(op), "lhs", a, f);
  checkOperand(toString(op), "rhs", b, f);
  DataType dtype = binaryOutType(op, a, b);
  Val* out = nullptr;
  if (a->kind() == ValKind::TensorView || b->kind() == ValKind::TensorView) {
    std::vector<Val*> ab = broadcastToCommonRank({a, b});
    a = ab[0], b = ab[1];
    out = newPointwiseOutput(toString(op), ab, dtype);
  } else {
    out = IrBuilder::create<Scalar>(dtype);
  }
  IrBuilder::create<BinaryOp>(std::vector<Val*>{a, b}, std::vector<Val*>{out}, op);
  return out;
}

#define MF_DEFINE_UNARY(name, op)       \
  TensorView* name(TensorView* x) {     \
    return unaryOp(UnaryOpType::op, x); \
  }                                     \
  Val* name(Val* x) {                   \
    return unaryOp(UnaryOpType::op, x); \
  }
MF_DEFINE_UNARY(neg, Neg)
MF_DEFINE_UNARY(abs, Abs)
MF_DEFINE_UNARY(exp, Exp)
MF_DEFINE_UNARY(log, Log)
MF_DEFINE_UNARY(sqrt, Sqrt)
MF_DEFINE_UNARY(rsqrt, Rsqrt)
MF_DEFINE_UNARY(reciprocal, Reciprocal)
MF_DEFINE_UNARY(tanh, Tanh)
MF_DEFINE_UNARY(sigmoid, Sigmoid)
MF_DEFINE_UNARY(relu, Relu)
MF_DEFINE_UNARY(sin, Sin)
MF_DEFINE_UNARY(cos, Cos)
MF_DEFINE_UNARY(floor, Floor)
MF_DEFINE_UNARY(ceil, Ceil)
MF_DEFINE_UNARY(logicalNot, LogicalNot)
#undef MF_DEFINE_UNARY

#define MF_DEFINE_BINARY(name, op)                             \
  Val* name(Val* a, Val* b) {                                  \
    return binaryOp(BinaryOpType::op, a, b);                   \
  }                                                            \
  TensorView* name(TensorView* a, TensorView* b) {             \
    return binaryOp(BinaryOpType::op, a, b)->as<TensorView>(); \
  }                                                            \
  TensorView* name(TensorView* a, Val* b) {                    \
    return binaryOp(BinaryOpType::op, a, b)->as<TensorView>(); \
  }                                                            \
  TensorView* name(Val* a, TensorView* b) {                    \
    return binaryOp(BinaryOpType::op, a, b)->as<TensorView>(); \
  }
MF_DEFINE_BINARY(add, Add)
MF_DEFINE_BINARY(sub, Sub)
MF_DEFINE_BINARY(mul, Mul)
MF_DEFINE_BINARY(div, Div)
MF_DEFINE_BINARY(maximum, Maximum)
MF_DEFINE_BINARY(minimum, Minimum)
MF_DEFINE_BINARY(pow, Pow)
MF_DEFINE_BINARY(eq, Eq)
MF_DEFINE_BINARY(ne, Ne)
MF_DEFINE_BINARY(lt, Lt)
MF_DEFINE_BINARY(le, Le)
MF_DEFINE_BINARY(gt, Gt)
MF_DEFINE_BINARY(ge, Ge)
MF_DEFINE_BINARY(logicalAnd, LogicalAnd)
MF_DEFINE_BINARY(logicalOr, LogicalOr)
#undef MF_DEFINE_BINARY

TensorView* where(Val* cond, Val* a, Val* b) {
  Fusion* f = activeFusion("where");
  checkOperand("where", "cond", cond, f);
  checkOperand("where", "a", a, f);
  checkOperand("where", "b", b, f);
  MF_CHECK(cond->dtype() == DataType::Bool, "where: condition {} must be Bool, got {}",
           cond->toInlineString(), cond->dtype());
  bool ta = a->kind() == ValKind::TensorView, tb = b->kind() == ValKind::TensorView;
  DataType t = (ta == tb) ? promoteTypes(a->dtype(), b->dtype())
               : ta       ? promoteWithScalar(a->dtype(), b->dtype())
                          : promoteWithScalar(b->dtype(), a->dtype());
  MF_CHECK(cond->kind() == ValKind::TensorView || ta || tb,
           "where: at least one operand must be a tensor");
  std::vector<Val*> operands = broadcastToCommonRank({cond, a, b});
  TensorView* out = newPointwiseOutput("where", operands, t);
  IrBuilder::create<TernaryOp>(operands, std::vector<Val*>{out}, TernaryOpType::Where);
  return out;
}

TensorView* clamp(TensorView* x, Val* lo, Val* hi) {
  Fusion* f = activeFusion("clamp");
  checkOperand("clamp", "x", x, f);
  checkOperand("clamp", "lo", lo, f);
  checkOperand("clamp", "hi", hi, f);
  for (Val* bound : {lo, hi})
    MF_CHECK(bound->kind() == ValKind::Scalar, "clamp: bound {} of {} must be a scalar",
             bound->toString(), x->toInlineString());
  TensorView* out = newPointwiseOutput("clamp", {x}, x->dtype());
  IrBuilder::create<TernaryOp>(std::vector<Val*>{x, lo, hi}, std::vector<Val*>{out},
                               TernaryOpType::Clamp);
  return out;
}

TensorView* castOp(DataType dtype, TensorView* x) {
  checkOperand("castOp", "x", x, activeFusion("castOp"));
  MF_CHECK(isTensorDataType(dtype), "castOp: {} is not a tensor dtype", dtype);
  TensorView* out = newPointwiseOutput("castOp", {x}, dtype);
  IrBuilder::create<UnaryOp>(std::vector<Val*>{x}, std::vector<Val*>{out}, UnaryOpType::Cast);
  return out;
}

TensorView* set(TensorView* x) {
  checkOperand("set", "x", x, activeFusion("set"));
  TensorView* out = newPointwiseOutput("set", {x}, x->dtype());
  IrBuilder::create<LoadStoreOp>(std::vector<Val*>{x}, std::vector<Val*>{out});
  return out;
}

TensorView* segment_set(TensorView* x) {
  checkOperand("segment_set", "x", x, activeFusion("segment_set"));
  TensorView* out = newPointwiseOutput("segment_set", {x}, x->dtype());
  IrBuilder::create<LoadStoreOp>(std::vector<Val*>{x}, std::vector<Val*>{out},
                                 LoadStoreOpType::SegmentSet);
  return out;
}

TensorView* broadcast(TensorView* x, const std::vector<bool>& is_broadcast_dim) {
  checkOperand("broadcast", "x", x, activeFusion("broadcast"));
  std::vector<IterDomain*> in_ids = logicalNoReductions(x);
  size_t kept = std::count(is_broadcast_dim.begin(), is_broadcast_dim.end(), false);
  MF_CHECK(kept == in_ids.size(),
           "broadcast: {} has {} axes but the flags {{{}}} keep {}; one false per input axis",
           x->toString(), in_ids.size(), fmt::join(is_broadcast_dim, ", "), kept);
  std::vector<IterDomain*> out_ids;
  size_t next = 0;
  for (bool b : is_broadcast_dim) {
    out_ids.push_back(b ? IterDomainBuilder(constInt(1)).iterType(IterType::Broadcast).build()
                        : in_ids[next++]->freshCopy());
  }
  auto* out = IrBuilder::create<TensorView>(IrBuilder::create<TensorDomain>(out_ids), x->dtype());
  IrBuilder::create<BroadcastOp>(std::vector<Val*>{x}, std::vector<Val*>{out}, is_broadcast_dim);
  return out;
}

}  // namespace mf
