extern "C" __global__ void __launch_bounds__(128) kernel_fdf4e6d66c6e5649(Tensor<float, 2, 2> T0, Tensor<float, 1, 1> T1, Tensor<float, 2, 2> T4) {
  const mf_index_t i40 = ((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x));
  const bool b100 = (i40 < (T0.size[1] / 4));
  const mf_index_t i41 = (i40 * 4);
  alignas(16) float T6[4];
  alignas(16) float T5[4];
  if (b100) {
    mf_vectorCopy<float, 4>(&T5[0], &T0[((((mf_index_t)blockIdx.y) * T0.stride[0]) + i41)]);
  }
  for (mf_index_t i30 = 0; i30 < 4; ++i30) {
    alignas(16) float T3[1];
    alignas(16) float T2[1];
    if ((i40 < (T1.size[0] / 4))) {
      T2[0] = T1[(i41 + i30)];
    }
    T3[0] = (T5[i30] + T2[0]);
    T6[i30] = mf_relu(T3[0]);
  }
  if (b100) {
    mf_vectorCopy<float, 4>(&T4[((((mf_index_t)blockIdx.y) * T4.stride[0]) + i41)], &T6[0]);
  }
}
