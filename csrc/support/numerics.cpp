#include "support/numerics.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

// The e2m1 conversion and NVFP4's block arithmetic, shared with the kernels.
#include "../../runtime/fp4.cuh"  // NOLINT(build/include)

namespace mf {

namespace {

// A narrow binary floating-point format: `man_bits` explicit mantissa bits, exponent bias
// `bias`. Subnormals exist in all of them.
struct NarrowFormat {
  int man_bits;
  int bias;
};
constexpr NarrowFormat kHalfFormat{10, 15};
constexpr NarrowFormat kBFloat16Format{7, 127};
constexpr NarrowFormat kFloat8e4m3Format{3, 7};

constexpr uint64_t kDoubleSignBit = 1ull << 63;
constexpr uint64_t kDoubleInfBits = 0x7ffull << 52;

// Rounds the finite non-negative double whose bits are `abs_bits` to `fmt`, to nearest with
// ties to even, in integer arithmetic (so the one rounding is exact whatever the input
// precision). Returns the magnitude bits of the result; a result past the largest finite
// value carries into the exponent field, and the caller applies the format's overflow rule.
// This is the algorithm runtime/numerics.cuh runs on the device for double -> e4m3.
uint64_t roundMagnitude(uint64_t abs_bits, NarrowFormat fmt) {
  const int exp_field = static_cast<int>(abs_bits >> 52);
  const uint64_t fraction = abs_bits & ((1ull << 52) - 1);
  // value = significand * 2^(exponent - 52)
  const uint64_t significand = exp_field != 0 ? (fraction | (1ull << 52)) : fraction;
  const int exponent = exp_field != 0 ? exp_field - 1023 : -1022;
  // The result's quantum is 2^(q - man_bits), q = the exponent of its leading bit, but never
  // below the smallest normal exponent (the subnormal range has a fixed quantum).
  const int min_normal_exp = 1 - fmt.bias;
  const int q = std::max(exponent, min_normal_exp);
  const int shift = 52 - fmt.man_bits + (q - exponent);  // >= 42: low bits of the significand
  if (shift >= 54) return 0;                             // below half the smallest subnormal
  uint64_t kept = significand >> shift;
  const uint64_t rest = significand & ((1ull << shift) - 1);
  const uint64_t half = 1ull << (shift - 1);
  if (rest > half || (rest == half && (kept & 1) != 0)) ++kept;
  // kept is in [2^m, 2^(m+1)] for a normal q (the implicit bit lands in the exponent field;
  // 2^(m+1) carries into the next binade), and in [0, 2^m] for a subnormal one.
  return (static_cast<uint64_t>(q - min_normal_exp) << fmt.man_bits) + kept;
}

// The sign (moved to bit `width - 1`), NaN as `nan`, and the magnitude rounded to `fmt`,
// capped at `max` (infinity for half and bf16: round to nearest overflows to it; 448 for
// e4m3's satfinite, which infinities also give).
template <typename Bits>
Bits narrowBits(double v, NarrowFormat fmt, Bits nan, uint64_t max) {
  constexpr int kWidth = 8 * sizeof(Bits);
  const uint64_t bits = std::bit_cast<uint64_t>(v);
  const auto sign = static_cast<Bits>((bits >> (64 - kWidth)) & (1ull << (kWidth - 1)));
  const uint64_t abs_bits = bits & ~kDoubleSignBit;
  if (abs_bits > kDoubleInfBits) return nan;
  const uint64_t magnitude =
      abs_bits == kDoubleInfBits ? max : std::min<uint64_t>(roundMagnitude(abs_bits, fmt), max);
  return static_cast<Bits>(sign | magnitude);
}

// Decodes a finite narrow value's magnitude bits exactly into a float (every narrow value is
// a float value, so ldexp is exact).
float decodeMagnitude(uint32_t magnitude, NarrowFormat fmt) {
  const uint32_t man_mask = (1u << fmt.man_bits) - 1;
  const auto exp_field = static_cast<int>(magnitude >> fmt.man_bits);
  const uint32_t man = magnitude & man_mask;
  const uint32_t significand = exp_field != 0 ? (man | (1u << fmt.man_bits)) : man;
  const int exponent = std::max(exp_field, 1) - fmt.bias - fmt.man_bits;
  return std::ldexp(static_cast<float>(significand), exponent);
}

float withSign(float magnitude, bool negative) {
  return negative ? -magnitude : magnitude;
}

float canonicalFloatNan() {
  return std::bit_cast<float>(kFloatCanonicalNan);
}

// Double -> int with cvt.rzi semantics: truncate, saturate, NaN -> 0. Int's range is
// [-2^d, 2^d - 1]; v truncates into it iff -2^d - 1 < v < 2^d. For int64, -2^63 - 1 rounds
// to -2^63, which is harmless: -2^63 converts to the minimum either way.
template <typename Int>
Int truncateSaturating(double v) {
  constexpr double kTwoToDigits = static_cast<double>(std::numeric_limits<Int>::max()) + 1.0;
  if (std::isnan(v)) return 0;
  if (v >= kTwoToDigits) return std::numeric_limits<Int>::max();
  if (v <= -kTwoToDigits - 1.0) return std::numeric_limits<Int>::min();
  return static_cast<Int>(v);
}

}  // namespace

// A float widens to double exactly, so both round once, from the same number.
Half floatToHalf(float v) {
  return doubleToHalf(v);
}
Half doubleToHalf(double v) {
  return Half{narrowBits<uint16_t>(v, kHalfFormat, kHalfCanonicalNan, 0x7c00)};
}
BFloat16 floatToBFloat16(float v) {
  return doubleToBFloat16(v);
}
BFloat16 doubleToBFloat16(double v) {
  return BFloat16{narrowBits<uint16_t>(v, kBFloat16Format, kBFloat16CanonicalNan, 0x7f80)};
}
Float8e4m3 floatToFloat8e4m3(float v) {
  return doubleToFloat8e4m3(v);
}
Float8e4m3 doubleToFloat8e4m3(double v) {
  return Float8e4m3{narrowBits<uint8_t>(v, kFloat8e4m3Format, kFloat8e4m3CanonicalNan, 0x7e)};
}

float halfToFloat(Half v) {
  const uint32_t magnitude = v.bits & 0x7fffu;
  if (magnitude > 0x7c00) return canonicalFloatNan();
  const bool negative = (v.bits & 0x8000) != 0;
  if (magnitude == 0x7c00) return withSign(std::numeric_limits<float>::infinity(), negative);
  return withSign(decodeMagnitude(magnitude, kHalfFormat), negative);
}

float bfloat16ToFloat(BFloat16 v) {
  // bfloat16 is the top half of a float.
  const float f = std::bit_cast<float>(static_cast<uint32_t>(v.bits) << 16);
  return std::isnan(f) ? canonicalFloatNan() : f;
}

float float8e4m3ToFloat(Float8e4m3 v) {
  const uint32_t magnitude = v.bits & 0x7fu;
  if (magnitude == 0x7f) return canonicalFloatNan();
  return withSign(decodeMagnitude(magnitude, kFloat8e4m3Format), (v.bits & 0x80) != 0);
}

Float4e2m1 floatToFloat4e2m1(float v) {
  return Float4e2m1{mf_e2m1Code(v)};
}
Float4e2m1 doubleToFloat4e2m1(double v) {
  return Float4e2m1{mf_e2m1Code(v)};
}
float float4e2m1ToFloat(Float4e2m1 v) {
  return mf_e2m1Value(v.bits);
}

float nvfp4AbsMax(float amax, float x) {
  return mf_nvfp4AbsMax(amax, x);
}
float nvfp4BlockScale(float amax, float global_scale) {
  return mf_nvfp4BlockScale(amax, global_scale);
}
Float4e2m1 nvfp4Quantize(float x, float rounded_scale, float global_scale, float amax) {
  return Float4e2m1{mf_nvfp4Code(x, rounded_scale, global_scale, amax)};
}

int32_t floatToInt32(double v) {
  return truncateSaturating<int32_t>(v);
}
int64_t floatToInt64(double v) {
  return truncateSaturating<int64_t>(v);
}

}  // namespace mf
