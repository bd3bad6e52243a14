extern "C" __global__ void __launch_bounds__(128) kernel_fbb4cdefb9fb191f(Tensor<float, 2, 2> T0, Tensor<int, 1, 1> T1, Tensor<int, 1, 1> T2, Tensor<mf_fp8e4m3, 2, 2> T5, int* mf_error) {
  const mf_index_t i19 = (T0.size[0] * T0.size[1]);
  const mf_index_t i32 = ((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x));
  const bool b62 = (i32 < i19);
  alignas(16) mf_fp8e4m3 T4[1];
  alignas(16) float T3[1];
  alignas(16) float T6[1];
  if (b62) {
    T6[0] = T0[i32];
  }
  T3[0] = (T6[0] * 0.25f);
  T4[0] = mf_cast<mf_fp8e4m3>(T3[0]);
  if (b62) {
    mf_preprocessGroupedMatmulInputSf<mf_fp8e4m3, int>(T5.data, (T0.size[0] + (T1.size[0] * 127)) * (((T0.size[1] + 4 - 1) / 4) * 4), &T4[0], 1, (i32 / T0.size[1]), (i32 % T0.size[1]), T1.data, T2.data, T0.size[0], T0.size[1], T1.size[0], mf_error);
  }
}
