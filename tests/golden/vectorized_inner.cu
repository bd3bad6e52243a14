extern "C" __global__ void kernel_9b8b781fe7fd13df(Tensor<float, 2, 2> T0, Tensor<float, 2, 2> T3) {
  alignas(16) float T2[4];
  alignas(16) float T1[4];
  if ((((((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) * 4) / T0.size[1]) < T0.size[0])) {
    mf_vectorCopy<float, 4>(&T1[0], &T0[((((((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) * 4) / T0.size[1]) * T0.stride[0]) + ((((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) * 4) % T0.size[1]))]);
  }
  for (mf_index_t i25 = 0; i25 < 4; ++i25) {
    if (((((((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) * 4) + i25) / T0.size[1]) < T0.size[0])) {
      T2[i25] = (T1[(((((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) * 4) + i25) % 4)] * 3.0f);
    }
  }
  if ((((((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) * 4) / T0.size[1]) < T0.size[0])) {
    mf_vectorCopy<float, 4>(&T3[((((((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) * 4) / T0.size[1]) * T3.stride[0]) + ((((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) * 4) % T0.size[1]))], &T2[((((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) * 4) % 4)]);
  }
}
