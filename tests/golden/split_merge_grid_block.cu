extern "C" __global__ void kernel_28ed5d2be3942047(Tensor<float, 2, 2> T0, Tensor<float, 2, 2> T1) {
  #pragma unroll
  for (mf_index_t i8 = 0; i8 < 4; ++i8) {
    if (((((((mf_index_t)blockIdx.x) * 256) + ((i8 * 64) + ((mf_index_t)threadIdx.x))) / T0.size[1]) < T0.size[0])) {
      T1[(((((((mf_index_t)blockIdx.x) * 256) + ((i8 * 64) + ((mf_index_t)threadIdx.x))) / T0.size[1]) * T1.stride[0]) + (((((mf_index_t)blockIdx.x) * 256) + ((i8 * 64) + ((mf_index_t)threadIdx.x))) % T0.size[1]))] = mf_neg(T0[(((((((mf_index_t)blockIdx.x) * 256) + ((i8 * 64) + ((mf_index_t)threadIdx.x))) / T0.size[1]) * T0.stride[0]) + ((((((mf_index_t)blockIdx.x) * 256) + ((i8 * 64) + ((mf_index_t)threadIdx.x))) % T0.size[1]) * T0.stride[1]))]);
    }
  }
}
