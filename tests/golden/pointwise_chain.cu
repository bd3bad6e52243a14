extern "C" __global__ void __launch_bounds__(128) kernel_8c2950436ee1bde3(Tensor<float, 2, 2> T0, Tensor<float, 2, 2> T1, Tensor<float, 2, 2> T5) {
  const mf_index_t i5 = (T0.size[0] * T0.size[1]);
  const mf_index_t i26 = ((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x));
  const bool b69 = (i26 < i5);
  const mf_index_t i27 = (i26 / T0.size[1]);
  const mf_index_t i28 = (i26 % T0.size[1]);
  const mf_index_t i40 = ((i27 * T1.stride[0]) + (i28 * T1.stride[1]));
  alignas(16) float T4[1];
  alignas(16) float T3[1];
  alignas(16) float T2[1];
  if (b69) {
    T2[0] = (T0[((i27 * T0.stride[0]) + (i28 * T0.stride[1]))] + T1[i40]);
  }
  T3[0] = (T2[0] * 0.5f);
  if (b69) {
    T4[0] = (T3[0] - T1[i40]);
  }
  if (b69) {
    T5[i26] = mf_relu(T4[0]);
  }
}
