extern "C" __global__ void kernel_c00621570a6d3857(Tensor<float, 1, 1> T0, Tensor<float, 1, 1> T1) {
  if ((((((mf_index_t)blockIdx.x) * 96) + ((mf_index_t)threadIdx.x)) < T0.size[0])) {
    T1[((((mf_index_t)blockIdx.x) * 96) + ((mf_index_t)threadIdx.x))] = mf_sin(T0[((((mf_index_t)blockIdx.x) * 96) + ((mf_index_t)threadIdx.x))]);
  }
}
