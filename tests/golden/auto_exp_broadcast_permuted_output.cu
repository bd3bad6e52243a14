extern "C" __global__ void kernel_edff00179e9bcc0a(Tensor<float, 2, 2> T0, Tensor<float, 1, 1> T1, Tensor<float, 2, 2> T4) {
  const mf_index_t i55 = (((((mf_index_t)blockIdx.x) * 32) + ((mf_index_t)threadIdx.x)) * 4);
  const mf_index_t i58 = ((((mf_index_t)blockIdx.y) * 4) + ((mf_index_t)threadIdx.y));
  const bool b145 = (i58 < T0.size[1]);
  alignas(16) float T7[4];
  alignas(16) float T3[4];
  alignas(16) float T5[4];
  alignas(16) float T6[4];
  for (mf_index_t i40 = 0; i40 < 4; ++i40) {
    const mf_index_t i56 = (i55 + i40);
    if (((i56 < T0.size[0]) && b145)) {
      T6[i40] = T0[((i56 * T0.stride[0]) + i58)];
    }
  }
  for (mf_index_t i41 = 0; i41 < 4; ++i41) {
    const mf_index_t i75 = (i55 + i41);
    if ((i75 < T1.size[0])) {
      T5[i41] = T1[i75];
    }
  }
  for (mf_index_t i42 = 0; i42 < 4; ++i42) {
    if (((i55 + i42) < T1.size[0])) {
      T3[i42] = mf_exp(T5[i42]);
    }
  }
  for (mf_index_t i43 = 0; i43 < 4; ++i43) {
    const mf_index_t i102 = (i55 + i43);
    if (((i102 < T0.size[0]) && b145)) {
      T7[i43] = (T6[(i102 % 4)] - T3[i43]);
    }
  }
  if (((i55 < T0.size[0]) && b145)) {
    mf_vectorCopy<float, 4>(&T4[((i58 * T4.stride[0]) + i55)], &T7[(i55 % 4)]);
  }
}
