extern "C" __global__ void kernel_1d50b8e6b158f44c(Tensor<float, 2, 2> T0, Tensor<float, 2, 2> T1, Tensor<float, 2, 2> T5) {
  alignas(16) float T4[1];
  alignas(16) float T3[1];
  alignas(16) float T2[1];
  if (((((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) / T0.size[1]) < T0.size[0])) {
    T2[0] = (T0[(((((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) / T0.size[1]) * T0.stride[0]) + ((((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) % T0.size[1]) * T0.stride[1]))] + T1[(((((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) / T0.size[1]) * T1.stride[0]) + ((((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) % T0.size[1]) * T1.stride[1]))]);
  }
  if (((((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) / T0.size[1]) < T0.size[0])) {
    T3[0] = (T2[0] * 0.5f);
  }
  if (((((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) / T0.size[1]) < T0.size[0])) {
    T4[0] = (T3[0] - T1[(((((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) / T0.size[1]) * T1.stride[0]) + ((((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) % T0.size[1]) * T1.stride[1]))]);
  }
  if (((((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) / T0.size[1]) < T0.size[0])) {
    T5[(((((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) / T0.size[1]) * T5.stride[0]) + (((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) % T0.size[1]))] = mf_relu(T4[0]);
  }
}
