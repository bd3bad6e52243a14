extern "C" __global__ void __launch_bounds__(128) kernel_10c2cdefae8f6e28(Tensor<mf_half, 2, 2> T0, Tensor<mf_half, 1, 1> T3) {
  const mf_index_t i25 = ((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x));
  const bool b40 = (i25 < T0.size[0]);
  alignas(16) float T2[1];
  if (b40) {
    T2[0] = (-__int_as_float(0x7f800000));
  }
  for (mf_index_t i13 = 0; i13 < T0.size[1]; ++i13) {
    alignas(16) float T1[1];
    if (b40) {
      T1[0] = mf_cast<float>(T0[((i25 * T0.stride[0]) + i13)]);
    }
    if (b40) {
      T2[0] = mf_maximum(T2[0], T1[0]);
    }
  }
  if (b40) {
    T3[i25] = mf_cast<mf_half>(T2[0]);
  }
}
