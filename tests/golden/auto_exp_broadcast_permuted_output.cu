extern "C" __global__ void __launch_bounds__(256) kernel_0b106768f952b258(Tensor<float, 2, 2> T0, Tensor<float, 1, 1> T1, Tensor<float, 2, 2> T4) {
  const mf_index_t i53 = ((T0.size[0] + 64 - 1) / 64);
  const mf_index_t i127 = ((((mf_index_t)blockIdx.x) % i53) * 64);
  const mf_index_t i129 = ((((mf_index_t)blockIdx.x) / i53) * 64);
  const bool b288 = (((mf_index_t)threadIdx.x) < 256);
  __shared__ alignas(16) float T8[4160];
  alignas(16) float T6[16];
  #pragma unroll
  for (mf_index_t i94 = 0; i94 < 4; ++i94) {
    const mf_index_t i121 = ((i94 * 256) + ((mf_index_t)threadIdx.x));
    const mf_index_t i128 = (i127 + (i121 / 16));
    const mf_index_t i130 = (i129 + ((i121 % 16) * 4));
    if ((((i128 < T0.size[0]) && (i130 < T0.size[1])) && b288)) {
      mf_vectorCopy<float, 4>(&T6[(i94 * 4)], &T0[((i128 * T0.stride[0]) + i130)]);
    }
  }
  #pragma unroll
  for (mf_index_t i97 = 0; i97 < 4; ++i97) {
    const mf_index_t i152 = ((i97 * 256) + ((mf_index_t)threadIdx.x));
    for (mf_index_t i99 = 0; i99 < 4; ++i99) {
      const mf_index_t i172 = ((i152 * 4) + i99);
      if (((((i127 + (i152 / 16)) < T0.size[0]) && ((i129 + (((i152 % 16) * 4) + i99)) < T0.size[1])) && b288)) {
        T8[(i172 + (i172 / 64))] = T6[((i97 * 4) + i99)];
      }
    }
  }
  __syncthreads();
  #pragma unroll
  for (mf_index_t i100 = 0; i100 < 4; ++i100) {
    const mf_index_t i178 = ((i100 * 256) + ((mf_index_t)threadIdx.x));
    const mf_index_t i181 = ((i178 % 16) * 4);
    const mf_index_t i226 = (i129 + (i178 / 16));
    const bool b306 = (i226 < T0.size[1]);
    const mf_index_t i228 = (i226 % 64);
    const mf_index_t i261 = (i127 + i181);
    alignas(16) float T7[4];
    for (mf_index_t i102 = 0; i102 < 4; ++i102) {
      const mf_index_t i182 = (i181 + i102);
      const mf_index_t i186 = (((((mf_index_t)blockIdx.x) % ((T1.size[0] + 64 - 1) / 64)) * 64) + i182);
      const mf_index_t i224 = (i127 + i182);
      const mf_index_t i243 = (((((i224 % 64) * 16) + (i228 / 4)) * 4) + (i228 % 4));
      alignas(16) float T3[1];
      alignas(16) float T5[1];
      if (((i186 < T1.size[0]) && b288)) {
        T5[0] = T1[i186];
      }
      T3[0] = mf_exp(T5[0]);
      if ((((i224 < T0.size[0]) && b306) && b288)) {
        T7[i102] = (T8[(i243 + (i243 / 64))] - T3[0]);
      }
    }
    if ((((i261 < T0.size[0]) && b306) && b288)) {
      mf_vectorCopy<float, 4>(&T4[((i226 * T4.stride[0]) + i261)], &T7[0]);
    }
  }
}
