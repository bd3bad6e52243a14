extern "C" __global__ void __launch_bounds__(128) kernel_4879c88fbf171508(Tensor<mf_bfloat16, 2, 2> T0, Tensor<mf_fp4e2m1x2, 2, 2> T2, Tensor<mf_fp8e4m3, 2, 2> T1) {
  const mf_index_t i3 = (T0.size[1] / 16);
  const mf_index_t i5 = ((i3 + 4 - 1) / 4);
  const mf_index_t i8 = (T0.size[0] * i5);
  const mf_index_t i19 = ((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x));
  const mf_index_t i22 = ((i19 % i5) * 4);
  const mf_index_t i7 = ((T0.size[1] + 64 - 1) / 64);
  const mf_index_t i28 = ((i19 % i7) * 64);
  const mf_index_t i26 = (i19 / i7);
  if (((((i19 < i8) && (i22 < i3)) && (i19 < (T0.size[0] * i7))) && (i28 < T0.size[1]))) {
    mf_blockQuantize<4, 128, mf_bfloat16>(&T1[(((i19 / i5) * T1.stride[0]) + i22)], T1.stride[1], T2.data + (((i26 * T2.stride[0]) + i28)) / 2, &T0[((i26 * T0.stride[0]) + i28)], T0.stride[1], 1.0f, i22, i3);
  }
}
