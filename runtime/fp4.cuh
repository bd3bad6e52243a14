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
#define MF_FP4_FROM_BITS(b) __uint_as_float(b)
#define MF_FP4_MIN_ABS(x, hi) fminf(fabsf(x), hi)
#define MF_FP4_FMA(a, b, c) fmaf(a, b, c)
#else
#include <bit>
#include <cmath>
#define MF_FP4_FN inline
#define MF_FP4_SIGNBIT(x) std::signbit(x)
#define MF_FP4_BITS(x) std::bit_cast<unsigned>(x)
#define MF_FP4_FROM_BITS(b) std::bit_cast<float>(b)
#define MF_FP4_MIN_ABS(x, hi) std::fmin(std::fabs(x), hi)
#define MF_FP4_FMA(a, b, c) std::fma(a, b, c)
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

// The magnitude code (0..7) of a float a in [0, 6] (not NaN), without a branch or a table.
// e2m1's grid is 2a's integers below 2, then a + 2's, then a / 2 + 4's: the code is
// round_even(g(a)) with g(a) = min(2a, a + 2, a / 2 + 4) (concave, the three pieces meeting at
// 2 and 4, and each midpoint of the grid at a half-integer of g, so ties go to the even code:
// 0.25 -> 0, 0.75 -> 1, 1.25 -> 1, 1.75 -> 2, 2.5 -> 2, 3.5 -> 4, 5 -> 4). Each piece is rounded
// by one fused operation with 2^23 (whose float spacing is 1): bits(2^23 + n) = 0x4b000000 + n
// for the rounded piece n, and rounding is monotonic, so the smallest of the three bit
// patterns is 0x4b000000 + the code. Kernels keep the biased form (its low nibble is the code:
// 0x4b000000 is a multiple of 16). Checked against mf_e2m1Code on every float in [0, 6].
MF_FP4_FN unsigned mf_e2m1MagnitudeBits(float a) {
  const unsigned twice = MF_FP4_BITS(MF_FP4_FMA(a, 2.0f, 8388608.0f));
  const unsigned plus_two = MF_FP4_BITS(a + 8388610.0f);
  const unsigned half_plus_four = MF_FP4_BITS(MF_FP4_FMA(a, 0.5f, 8388612.0f));
  const unsigned low = twice < plus_two ? twice : plus_two;
  return low < half_plus_four ? low : half_plus_four;
}

MF_FP4_FN unsigned mf_e2m1MagnitudeCode(float a) {
  return mf_e2m1MagnitudeBits(a) - 0x4b000000u;
}

// mf_e2m1Code of a float in [-6, 6] or NaN: the magnitude's code and the sign bit.
MF_FP4_FN unsigned char mf_e2m1CodeOfClamped(float v) {
  if (v != v) return 0x7;
  const unsigned char sign = static_cast<unsigned char>((MF_FP4_BITS(v) >> 28) & 0x8);
  return static_cast<unsigned char>(sign | mf_e2m1MagnitudeCode(v < 0.0f ? -v : v));
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

// The code of x in a block that qualifies (b.fast): the block holds no NaN or infinity and
// |x / d| stays far below overflow, so the quotient is finite and its sign is x's whenever
// it is not zero. The code takes its magnitude from min(|q|, 6) (the clamp) and its sign
// from x (which keeps -0 and negative values rounding to 0 at 0x8).
MF_FP4_FN unsigned mf_nvfp4FastCode(float x, mf_Nvfp4Divisor b) {
  const float q0 = x * b.y;
  const float q = MF_FP4_FMA(MF_FP4_FMA(-q0, b.d, x), b.y, q0);
  return mf_e2m1MagnitudeCode(MF_FP4_MIN_ABS(q, 6.0f)) | ((MF_FP4_BITS(x) >> 28) & 0x8u);
}

MF_FP4_FN unsigned char mf_nvfp4CodeOf(float x, mf_Nvfp4Divisor b) {
  if (b.fast) return static_cast<unsigned char>(mf_nvfp4FastCode(x, b));
  return mf_e2m1CodeOfClamped(mf_nvfp4Clamp(x / b.d, -6.0f, 6.0f));
}

// The code of x in a block of scale `rounded_scale` (e4m3, widened back to float) and amax.
MF_FP4_FN unsigned char mf_nvfp4Code(float x, float rounded_scale, float global_scale, float amax) {
  return mf_nvfp4CodeOf(x, mf_nvfp4Divisor(rounded_scale, global_scale, amax));
}

#undef MF_FP4_FN
#undef MF_FP4_SIGNBIT
#undef MF_FP4_BITS
#undef MF_FP4_FROM_BITS
#undef MF_FP4_MIN_ABS
#undef MF_FP4_FMA
#endif  // MF_RUNTIME_FP4_CUH
