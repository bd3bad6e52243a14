//! Host-side storage types for the narrow floating-point dtypes and the conversions between
//! them. The rules match the GPU conversion instructions bit for bit (runtime/numerics.cuh is
//! the device side); docs/numerics.md states every rule.
#pragma once

#include <cstdint>

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

// Narrowing conversions round to nearest, ties to even (as cvt.rn on the GPU).
Half floatToHalf(float v);
Half doubleToHalf(double v);  //!< one rounding, from double directly
BFloat16 floatToBFloat16(float v);
BFloat16 doubleToBFloat16(double v);
//! As cvt.rn.satfinite.e4m3x2.f32: finite magnitudes past 448 saturate to +-448, +-inf
//! saturates to +-448, NaN stays NaN (0x7f / 0xff).
Float8e4m3 floatToFloat8e4m3(float v);
Float8e4m3 doubleToFloat8e4m3(double v);

// Widening conversions are exact.
float halfToFloat(Half v);
float bfloat16ToFloat(BFloat16 v);
float float8e4m3ToFloat(Float8e4m3 v);

}  // namespace mf
