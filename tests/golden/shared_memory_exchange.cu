extern "C" __global__ void kernel_65a852ce364d861f(Tensor<float, 1, 1> T0, Tensor<float, 1, 1> T2) {
  const mf_index_t i15 = (((mf_index_t)blockIdx.x) * 128);
  const mf_index_t i16 = (i15 + ((mf_index_t)threadIdx.x));
  __shared__ alignas(16) float T1[128];
  if (((i16 < T0.size[0]) && (((mf_index_t)threadIdx.x) < 128))) {
    T1[((mf_index_t)threadIdx.x)] = T0[i16];
  }
  __syncthreads();
  for (mf_index_t i12 = 0; i12 < 2; ++i12) {
    const mf_index_t i24 = (i15 + ((((mf_index_t)threadIdx.x) * 2) + i12));
    if (((i24 < T0.size[0]) && (((mf_index_t)threadIdx.x) < 64))) {
      T2[i24] = mf_exp(T1[(i24 % 128)]);
    }
  }
}
