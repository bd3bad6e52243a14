#include "ir/scalar_ops.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <type_traits>

#include "support/numerics.h"
#include "support/scalar_math.h"

namespace mf {
namespace {

// A value of a host scalar type as a ScalarValue: integers as int64_t, floating point (narrow
// included) as the double it represents (exact).
template <typename T>
ScalarValue toScalarValue(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v;
  } else if constexpr (std::is_integral_v<T>) {
    return int64_t{v};
  } else if constexpr (std::is_floating_point_v<T>) {
    return double{v};
  } else {
    return double{castValue<float>(v)};
  }
}

// castValue<To> applied to the bool, int64_t or double a ScalarValue holds. That is mf_cast
// from the value's device type too: an int32 value converts like the same int64 value, and
// a double holding a float (or narrow) value rounds once from the same number, as the float
// would (a narrow source widens to float exactly first).
template <typename To>
ScalarValue castTo(const ScalarValue& v) {
  return std::visit([](auto x) { return toScalarValue(castValue<To>(x)); }, v);
}

// op(x) in float or double: the mf_<op> helper's formula, mirrored in mf::math.
template <typename T>
T floatingUnary(UnaryOpType op, T x) {
  switch (op) {
    case UnaryOpType::Neg:
      return math::neg(x);
    case UnaryOpType::Abs:
      return math::abs(x);
    case UnaryOpType::Exp:
      return math::exp(x);
    case UnaryOpType::Log:
      return math::log(x);
    case UnaryOpType::Sqrt:
      return math::sqrt(x);
    case UnaryOpType::Rsqrt:
      return math::rsqrt(x);
    case UnaryOpType::Reciprocal:
      return math::reciprocal(x);
    case UnaryOpType::Tanh:
      return math::tanh(x);
    case UnaryOpType::Sigmoid:
      return math::sigmoid(x);
    case UnaryOpType::Relu:
      return math::relu(x);
    case UnaryOpType::Sin:
      return math::sin(x);
    case UnaryOpType::Cos:
      return math::cos(x);
    case UnaryOpType::Floor:
      return math::floor(x);
    case UnaryOpType::Ceil:
      return math::ceil(x);
    case UnaryOpType::LogicalNot:
    case UnaryOpType::Cast:
      break;
  }
  MF_ASSERT(false, "unary op {} has no floating semantics", toString(op));
}

// op(x) for an integer or bool compute type, as codegen prints it inline; wraps in `compute`.
ScalarValue integerUnary(UnaryOpType op, DataType compute, int64_t x) {
  const auto negated = static_cast<int64_t>(0ull - static_cast<uint64_t>(x));
  switch (op) {
    case UnaryOpType::Neg:  // (-x)
      return castScalar(negated, compute);
    case UnaryOpType::Abs:  // (x < 0 ? -x : x)
      return castScalar(x < 0 ? negated : x, compute);
    case UnaryOpType::Relu:  // (x > 0 ? x : 0)
      return x > 0 ? x : int64_t{0};
    case UnaryOpType::Floor:
    case UnaryOpType::Ceil:
      return x;
    default:
      break;
  }
  MF_THROW("{} is not defined for integer operands", toString(op));
}

// The six comparisons, as the C++ operators (false for NaN except !=).
template <typename T>
bool compare(BinaryOpType op, T x, T y) {
  switch (op) {
    case BinaryOpType::Eq:
      return x == y;
    case BinaryOpType::Ne:
      return x != y;
    case BinaryOpType::Lt:
      return x < y;
    case BinaryOpType::Le:
      return x <= y;
    case BinaryOpType::Gt:
      return x > y;
    case BinaryOpType::Ge:
      return x >= y;
    default:
      MF_ASSERT(false, "{} is not a comparison", toString(op));
  }
}

// a op b in float or double (mf_maximum, mf_minimum, mf_pow, or the C++ operator).
template <typename T>
ScalarValue floatingBinary(BinaryOpType op, T x, T y) {
  switch (op) {
    case BinaryOpType::Add:
      return double{x + y};
    case BinaryOpType::Sub:
      return double{x - y};
    case BinaryOpType::Mul:
      return double{x * y};
    case BinaryOpType::Div:
      return double{x / y};
    // Codegen rejects these two on floating tensors; constant folding keeps C's meaning.
    case BinaryOpType::Mod:
      return double{std::fmod(x, y)};
    case BinaryOpType::CeilDiv:
      return double{math::ceil(x / y)};
    case BinaryOpType::Maximum:
      return double{math::maximum(x, y)};
    case BinaryOpType::Minimum:
      return double{math::minimum(x, y)};
    case BinaryOpType::Pow:
      return double{math::pow(x, y)};
    case BinaryOpType::Eq:
    case BinaryOpType::Ne:
    case BinaryOpType::Lt:
    case BinaryOpType::Le:
    case BinaryOpType::Gt:
    case BinaryOpType::Ge:
      return compare(op, x, y);
    case BinaryOpType::LogicalAnd:
    case BinaryOpType::LogicalOr:
      break;
  }
  MF_ASSERT(false, "unhandled floating op {}", toString(op));
}

// evalFloatingRow in T.
template <typename T>
bool floatingRow(const Expr* e, const std::byte* x, int64_t xs, const std::byte* y, int64_t ys,
                 std::byte* out, int64_t n) {
  const auto* a = reinterpret_cast<const T*>(x);
  const auto* b = reinterpret_cast<const T*>(y);
  auto* dst = reinterpret_cast<T*>(out);
  if (auto* u = dynamic_cast<const UnaryOp*>(e)) {
    const UnaryOpType op = u->opType();
    if (op == UnaryOpType::Cast || op == UnaryOpType::LogicalNot) return false;
    for (int64_t i = 0; i < n; ++i) dst[i] = floatingUnary(op, a[i * xs]);
    return true;
  }
  auto* bin = dynamic_cast<const BinaryOp*>(e);
  // Not a comparison nor a logical op: the result has the operands' type.
  if (bin == nullptr || isPredicateOp(bin->opType())) return false;
  for (int64_t i = 0; i < n; ++i)
    dst[i] = static_cast<T>(asDouble(floatingBinary(bin->opType(), a[i * xs], b[i * ys])));
  return true;
}

// x / y truncating toward zero, as C++ and CUDA; INT64_MIN / -1 wraps (a trap in C++).
int64_t divide(int64_t x, int64_t y) {
  return y == -1 ? static_cast<int64_t>(0ull - static_cast<uint64_t>(x)) : x / y;
}

// a op b for an integer or bool compute type, as codegen prints it (C++ operators and
// ternaries); results wrap around in `compute` (two's complement, as the GPU).
ScalarValue integerBinary(BinaryOpType op, DataType compute, int64_t x, int64_t y) {
  auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  auto wrap = [&](uint64_t r) { return castScalar(static_cast<int64_t>(r), compute); };
  switch (op) {
    case BinaryOpType::Add:
      return wrap(u(x) + u(y));
    case BinaryOpType::Sub:
      return wrap(u(x) - u(y));
    case BinaryOpType::Mul:
      return wrap(u(x) * u(y));
    case BinaryOpType::Div:
      MF_CHECK(y != 0, "integer division by zero");
      return wrap(u(divide(x, y)));
    case BinaryOpType::Mod:
      MF_CHECK(y != 0, "integer modulo by zero");
      return y == -1 ? int64_t{0} : x % y;
    case BinaryOpType::CeilDiv:  // ((x + y - 1) / y)
      MF_CHECK(y != 0, "integer ceilDiv by zero");
      return wrap(u(divide(asInt(wrap(u(x) + u(y) - 1)), y)));
    case BinaryOpType::Maximum:
      return x > y ? x : y;
    case BinaryOpType::Minimum:
      return x < y ? x : y;
    case BinaryOpType::Pow: {
      // nvFuser's and PyTorch's rules for a negative exponent: 1 for a base of 1, +-1 by the
      // exponent's parity for -1, 0 (the truncated quotient 1 / x^-y) for any other base.
      if (y < 0) return x == 1 ? int64_t{1} : x == -1 ? ((y & 1) ? int64_t{-1} : int64_t{1}) : 0;
      // By squaring, wrapping in `compute` (a bool's 0 / 1 give a || !b).
      uint64_t r = 1, base = u(x);
      for (int64_t e = y; e > 0; e >>= 1, base *= base)
        if (e & 1) r *= base;
      return wrap(r);
    }
    case BinaryOpType::Eq:
    case BinaryOpType::Ne:
    case BinaryOpType::Lt:
    case BinaryOpType::Le:
    case BinaryOpType::Gt:
    case BinaryOpType::Ge:
      return compare(op, x, y);
    case BinaryOpType::LogicalAnd:
    case BinaryOpType::LogicalOr:
      break;
  }
  MF_ASSERT(false, "unhandled integer op {}", toString(op));
}

}  // namespace

ScalarValue castScalar(const ScalarValue& v, DataType dtype) {
  switch (dtype) {
    case DataType::Bool:
      return castTo<bool>(v);
    case DataType::Int32:
      return castTo<int32_t>(v);
    case DataType::Int64:
    case DataType::Index:
      return castTo<int64_t>(v);
    case DataType::Half:
      return castTo<Half>(v);
    case DataType::BFloat16:
      return castTo<BFloat16>(v);
    case DataType::Float:
      return castTo<float>(v);
    case DataType::Double:
      return castTo<double>(v);
    case DataType::Float8_e4m3fn:
      return castTo<Float8e4m3>(v);
    case DataType::Float4_e2m1fn:
      return castTo<Float4e2m1>(v);
  }
  MF_ASSERT(false, "unknown dtype");
}

ScalarValue evalUnary(UnaryOpType op, DataType dtype, const ScalarValue& v) {
  if (op == UnaryOpType::Cast) return castScalar(v, dtype);
  if (op == UnaryOpType::LogicalNot) return !asBool(v);
  const DataType compute = computeType(dtype);
  const ScalarValue x = castScalar(v, compute);
  ScalarValue r;
  if (compute == DataType::Float) {
    r = double{floatingUnary(op, static_cast<float>(asDouble(x)))};
  } else if (compute == DataType::Double) {
    r = floatingUnary(op, asDouble(x));
  } else {
    r = integerUnary(op, compute, asInt(x));
  }
  return castScalar(r, dtype);
}

ScalarValue evalBinary(BinaryOpType op, DataType dtype, DataType compute, const ScalarValue& a,
                       const ScalarValue& b) {
  if (op == BinaryOpType::LogicalAnd) return asBool(a) && asBool(b);
  if (op == BinaryOpType::LogicalOr) return asBool(a) || asBool(b);
  compute = computeType(compute);
  const ScalarValue x = castScalar(a, compute), y = castScalar(b, compute);
  ScalarValue r;
  if (compute == DataType::Float) {
    r = floatingBinary(op, static_cast<float>(asDouble(x)), static_cast<float>(asDouble(y)));
  } else if (compute == DataType::Double) {
    r = floatingBinary(op, asDouble(x), asDouble(y));
  } else {
    r = integerBinary(op, compute, asInt(x), asInt(y));
  }
  return castScalar(r, dtype);
}

ScalarValue evalTernary(TernaryOpType op, DataType dtype, const ScalarValue& a,
                        const ScalarValue& b, const ScalarValue& c) {
  // Generated code converts both branches to the output type, then selects.
  if (op == TernaryOpType::Where) return asBool(a) ? castScalar(b, dtype) : castScalar(c, dtype);
  // clamp(x, lo, hi) = minimum(maximum(x, lo), hi) in the compute type, rounded once.
  const DataType compute = computeType(dtype);
  const ScalarValue x = castScalar(a, compute), lo = castScalar(b, compute),
                    hi = castScalar(c, compute);
  ScalarValue r;
  if (compute == DataType::Float) {
    auto f = [](const ScalarValue& v) { return static_cast<float>(asDouble(v)); };
    r = double{math::minimum(math::maximum(f(x), f(lo)), f(hi))};
  } else if (compute == DataType::Double) {
    r = math::minimum(math::maximum(asDouble(x), asDouble(lo)), asDouble(hi));
  } else {
    r = std::min(std::max(asInt(x), asInt(lo)), asInt(hi));
  }
  return castScalar(r, dtype);
}

bool evalFloatingRow(const Expr* e, DataType dtype, const std::byte* x, int64_t x_stride,
                     const std::byte* y, int64_t y_stride, std::byte* out, int64_t n) {
  if (dtype == DataType::Float) return floatingRow<float>(e, x, x_stride, y, y_stride, out, n);
  if (dtype == DataType::Double) return floatingRow<double>(e, x, x_stride, y, y_stride, out, n);
  return false;
}

}  // namespace mf
