extern "C" __global__ void __launch_bounds__(128) kernel_afd0ab0d9056b627(Tensor<float, 2, 2> T0, Tensor<float, 1, 1> T1) {
  const mf_index_t i42 = ((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x));
  const mf_index_t i43 = (i42 * 4);
  const bool b66 = (i42 < (T0.size[1] / 4));
  alignas(16) float T3[4];
  #pragma unroll
  for (mf_index_t i23 = 0; i23 < 4; ++i23) {
    if (((i43 + i23) < T0.size[1])) {
      T3[i23] = 0.0f;
    }
  }
  for (mf_index_t i21 = 0; i21 < T0.size[0]; ++i21) {
    alignas(16) float T2[4];
    if (b66) {
      mf_vectorCopy<float, 4>(&T2[0], &T0[((i21 * T0.stride[0]) + i43)]);
    }
    #pragma unroll
    for (mf_index_t i23 = 0; i23 < 4; ++i23) {
      if (b66) {
        T3[i23] = (T3[i23] + T2[i23]);
      }
    }
  }
  if (b66) {
    mf_vectorCopy<float, 4>(&T1[i43], &T3[0]);
  }
}
