extern "C" __global__ void __launch_bounds__(128) kernel_2a602733b0485318(Tensor<mf_bfloat16, 2, 2> T0, Tensor<mf_fp4e2m1x2, 2, 2> T2, Tensor<mf_fp8e4m3, 2, 2> T1) {
  const mf_index_t i6 = (T0.size[0] * (T0.size[1] / 16));
  const mf_index_t i18 = (((mf_index_t)blockIdx.x) * 128);
  const mf_index_t i24 = (i18 + ((mf_index_t)threadIdx.x));
  const mf_index_t i5 = ((T0.size[1] + 16 - 1) / 16);
  const mf_index_t i25 = (i24 / i5);
  for (mf_index_t i16 = 0; i16 < 1; ++i16) {
    const mf_index_t i19 = (i18 + (((mf_index_t)threadIdx.x) + i16));
    const mf_index_t i28 = (((i24 % i5) * 16) + i16);
    if ((((i19 < i6) && (i24 < (T0.size[0] * i5))) && (i28 < T0.size[1]))) {
      mf_blockQuantize<mf_bfloat16>(&T1[i19], T2.data + (((i25 * T2.stride[0]) + i28)) / 2, &T0[((i25 * T0.stride[0]) + i28)], T0.stride[1], 1.0f);
    }
  }
}
