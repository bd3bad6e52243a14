extern "C" __global__ void kernel_2032dc7c3d68eecb(Tensor<float, 2, 2> T0, Tensor<float, 2, 2> T1, Tensor<float, 2, 2> T2) {
  const mf_index_t i37 = (((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) * 4);
  const bool b97 = (i37 < T0.size[1]);
  alignas(16) float T5[4];
  alignas(16) float T3[4];
  if (b97) {
    mf_vectorCopy<float, 4>(&T3[0], &T0[((((mf_index_t)blockIdx.y) * T0.stride[0]) + i37)]);
  }
  for (mf_index_t i27 = 0; i27 < 4; ++i27) {
    const mf_index_t i66 = (i37 + i27);
    alignas(16) float T4[1];
    T4[0] = T1[((mf_index_t)blockIdx.y)];
    if ((i66 < T0.size[1])) {
      T5[i27] = (T3[(i66 % 4)] * T4[0]);
    }
  }
  if (b97) {
    mf_vectorCopy<float, 4>(&T2[((((mf_index_t)blockIdx.y) * T2.stride[0]) + i37)], &T5[(i37 % 4)]);
  }
}
