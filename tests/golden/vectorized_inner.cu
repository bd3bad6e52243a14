extern "C" __global__ void __launch_bounds__(128) kernel_d13675c1a49a95ee(Tensor<float, 2, 2> T0, Tensor<float, 2, 2> T3) {
  const mf_index_t i3 = (T0.size[0] * T0.size[1]);
  const mf_index_t i33 = ((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x));
  const bool b69 = (i33 < (i3 / 4));
  const mf_index_t i34 = (i33 * 4);
  alignas(16) float T2[4];
  alignas(16) float T1[4];
  if (b69) {
    mf_vectorCopy<float, 4>(&T1[0], &T0[i34]);
  }
  for (mf_index_t i25 = 0; i25 < 4; ++i25) {
    T2[i25] = (T1[i25] * 3.0f);
  }
  if (b69) {
    mf_vectorCopy<float, 4>(&T3[i34], &T2[0]);
  }
}
