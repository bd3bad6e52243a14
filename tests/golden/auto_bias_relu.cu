extern "C" __global__ void kernel_0bb7193177e238a6(Tensor<float, 2, 2> T0, Tensor<float, 1, 1> T1, Tensor<float, 2, 2> T4) {
  const mf_index_t i47 = (((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) * 4);
  const bool b120 = (i47 < T0.size[1]);
  alignas(16) float T6[4];
  alignas(16) float T3[4];
  alignas(16) float T2[4];
  alignas(16) float T5[4];
  if (b120) {
    mf_vectorCopy<float, 4>(&T5[0], &T0[((((mf_index_t)blockIdx.y) * T0.stride[0]) + i47)]);
  }
  for (mf_index_t i32 = 0; i32 < 4; ++i32) {
    const mf_index_t i63 = (i47 + i32);
    if ((i63 < T1.size[0])) {
      T2[i32] = T1[i63];
    }
  }
  for (mf_index_t i33 = 0; i33 < 4; ++i33) {
    const mf_index_t i76 = (i47 + i33);
    if ((i76 < T0.size[1])) {
      T3[i33] = (T5[(i76 % 4)] + T2[i33]);
    }
  }
  for (mf_index_t i34 = 0; i34 < 4; ++i34) {
    const mf_index_t i91 = (i47 + i34);
    if ((i91 < T0.size[1])) {
      T6[i34] = mf_relu(T3[(i91 % 4)]);
    }
  }
  if (b120) {
    mf_vectorCopy<float, 4>(&T4[((((mf_index_t)blockIdx.y) * T4.stride[0]) + i47)], &T6[(i47 % 4)]);
  }
}
