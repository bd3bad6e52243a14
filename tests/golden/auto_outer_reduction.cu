extern "C" __global__ void kernel_24710fe7e5695149(Tensor<float, 2, 2> T0, Tensor<float, 1, 1> T1, void* mf_grid_work, unsigned* mf_grid_semaphores) {
  const mf_index_t i65 = ((((mf_index_t)blockIdx.x) * 32) + ((mf_index_t)threadIdx.x));
  const bool b94 = (i65 < T0.size[1]);
  const mf_index_t i14 = ((((((T0.size[0] + 16 - 1) / 16) + 4 - 1) / 4) + 4 - 1) / 4);
  alignas(16) float T3[1];
  if (b94) {
    T3[0] = 0.0f;
  }
  alignas(16) float T4[1];
  if (b94) {
    T4[0] = 0.0f;
  }
  for (mf_index_t i27 = 0; i27 < i14; ++i27) {
    #pragma unroll
    for (mf_index_t i28 = 0; i28 < 4; ++i28) {
      const mf_index_t i37 = ((((((((mf_index_t)blockIdx.y) * i14) + i27) * 4) + i28) * 16) + ((mf_index_t)threadIdx.y));
      const bool b86 = ((i37 < T0.size[0]) && b94);
      alignas(16) float T2[1];
      if (b86) {
        T2[0] = T0[((i37 * T0.stride[0]) + i65)];
      }
      if (b86) {
        T4[0] = (T4[0] + T2[0]);
      }
    }
  }
  {
    const float block_result = mf_blockAllReduceY<float>(b94 ? T4[0] : 0.0f, [](float a, float b) { return (a + b); }, 0.0f);
    float grid_result;
    if (!mf_gridAllReduceY<float>(block_result, [](float a, float b) { return (a + b); }, 0.0f, static_cast<float*>(mf_grid_work), mf_grid_semaphores, grid_result)) return;
    if (b94) {
      T3[0] = (T3[0] + grid_result);
    }
  }
  if (b94) {
    T1[i65] = T3[0];
  }
}
