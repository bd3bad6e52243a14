#include "ir/builder.h"

#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/scalar_ops.h"

namespace mf {

Val* newScalar(DataType dtype) {
  return IrBuilder::create<Scalar>(dtype);
}

Val* constInt(int64_t v, DataType dtype) {
  MF_ASSERT(isIntegralType(dtype), "constInt of non-integral dtype {}", dtype);
  return IrBuilder::create<Scalar>(dtype, ScalarValue{v});
}

Val* constBool(bool v) {
  return IrBuilder::create<Scalar>(DataType::Bool, ScalarValue{v});
}

Val* constFloat(double v, DataType dtype) {
  MF_ASSERT(isFloatingType(dtype), "constFloat of non-floating dtype {}", dtype);
  return IrBuilder::create<Scalar>(dtype, castScalar(ScalarValue{v}, dtype));
}

Val* constValue(const ScalarValue& v, DataType dtype) {
  return IrBuilder::create<Scalar>(dtype, castScalar(v, dtype));
}

Val* IrBuilder::newVal(Fusion* f, ScalarValue value, std::optional<DataType> dtype) {
  const DataType type = dtype.value_or(dataTypeOf(value));
  return createIn<Scalar>(f, type, castScalar(value, type));
}

Val* IrBuilder::newVal(Fusion* f, DataType dtype) {
  return createIn<Scalar>(f, dtype);
}

namespace {

bool isConstEq(Val* v, int64_t x) {
  std::optional<ScalarValue> c = v->constValue();
  if (!c) return false;
  if (std::holds_alternative<double>(*c)) return std::get<double>(*c) == static_cast<double>(x);
  return asInt(*c) == x;
}

Val* build(BinaryOpType op, Val* a, Val* b, DataType out_dtype) {
  Val* out = IrBuilder::create<Scalar>(out_dtype);
  IrBuilder::create<BinaryOp>(std::vector<Val*>{a, b}, std::vector<Val*>{out}, op);
  return out;
}

}  // namespace

Val* SimplifyingIrBuilder::binary(BinaryOpType op, Val* a, Val* b) {
  MF_ASSERT(a->kind() == ValKind::Scalar && b->kind() == ValKind::Scalar,
            "scalar builder given a non-scalar: {} {} {}", a->toString(), toString(op),
            b->toString());
  DataType compute = promoteTypes(a->dtype(), b->dtype());
  DataType out_dtype = isPredicateOp(op) ? DataType::Bool : compute;
  std::optional<ScalarValue> ca = a->constValue(), cb = b->constValue();
  bool int_math = isIntegralType(compute);
  if (ca && cb) {
    bool divides_by_zero =
        int_math &&
        (op == BinaryOpType::Div || op == BinaryOpType::Mod || op == BinaryOpType::CeilDiv) &&
        asInt(*cb) == 0;
    if (!divides_by_zero)
      return constValue(evalBinary(op, out_dtype, compute, *ca, *cb), out_dtype);
  }
  // Identities. Only for integer and boolean math, where they are exact.
  if (int_math) {
    switch (op) {
      case BinaryOpType::Add:
        if (isConstEq(a, 0)) return b;
        if (isConstEq(b, 0)) return a;
        break;
      case BinaryOpType::Sub:
        if (isConstEq(b, 0)) return a;
        break;
      case BinaryOpType::Mul:
        if (isConstEq(a, 1)) return b;
        if (isConstEq(b, 1)) return a;
        if (isConstEq(a, 0) || isConstEq(b, 0)) return constInt(0, compute);
        break;
      case BinaryOpType::Div:
      case BinaryOpType::CeilDiv:
        if (isConstEq(b, 1)) return a;
        break;
      case BinaryOpType::Mod:
        if (isConstEq(b, 1)) return constInt(0, compute);
        break;
      case BinaryOpType::Maximum:
      case BinaryOpType::Minimum:
        if (a == b) return a;
        break;
      default:
        break;
    }
  }
  if (op == BinaryOpType::LogicalAnd) {
    if (ca) return asBool(*ca) ? b : constBool(false);
    if (cb) return asBool(*cb) ? a : constBool(false);
  }
  if (op == BinaryOpType::LogicalOr) {
    if (ca) return asBool(*ca) ? constBool(true) : b;
    if (cb) return asBool(*cb) ? constBool(true) : a;
  }
  if (a == b && int_math && (op == BinaryOpType::Eq || op == BinaryOpType::Le))
    return constBool(true);
  // Indices are non-negative, so (x % n) < n always holds.
  if (op == BinaryOpType::Lt && int_math && a->definition() != nullptr) {
    auto* m = dynamic_cast<BinaryOp*>(a->definition());
    if (m && m->opType() == BinaryOpType::Mod && m->rhs() == b) return constBool(true);
  }
  // (x / n) * n + x % n == x: undoes a merge's split of an index (C semantics, any sign).
  if (op == BinaryOpType::Add && int_math) {
    auto defOf = [](Val* v, BinaryOpType t) {
      auto* d = v->definition() ? dynamic_cast<BinaryOp*>(v->definition()) : nullptr;
      return d && d->opType() == t ? d : nullptr;
    };
    BinaryOp* mul = defOf(a, BinaryOpType::Mul);
    BinaryOp* mod = defOf(b, BinaryOpType::Mod);
    BinaryOp* div = mul ? defOf(mul->lhs(), BinaryOpType::Div) : nullptr;
    if (div && mod && div->lhs() == mod->lhs() && div->rhs() == mod->rhs() &&
        mul->rhs() == div->rhs())
      return mod->lhs();
  }
  return build(op, a, b, out_dtype);
}

Val* SimplifyingIrBuilder::add(Val* a, Val* b) {
  return binary(BinaryOpType::Add, a, b);
}
Val* SimplifyingIrBuilder::sub(Val* a, Val* b) {
  return binary(BinaryOpType::Sub, a, b);
}
Val* SimplifyingIrBuilder::mul(Val* a, Val* b) {
  return binary(BinaryOpType::Mul, a, b);
}
Val* SimplifyingIrBuilder::div(Val* a, Val* b) {
  return binary(BinaryOpType::Div, a, b);
}
Val* SimplifyingIrBuilder::mod(Val* a, Val* b) {
  return binary(BinaryOpType::Mod, a, b);
}
Val* SimplifyingIrBuilder::ceilDiv(Val* a, Val* b) {
  return binary(BinaryOpType::CeilDiv, a, b);
}
Val* SimplifyingIrBuilder::min(Val* a, Val* b) {
  return binary(BinaryOpType::Minimum, a, b);
}
Val* SimplifyingIrBuilder::max(Val* a, Val* b) {
  return binary(BinaryOpType::Maximum, a, b);
}
Val* SimplifyingIrBuilder::lt(Val* a, Val* b) {
  return binary(BinaryOpType::Lt, a, b);
}
Val* SimplifyingIrBuilder::le(Val* a, Val* b) {
  return binary(BinaryOpType::Le, a, b);
}
Val* SimplifyingIrBuilder::eq(Val* a, Val* b) {
  return binary(BinaryOpType::Eq, a, b);
}
Val* SimplifyingIrBuilder::ne(Val* a, Val* b) {
  return binary(BinaryOpType::Ne, a, b);
}
Val* SimplifyingIrBuilder::logicalAnd(Val* a, Val* b) {
  return binary(BinaryOpType::LogicalAnd, a, b);
}
Val* SimplifyingIrBuilder::logicalOr(Val* a, Val* b) {
  return binary(BinaryOpType::LogicalOr, a, b);
}

Val* SimplifyingIrBuilder::where(Val* cond, Val* a, Val* b) {
  if (std::optional<ScalarValue> c = cond->constValue()) return asBool(*c) ? a : b;
  if (a == b) return a;
  Val* out = IrBuilder::create<Scalar>(promoteTypes(a->dtype(), b->dtype()));
  IrBuilder::create<TernaryOp>(std::vector<Val*>{cond, a, b}, std::vector<Val*>{out},
                               TernaryOpType::Where);
  return out;
}

Val* SimplifyingIrBuilder::cast(DataType dtype, Val* v) {
  if (v->dtype() == dtype) return v;
  if (std::optional<ScalarValue> c = v->constValue()) return constValue(*c, dtype);
  Val* out = IrBuilder::create<Scalar>(dtype);
  IrBuilder::create<UnaryOp>(std::vector<Val*>{v}, std::vector<Val*>{out}, UnaryOpType::Cast);
  return out;
}

}  // namespace mf
