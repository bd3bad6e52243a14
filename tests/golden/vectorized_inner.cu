extern "C" __global__ void kernel_c5da0c41d0f68478(Tensor<float, 2, 2> T0, Tensor<float, 2, 2> T3) {
  const mf_index_t i34 = (((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) * 4);
  const mf_index_t i35 = (i34 / T0.size[1]);
  const bool b84 = (i35 < T0.size[0]);
  const mf_index_t i36 = (i34 % T0.size[1]);
  alignas(16) float T2[4];
  alignas(16) float T1[4];
  if (b84) {
    mf_vectorCopy<float, 4>(&T1[0], &T0[((i35 * T0.stride[0]) + i36)]);
  }
  for (mf_index_t i25 = 0; i25 < 4; ++i25) {
    const mf_index_t i48 = (i34 + i25);
    if (((i48 / T0.size[1]) < T0.size[0])) {
      T2[i25] = (T1[(i48 % 4)] * 3.0f);
    }
  }
  if (b84) {
    mf_vectorCopy<float, 4>(&T3[((i35 * T3.stride[0]) + i36)], &T2[(i34 % 4)]);
  }
}
