extern "C" __global__ void kernel_0c98ab712b62373b(Tensor<mf_bfloat16, 1, 1> T0, Tensor<mf_bfloat16, 1, 1> T4) {
  alignas(16) float T3[1];
  alignas(16) float T2[1];
  alignas(16) float T1[1];
  if ((((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) < T0.size[0])) {
    T1[0] = mf_cast<float>(T0[((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x))]);
  }
  if ((((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) < T0.size[0])) {
    T2[0] = mf_exp(T1[0]);
  }
  if ((((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) < T0.size[0])) {
    T3[0] = (T2[0] * T1[0]);
  }
  if ((((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) < T0.size[0])) {
    T4[((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x))] = mf_cast<mf_bfloat16>(T3[0]);
  }
}
