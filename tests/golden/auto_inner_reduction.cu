extern "C" __global__ void kernel_9b4cfedee4732879(Tensor<float, 2, 2> T0, Tensor<float, 1, 1> T1) {
  __builtin_assume(threadIdx.x < 256);
  alignas(16) float T3[1];
  T3[0] = 0.0f;
  alignas(16) float T4[1];
  T4[0] = 0.0f;
  for (mf_index_t i17 = 0; i17 < ((((T0.size[1] + 4 - 1) / 4) + 256 - 1) / 256); ++i17) {
    const mf_index_t i26 = ((i17 * 256) + ((mf_index_t)threadIdx.x));
    const bool b59 = (i26 < (T0.size[1] / 4));
    alignas(16) float T2[4];
    if (b59) {
      mf_vectorCopy<float, 4>(&T2[0], &T0[((((mf_index_t)blockIdx.x) * T0.stride[0]) + (i26 * 4))]);
    }
    for (mf_index_t i19 = 0; i19 < 4; ++i19) {
      if (b59) {
        T4[0] = (T4[0] + T2[i19]);
      }
    }
  }
  {
    const float block_result = mf_blockAllReduceX<float>(T4[0], [](float a, float b) { return (a + b); }, 0.0f);
    T3[0] = (T3[0] + block_result);
  }
  T1[((mf_index_t)blockIdx.x)] = T3[0];
}
