extern "C" __global__ void __launch_bounds__(128) kernel_1d6cb246d97f3edf(Tensor<float, 2, 2> T0, Tensor<float, 1, 1> T1) {
  __builtin_assume(threadIdx.x < 32);
  __builtin_assume(blockDim.x == 32);
  __builtin_assume(threadIdx.y < 4);
  __builtin_assume(blockDim.y == 4);
  const mf_index_t i71 = ((((mf_index_t)blockIdx.x) * 4) + ((mf_index_t)threadIdx.y));
  const bool b100 = (i71 < T0.size[0]);
  alignas(16) float T3[1];
  if (b100) {
    T3[0] = 0.0f;
  }
  alignas(16) float T4[1];
  if (b100) {
    T4[0] = 0.0f;
  }
  for (mf_index_t i27 = 0; i27 < ((((((T0.size[1] + 4 - 1) / 4) + 32 - 1) / 32) + 4 - 1) / 4); ++i27) {
    #pragma unroll
    for (mf_index_t i28 = 0; i28 < 4; ++i28) {
      const mf_index_t i39 = ((((i27 * 4) + i28) * 32) + ((mf_index_t)threadIdx.x));
      const bool b91 = (b100 && (i39 < (T0.size[1] / 4)));
      alignas(16) float T2[4];
      if (b91) {
        mf_vectorCopy<float, 4>(&T2[0], &T0[((i71 * T0.stride[0]) + (i39 * 4))]);
      }
      for (mf_index_t i30 = 0; i30 < 4; ++i30) {
        if (b91) {
          T4[0] = (T4[0] + T2[i30]);
        }
      }
    }
  }
  {
    const float block_result = mf_blockAllReduceX<float>(b100 ? T4[0] : 0.0f, [](float a, float b) { return (a + b); }, 0.0f);
    if (b100) {
      T3[0] = (T3[0] + block_result);
    }
  }
  if (b100) {
    T1[i71] = T3[0];
  }
}
