// runtime/numerics.cuh: the narrow floating-point storage types of generated kernels and every
// value conversion between the scalar types, mf_cast<To, From>. Bit for bit the host's
// csrc/support/numerics.h (castValue and the named conversions); docs/numerics.md states the
// rules. Narrow values are only stored: arithmetic converts them to float first.

struct __align__(2) mf_half {
  unsigned short bits;
};
struct __align__(2) mf_bfloat16 {
  unsigned short bits;
};
// float8 e4m3fn: no infinities, NaN is 0x7f / 0xff.
struct mf_fp8e4m3 {
  unsigned char bits;
};

// The NaN every conversion produces (host: kFloatCanonicalNan, kHalfCanonicalNan, ...). The
// PTX instructions produce canonical NaNs too; selecting them explicitly makes the bits part
// of our contract instead of a property of the hardware.
__device__ inline float mf_canonicalNanFloat() {
  return __uint_as_float(0x7fffffffu);
}

// ---- widening: exact; NaN gives the canonical float NaN ----

__device__ inline float mf_toFloat(mf_half v) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(v.bits));
  return f != f ? mf_canonicalNanFloat() : f;
}

__device__ inline float mf_toFloat(mf_bfloat16 v) {
  // bfloat16 is the top half of a float.
  const float f = __uint_as_float(static_cast<unsigned int>(v.bits) << 16);
  return f != f ? mf_canonicalNanFloat() : f;
}

__device__ inline float mf_toFloat(mf_fp8e4m3 v) {
  // e4m3 -> f16 is exact; the byte goes in the low half of the pair.
  const unsigned short pair = v.bits;
  unsigned int halves;
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(halves) : "h"(pair));
  mf_half low;
  low.bits = static_cast<unsigned short>(halves & 0xffffu);
  return mf_toFloat(low);
}

// Widening for a value that only arithmetic reads (codegen decides, widensForArithmeticOnly):
// exact, and a NaN keeps its bits, which no arithmetic result's NaN is bound to; saves the
// compare and select that make it canonical.
__device__ inline float mf_toFloatForArithmetic(mf_half v) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(v.bits));
  return f;
}

__device__ inline float mf_toFloatForArithmetic(mf_bfloat16 v) {
  return __uint_as_float(static_cast<unsigned int>(v.bits) << 16);
}

__device__ inline float mf_toFloatForArithmetic(mf_fp8e4m3 v) {
  return mf_toFloat(v);
}

// ---- narrowing: round to nearest even, one rounding from the source type ----

// From float, sm_90 (the H200) gives every NaN as 0x7fff itself, whatever its payload or sign
// (measured; test_numerics_gpu pins it bit for bit): no select there. Other architectures,
// not measured, keep it.
__device__ inline mf_half mf_toHalf(float v) {
  mf_half r;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r.bits) : "f"(v));
#if __CUDA_ARCH__ != 900
  if (v != v) r.bits = 0x7fff;
#endif
  return r;
}

__device__ inline mf_half mf_toHalf(double v) {
  mf_half r;
  asm("cvt.rn.f16.f64 %0, %1;" : "=h"(r.bits) : "d"(v));
  if (v != v) r.bits = 0x7fff;
  return r;
}

__device__ inline mf_bfloat16 mf_toBFloat16(float v) {
  mf_bfloat16 r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r.bits) : "f"(v));
#if __CUDA_ARCH__ != 900
  if (v != v) r.bits = 0x7fff;
#endif
  return r;
}

__device__ inline mf_bfloat16 mf_toBFloat16(double v) {
  mf_bfloat16 r;
  asm("cvt.rn.bf16.f64 %0, %1;" : "=h"(r.bits) : "d"(v));  // sm_90
  if (v != v) r.bits = 0x7fff;
  return r;
}

// satfinite: magnitudes that round past 448 and infinities give +-448 (0x7e / 0xfe).
__device__ inline mf_fp8e4m3 mf_toFp8e4m3(float v) {
  // The instruction converts a pair: `a` (here 0) goes to the high byte, `b` = v to the low.
  unsigned short pair;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(pair) : "f"(0.0f), "f"(v));
  mf_fp8e4m3 r;
  r.bits = v != v ? 0x7f : static_cast<unsigned char>(pair & 0xffu);
  return r;
}

// Rounds the finite non-negative double whose bits are `abs_bits` to a format with
// `man_bits` mantissa bits and exponent bias `bias`, to nearest even, in integer arithmetic.
// Returns the magnitude bits, which may carry past the largest finite value. The same
// algorithm as roundMagnitude in csrc/support/numerics.cpp.
__device__ inline unsigned long long mf_roundMagnitude(unsigned long long abs_bits, int man_bits,
                                                       int bias) {
  const int exp_field = static_cast<int>(abs_bits >> 52);
  const unsigned long long fraction = abs_bits & ((1ull << 52) - 1);
  const unsigned long long significand = exp_field != 0 ? (fraction | (1ull << 52)) : fraction;
  const int exponent = exp_field != 0 ? exp_field - 1023 : -1022;
  const int min_normal_exp = 1 - bias;
  const int q = exponent > min_normal_exp ? exponent : min_normal_exp;
  const int shift = 52 - man_bits + (q - exponent);
  if (shift >= 54) return 0;
  unsigned long long kept = significand >> shift;
  const unsigned long long rest = significand & ((1ull << shift) - 1);
  const unsigned long long half = 1ull << (shift - 1);
  if (rest > half || (rest == half && (kept & 1) != 0)) ++kept;
  return (static_cast<unsigned long long>(q - min_normal_exp) << man_bits) + kept;
}

// No PTX instruction converts f64 to e4m3 and going through f32 would round twice, so this
// runs the host's integer algorithm.
__device__ inline mf_fp8e4m3 mf_toFp8e4m3(double v) {
  const unsigned long long bits = static_cast<unsigned long long>(__double_as_longlong(v));
  const unsigned char sign = static_cast<unsigned char>((bits >> 56) & 0x80);
  const unsigned long long abs_bits = bits & 0x7fffffffffffffffull;
  mf_fp8e4m3 r;
  if (abs_bits > 0x7ff0000000000000ull) {
    r.bits = 0x7f;
  } else if (abs_bits == 0x7ff0000000000000ull) {
    r.bits = static_cast<unsigned char>(sign | 0x7e);
  } else {
    const unsigned long long magnitude = mf_roundMagnitude(abs_bits, 3, 7);
    r.bits = static_cast<unsigned char>(sign | (magnitude < 0x7e ? magnitude : 0x7e));
  }
  return r;
}

// ---- floating point to integer: truncate, saturate, NaN -> 0 (cvt.rzi clamps by default) ----

__device__ inline int mf_floatToInt32(float v) {
  int r;
  asm("cvt.rzi.s32.f32 %0, %1;" : "=r"(r) : "f"(v));
  return v != v ? 0 : r;
}
__device__ inline int mf_floatToInt32(double v) {
  int r;
  asm("cvt.rzi.s32.f64 %0, %1;" : "=r"(r) : "d"(v));
  return v != v ? 0 : r;
}
__device__ inline long long mf_floatToInt64(float v) {
  long long r;
  asm("cvt.rzi.s64.f32 %0, %1;" : "=l"(r) : "f"(v));
  return v != v ? 0 : r;
}
__device__ inline long long mf_floatToInt64(double v) {
  long long r;
  asm("cvt.rzi.s64.f64 %0, %1;" : "=l"(r) : "d"(v));
  return v != v ? 0 : r;
}

// ---- mf_cast ----

template <typename A, typename B>
struct mf_IsSame {
  static constexpr bool value = false;
};
template <typename A>
struct mf_IsSame<A, A> {
  static constexpr bool value = true;
};
template <typename T>
struct mf_IsNarrowFloat {
  static constexpr bool value = mf_IsSame<T, mf_half>::value || mf_IsSame<T, mf_bfloat16>::value ||
                                mf_IsSame<T, mf_fp8e4m3>::value;
};
template <typename T>
struct mf_IsFloatingPoint {
  static constexpr bool value = mf_IsSame<T, float>::value || mf_IsSame<T, double>::value;
};

// mf_cast<To, From>(v) for To, From in {bool, int, long long, float, double, mf_half,
// mf_bfloat16, mf_fp8e4m3}:
// - same type: v unchanged;
// - from a narrow float: widen to float (exact), then cast the float;
// - to bool: v != 0 (NaN -> true);
// - float/double to int/long long: truncate toward zero, saturate, NaN -> 0;
// - int to int: C++ (long long -> int keeps the low 32 bits);
// - to float/double: C++ (round to nearest even);
// - double to narrow: one rounding (mf_toHalf(double), ...);
// - bool/int/long long/float to narrow: to float (round to nearest even), then mf_toHalf(float),
//   ... (long long -> bf16 rounds twice, as the host and PyTorch do).
template <typename To, typename From>
__device__ inline To mf_cast(From v) {
  if constexpr (mf_IsSame<To, From>::value) {
    return v;
  } else if constexpr (mf_IsNarrowFloat<From>::value) {
    return mf_cast<To>(mf_toFloat(v));
  } else if constexpr (mf_IsSame<To, bool>::value) {
    return v != From(0);
  } else if constexpr (mf_IsSame<To, int>::value && mf_IsFloatingPoint<From>::value) {
    return mf_floatToInt32(v);
  } else if constexpr (mf_IsSame<To, long long>::value && mf_IsFloatingPoint<From>::value) {
    return mf_floatToInt64(v);
  } else if constexpr (!mf_IsNarrowFloat<To>::value) {
    return static_cast<To>(v);
  } else if constexpr (mf_IsSame<From, double>::value) {
    if constexpr (mf_IsSame<To, mf_half>::value) {
      return mf_toHalf(v);
    } else if constexpr (mf_IsSame<To, mf_bfloat16>::value) {
      return mf_toBFloat16(v);
    } else {
      return mf_toFp8e4m3(v);
    }
  } else {
    const float f = static_cast<float>(v);
    if constexpr (mf_IsSame<To, mf_half>::value) {
      return mf_toHalf(f);
    } else if constexpr (mf_IsSame<To, mf_bfloat16>::value) {
      return mf_toBFloat16(f);
    } else {
      return mf_toFp8e4m3(f);
    }
  }
}
