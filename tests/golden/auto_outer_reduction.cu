extern "C" __global__ void __launch_bounds__(512) kernel_a7df43530ebcefce(Tensor<float, 2, 2> T0, Tensor<float, 1, 1> T1, void* mf_grid_work, unsigned* mf_grid_semaphores) {
  const mf_index_t i90 = ((((mf_index_t)blockIdx.x) * 32) + ((mf_index_t)threadIdx.x));
  const mf_index_t i91 = (i90 * 4);
  const mf_index_t i17 = ((((((T0.size[0] + 16 - 1) / 16) + 2 - 1) / 2) + 8 - 1) / 8);
  const bool b119 = (i90 < (T0.size[1] / 4));
  alignas(16) float T3[4];
  #pragma unroll
  for (mf_index_t i39 = 0; i39 < 4; ++i39) {
    if (((i91 + i39) < T0.size[1])) {
      T3[i39] = 0.0f;
    }
  }
  alignas(16) float T4[4];
  #pragma unroll
  for (mf_index_t i38 = 0; i38 < 4; ++i38) {
    if (((i91 + i38) < T0.size[1])) {
      T4[i38] = 0.0f;
    }
  }
  for (mf_index_t i35 = 0; i35 < i17; ++i35) {
    #pragma unroll
    for (mf_index_t i36 = 0; i36 < 2; ++i36) {
      const mf_index_t i53 = ((((((((mf_index_t)blockIdx.y) * i17) + i35) * 2) + i36) * 16) + ((mf_index_t)threadIdx.y));
      const bool b120 = ((i53 < T0.size[0]) && b119);
      alignas(16) float T2[4];
      if (b120) {
        mf_vectorCopy<float, 4>(&T2[0], &T0[((i53 * T0.stride[0]) + i91)]);
      }
      #pragma unroll
      for (mf_index_t i38 = 0; i38 < 4; ++i38) {
        if (b120) {
          T4[i38] = (T4[i38] + T2[i38]);
        }
      }
    }
  }
  {
    float block_values[4];
    #pragma unroll
    for (mf_index_t i39 = 0; i39 < 4; ++i39) {
      block_values[i39] = b119 ? T4[i39] : 0.0f;
    }
    mf_blockAllReduceY<float, 4>(block_values, [](float a, float b) { return (a + b); }, 0.0f);
    if (!mf_gridAllReduceY<float, 4>(block_values, [](float a, float b) { return (a + b); }, 0.0f, static_cast<float*>(mf_grid_work), mf_grid_semaphores)) return;
    #pragma unroll
    for (mf_index_t i39 = 0; i39 < 4; ++i39) {
      if (b119) {
        T3[i39] = (T3[i39] + block_values[i39]);
      }
    }
  }
  if (b119) {
    mf_vectorCopy<float, 4>(&T1[i91], &T3[0]);
  }
}
