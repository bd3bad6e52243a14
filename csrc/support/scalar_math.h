//! Host mirrors of the device math functions in runtime/helpers.cuh. ir/scalar_ops.cpp (the
//! host semantics of every op: constant folding, the expression evaluator, the CPU reference
//! evaluator) computes floating-point ops only through these. Each function is written with
//! the same formula as its device counterpart (named in its comment), so the host rounds the
//! same way:
//! - bit-exact with the device: neg, abs, floor, ceil, relu, maximum, minimum, sqrt, rsqrt,
//!   reciprocal (IEEE operations; needs the host compiled without -ffast-math and without
//!   FMA contraction, -ffp-contract=off);
//! - within a few ulp of the device: exp, log, tanh, sin, cos, pow, sigmoid (glibc and CUDA's
//!   libdevice differ; docs/numerics.md gives the bounds tests must allow).
//! Narrow types (Half, BFloat16, Float8e4m3) are computed in float, as on the device.
#pragma once

#include <cmath>
#include <concepts>

namespace mf::math {

// Each for float and for double, computed in that type.

// ---- exact operations ----

//! mf_neg
template <std::floating_point T>
T neg(T x) {
  return -x;
}
//! mf_abs
template <std::floating_point T>
T abs(T x) {
  return std::fabs(x);
}
//! mf_floor
template <std::floating_point T>
T floor(T x) {
  return std::floor(x);
}
//! mf_ceil
template <std::floating_point T>
T ceil(T x) {
  return std::ceil(x);
}
//! mf_relu: x < 0 ? 0 : x, so relu(NaN) = NaN and relu(-0) = -0.
template <std::floating_point T>
T relu(T x) {
  return x < T{0} ? T{0} : x;
}
//! mf_maximum: as torch.maximum, a NaN operand gives NaN (a's if both); +0 beats -0.
template <std::floating_point T>
T maximum(T a, T b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
//! mf_minimum: as torch.minimum, a NaN operand gives NaN (a's if both); -0 beats +0.
template <std::floating_point T>
T minimum(T a, T b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

// ---- correctly rounded operations ----

//! mf_sqrt
template <std::floating_point T>
T sqrt(T x) {
  return std::sqrt(x);
}
//! mf_rsqrt: 1 / sqrt(x), two correctly rounded operations (not an rsqrt approximation).
template <std::floating_point T>
T rsqrt(T x) {
  return T{1} / std::sqrt(x);
}
//! mf_reciprocal
template <std::floating_point T>
T reciprocal(T x) {
  return T{1} / x;
}

// ---- transcendental (glibc here, libdevice there; expf or exp and so on) ----

//! mf_exp
template <std::floating_point T>
T exp(T x) {
  return std::exp(x);
}
//! mf_log
template <std::floating_point T>
T log(T x) {
  return std::log(x);
}
//! mf_tanh
template <std::floating_point T>
T tanh(T x) {
  return std::tanh(x);
}
//! mf_sin
template <std::floating_point T>
T sin(T x) {
  return std::sin(x);
}
//! mf_cos
template <std::floating_point T>
T cos(T x) {
  return std::cos(x);
}
//! mf_pow
template <std::floating_point T>
T pow(T x, T y) {
  return std::pow(x, y);
}
//! mf_sigmoid: 1 / (1 + exp(-x)), in the argument's type.
template <std::floating_point T>
T sigmoid(T x) {
  return T{1} / (T{1} + std::exp(-x));
}

}  // namespace mf::math
