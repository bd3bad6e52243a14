extern "C" __global__ void __launch_bounds__(128) kernel_67ff63f33742c0ea(Tensor<float, 2, 2> T0, Tensor<int, 1, 1> T1, Tensor<int, 1, 1> T2, Tensor<float, 2, 2> T3, int* mf_error) {
  const mf_index_t i11 = ((T0.size[0] + (T1.size[0] * 127)) * (((T0.size[1] + 4 - 1) / 4) * 4));
  const mf_index_t i22 = (((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) * 4);
  if ((i22 < i11)) {
    mf_layoutOpGather<float, int, 4>(T3.data, (T0.size[0] + (T1.size[0] * 127)) * (((T0.size[1] + 4 - 1) / 4) * 4), i22, T0.data, T0.stride[0], T0.stride[1], T1.data, T2.data, T0.size[0], T0.size[1], T1.size[0], mf_error);
  }
}
