extern "C" __global__ void __launch_bounds__(128) kernel_b0db5bdfeb294dbe(Tensor<mf_bfloat16, 2, 2> T0, Tensor<mf_bfloat16, 2, 2> T9) {
  __builtin_assume(threadIdx.x < 128);
  __builtin_assume(blockDim.x == 128);
  alignas(16) float T10[1];
  alignas(16) float T6[1];
  alignas(16) float T5[32];
  alignas(16) float T1[32];
  for (mf_index_t i55 = 0; i55 < 4; ++i55) {
    alignas(16) mf_bfloat16 T12[8];
    mf_vectorCopy<mf_bfloat16, 8>(&T12[0], &T0[((((mf_index_t)blockIdx.x) * T0.stride[0]) + (((i55 * 128) + ((mf_index_t)threadIdx.x)) * 8))]);
    for (mf_index_t i57 = 0; i57 < 8; ++i57) {
      T1[((i55 * 8) + i57)] = mf_toFloatForArithmetic(T12[i57]);
    }
  }
  alignas(16) float T2[1];
  T2[0] = (-__int_as_float(0x7f800000));
  alignas(16) float T14[1];
  T14[0] = (-__int_as_float(0x7f800000));
  for (mf_index_t i59 = 0; i59 < 4; ++i59) {
    for (mf_index_t i60 = 0; i60 < 8; ++i60) {
      T14[0] = mf_maximumAnyNaN(T14[0], T1[((i59 * 8) + i60)]);
    }
  }
  {
    const float block_result = mf_blockAllReduceX<float>(T14[0], [](float a, float b) { return mf_maximumAnyNaN(a, b); }, (-__int_as_float(0x7f800000)));
    T2[0] = mf_maximumAnyNaN(T2[0], block_result);
  }
  for (mf_index_t i61 = 0; i61 < 4; ++i61) {
    for (mf_index_t i62 = 0; i62 < 8; ++i62) {
      const mf_index_t i145 = ((i61 * 8) + i62);
      alignas(16) float T4[1];
      alignas(16) float T3[1];
      T3[0] = T2[0];
      T4[0] = (T1[i145] - T3[0]);
      T5[i145] = mf_exp(T4[0]);
    }
  }
  T6[0] = 0.0f;
  alignas(16) float T15[1];
  T15[0] = 0.0f;
  for (mf_index_t i64 = 0; i64 < 4; ++i64) {
    for (mf_index_t i65 = 0; i65 < 8; ++i65) {
      T15[0] = (T15[0] + T5[((i64 * 8) + i65)]);
    }
  }
  {
    const float block_result = mf_blockAllReduceX<float>(T15[0], [](float a, float b) { return (a + b); }, 0.0f);
    T6[0] = (T6[0] + block_result);
  }
  T10[0] = mf_reciprocal(T6[0]);
  for (mf_index_t i67 = 0; i67 < 4; ++i67) {
    alignas(16) mf_bfloat16 T13[8];
    for (mf_index_t i68 = 0; i68 < 8; ++i68) {
      alignas(16) float T8[1];
      alignas(16) float T11[1];
      T11[0] = T10[0];
      T8[0] = (T5[((i67 * 8) + i68)] * T11[0]);
      T13[i68] = mf_cast<mf_bfloat16>(T8[0]);
    }
    mf_vectorCopy<mf_bfloat16, 8>(&T9[((((mf_index_t)blockIdx.x) * T9.stride[0]) + (((i67 * 128) + ((mf_index_t)threadIdx.x)) * 8))], &T13[0]);
  }
}
