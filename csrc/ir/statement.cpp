#include "ir/statement.h"

#include <algorithm>
#include <cmath>

#include "ir/fusion.h"

namespace mf {

std::string toString(const ScalarValue& v) {
  if (std::holds_alternative<bool>(v)) return std::get<bool>(v) ? "true" : "false";
  if (std::holds_alternative<int64_t>(v)) return fmt::format("{}", std::get<int64_t>(v));
  double d = std::get<double>(v);
  if (std::isnan(d)) return "NAN";
  if (std::isinf(d)) return d > 0 ? "INFINITY" : "-INFINITY";
  // Shortest text that reads back exactly; always looks like a floating literal.
  std::string s = fmt::format("{}", d);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

int64_t asInt(const ScalarValue& v) {
  if (std::holds_alternative<int64_t>(v)) return std::get<int64_t>(v);
  if (std::holds_alternative<bool>(v)) return std::get<bool>(v) ? 1 : 0;
  return static_cast<int64_t>(std::get<double>(v));
}

double asDouble(const ScalarValue& v) {
  if (std::holds_alternative<double>(v)) return std::get<double>(v);
  if (std::holds_alternative<int64_t>(v)) return static_cast<double>(std::get<int64_t>(v));
  return std::get<bool>(v) ? 1.0 : 0.0;
}

bool asBool(const ScalarValue& v) {
  if (std::holds_alternative<bool>(v)) return std::get<bool>(v);
  if (std::holds_alternative<int64_t>(v)) return std::get<int64_t>(v) != 0;
  return std::get<double>(v) != 0.0;
}

DataType dataTypeOf(const ScalarValue& v) {
  if (std::holds_alternative<bool>(v)) return DataType::Bool;
  return std::holds_alternative<int64_t>(v) ? DataType::Int64 : DataType::Double;
}

bool Val::isFusionInput() const {
  const auto& ins = fusion()->inputs();
  return std::find(ins.begin(), ins.end(), this) != ins.end();
}

bool Val::isFusionOutput() const {
  const auto& outs = fusion()->outputs();
  return std::find(outs.begin(), outs.end(), this) != outs.end();
}

std::optional<int64_t> Val::constInt() const {
  std::optional<ScalarValue> v = constValue();
  if (!v || std::holds_alternative<double>(*v)) return std::nullopt;
  return asInt(*v);
}

bool isKernelIr(const Statement* s) {
  if (const auto* v = dynamic_cast<const Val*>(s)) {
    switch (v->kind()) {
#define MF_KERNEL_VAL(T) case ValKind::T:
      MF_FOR_ALL_KERNEL_VALS(MF_KERNEL_VAL)
#undef MF_KERNEL_VAL
      return true;
      default:
        return false;
    }
  }
  const auto* e = static_cast<const Expr*>(s);
  switch (e->kind()) {
#define MF_KERNEL_EXPR(T) case ExprKind::T:
    MF_FOR_ALL_KERNEL_EXPRS(MF_KERNEL_EXPR)
#undef MF_KERNEL_EXPR
    return true;
    default:
      break;
  }
  auto kernel_val = [](const Val* v) { return isKernelIr(v); };
  return std::any_of(e->inputs().begin(), e->inputs().end(), kernel_val) ||
         std::any_of(e->outputs().begin(), e->outputs().end(), kernel_val);
}

std::string_view toString(ExprKind kind) {
  switch (kind) {
#define MF_KIND_NAME(T) \
  case ExprKind::T:     \
    return #T;
    MF_FOR_ALL_EXPRS(MF_KIND_NAME)
#undef MF_KIND_NAME
  }
  return "?";
}

Expr::Expr(Fusion* fusion, ExprKind kind, std::vector<Val*> inputs, std::vector<Val*> outputs)
    : Statement(fusion), kind_(kind), inputs_(std::move(inputs)), outputs_(std::move(outputs)) {
  // Checked before wiring anything, so a rejected expr leaves no dangling use behind. Nodes
  // built through IrBuilder by hand reach here without an op's checks.
  for (const auto* operands : {&inputs_, &outputs_}) {
    std::string_view role = operands == &inputs_ ? "input" : "output";
    for (size_t i = 0; i < operands->size(); ++i) {
      const Val* v = (*operands)[i];
      MF_CHECK(v != nullptr, "{}: {} {} is null", mf::toString(kind), role, i);
      MF_CHECK(v->fusion() == fusion,
               "{}: {} {} belongs to another fusion than the one the expr is built in (the "
               "active FusionGuard's, or the one given to IrBuilder::createIn); build each op "
               "in the fusion of its operands",
               mf::toString(kind), role, v->toString());
    }
  }
  for (Val* in : inputs_)
    if (std::find(in->uses_.begin(), in->uses_.end(), this) == in->uses_.end())
      in->uses_.push_back(this);
  for (Val* out : outputs_) out->definition_ = this;
}

Scalar::Scalar(Fusion* fusion, DataType dtype, std::optional<ScalarValue> value)
    : Val(fusion, ValKind::Scalar, dtype), value_(std::move(value)) {}

Scalar::Scalar(Fusion* fusion, DataType dtype, std::string code_name)
    : Val(fusion, ValKind::Scalar, dtype), code_name_(std::move(code_name)) {}

}  // namespace mf
