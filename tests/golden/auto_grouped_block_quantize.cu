extern "C" __global__ void __launch_bounds__(128) kernel_11f17ce7edbf174d(Tensor<mf_bfloat16, 2, 2> T0, Tensor<int, 1, 1> T1, Tensor<int, 1, 1> T2, Tensor<float, 0, 0> T3, Tensor<mf_fp4e2m1x2, 2, 2> T5, Tensor<mf_fp8e4m3, 2, 2> T4, int* mf_error) {
  const mf_index_t i5 = (T0.size[1] / 16);
  const mf_index_t i15 = (T0.size[0] * i5);
  const mf_index_t i27 = (((mf_index_t)blockIdx.x) * 128);
  const mf_index_t i36 = (i27 + ((mf_index_t)threadIdx.x));
  const mf_index_t i14 = ((T0.size[1] + 16 - 1) / 16);
  const mf_index_t i37 = (i36 / i14);
  for (mf_index_t i25 = 0; i25 < 1; ++i25) {
    const mf_index_t i28 = (i27 + (((mf_index_t)threadIdx.x) + i25));
    const mf_index_t i40 = (((i36 % i14) * 16) + i25);
    if ((((i28 < i15) && (i36 < (T0.size[0] * i14))) && (i40 < T0.size[1]))) {
      mf_groupedBlockQuantize<mf_bfloat16, int>(T4.data, (T0.size[0] + (T1.size[0] * 127)) * (((i5 + 4 - 1) / 4) * 4), T5.data + (((i37 * T5.stride[0]) + i40)) / 2, &T0[((i37 * T0.stride[0]) + i40)], T0.stride[1], T3[0], T1.data, T2.data, (i28 / i5), (i28 % i5), T0.size[0], i5, T1.size[0], mf_error);
    }
  }
}
