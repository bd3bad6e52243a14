extern "C" __global__ void __launch_bounds__(128) kernel_d830cb9df8b34b3b(Tensor<float, 2, 2> T0, Tensor<float, 1, 1> T1, Tensor<float, 2, 2> T4) {
  const mf_index_t i53 = ((T0.size[0] + 32 - 1) / 32);
  const mf_index_t i127 = ((((mf_index_t)blockIdx.x) % i53) * 32);
  const mf_index_t i129 = ((((mf_index_t)blockIdx.x) / i53) * 32);
  const bool b288 = (((mf_index_t)threadIdx.x) < 128);
  __shared__ alignas(16) float T8[1056];
  alignas(16) float T6[8];
  #pragma unroll
  for (mf_index_t i94 = 0; i94 < 2; ++i94) {
    const mf_index_t i121 = ((i94 * 128) + ((mf_index_t)threadIdx.x));
    const mf_index_t i128 = (i127 + (i121 / 8));
    const mf_index_t i130 = (i129 + ((i121 % 8) * 4));
    if ((((i128 < T0.size[0]) && (i130 < T0.size[1])) && b288)) {
      mf_vectorCopy<float, 4>(&T6[(i94 * 4)], &T0[((i128 * T0.stride[0]) + i130)]);
    }
  }
  #pragma unroll
  for (mf_index_t i97 = 0; i97 < 2; ++i97) {
    const mf_index_t i152 = ((i97 * 128) + ((mf_index_t)threadIdx.x));
    for (mf_index_t i99 = 0; i99 < 4; ++i99) {
      const mf_index_t i172 = ((i152 * 4) + i99);
      if (((((i127 + (i152 / 8)) < T0.size[0]) && ((i129 + (((i152 % 8) * 4) + i99)) < T0.size[1])) && b288)) {
        T8[(i172 + (i172 / 32))] = T6[((i97 * 4) + i99)];
      }
    }
  }
  __syncthreads();
  #pragma unroll
  for (mf_index_t i100 = 0; i100 < 2; ++i100) {
    const mf_index_t i178 = ((i100 * 128) + ((mf_index_t)threadIdx.x));
    const mf_index_t i181 = ((i178 % 8) * 4);
    const mf_index_t i226 = (i129 + (i178 / 8));
    const bool b306 = (i226 < T0.size[1]);
    const mf_index_t i228 = (i226 % 32);
    const mf_index_t i261 = (i127 + i181);
    alignas(16) float T7[4];
    for (mf_index_t i102 = 0; i102 < 4; ++i102) {
      const mf_index_t i182 = (i181 + i102);
      const mf_index_t i186 = (((((mf_index_t)blockIdx.x) % ((T1.size[0] + 32 - 1) / 32)) * 32) + i182);
      const mf_index_t i224 = (i127 + i182);
      const mf_index_t i243 = (((((i224 % 32) * 8) + (i228 / 4)) * 4) + (i228 % 4));
      alignas(16) float T3[1];
      alignas(16) float T5[1];
      if (((i186 < T1.size[0]) && b288)) {
        T5[0] = T1[i186];
      }
      T3[0] = mf_exp(T5[0]);
      if ((((i224 < T0.size[0]) && b306) && b288)) {
        T7[i102] = (T8[(i243 + (i243 / 32))] - T3[0]);
      }
    }
    if ((((i261 < T0.size[0]) && b306) && b288)) {
      mf_vectorCopy<float, 4>(&T4[((i226 * T4.stride[0]) + i261)], &T7[0]);
    }
  }
}
