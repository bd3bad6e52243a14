extern "C" __global__ void kernel_af88ca7f8fbd3016(Tensor<float, 2, 2> T0, Tensor<float, 2, 2> T1, Tensor<float, 2, 2> T3) {
  const mf_index_t i51 = (((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) * 4);
  const mf_index_t i52 = (i51 / T0.size[1]);
  const bool b146 = (i52 < T0.size[0]);
  const mf_index_t i53 = (i51 % T0.size[1]);
  const mf_index_t i71 = (i51 / T1.size[1]);
  alignas(16) float T6[4];
  alignas(16) float T5[4];
  alignas(16) float T4[4];
  if (b146) {
    mf_vectorCopy<float, 4>(&T4[0], &T0[((i52 * T0.stride[0]) + i53)]);
  }
  if ((i71 < T1.size[0])) {
    mf_vectorCopy<float, 4>(&T5[0], &T1[((i71 * T1.stride[0]) + (i51 % T1.size[1]))]);
  }
  for (mf_index_t i39 = 0; i39 < 4; ++i39) {
    const mf_index_t i89 = (i51 + i39);
    const mf_index_t i90 = (i89 / T0.size[1]);
    const bool b150 = (i90 < T0.size[0]);
    alignas(16) float T2[1];
    if (b150) {
      T2[0] = (T4[(i89 % 4)] + T5[(((i90 * T1.size[1]) + (i89 % T0.size[1])) % 4)]);
    }
    if (b150) {
      T6[i39] = (T2[0] * 2.0f);
    }
  }
  if (b146) {
    mf_vectorCopy<float, 4>(&T3[((i52 * T3.stride[0]) + i53)], &T6[(i51 % 4)]);
  }
}
