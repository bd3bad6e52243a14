extern "C" __global__ void kernel_1a2eafa75d0909f6(Tensor<float, 2, 2> T0, Tensor<float, 2, 2> T1) {
  #pragma unroll
  for (mf_index_t i8 = 0; i8 < 4; ++i8) {
    const mf_index_t i13 = ((((mf_index_t)blockIdx.x) * 256) + ((i8 * 64) + ((mf_index_t)threadIdx.x)));
    const mf_index_t i14 = (i13 / T0.size[1]);
    const mf_index_t i15 = (i13 % T0.size[1]);
    if ((i14 < T0.size[0])) {
      T1[((i14 * T1.stride[0]) + i15)] = mf_neg(T0[((i14 * T0.stride[0]) + (i15 * T0.stride[1]))]);
    }
  }
}
