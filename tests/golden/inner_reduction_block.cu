extern "C" __global__ void __launch_bounds__(128) kernel_2034a8ce2eb697fd(Tensor<float, 2, 2> T0, Tensor<float, 1, 1> T1) {
  __builtin_assume(threadIdx.x < 128);
  __builtin_assume(blockDim.x == 128);
  T1[((mf_index_t)blockIdx.x)] = 0.0f;
  alignas(16) float T2[1];
  T2[0] = 0.0f;
  for (mf_index_t i8 = 0; i8 < ((T0.size[1] + 128 - 1) / 128); ++i8) {
    const mf_index_t i11 = ((i8 * 128) + ((mf_index_t)threadIdx.x));
    if ((i11 < T0.size[1])) {
      T2[0] = (T2[0] + T0[((((mf_index_t)blockIdx.x) * T0.stride[0]) + i11)]);
    }
  }
  {
    const float block_result = mf_blockAllReduceX<float>(T2[0], [](float a, float b) { return (a + b); }, 0.0f);
    if ((((mf_index_t)threadIdx.x) == 0)) {
      T1[((mf_index_t)blockIdx.x)] = (T1[((mf_index_t)blockIdx.x)] + block_result);
    }
  }
}
