extern "C" __global__ void __launch_bounds__(128) kernel_340bb9072952cc41(Tensor<float, 1, 1> T0, Tensor<float, 1, 1> T2) {
  const mf_index_t i21 = (((mf_index_t)blockIdx.x) * 128);
  const mf_index_t i22 = (i21 + ((mf_index_t)threadIdx.x));
  __shared__ alignas(16) float T1[128];
  if (((i22 < T0.size[0]) && (((mf_index_t)threadIdx.x) < 128))) {
    T1[((mf_index_t)threadIdx.x)] = T0[i22];
  }
  __syncthreads();
  for (mf_index_t i18 = 0; i18 < 2; ++i18) {
    const mf_index_t i30 = (i21 + ((((mf_index_t)threadIdx.x) * 2) + i18));
    if (((i30 < T0.size[0]) && (((mf_index_t)threadIdx.x) < 64))) {
      T2[i30] = mf_exp(T1[(i30 % 128)]);
    }
  }
}
