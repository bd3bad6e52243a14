//! Host-side storage types for the narrow floating-point dtypes and the conversions between
//! them. The rules match the GPU conversion instructions bit for bit (runtime/numerics.cuh is
//! the device side); docs/numerics.md states every rule.
#pragma once

#include <cstdint>
#include <type_traits>

namespace mf {

//! IEEE binary16, stored as bits.
struct Half {
  uint16_t bits = 0;
};
//! bfloat16, stored as bits.
struct BFloat16 {
  uint16_t bits = 0;
};
//! float8 e4m3fn (no infinities, one NaN pattern per sign), stored as bits.
struct Float8e4m3 {
  uint8_t bits = 0;
};
//! float4 e2m1fn (magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6; no infinities, no NaN): one element,
//! its code in the low 4 bits. A tensor stores two per byte (docs/numerics.md).
struct Float4e2m1 {
  uint8_t bits = 0;
};

// Canonical NaN bit patterns: every conversion that produces a NaN produces exactly these
// (the patterns the GPU's cvt instructions produce).
constexpr uint16_t kHalfCanonicalNan = 0x7fff;
constexpr uint16_t kBFloat16CanonicalNan = 0x7fff;
constexpr uint8_t kFloat8e4m3CanonicalNan = 0x7f;
constexpr uint32_t kFloatCanonicalNan = 0x7fffffff;

// Narrowing conversions round to nearest, ties to even (as cvt.rn on the GPU), keep the sign
// of zero, produce subnormals, and map every NaN to the canonical NaN above.
Half floatToHalf(float v);            //!< cvt.rn.f16.f32; overflow (|v| >= 65520) gives +-inf
Half doubleToHalf(double v);          //!< one rounding, from double directly (cvt.rn.f16.f64)
BFloat16 floatToBFloat16(float v);    //!< cvt.rn.bf16.f32
BFloat16 doubleToBFloat16(double v);  //!< one rounding, from double directly (cvt.rn.bf16.f64)
//! As cvt.rn.satfinite.e4m3x2.f32: finite magnitudes past 448 saturate to +-448, +-inf
//! saturates to +-448, NaN gives 0x7f.
Float8e4m3 floatToFloat8e4m3(float v);
//! One rounding, from double directly, with the satfinite rules of floatToFloat8e4m3. The GPU
//! has no such instruction: the device side runs the same integer algorithm.
Float8e4m3 doubleToFloat8e4m3(double v);

//! Round to nearest, ties to the even code; magnitudes past 6 and +-inf saturate to +-6; the
//! sign is kept (-0 gives code 0x8); NaN gives +6. The same function as the device's
//! (runtime/fp4.cuh, shared by both); from double, one rounding.
Float4e2m1 floatToFloat4e2m1(float v);
Float4e2m1 doubleToFloat4e2m1(double v);

//! NVFP4 block quantization's steps (docs/numerics.md), the device's functions
//! (runtime/fp4.cuh): the running amax of |x| (a NaN sticks), the block's scale before its
//! e4m3 rounding, and the code of x given the rounded scale and the block's amax:
//! e2m1(clamp(x / (rounded_scale / global_scale), -6, 6)), the division correctly rounded.
float nvfp4AbsMax(float amax, float x);
float nvfp4BlockScale(float amax, float global_scale);
Float4e2m1 nvfp4Quantize(float x, float rounded_scale, float global_scale, float amax);

// Widening conversions are exact; a NaN gives kFloatCanonicalNan.
float halfToFloat(Half v);
float bfloat16ToFloat(BFloat16 v);
float float8e4m3ToFloat(Float8e4m3 v);
float float4e2m1ToFloat(Float4e2m1 v);

//! Floating point to int32 as the GPU's cvt.rzi.s32.f64: truncates toward zero (like C++),
//! saturates out-of-range values to INT32_MIN / INT32_MAX (+-inf included), NaN gives 0.
//! Float inputs go through this too (float -> double is exact).
int32_t floatToInt32(double v);
//! As floatToInt32, for int64 (cvt.rzi.s64.f64).
int64_t floatToInt64(double v);

namespace detail {
template <typename T>
constexpr bool kIsNarrowFloat = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16> ||
                                std::is_same_v<T, Float8e4m3> || std::is_same_v<T, Float4e2m1>;
template <typename T>
constexpr bool kIsScalar =
    kIsNarrowFloat<T> || std::is_same_v<T, bool> || std::is_same_v<T, int32_t> ||
    std::is_same_v<T, int64_t> || std::is_same_v<T, float> || std::is_same_v<T, double>;
}  // namespace detail

//! The value cast of the generated code (`mf_cast<To, From>` in runtime/numerics.cuh), on the
//! host, over {bool, int32_t, int64_t, float, double, Half, BFloat16, Float8e4m3, Float4e2m1}
//! (the device's `int` and `long long` are int32_t and int64_t here; kernels do not cast to
//! or from Float4e2m1 yet: only blockQuantize writes it). Rules, as on the device:
//! - same type: the value unchanged (bits included);
//! - from a narrow float: widen to float (exact), then cast the float;
//! - to bool: `v != 0` (NaN gives true, -0 gives false);
//! - floating point to int: floatToInt32 / floatToInt64 (truncate, saturate, NaN -> 0);
//! - int to int: C++ conversion (int64 -> int32 keeps the low 32 bits);
//! - to float / double: C++ conversion (round to nearest even);
//! - double to narrow: one rounding (doubleToHalf, ...);
//! - bool, int, int64 or float to narrow: to float first (round to nearest even), then
//!   floatToHalf, ...: int64 -> bf16 rounds twice, as PyTorch does.
template <typename To, typename From>
To castValue(From v) {
  static_assert(detail::kIsScalar<To> && detail::kIsScalar<From>, "castValue: unsupported type");
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<From, Half>) {
    return castValue<To>(halfToFloat(v));
  } else if constexpr (std::is_same_v<From, BFloat16>) {
    return castValue<To>(bfloat16ToFloat(v));
  } else if constexpr (std::is_same_v<From, Float8e4m3>) {
    return castValue<To>(float8e4m3ToFloat(v));
  } else if constexpr (std::is_same_v<From, Float4e2m1>) {
    return castValue<To>(float4e2m1ToFloat(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_same_v<To, int32_t> && std::is_floating_point_v<From>) {
    return floatToInt32(v);
  } else if constexpr (std::is_same_v<To, int64_t> && std::is_floating_point_v<From>) {
    return floatToInt64(v);
  } else if constexpr (!detail::kIsNarrowFloat<To>) {
    return static_cast<To>(v);
  } else {
    // An integer converts to float first, as mf_cast does; a float widens to double exactly.
    const double d = std::is_same_v<From, double> ? v : double{static_cast<float>(v)};
    if constexpr (std::is_same_v<To, Half>) {
      return doubleToHalf(d);
    } else if constexpr (std::is_same_v<To, BFloat16>) {
      return doubleToBFloat16(d);
    } else if constexpr (std::is_same_v<To, Float4e2m1>) {
      return doubleToFloat4e2m1(d);
    } else {
      return doubleToFloat8e4m3(d);
    }
  }
}

}  // namespace mf
