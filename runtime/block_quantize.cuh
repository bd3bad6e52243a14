// runtime/block_quantize.cuh: NVFP4 block quantization in kernels (blockQuantize,
// groupedBlockQuantize; docs/numerics.md states the arithmetic, runtime/fp4.cuh holds it). A
// call quantizes one block of 16 values: it loads the block (two or four 16-byte loads when
// the values are contiguous and aligned, element loads otherwise), finds its amax in
// registers, rounds the scale to e4m3, and writes the 8 bytes of packed codes with one store
// and the scale plainly or at its swizzled position of the layout op's buffer.

// A value widened for the quantization, which only compares and divides it: exact, a NaN
// keeping its bits (its code is +6 whatever they are).
__device__ inline float mf_quantizeWiden(float v) {
  return v;
}
template <typename T>
__device__ inline float mf_quantizeWiden(T v) {
  return mf_toFloatForArithmetic(v);
}

// The block of 16 values x (widened): its e4m3 scale, its codes to q[0 .. 8) (one 8-byte
// store when aligned). The amax is the largest |x| compared as bits (NaN bits above +inf
// above every finite magnitude: a NaN in the block gives a NaN amax, whose scale is e4m3's
// NaN whatever its payload, as mf_nvfp4AbsMax's running maximum gives). A block that
// qualifies for the fast quotient (mf_nvfp4Divisor) takes it for all 16 values, with no
// branch per value.
__device__ inline mf_fp8e4m3 mf_quantizeValues16(const float* x, float global_scale,
                                                 mf_fp4e2m1x2* q) {
  unsigned amax_bits = 0;
#pragma unroll
  for (int j = 0; j < 16; ++j) amax_bits = max(amax_bits, __float_as_uint(x[j]) & 0x7fffffffu);
  const float amax = __uint_as_float(amax_bits);
  const mf_fp8e4m3 s = mf_toFp8e4m3(mf_nvfp4BlockScale(amax, global_scale));
  const mf_Nvfp4Divisor divisor = mf_nvfp4Divisor(mf_toFloat(s), global_scale, amax);
  unsigned codes[2] = {0, 0};
  if (divisor.fast) {
#pragma unroll
    for (int j = 0; j < 16; ++j) codes[j / 8] |= mf_nvfp4FastCode(x[j], divisor) << (4 * (j % 8));
  } else {
#pragma unroll
    for (int j = 0; j < 16; ++j)
      codes[j / 8] |= static_cast<unsigned>(mf_nvfp4CodeOf(x[j], divisor)) << (4 * (j % 8));
  }
  if (reinterpret_cast<unsigned long long>(q) % 8 == 0) {
    mf_Vector<unsigned, 2> pair;
    pair.v[0] = codes[0];
    pair.v[1] = codes[1];
    *reinterpret_cast<mf_Vector<unsigned, 2>*>(q) = pair;
  } else {
#pragma unroll
    for (int j = 0; j < 8; ++j)
      q[j].bits = static_cast<unsigned char>(codes[j / 4] >> (8 * (j % 4)));
  }
  return s;
}

// One block read from `in` (values `stride` apart): with 16-byte loads when contiguous and
// aligned, else element by element. Each way quantizes in its own branch, so that the
// compiler branches instead of predicating both sets of loads (which every block then pays).
template <typename T>
__device__ inline mf_fp8e4m3 mf_quantizeBlock16(const T* in, mf_index_t stride, float global_scale,
                                                mf_fp4e2m1x2* q) {
  float x[16];
  if (stride == 1 && reinterpret_cast<unsigned long long>(in) % 16 == 0) {
    constexpr int kPerVector = 16 / sizeof(T);
#pragma unroll
    for (int v = 0; v < 16 / kPerVector; ++v) {
      const mf_Vector<T, kPerVector> chunk =
          reinterpret_cast<const mf_Vector<T, kPerVector>*>(in)[v];
#pragma unroll
      for (int j = 0; j < kPerVector; ++j) x[v * kPerVector + j] = mf_quantizeWiden(chunk.v[j]);
    }
    return mf_quantizeValues16(x, global_scale, q);
  }
#pragma unroll
  for (int j = 0; j < 16; ++j) x[j] = mf_quantizeWiden(in[j * stride]);
  return mf_quantizeValues16(x, global_scale, q);
}

// One block: `in` at its first value (values `in_stride` apart), its scale to *scale and its
// codes to q (the byte of its first two values).
template <typename T>
__device__ inline void mf_blockQuantize(mf_fp8e4m3* scale, mf_fp4e2m1x2* q, const T* in,
                                        mf_index_t in_stride, float global_scale) {
  *scale = mf_quantizeBlock16(in, in_stride, global_scale, q);
}

// The same, the scale of logical position (row, col) of the [M, KB] scales written into the
// layout op's padded buffer `scales` of scales_numel entries (checks and bounds as
// mf_preprocessGroupedMatmulInputSf's). The codes are written whatever the offsets hold.
template <typename T, typename OffsetT>
__device__ inline void mf_groupedBlockQuantize(mf_fp8e4m3* scales, mf_index_t scales_numel,
                                               mf_fp4e2m1x2* q, const T* in, mf_index_t in_stride,
                                               float global_scale, const OffsetT* in_off,
                                               const OffsetT* out_off, mf_index_t row,
                                               mf_index_t col, mf_index_t M, mf_index_t KB,
                                               mf_index_t G, int* error_flag) {
  const mf_fp8e4m3 s = mf_quantizeBlock16(in, in_stride, global_scale, q);
  mf_preprocessGroupedMatmulInputSf<mf_fp8e4m3, OffsetT>(scales, scales_numel, &s, 1, row, col,
                                                         in_off, out_off, M, KB, G, error_flag);
}
