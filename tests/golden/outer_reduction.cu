extern "C" __global__ void __launch_bounds__(128) kernel_9fc10efa5d988444(Tensor<float, 2, 2> T0, Tensor<float, 1, 1> T1) {
  const mf_index_t i9 = ((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x));
  const bool b20 = (i9 < T0.size[1]);
  if (b20) {
    T1[i9] = 0.0f;
  }
  for (mf_index_t i7 = 0; i7 < T0.size[0]; ++i7) {
    if (b20) {
      T1[i9] = (T1[i9] + T0[((i7 * T0.stride[0]) + i9)]);
    }
  }
}
