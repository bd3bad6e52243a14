extern "C" __global__ void __launch_bounds__(128) kernel_7a14d266ad094d7a(Tensor<float, 2, 2> T0, Tensor<float, 2, 2> T7) {
  __builtin_assume(threadIdx.x < 128);
  __builtin_assume(blockDim.x == 128);
  const mf_index_t i48 = (((mf_index_t)blockIdx.x) * T0.stride[0]);
  alignas(16) float T5[1];
  T5[0] = 0.0f;
  alignas(16) float T9[1];
  alignas(16) float T4[8];
  alignas(16) float T1[1];
  T1[0] = (-__int_as_float(0x7f800000));
  alignas(16) float T8[1];
  T8[0] = (-__int_as_float(0x7f800000));
  for (mf_index_t i31 = 0; i31 < 8; ++i31) {
    T8[0] = mf_maximumAnyNaN(T8[0], T0[(i48 + ((i31 * 128) + ((mf_index_t)threadIdx.x)))]);
  }
  {
    const float block_result = mf_blockAllReduceX<float>(T8[0], [](float a, float b) { return mf_maximumAnyNaN(a, b); }, (-__int_as_float(0x7f800000)));
    T1[0] = mf_maximumAnyNaN(T1[0], block_result);
  }
  for (mf_index_t i32 = 0; i32 < 8; ++i32) {
    alignas(16) float T3[1];
    alignas(16) float T2[1];
    T2[0] = T1[0];
    T3[0] = (T0[(i48 + ((i32 * 128) + ((mf_index_t)threadIdx.x)))] - T2[0]);
    T4[i32] = mf_exp(T3[0]);
  }
  T9[0] = 0.0f;
  for (mf_index_t i33 = 0; i33 < 8; ++i33) {
    T9[0] = (T9[0] + T4[i33]);
  }
  {
    const float block_result = mf_blockAllReduceX<float>(T9[0], [](float a, float b) { return (a + b); }, 0.0f);
    T5[0] = (T5[0] + block_result);
  }
  for (mf_index_t i34 = 0; i34 < 8; ++i34) {
    alignas(16) float T6[1];
    T6[0] = T5[0];
    T7[((((mf_index_t)blockIdx.x) * T7.stride[0]) + ((i34 * 128) + ((mf_index_t)threadIdx.x)))] = (T4[i34] / T6[0]);
  }
}
