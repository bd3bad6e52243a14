extern "C" __global__ void kernel_ab5f9d311b9b10ab(Tensor<mf_bfloat16, 2, 2> T0, Tensor<mf_bfloat16, 2, 2> T9) {
  __builtin_assume(threadIdx.x < 128);
  alignas(16) float T5[32];
  alignas(16) float T1[32];
  for (mf_index_t i53 = 0; i53 < 4; ++i53) {
    alignas(16) mf_bfloat16 T10[8];
    mf_vectorCopy<mf_bfloat16, 8>(&T10[0], &T0[((((mf_index_t)blockIdx.x) * T0.stride[0]) + (((i53 * 128) + ((mf_index_t)threadIdx.x)) * 8))]);
    for (mf_index_t i55 = 0; i55 < 8; ++i55) {
      T1[((i53 * 8) + i55)] = mf_cast<float>(T10[i55]);
    }
  }
  alignas(16) float T2[1];
  T2[0] = (-__int_as_float(0x7f800000));
  alignas(16) float T12[1];
  T12[0] = (-__int_as_float(0x7f800000));
  for (mf_index_t i57 = 0; i57 < 4; ++i57) {
    for (mf_index_t i58 = 0; i58 < 8; ++i58) {
      T12[0] = mf_maximum(T12[0], T1[((i57 * 8) + i58)]);
    }
  }
  {
    const float block_result = mf_blockAllReduceX<float>(T12[0], [](float a, float b) { return mf_maximum(a, b); }, (-__int_as_float(0x7f800000)));
    T2[0] = mf_maximum(T2[0], block_result);
  }
  for (mf_index_t i59 = 0; i59 < 4; ++i59) {
    for (mf_index_t i60 = 0; i60 < 8; ++i60) {
      const mf_index_t i141 = ((i59 * 8) + i60);
      alignas(16) float T4[1];
      alignas(16) float T3[1];
      T3[0] = T2[0];
      T4[0] = (T1[i141] - T3[0]);
      T5[i141] = mf_exp(T4[0]);
    }
  }
  alignas(16) float T6[1];
  T6[0] = 0.0f;
  alignas(16) float T13[1];
  T13[0] = 0.0f;
  for (mf_index_t i62 = 0; i62 < 4; ++i62) {
    for (mf_index_t i63 = 0; i63 < 8; ++i63) {
      T13[0] = (T13[0] + T5[((i62 * 8) + i63)]);
    }
  }
  {
    const float block_result = mf_blockAllReduceX<float>(T13[0], [](float a, float b) { return (a + b); }, 0.0f);
    T6[0] = (T6[0] + block_result);
  }
  for (mf_index_t i64 = 0; i64 < 4; ++i64) {
    alignas(16) mf_bfloat16 T11[8];
    for (mf_index_t i65 = 0; i65 < 8; ++i65) {
      alignas(16) float T8[1];
      alignas(16) float T7[1];
      T7[0] = T6[0];
      T8[0] = (T5[((i64 * 8) + i65)] / T7[0]);
      T11[i65] = mf_cast<mf_bfloat16>(T8[0]);
    }
    mf_vectorCopy<mf_bfloat16, 8>(&T9[((((mf_index_t)blockIdx.x) * T9.stride[0]) + (((i64 * 128) + ((mf_index_t)threadIdx.x)) * 8))], &T11[0]);
  }
}
