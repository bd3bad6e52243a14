extern "C" __global__ void __launch_bounds__(128) kernel_b2cce874d4796d28(Tensor<mf_bfloat16, 2, 2> T0, Tensor<mf_bfloat16, 2, 2> T1, Tensor<mf_bfloat16, 2, 2> T14) {
  const mf_index_t i49 = (T0.size[0] * T0.size[1]);
  const mf_index_t i108 = ((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x));
  const bool b266 = (i108 < (i49 / 8));
  const mf_index_t i109 = (i108 * 8);
  alignas(16) mf_bfloat16 T17[8];
  alignas(16) mf_bfloat16 T16[8];
  alignas(16) mf_bfloat16 T15[8];
  if (b266) {
    mf_vectorCopy<mf_bfloat16, 8>(&T15[0], &T0[i109]);
  }
  if ((i108 < ((T1.size[0] * T1.size[1]) / 8))) {
    mf_vectorCopy<mf_bfloat16, 8>(&T16[0], &T1[i109]);
  }
  for (mf_index_t i86 = 0; i86 < 8; ++i86) {
    alignas(16) float T13[1];
    alignas(16) float T11[1];
    alignas(16) float T10[1];
    alignas(16) float T9[1];
    alignas(16) float T8[1];
    alignas(16) float T7[1];
    alignas(16) float T6[1];
    alignas(16) float T5[1];
    alignas(16) float T12[1];
    alignas(16) float T4[1];
    alignas(16) float T2[1];
    alignas(16) float T3[1];
    T3[0] = mf_toFloatForArithmetic(T15[i86]);
    T2[0] = mf_toFloatForArithmetic(T16[i86]);
    T4[0] = (T3[0] * T2[0]);
    T12[0] = (T4[0] * 0.5f);
    T5[0] = (T4[0] * T4[0]);
    T6[0] = (T5[0] * T4[0]);
    T7[0] = (T6[0] * 0.044714998453855515f);
    T8[0] = (T4[0] + T7[0]);
    T9[0] = (T8[0] * 0.7978845834732056f);
    T10[0] = mf_tanh(T9[0]);
    T11[0] = (T10[0] + 1.0f);
    T13[0] = (T12[0] * T11[0]);
    T17[i86] = mf_cast<mf_bfloat16>(T13[0]);
  }
  if (b266) {
    mf_vectorCopy<mf_bfloat16, 8>(&T14[i109], &T17[0]);
  }
}
