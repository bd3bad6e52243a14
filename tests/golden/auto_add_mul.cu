extern "C" __global__ void __launch_bounds__(128) kernel_1e28bd5e9948bedc(Tensor<float, 2, 2> T0, Tensor<float, 2, 2> T1, Tensor<float, 2, 2> T3) {
  const mf_index_t i16 = (T0.size[0] * T0.size[1]);
  const mf_index_t i50 = ((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x));
  const bool b116 = (i50 < (i16 / 4));
  const mf_index_t i51 = (i50 * 4);
  alignas(16) float T6[4];
  alignas(16) float T5[4];
  alignas(16) float T4[4];
  if (b116) {
    mf_vectorCopy<float, 4>(&T4[0], &T0[i51]);
  }
  if ((i50 < ((T1.size[0] * T1.size[1]) / 4))) {
    mf_vectorCopy<float, 4>(&T5[0], &T1[i51]);
  }
  for (mf_index_t i39 = 0; i39 < 4; ++i39) {
    alignas(16) float T2[1];
    T2[0] = (T4[i39] + T5[i39]);
    T6[i39] = (T2[0] * 2.0f);
  }
  if (b116) {
    mf_vectorCopy<float, 4>(&T3[i51], &T6[0]);
  }
}
