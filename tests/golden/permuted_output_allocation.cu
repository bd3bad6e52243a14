extern "C" __global__ void kernel_7b16a1893df6d840(Tensor<float, 2, 2> T0, Tensor<float, 2, 2> T1) {
  T1[((((mf_index_t)threadIdx.x) * T1.stride[0]) + ((mf_index_t)blockIdx.x))] = mf_abs(T0[((((mf_index_t)blockIdx.x) * T0.stride[0]) + (((mf_index_t)threadIdx.x) * T0.stride[1]))]);
}
