extern "C" __global__ void __launch_bounds__(64) kernel_9114c23af42df1c2(Tensor<float, 2, 2> T0, Tensor<float, 2, 2> T1) {
  const mf_index_t i2 = (T0.size[0] * T0.size[1]);
  #pragma unroll
  for (mf_index_t i8 = 0; i8 < 4; ++i8) {
    const mf_index_t i13 = ((((mf_index_t)blockIdx.x) * 256) + ((i8 * 64) + ((mf_index_t)threadIdx.x)));
    if ((i13 < i2)) {
      T1[i13] = mf_neg(T0[(((i13 / T0.size[1]) * T0.stride[0]) + ((i13 % T0.size[1]) * T0.stride[1]))]);
    }
  }
}
