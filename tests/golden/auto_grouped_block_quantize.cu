extern "C" __global__ void __launch_bounds__(128) kernel_66662f38f20d0cce(Tensor<mf_bfloat16, 2, 2> T0, Tensor<int, 1, 1> T1, Tensor<int, 1, 1> T2, Tensor<float, 0, 0> T3, Tensor<mf_fp4e2m1x2, 2, 2> T5, Tensor<mf_fp8e4m3, 2, 2> T4, int* mf_error) {
  const mf_index_t i5 = (T0.size[1] / 16);
  const mf_index_t i14 = ((i5 + 4 - 1) / 4);
  const mf_index_t i17 = (T0.size[0] * i14);
  const mf_index_t i28 = ((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x));
  const mf_index_t i31 = ((i28 % i14) * 4);
  const mf_index_t i16 = ((T0.size[1] + 64 - 1) / 64);
  const mf_index_t i40 = ((i28 % i16) * 64);
  const mf_index_t i38 = (i28 / i16);
  if (((((i28 < i17) && (i31 < i5)) && (i28 < (T0.size[0] * i16))) && (i40 < T0.size[1]))) {
    mf_groupedBlockQuantize<4, 128, mf_bfloat16, int>(T4.data, (T0.size[0] + (T1.size[0] * 127)) * (i14 * 4), T5.data + (((i38 * T5.stride[0]) + i40)) / 2, &T0[((i38 * T0.stride[0]) + i40)], T0.stride[1], T3[0], T1.data, T2.data, (i28 / i14), i31, T0.size[0], i5, T1.size[0], mf_error);
  }
}
