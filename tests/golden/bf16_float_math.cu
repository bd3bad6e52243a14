extern "C" __global__ void kernel_e5b2e2febb532377(Tensor<mf_bfloat16, 1, 1> T0, Tensor<mf_bfloat16, 1, 1> T4) {
  const mf_index_t i18 = ((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x));
  const bool b47 = (i18 < T0.size[0]);
  alignas(16) float T3[1];
  alignas(16) float T2[1];
  alignas(16) float T1[1];
  if (b47) {
    T1[0] = mf_cast<float>(T0[i18]);
  }
  if (b47) {
    T2[0] = mf_exp(T1[0]);
  }
  if (b47) {
    T3[0] = (T2[0] * T1[0]);
  }
  if (b47) {
    T4[i18] = mf_cast<mf_bfloat16>(T3[0]);
  }
}
