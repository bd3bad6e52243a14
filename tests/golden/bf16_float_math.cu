extern "C" __global__ void __launch_bounds__(128) kernel_270852f0ac497c65(Tensor<mf_bfloat16, 1, 1> T0, Tensor<mf_bfloat16, 1, 1> T4) {
  const mf_index_t i18 = ((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x));
  const bool b39 = (i18 < T0.size[0]);
  alignas(16) float T3[1];
  alignas(16) float T2[1];
  alignas(16) float T1[1];
  if (b39) {
    T1[0] = mf_toFloatForArithmetic(T0[i18]);
  }
  T2[0] = mf_exp(T1[0]);
  T3[0] = (T2[0] * T1[0]);
  if (b39) {
    T4[i18] = mf_cast<mf_bfloat16>(T3[0]);
  }
}
