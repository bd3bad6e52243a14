extern "C" __global__ void kernel_cab5e24b907c2b66(Tensor<mf_bfloat16, 2, 2> T0, Tensor<mf_bfloat16, 2, 2> T1, Tensor<mf_bfloat16, 2, 2> T14) {
  const mf_index_t i145 = (((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) * 8);
  const mf_index_t i146 = (i145 / T0.size[1]);
  const bool b435 = (i146 < T0.size[0]);
  const mf_index_t i147 = (i145 % T0.size[1]);
  const mf_index_t i180 = (i145 / T1.size[1]);
  alignas(16) mf_bfloat16 T17[8];
  alignas(16) float T13[8];
  alignas(16) float T11[8];
  alignas(16) float T10[8];
  alignas(16) float T9[8];
  alignas(16) float T8[8];
  alignas(16) float T7[8];
  alignas(16) float T6[8];
  alignas(16) float T5[8];
  alignas(16) float T12[8];
  alignas(16) float T4[8];
  alignas(16) float T2[8];
  alignas(16) mf_bfloat16 T16[8];
  alignas(16) float T3[8];
  alignas(16) mf_bfloat16 T15[8];
  if (b435) {
    mf_vectorCopy<mf_bfloat16, 8>(&T15[0], &T0[((i146 * T0.stride[0]) + i147)]);
  }
  for (mf_index_t i97 = 0; i97 < 8; ++i97) {
    const mf_index_t i164 = (i145 + i97);
    if (((i164 / T0.size[1]) < T0.size[0])) {
      T3[i97] = mf_cast<float>(T15[(i164 % 8)]);
    }
  }
  if ((i180 < T1.size[0])) {
    mf_vectorCopy<mf_bfloat16, 8>(&T16[0], &T1[((i180 * T1.stride[0]) + (i145 % T1.size[1]))]);
  }
  for (mf_index_t i99 = 0; i99 < 8; ++i99) {
    const mf_index_t i198 = (i145 + i99);
    if (((i198 / T1.size[1]) < T1.size[0])) {
      T2[i99] = mf_cast<float>(T16[(i198 % 8)]);
    }
  }
  for (mf_index_t i100 = 0; i100 < 8; ++i100) {
    const mf_index_t i213 = (i145 + i100);
    const mf_index_t i214 = (i213 / T0.size[1]);
    if ((i214 < T0.size[0])) {
      T4[i100] = (T3[(i213 % 8)] * T2[(((i214 * T1.size[1]) + (i213 % T0.size[1])) % 8)]);
    }
  }
  for (mf_index_t i101 = 0; i101 < 8; ++i101) {
    const mf_index_t i236 = (i145 + i101);
    if (((i236 / T0.size[1]) < T0.size[0])) {
      T12[i101] = (T4[(i236 % 8)] * 0.5f);
    }
  }
  for (mf_index_t i102 = 0; i102 < 8; ++i102) {
    const mf_index_t i251 = (i145 + i102);
    const mf_index_t i256 = (i251 % 8);
    if (((i251 / T0.size[1]) < T0.size[0])) {
      T5[i102] = (T4[i256] * T4[i256]);
    }
  }
  for (mf_index_t i103 = 0; i103 < 8; ++i103) {
    const mf_index_t i273 = (i145 + i103);
    const mf_index_t i278 = (i273 % 8);
    if (((i273 / T0.size[1]) < T0.size[0])) {
      T6[i103] = (T5[i278] * T4[i278]);
    }
  }
  for (mf_index_t i104 = 0; i104 < 8; ++i104) {
    const mf_index_t i295 = (i145 + i104);
    if (((i295 / T0.size[1]) < T0.size[0])) {
      T7[i104] = (T6[(i295 % 8)] * 0.044714998453855515f);
    }
  }
  for (mf_index_t i105 = 0; i105 < 8; ++i105) {
    const mf_index_t i310 = (i145 + i105);
    const mf_index_t i315 = (i310 % 8);
    if (((i310 / T0.size[1]) < T0.size[0])) {
      T8[i105] = (T4[i315] + T7[i315]);
    }
  }
  for (mf_index_t i106 = 0; i106 < 8; ++i106) {
    const mf_index_t i332 = (i145 + i106);
    if (((i332 / T0.size[1]) < T0.size[0])) {
      T9[i106] = (T8[(i332 % 8)] * 0.7978845834732056f);
    }
  }
  for (mf_index_t i107 = 0; i107 < 8; ++i107) {
    const mf_index_t i347 = (i145 + i107);
    if (((i347 / T0.size[1]) < T0.size[0])) {
      T10[i107] = mf_tanh(T9[(i347 % 8)]);
    }
  }
  for (mf_index_t i108 = 0; i108 < 8; ++i108) {
    const mf_index_t i362 = (i145 + i108);
    if (((i362 / T0.size[1]) < T0.size[0])) {
      T11[i108] = (T10[(i362 % 8)] + 1.0f);
    }
  }
  for (mf_index_t i109 = 0; i109 < 8; ++i109) {
    const mf_index_t i377 = (i145 + i109);
    const mf_index_t i382 = (i377 % 8);
    if (((i377 / T0.size[1]) < T0.size[0])) {
      T13[i109] = (T12[i382] * T11[i382]);
    }
  }
  for (mf_index_t i110 = 0; i110 < 8; ++i110) {
    const mf_index_t i399 = (i145 + i110);
    if (((i399 / T0.size[1]) < T0.size[0])) {
      T17[i110] = mf_cast<mf_bfloat16>(T13[(i399 % 8)]);
    }
  }
  if (b435) {
    mf_vectorCopy<mf_bfloat16, 8>(&T14[((i146 * T14.stride[0]) + i147)], &T17[(i145 % 8)]);
  }
}
