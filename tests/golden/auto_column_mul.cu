extern "C" __global__ void kernel_f597ef76f3427d65(Tensor<float, 2, 2> T0, Tensor<float, 2, 2> T1, Tensor<float, 2, 2> T2) {
  const mf_index_t i38 = (((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) * 4);
  const bool b98 = (i38 < T0.size[1]);
  alignas(16) float T5[4];
  alignas(16) float T4[1];
  alignas(16) float T3[4];
  if (b98) {
    mf_vectorCopy<float, 4>(&T3[0], &T0[((((mf_index_t)blockIdx.y) * T0.stride[0]) + i38)]);
  }
  for (mf_index_t i27 = 0; i27 < 4; ++i27) {
    T4[0] = T1[((mf_index_t)blockIdx.y)];
  }
  for (mf_index_t i28 = 0; i28 < 4; ++i28) {
    const mf_index_t i67 = (i38 + i28);
    if ((i67 < T0.size[1])) {
      T5[i28] = (T3[(i67 % 4)] * T4[0]);
    }
  }
  if (b98) {
    mf_vectorCopy<float, 4>(&T2[((((mf_index_t)blockIdx.y) * T2.stride[0]) + i38)], &T5[(i38 % 4)]);
  }
}
