extern "C" __global__ void kernel_628dee942e95b98b(Tensor<mf_bfloat16, 2, 2> T0, Tensor<mf_bfloat16, 2, 2> T1, Tensor<mf_bfloat16, 2, 2> T14) {
  const mf_index_t i109 = (((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) * 8);
  const mf_index_t i110 = (i109 / T0.size[1]);
  const bool b371 = (i110 < T0.size[0]);
  const mf_index_t i111 = (i109 % T0.size[1]);
  const mf_index_t i129 = (i109 / T1.size[1]);
  alignas(16) mf_bfloat16 T17[8];
  alignas(16) mf_bfloat16 T16[8];
  alignas(16) mf_bfloat16 T15[8];
  if (b371) {
    mf_vectorCopy<mf_bfloat16, 8>(&T15[0], &T0[((i110 * T0.stride[0]) + i111)]);
  }
  if ((i129 < T1.size[0])) {
    mf_vectorCopy<mf_bfloat16, 8>(&T16[0], &T1[((i129 * T1.stride[0]) + (i109 % T1.size[1]))]);
  }
  for (mf_index_t i86 = 0; i86 < 8; ++i86) {
    const mf_index_t i147 = (i109 + i86);
    const bool b375 = ((i147 / T0.size[1]) < T0.size[0]);
    const mf_index_t i152 = (i147 % 8);
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
    if (b375) {
      T3[0] = mf_cast<float>(T15[i152]);
    }
    if (((i147 / T1.size[1]) < T1.size[0])) {
      T2[0] = mf_cast<float>(T16[i152]);
    }
    if (b375) {
      T4[0] = (T3[0] * T2[0]);
    }
    if (b375) {
      T12[0] = (T4[0] * 0.5f);
    }
    if (b375) {
      T5[0] = (T4[0] * T4[0]);
    }
    if (b375) {
      T6[0] = (T5[0] * T4[0]);
    }
    if (b375) {
      T7[0] = (T6[0] * 0.044714998453855515f);
    }
    if (b375) {
      T8[0] = (T4[0] + T7[0]);
    }
    if (b375) {
      T9[0] = (T8[0] * 0.7978845834732056f);
    }
    if (b375) {
      T10[0] = mf_tanh(T9[0]);
    }
    if (b375) {
      T11[0] = (T10[0] + 1.0f);
    }
    if (b375) {
      T13[0] = (T12[0] * T11[0]);
    }
    if (b375) {
      T17[i86] = mf_cast<mf_bfloat16>(T13[0]);
    }
  }
  if (b371) {
    mf_vectorCopy<mf_bfloat16, 8>(&T14[((i110 * T14.stride[0]) + i111)], &T17[(i109 % 8)]);
  }
}
