extern "C" __global__ void kernel_3989073c4786bb77(Tensor<float, 2, 2> T0, Tensor<float, 2, 2> T1, Tensor<float, 2, 2> T3) {
  const mf_index_t i54 = (((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) * 4);
  const mf_index_t i55 = (i54 / T0.size[1]);
  const bool b151 = (i55 < T0.size[0]);
  const mf_index_t i56 = (i54 % T0.size[1]);
  const mf_index_t i74 = (i54 / T1.size[1]);
  alignas(16) float T6[4];
  alignas(16) float T2[4];
  alignas(16) float T5[4];
  alignas(16) float T4[4];
  if (b151) {
    mf_vectorCopy<float, 4>(&T4[0], &T0[((i55 * T0.stride[0]) + i56)]);
  }
  if ((i74 < T1.size[0])) {
    mf_vectorCopy<float, 4>(&T5[0], &T1[((i74 * T1.stride[0]) + (i54 % T1.size[1]))]);
  }
  for (mf_index_t i40 = 0; i40 < 4; ++i40) {
    const mf_index_t i92 = (i54 + i40);
    const mf_index_t i93 = (i92 / T0.size[1]);
    if ((i93 < T0.size[0])) {
      T2[i40] = (T4[(i92 % 4)] + T5[(((i93 * T1.size[1]) + (i92 % T0.size[1])) % 4)]);
    }
  }
  for (mf_index_t i41 = 0; i41 < 4; ++i41) {
    const mf_index_t i115 = (i54 + i41);
    if (((i115 / T0.size[1]) < T0.size[0])) {
      T6[i41] = (T2[(i115 % 4)] * 2.0f);
    }
  }
  if (b151) {
    mf_vectorCopy<float, 4>(&T3[((i55 * T3.stride[0]) + i56)], &T6[(i54 % 4)]);
  }
}
