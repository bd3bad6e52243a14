extern "C" __global__ void __launch_bounds__(128) kernel_bc36b50b7e76b74a(Tensor<float, 2, 2> T0, Tensor<float, 1, 1> T1, Tensor<float, 2, 2> T4) {
  const mf_index_t i45 = ((((mf_index_t)blockIdx.x) * 32) + ((mf_index_t)threadIdx.x));
  const mf_index_t i49 = ((((mf_index_t)blockIdx.y) * 4) + ((mf_index_t)threadIdx.y));
  const bool b121 = ((i45 < (T0.size[0] / 4)) && (i49 < T0.size[1]));
  const mf_index_t i46 = (i45 * 4);
  alignas(16) float T7[4];
  for (mf_index_t i37 = 0; i37 < 4; ++i37) {
    const mf_index_t i47 = (i46 + i37);
    alignas(16) float T3[1];
    alignas(16) float T5[1];
    alignas(16) float T6[1];
    if (b121) {
      T6[0] = T0[((i47 * T0.stride[0]) + i49)];
    }
    if ((i45 < (T1.size[0] / 4))) {
      T5[0] = T1[i47];
    }
    T3[0] = mf_exp(T5[0]);
    T7[i37] = (T6[0] - T3[0]);
  }
  if (b121) {
    mf_vectorCopy<float, 4>(&T4[((i49 * T4.stride[0]) + i46)], &T7[0]);
  }
}
