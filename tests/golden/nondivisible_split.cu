extern "C" __global__ void __launch_bounds__(96) kernel_7796434c79b175dc(Tensor<float, 1, 1> T0, Tensor<float, 1, 1> T1) {
  const mf_index_t i6 = ((((mf_index_t)blockIdx.x) * 96) + ((mf_index_t)threadIdx.x));
  if ((i6 < T0.size[0])) {
    T1[i6] = mf_sin(T0[i6]);
  }
}
