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

namespace mf::math {

// ---- exact operations ----

//! mf_neg
inline float neg(float x) {
  return -x;
}
inline double neg(double x) {
  return -x;
}
//! mf_abs
inline float abs(float x) {
  return std::fabs(x);
}
inline double abs(double x) {
  return std::fabs(x);
}
//! mf_floor
inline float floor(float x) {
  return std::floor(x);
}
inline double floor(double x) {
  return std::floor(x);
}
//! mf_ceil
inline float ceil(float x) {
  return std::ceil(x);
}
inline double ceil(double x) {
  return std::ceil(x);
}

//! mf_relu: x < 0 ? 0 : x, so relu(NaN) = NaN and relu(-0) = -0.
inline float relu(float x) {
  return x < 0.0f ? 0.0f : x;
}
inline double relu(double x) {
  return x < 0.0 ? 0.0 : x;
}

//! mf_maximum: as torch.maximum, a NaN operand gives NaN (a's if both); +0 beats -0.
inline float maximum(float a, float b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
inline double maximum(double a, double b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

//! mf_minimum: as torch.minimum, a NaN operand gives NaN (a's if both); -0 beats +0.
inline float minimum(float a, float b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
inline double minimum(double a, double b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

// ---- correctly rounded operations ----

//! mf_sqrt
inline float sqrt(float x) {
  return std::sqrt(x);
}
inline double sqrt(double x) {
  return std::sqrt(x);
}
//! mf_rsqrt: 1 / sqrt(x), two correctly rounded operations (not an rsqrt approximation).
inline float rsqrt(float x) {
  return 1.0f / std::sqrt(x);
}
inline double rsqrt(double x) {
  return 1.0 / std::sqrt(x);
}
//! mf_reciprocal
inline float reciprocal(float x) {
  return 1.0f / x;
}
inline double reciprocal(double x) {
  return 1.0 / x;
}

// ---- transcendental (glibc here, libdevice there) ----

//! mf_exp (expf / exp)
inline float exp(float x) {
  return std::exp(x);
}
inline double exp(double x) {
  return std::exp(x);
}
//! mf_log (logf / log)
inline float log(float x) {
  return std::log(x);
}
inline double log(double x) {
  return std::log(x);
}
//! mf_tanh (tanhf / tanh)
inline float tanh(float x) {
  return std::tanh(x);
}
inline double tanh(double x) {
  return std::tanh(x);
}
//! mf_sin (sinf / sin)
inline float sin(float x) {
  return std::sin(x);
}
inline double sin(double x) {
  return std::sin(x);
}
//! mf_cos (cosf / cos)
inline float cos(float x) {
  return std::cos(x);
}
inline double cos(double x) {
  return std::cos(x);
}
//! mf_pow (powf / pow)
inline float pow(float x, float y) {
  return std::pow(x, y);
}
inline double pow(double x, double y) {
  return std::pow(x, y);
}
//! mf_sigmoid: 1 / (1 + exp(-x)), in the argument's type.
inline float sigmoid(float x) {
  return 1.0f / (1.0f + std::exp(-x));
}
inline double sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

}  // namespace mf::math
