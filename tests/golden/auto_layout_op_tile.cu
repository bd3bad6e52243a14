extern "C" __global__ void __launch_bounds__(128, 12) kernel_d44ad6dfd555e811(Tensor<mf_fp8e4m3, 2, 2> T0, Tensor<int, 1, 1> T1, Tensor<int, 1, 1> T2, Tensor<mf_fp8e4m3, 2, 2> T3, int* mf_error) {
  mf_layoutOpTile<mf_fp8e4m3, int, 16, 128>(T3.data, (T0.size[0] + (T1.size[0] * 127)) * (((T0.size[1] + 4 - 1) / 4) * 4), (((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) * 16), T0.data, T0.stride[0], T0.stride[1], T1.data, T2.data, T0.size[0], T0.size[1], T1.size[0], mf_error);
}
