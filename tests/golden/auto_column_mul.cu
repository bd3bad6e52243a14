extern "C" __global__ void __launch_bounds__(128) kernel_76ee8c2ca690b1cb(Tensor<float, 2, 2> T0, Tensor<float, 2, 2> T1, Tensor<float, 2, 2> T2) {
  const mf_index_t i36 = ((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x));
  const bool b91 = (i36 < (T0.size[1] / 4));
  const mf_index_t i37 = (i36 * 4);
  alignas(16) float T5[4];
  alignas(16) float T3[4];
  if (b91) {
    mf_vectorCopy<float, 4>(&T3[0], &T0[((((mf_index_t)blockIdx.y) * T0.stride[0]) + i37)]);
  }
  for (mf_index_t i27 = 0; i27 < 4; ++i27) {
    alignas(16) float T4[1];
    T4[0] = T1[((mf_index_t)blockIdx.y)];
    T5[i27] = (T3[i27] * T4[0]);
  }
  if (b91) {
    mf_vectorCopy<float, 4>(&T2[((((mf_index_t)blockIdx.y) * T2.stride[0]) + i37)], &T5[0]);
  }
}
