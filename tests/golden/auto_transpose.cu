extern "C" __global__ void __launch_bounds__(256) kernel_d5d4af6e9da92355(Tensor<float, 2, 2> T0, Tensor<float, 2, 2> T2) {
  const mf_index_t i44 = ((T0.size[0] + 64 - 1) / 64);
  const mf_index_t i116 = ((((mf_index_t)blockIdx.x) % i44) * 64);
  const mf_index_t i118 = ((((mf_index_t)blockIdx.x) / i44) * 64);
  const bool b251 = (((mf_index_t)threadIdx.x) < 256);
  __shared__ alignas(16) float T5[4160];
  alignas(16) float T3[16];
  #pragma unroll
  for (mf_index_t i84 = 0; i84 < 4; ++i84) {
    const mf_index_t i110 = ((i84 * 256) + ((mf_index_t)threadIdx.x));
    const mf_index_t i117 = (i116 + (i110 / 16));
    const mf_index_t i119 = (i118 + ((i110 % 16) * 4));
    if ((((i117 < T0.size[0]) && (i119 < T0.size[1])) && b251)) {
      mf_vectorCopy<float, 4>(&T3[(i84 * 4)], &T0[((i117 * T0.stride[0]) + i119)]);
    }
  }
  #pragma unroll
  for (mf_index_t i87 = 0; i87 < 4; ++i87) {
    const mf_index_t i141 = ((i87 * 256) + ((mf_index_t)threadIdx.x));
    for (mf_index_t i89 = 0; i89 < 4; ++i89) {
      const mf_index_t i161 = ((i141 * 4) + i89);
      if (((((i116 + (i141 / 16)) < T0.size[0]) && ((i118 + (((i141 % 16) * 4) + i89)) < T0.size[1])) && b251)) {
        T5[(i161 + (i161 / 64))] = T3[((i87 * 4) + i89)];
      }
    }
  }
  __syncthreads();
  #pragma unroll
  for (mf_index_t i90 = 0; i90 < 4; ++i90) {
    const mf_index_t i167 = ((i90 * 256) + ((mf_index_t)threadIdx.x));
    const mf_index_t i177 = (i118 + (i167 / 16));
    const bool b260 = (i177 < T0.size[1]);
    const mf_index_t i170 = ((i167 % 16) * 4);
    const mf_index_t i179 = (i177 % 64);
    const mf_index_t i224 = (i116 + i170);
    alignas(16) float T4[4];
    for (mf_index_t i92 = 0; i92 < 4; ++i92) {
      const mf_index_t i175 = (i116 + (i170 + i92));
      const mf_index_t i194 = (((((i175 % 64) * 16) + (i179 / 4)) * 4) + (i179 % 4));
      alignas(16) float T1[1];
      if (((b260 && (i175 < T0.size[0])) && b251)) {
        T1[0] = T5[(i194 + (i194 / 64))];
      }
      T4[i92] = (T1[0] * 2.0f);
    }
    if (((b260 && (i224 < T0.size[0])) && b251)) {
      mf_vectorCopy<float, 4>(&T2[((i177 * T2.stride[0]) + i224)], &T4[0]);
    }
  }
}
