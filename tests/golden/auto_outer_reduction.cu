extern "C" __global__ void kernel_5d5768fa464dd45c(Tensor<float, 2, 2> T0, Tensor<float, 1, 1> T1) {
  const mf_index_t i66 = ((((mf_index_t)blockIdx.x) * 32) + ((mf_index_t)threadIdx.x));
  const bool b94 = (i66 < T0.size[1]);
  alignas(16) float T3[1];
  if (b94) {
    T3[0] = 0.0f;
  }
  alignas(16) float T4[1];
  if (b94) {
    T4[0] = 0.0f;
  }
  for (mf_index_t i22 = 0; i22 < ((((T0.size[0] + 16 - 1) / 16) + 4 - 1) / 4); ++i22) {
    #pragma unroll
    for (mf_index_t i23 = 0; i23 < 4; ++i23) {
      const mf_index_t i30 = ((((i22 * 4) + i23) * 16) + ((mf_index_t)threadIdx.y));
      const bool b86 = ((i30 < T0.size[0]) && b94);
      alignas(16) float T2[1];
      if (b86) {
        T2[0] = T0[((i30 * T0.stride[0]) + i66)];
      }
      if (b86) {
        T4[0] = (T4[0] + T2[0]);
      }
    }
  }
  {
    const float block_result = mf_blockAllReduceY<float>(b94 ? T4[0] : 0.0f, [](float a, float b) { return (a + b); }, 0.0f);
    if (b94) {
      T3[0] = (T3[0] + block_result);
    }
  }
  if (b94) {
    T1[i66] = T3[0];
  }
}
