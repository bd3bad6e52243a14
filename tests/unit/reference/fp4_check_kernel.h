// A hand-written kernel over the runtime prelude that runs the device's e2m1 conversion and
// NVFP4 block arithmetic (runtime/fp4.cuh, with the device's e4m3 rounding) on given values:
// the GPU test compares its results with the host's bit for bit, the CPU test compiles it.
#pragma once

#include <string>

#include "cuda/runtime_sources.h"

namespace mf::testing {

inline constexpr const char* kFp4CheckKernel = "mf_fp4_check";

//! mf_fp4_check(xf, xd, codes_f, codes_d, decoded, n, blocks, global_scale, scales, packed,
//! nblocks): codes of n floats and n doubles, the values of the 16 codes, and the scale and
//! packed codes of nblocks blocks of 16 floats.
inline std::string fp4CheckSource() {
  return "typedef long long mf_index_t;\n" + std::string(cuda::runtimePrelude()) + R"(
extern "C" __global__ void mf_fp4_check(const float* xf, const double* xd, unsigned char* codes_f,
                                        unsigned char* codes_d, float* decoded, int n,
                                        const float* blocks, const float* global_scale,
                                        unsigned char* scales, unsigned char* packed,
                                        int nblocks) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    codes_f[i] = mf_e2m1Code(xf[i]);
    codes_d[i] = mf_e2m1Code(xd[i]);
  }
  if (i < 16) decoded[i] = mf_e2m1Value((unsigned char)i);
  if (i < nblocks) {
    const float* x = blocks + 16 * i;
    const float gs = *global_scale;
    float amax = 0.0f;
    for (int j = 0; j < 16; ++j) amax = mf_nvfp4AbsMax(amax, x[j]);
    const mf_fp8e4m3 s = mf_toFp8e4m3(mf_nvfp4BlockScale(amax, gs));
    scales[i] = s.bits;
    const float rounded = mf_toFloat(s);
    for (int j = 0; j < 16; j += 2)
      packed[8 * i + j / 2] = (unsigned char)(mf_nvfp4Code(x[j], rounded, gs, amax) |
                                              (mf_nvfp4Code(x[j + 1], rounded, gs, amax) << 4));
  }
}
)";
}

}  // namespace mf::testing
