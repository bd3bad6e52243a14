extern "C" __global__ void kernel_e58d203fbb121df0(Tensor<float, 2, 2> T0, Tensor<float, 1, 1> T1, Tensor<float, 2, 2> T3) {
  alignas(16) float T2[1];
  for (mf_index_t i5 = 0; i5 < 1; ++i5) {
    T2[0] = T1[(((mf_index_t)threadIdx.x) * T1.stride[0])];
  }
  T3[((((mf_index_t)blockIdx.x) * T3.stride[0]) + ((mf_index_t)threadIdx.x))] = (T0[((((mf_index_t)blockIdx.x) * T0.stride[0]) + (((mf_index_t)threadIdx.x) * T0.stride[1]))] + T2[0]);
}
