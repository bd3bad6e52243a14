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
#else
#include <cmath>
#define MF_FP4_FN inline
#define MF_FP4_SIGNBIT(x) std::signbit(x)
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
//   q    = e2m1(clamp(x / (s_e4m3 / global_scale), -6, 6)) (NaN stays NaN: e2m1 gives +6).
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

// `rounded_scale` is the block's scale as e4m3, widened back to float.
MF_FP4_FN unsigned char mf_nvfp4Code(float x, float rounded_scale, float global_scale) {
  return mf_e2m1Code(mf_nvfp4Clamp(x / (rounded_scale / global_scale), -6.0f, 6.0f));
}

#undef MF_FP4_FN
#undef MF_FP4_SIGNBIT
#endif  // MF_RUNTIME_FP4_CUH
