// runtime/fp4.cuh: float4 e2m1 (NVFP4's element type) and NVFP4 block quantization's
// arithmetic, written once for both sides: kernels get it in the runtime prelude, and the host
// (csrc/support/numerics.cpp, the CPU reference) includes this file as plain C++. So the host
// and the device agree bit for bit by construction; docs/numerics.md states the rules.
//
// e2m1: sign bit 3, two exponent bits, one mantissa bit; codes 0..7 are the magnitudes
// {0, 0.5, 1, 1.5, 2, 3, 4, 6}. No infinities and no NaN. Stored two per byte: element 2i in
// the low nibble, element 2i + 1 in the high nibble.
#ifndef MF_RUNTIME_FP4_CUH
#define MF_RUNTIME_FP4_CUH
#if defined(__CUDACC__)
// A byte of two e2m1 codes: a Float4_e2m1fn tensor's element type in kernels, addressed by
// the byte (codegen's cudaTypeName).
struct mf_fp4e2m1x2 {
  unsigned char bits;
};
#define MF_FP4_FN __device__ inline
#define MF_FP4_SIGNBIT(x) signbit(x)
#define MF_FP4_BITS(x) __float_as_uint(x)
#define MF_FP4_FMA(a, b, c) fmaf(a, b, c)
#define MF_FP4_RINT(x) rintf(x)
#define MF_FP4_COPYSIGN(x, y) copysignf(x, y)
#else
#include <bit>
#include <cmath>
#define MF_FP4_FN inline
#define MF_FP4_SIGNBIT(x) std::signbit(x)
#define MF_FP4_BITS(x) std::bit_cast<unsigned>(x)
#define MF_FP4_FMA(a, b, c) std::fma(a, b, c)
#define MF_FP4_RINT(x) std::rint(x)
#define MF_FP4_COPYSIGN(x, y) std::copysign(x, y)
#endif

// The code of `v` (float or double: one rounding from either): round to nearest, ties to
// the even code (0.25 -> 0, 0.75 -> 1, 1.25 -> 1, 1.75 -> 2, 2.5 -> 2, 3.5 -> 4, 5 -> 4),
// magnitudes past 6 and infinities saturate to 6, the sign is kept (-0 and negative values
// that round to 0 give 0x8), NaN gives +6 (0x7).
template <typename T>
MF_FP4_FN unsigned char mf_e2m1Code(T v) {
  if (v != v) return 0x7;
  const unsigned char sign = MF_FP4_SIGNBIT(v) ? 0x8 : 0x0;
  const T a = sign ? -v : v;
  // Each bound is the midpoint between two neighbours; `<=` sends a tie down (to an even
  // code), `<` sends it up (the upper neighbour is the even one).
  const unsigned char m = a <= T(0.25)   ? 0
                          : a < T(0.75)  ? 1
                          : a <= T(1.25) ? 2
                          : a < T(1.75)  ? 3
                          : a <= T(2.5)  ? 4
                          : a < T(3.5)   ? 5
                          : a <= T(5)    ? 6
                                         : 7;
  return sign | m;
}

// The value of a code (its low 4 bits), exact.
MF_FP4_FN float mf_e2m1Value(unsigned char code) {
  const unsigned char m = code & 0x7;
  // 0, 0.5, 1, 1.5, 2, 3, 4, 6: the subnormal 0.5, then 2^(e-1) * (1 + mantissa / 2).
  const float magnitude = m < 2 ? 0.5f * m : float(1 << ((m >> 1) - 1)) * (1.0f + 0.5f * (m & 1));
  return (code & 0x8) ? -magnitude : magnitude;
}

// NVFP4 block quantization (blockQuantize, docs/numerics.md), in float, in this order:
//   amax = max |x| over the block (a NaN in the block makes it NaN);
//   s    = clamp(amax / 6 * global_scale, 2^-6, 448) (NaN stays NaN), then rounded to e4m3
//          by the caller (the host's and the device's e4m3 conversions agree bit for bit);
//   q    = e2m1(clamp(x / (s_e4m3 / global_scale), -6, 6)) (NaN stays NaN: e2m1 gives +6),
//          the division correctly rounded (computed as below, once per block for the
//          reciprocal and two fused multiply-adds per value).
MF_FP4_FN float mf_nvfp4AbsMax(float amax, float x) {
  const float a = x < 0.0f ? -x : x;
  return (a > amax || a != a) ? a : amax;
}

MF_FP4_FN float mf_nvfp4Clamp(float v, float lo, float hi) {
  return v != v ? v : v < lo ? lo : v > hi ? hi : v;
}

MF_FP4_FN float mf_nvfp4BlockScale(float amax, float global_scale) {
  return mf_nvfp4Clamp(amax / 6.0f * global_scale, 0.015625f, 448.0f);
}

// mf_e2m1Code of a float in [-6, 6] or NaN, by its bits: below 1, 2|v| rounded to an integer
// (ties to even: 0.25 -> 0, 0.75 -> 2 halves); from 1, the float rounded to one mantissa bit
// (ties to even), whose exponent and bit are the code.
MF_FP4_FN unsigned char mf_e2m1CodeOfClamped(float v) {
  if (v != v) return 0x7;
  const unsigned bits = MF_FP4_BITS(v);
  const unsigned char sign = static_cast<unsigned char>((bits >> 28) & 0x8);
  const unsigned abs_bits = bits & 0x7fffffffu;
  const float a = v < 0.0f ? -v : v;
  unsigned m;
  if (a < 1.0f) {
    m = static_cast<unsigned>(MF_FP4_RINT(a * 2.0f));
  } else {
    // Round to nearest even at mantissa bit 22, then (exponent field << 1 | bit) - (126 << 1).
    m = ((abs_bits + 0x1fffffu + ((abs_bits >> 22) & 1u)) >> 22) - 252u;
  }
  return static_cast<unsigned char>(sign | m);
}

// The divisor of a block's values, d = rounded_scale / global_scale, and its reciprocal y.
// A value's quotient x / d is q = RN(x * y) corrected once: RN(q + RN(x - q * d) * y) with the
// residual exact by a fused multiply-add, which is RN(x / d) whenever y = RN(1 / d) and nothing
// overflows or underflows (Markstein's theorem; the residual of an underflowing quotient can
// be off, but such a quotient is below 0.25: code 0 of its sign either way; the sign is x's,
// d being positive, which also keeps -0 / d = -0). `fast` says the block qualifies (d and y
// positive normal, amax * y far from overflow); otherwise values are divided.
struct mf_Nvfp4Divisor {
  float d;
  float y;
  bool fast;
};

MF_FP4_FN mf_Nvfp4Divisor mf_nvfp4Divisor(float rounded_scale, float global_scale, float amax) {
  mf_Nvfp4Divisor r;
  r.d = rounded_scale / global_scale;
  r.y = 1.0f / r.d;
  const float kMinNormal = 1.17549435e-38f;
  r.fast =
      r.d >= kMinNormal && r.d <= 1e30f && r.y >= kMinNormal && r.y <= 1e30f && amax * r.y < 1e30f;
  return r;
}

MF_FP4_FN unsigned char mf_nvfp4CodeOf(float x, mf_Nvfp4Divisor b) {
  float q;
  if (b.fast) {
    const float q0 = x * b.y;
    q = MF_FP4_COPYSIGN(MF_FP4_FMA(MF_FP4_FMA(-q0, b.d, x), b.y, q0), x);
  } else {
    q = x / b.d;
  }
  return mf_e2m1CodeOfClamped(mf_nvfp4Clamp(q, -6.0f, 6.0f));
}

// The code of x in a block of scale `rounded_scale` (e4m3, widened back to float) and amax.
MF_FP4_FN unsigned char mf_nvfp4Code(float x, float rounded_scale, float global_scale, float amax) {
  return mf_nvfp4CodeOf(x, mf_nvfp4Divisor(rounded_scale, global_scale, amax));
}

#undef MF_FP4_FN
#undef MF_FP4_SIGNBIT
#undef MF_FP4_BITS
#undef MF_FP4_FMA
#undef MF_FP4_RINT
#undef MF_FP4_COPYSIGN
#endif  // MF_RUNTIME_FP4_CUH
