#include "ir/scalar_ops.h"

#include <cmath>
#include <limits>

#include "support/numerics.h"

namespace mf {
namespace {

// Float -> integer as cvt.rzi.sat: truncate, saturate at the type's limits, NaN -> 0.
int64_t floatToInt(double d, DataType dtype) {
  if (std::isnan(d)) return 0;
  double lo = dtype == DataType::Int32 ? -2147483648.0 : -9223372036854775808.0;
  double hi = dtype == DataType::Int32 ? 2147483647.0 : 9223372036854775807.0;
  if (d <= lo) return static_cast<int64_t>(lo);
  if (d >= hi) return dtype == DataType::Int32 ? 2147483647 : std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(std::trunc(d));
}

bool computesInFloat(DataType t) {
  return t == DataType::Float || isNarrowFloat(t);
}

double unaryFloating(UnaryOpType op, double x, bool in_float) {
  float f = static_cast<float>(x);
  switch (op) {
    case UnaryOpType::Neg:
      return -x;
    case UnaryOpType::Abs:
      return std::fabs(x);
    case UnaryOpType::Exp:
      return in_float ? std::exp(f) : std::exp(x);
    case UnaryOpType::Log:
      return in_float ? std::log(f) : std::log(x);
    case UnaryOpType::Sqrt:
      return in_float ? std::sqrt(f) : std::sqrt(x);
    case UnaryOpType::Rsqrt:
      return in_float ? 1.0f / std::sqrt(f) : 1.0 / std::sqrt(x);
    case UnaryOpType::Reciprocal:
      return in_float ? 1.0f / f : 1.0 / x;
    case UnaryOpType::Tanh:
      return in_float ? std::tanh(f) : std::tanh(x);
    case UnaryOpType::Sigmoid:
      return in_float ? 1.0f / (1.0f + std::exp(-f)) : 1.0 / (1.0 + std::exp(-x));
    case UnaryOpType::Relu:
      return std::isnan(x) ? x : (x > 0 ? x : 0.0);
    case UnaryOpType::Sin:
      return in_float ? std::sin(f) : std::sin(x);
    case UnaryOpType::Cos:
      return in_float ? std::cos(f) : std::cos(x);
    case UnaryOpType::Floor:
      return std::floor(x);
    case UnaryOpType::Ceil:
      return std::ceil(x);
    default:
      break;
  }
  MF_ASSERT(false, "unary op {} has no floating semantics", toString(op));
}

}  // namespace

ScalarValue castScalar(const ScalarValue& v, DataType dtype) {
  switch (dtype) {
    case DataType::Bool:
      return asBool(v);
    case DataType::Int32:
    case DataType::Int64:
    case DataType::Index: {
      if (std::holds_alternative<double>(v)) return floatToInt(std::get<double>(v), dtype);
      int64_t i = asInt(v);
      return dtype == DataType::Int32 ? static_cast<int64_t>(static_cast<int32_t>(i)) : i;
    }
    case DataType::Double:
      return asDouble(v);
    case DataType::Float:
      return static_cast<double>(static_cast<float>(asDouble(v)));
    case DataType::Half:
      return static_cast<double>(halfToFloat(doubleToHalf(asDouble(v))));
    case DataType::BFloat16:
      return static_cast<double>(bfloat16ToFloat(doubleToBFloat16(asDouble(v))));
    case DataType::Float8_e4m3fn:
      return static_cast<double>(float8e4m3ToFloat(doubleToFloat8e4m3(asDouble(v))));
  }
  MF_ASSERT(false, "unknown dtype");
}

ScalarValue evalUnary(UnaryOpType op, DataType dtype, const ScalarValue& v) {
  if (op == UnaryOpType::Cast) return castScalar(v, dtype);
  if (op == UnaryOpType::LogicalNot) return !asBool(v);
  if (isIntegralType(dtype) || dtype == DataType::Bool) {
    int64_t i = asInt(v);
    switch (op) {
      case UnaryOpType::Neg:
        return castScalar(static_cast<int64_t>(0ull - static_cast<uint64_t>(i)), dtype);
      case UnaryOpType::Abs:
        return castScalar(i < 0 ? static_cast<int64_t>(0ull - static_cast<uint64_t>(i)) : i, dtype);
      case UnaryOpType::Relu:
        return i > 0 ? i : int64_t{0};
      case UnaryOpType::Floor:
      case UnaryOpType::Ceil:
        return i;
      default:
        break;
    }
    MF_THROW("{} is not defined for integer operands", toString(op));
  }
  return castScalar(unaryFloating(op, asDouble(v), computesInFloat(dtype)), dtype);
}

ScalarValue evalBinary(BinaryOpType op, DataType dtype, DataType compute, const ScalarValue& a,
                       const ScalarValue& b) {
  switch (op) {
    case BinaryOpType::LogicalAnd:
      return asBool(a) && asBool(b);
    case BinaryOpType::LogicalOr:
      return asBool(a) || asBool(b);
    default:
      break;
  }
  if (isIntegralType(compute) || compute == DataType::Bool) {
    // Two's complement wrap-around, computed without signed overflow.
    int64_t x = asInt(a), y = asInt(b);
    auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
    auto wrap = [&](uint64_t r) { return castScalar(static_cast<int64_t>(r), dtype); };
    switch (op) {
      case BinaryOpType::Add:
        return wrap(u(x) + u(y));
      case BinaryOpType::Sub:
        return wrap(u(x) - u(y));
      case BinaryOpType::Mul:
        return wrap(u(x) * u(y));
      case BinaryOpType::Div:
        MF_CHECK(y != 0, "integer division by zero");
        if (y == -1) return wrap(0ull - u(x));  // INT64_MIN / -1 wraps (it traps in C++)
        return castScalar(x / y, dtype);
      case BinaryOpType::Mod:
        MF_CHECK(y != 0, "integer modulo by zero");
        if (y == -1) return castScalar(int64_t{0}, dtype);
        return castScalar(x % y, dtype);
      case BinaryOpType::CeilDiv:
        MF_CHECK(y != 0, "integer ceilDiv by zero");
        return castScalar((x + y - 1) / y, dtype);
      case BinaryOpType::Maximum:
        return castScalar(x > y ? x : y, dtype);
      case BinaryOpType::Minimum:
        return castScalar(x < y ? x : y, dtype);
      case BinaryOpType::Pow: {
        MF_CHECK(y >= 0, "integer pow with negative exponent {}", y);
        uint64_t r = 1, base = u(x);
        for (int64_t e = y; e > 0; e >>= 1, base *= base)
          if (e & 1) r *= base;
        return wrap(r);
      }
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
        break;
    }
    MF_ASSERT(false, "unhandled integer op {}", toString(op));
  }
  double x = asDouble(a), y = asDouble(b);
  bool f32 = computesInFloat(compute);
  float fx = static_cast<float>(x), fy = static_cast<float>(y);
  double r = 0;
  switch (op) {
    case BinaryOpType::Add:
      r = f32 ? fx + fy : x + y;
      break;
    case BinaryOpType::Sub:
      r = f32 ? fx - fy : x - y;
      break;
    case BinaryOpType::Mul:
      r = f32 ? fx * fy : x * y;
      break;
    case BinaryOpType::Div:
      r = f32 ? fx / fy : x / y;
      break;
    case BinaryOpType::Mod:
      r = f32 ? std::fmod(fx, fy) : std::fmod(x, y);
      break;
    case BinaryOpType::CeilDiv:
      r = f32 ? std::ceil(fx / fy) : std::ceil(x / y);
      break;
    // NaN-propagating, as torch.maximum / torch.minimum.
    case BinaryOpType::Maximum:
      r = (std::isnan(x) || std::isnan(y)) ? NAN : (x > y ? x : y);
      break;
    case BinaryOpType::Minimum:
      r = (std::isnan(x) || std::isnan(y)) ? NAN : (x < y ? x : y);
      break;
    case BinaryOpType::Pow:
      r = f32 ? std::pow(fx, fy) : std::pow(x, y);
      break;
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
      MF_ASSERT(false, "unhandled floating op {}", toString(op));
  }
  return castScalar(r, dtype);
}

ScalarValue evalTernary(TernaryOpType op, DataType dtype, const ScalarValue& a,
                        const ScalarValue& b, const ScalarValue& c) {
  if (op == TernaryOpType::Where) return castScalar(asBool(a) ? b : c, dtype);
  // clamp(x, lo, hi) = minimum(maximum(x, lo), hi), NaN-propagating in x.
  DataType compute = dtype;
  ScalarValue lo = evalBinary(BinaryOpType::Maximum, dtype, compute, a, b);
  return evalBinary(BinaryOpType::Minimum, dtype, compute, lo, c);
}

}  // namespace mf
