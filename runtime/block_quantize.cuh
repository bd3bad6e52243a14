// runtime/block_quantize.cuh: NVFP4 block quantization in kernels (blockQuantize,
// groupedBlockQuantize; docs/numerics.md states the arithmetic, runtime/fp4.cuh holds it). A
// call quantizes one block of 16 values: it loads the block (two or four 16-byte loads when
// the values are contiguous and aligned, element loads otherwise), finds its amax in
// registers, rounds the scale to e4m3, and writes the 8 bytes of packed codes with one store
// and the scale plainly or at its swizzled position of the layout op's buffer.

template <typename T>
__device__ inline void mf_loadBlock16(const T* in, mf_index_t stride, float* x) {
  constexpr int kPerVector = 16 / sizeof(T);
  if (stride == 1 && reinterpret_cast<unsigned long long>(in) % 16 == 0) {
#pragma unroll
    for (int v = 0; v < 16 / kPerVector; ++v) {
      const mf_Vector<T, kPerVector> chunk =
          reinterpret_cast<const mf_Vector<T, kPerVector>*>(in)[v];
#pragma unroll
      for (int j = 0; j < kPerVector; ++j) x[v * kPerVector + j] = mf_cast<float>(chunk.v[j]);
    }
  } else {
#pragma unroll
    for (int j = 0; j < 16; ++j) x[j] = mf_cast<float>(in[j * stride]);
  }
}

// The block's e4m3 scale; its codes go to q[0 .. 8) (one 8-byte store when aligned).
template <typename T>
__device__ inline mf_fp8e4m3 mf_quantizeBlock16(const T* in, mf_index_t stride, float global_scale,
                                                mf_fp4e2m1x2* q) {
  float x[16];
  mf_loadBlock16(in, stride, x);
  float amax = 0.0f;
#pragma unroll
  for (int j = 0; j < 16; ++j) amax = mf_nvfp4AbsMax(amax, x[j]);
  const mf_fp8e4m3 s = mf_toFp8e4m3(mf_nvfp4BlockScale(amax, global_scale));
  const mf_Nvfp4Divisor divisor = mf_nvfp4Divisor(mf_toFloat(s), global_scale, amax);
  mf_Vector<unsigned char, 8> codes;
#pragma unroll
  for (int j = 0; j < 8; ++j)
    codes.v[j] = static_cast<unsigned char>(mf_nvfp4CodeOf(x[2 * j], divisor) |
                                            (mf_nvfp4CodeOf(x[2 * j + 1], divisor) << 4));
  if (reinterpret_cast<unsigned long long>(q) % 8 == 0) {
    *reinterpret_cast<mf_Vector<unsigned char, 8>*>(q) = codes;
  } else {
#pragma unroll
    for (int j = 0; j < 8; ++j) q[j].bits = codes.v[j];
  }
  return s;
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
