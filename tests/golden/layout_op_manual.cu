extern "C" __global__ void kernel_875c3558afa98475(Tensor<float, 2, 2> T0, Tensor<int, 1, 1> T1, Tensor<int, 1, 1> T2, Tensor<float, 2, 2> T4, int* mf_error) {
  alignas(16) float T3[1];
  T3[0] = T0[((((mf_index_t)blockIdx.x) * T0.stride[0]) + (((mf_index_t)threadIdx.x) * T0.stride[1]))];
  mf_preprocessGroupedMatmulInputSf<float, int>(T4.data, (T0.size[0] + (T1.size[0] * 127)) * (((T0.size[1] + 4 - 1) / 4) * 4), &T3[0], 1, ((mf_index_t)blockIdx.x), ((mf_index_t)threadIdx.x), T1.data, T2.data, T0.size[0], T0.size[1], T1.size[0], mf_error);
}
