// InnerOuterPersistentParams(row_extent = 4096, vectorization_factor = 8, persistent_batch = 2, threads_per_row = 256, rows_per_block = 1, grid_blocks = 528, project_to_inputs = true, sums_in_shared = true, index_type = int32, LaunchParams(grid = [-, 528, -], block = [256, 1, -]), min_blocks_per_sm = 4)
extern "C" __global__ void __launch_bounds__(256, 4) k_smem4(Tensor<mf_bfloat16, 2, 2> T0, Tensor<mf_bfloat16, 2, 2> T1, Tensor<float, 1, 1> T2, Tensor<float, 1, 1> T3, Tensor<mf_bfloat16, 1, 1> T4, Tensor<mf_bfloat16, 2, 2> T26, Tensor<float, 1, 1> T28, Tensor<float, 1, 1> T29, void* mf_grid_work, unsigned* mf_grid_semaphores) {
  __builtin_assume(threadIdx.x < 256);
  __builtin_assume(blockDim.x == 256);
  __builtin_assume(threadIdx.y < 1);
  __builtin_assume(blockDim.y == 1);
  const mf_index_t i918 = (((mf_index_t)threadIdx.y) * 256);
  const mf_index_t i920 = ((i918 + ((mf_index_t)threadIdx.x)) * 2);
  const mf_index_t i36 = ((T0.size[0] + 528 - 1) / 528);
  __shared__ alignas(16) float T54[4352];
  __shared__ alignas(16) float T53[4352];
  alignas(16) float T11[16];
  for (mf_index_t i249 = 0; i249 < 2; ++i249) {
    for (mf_index_t i250 = 0; i250 < 8; ++i250) {
      alignas(16) mf_bfloat16 T49[1];
      T49[0] = T4[((((i249 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i250)];
      T11[((i249 * 8) + i250)] = mf_toFloatForArithmetic(T49[0]);
    }
  }
  for (mf_index_t i274 = 0; i274 < 2; ++i274) {
    for (mf_index_t i275 = 0; i275 < 8; ++i275) {
      const mf_index_t i923 = (((i920 + i274) * 8) + i275);
      T53[(i923 + (i923 / 16))] = 0.0f;
    }
  }
  for (mf_index_t i277 = 0; i277 < 2; ++i277) {
    for (mf_index_t i278 = 0; i278 < 8; ++i278) {
      const mf_index_t i955 = (((i920 + i277) * 8) + i278);
      T54[(i955 + (i955 / 16))] = 0.0f;
    }
  }
  for (mf_index_t i252 = 0; i252 < i36; ++i252) {
    const mf_index_t i387 = (((((mf_index_t)blockIdx.y) * i36) + i252) + ((mf_index_t)threadIdx.y));
    const bool b1017 = (i387 < T0.size[0]);
    const mf_index_t i409 = (((((mf_index_t)blockIdx.y) * ((T1.size[0] + 528 - 1) / 528)) + i252) + ((mf_index_t)threadIdx.y));
    const mf_index_t i427 = (((((mf_index_t)blockIdx.y) * ((T2.size[0] + 528 - 1) / 528)) + i252) + ((mf_index_t)threadIdx.y));
    const mf_index_t i436 = (((((mf_index_t)blockIdx.y) * ((T3.size[0] + 528 - 1) / 528)) + i252) + ((mf_index_t)threadIdx.y));
    alignas(16) float T18[1];
    alignas(16) float T17[1];
    alignas(16) float T15[1];
    alignas(16) float T14[1];
    alignas(16) float T13[16];
    alignas(16) float T48[1];
    alignas(16) float T47[1];
    alignas(16) mf_bfloat16 T46[16];
    alignas(16) mf_bfloat16 T45[16];
    for (mf_index_t i255 = 0; i255 < 2; ++i255) {
      if (b1017) {
        mf_vectorCopy<mf_bfloat16, 8>(&T45[(i255 * 8)], &T0[((i387 * T0.stride[0]) + (((i255 * 256) + ((mf_index_t)threadIdx.x)) * 8))]);
      }
    }
    for (mf_index_t i258 = 0; i258 < 2; ++i258) {
      if ((i409 < T1.size[0])) {
        mf_vectorCopy<mf_bfloat16, 8>(&T46[(i258 * 8)], &T1[((i409 * T1.stride[0]) + (((i258 * 256) + ((mf_index_t)threadIdx.x)) * 8))]);
      }
    }
    if ((i427 < T2.size[0])) {
      T47[0] = T2[i427];
    }
    if ((i436 < T3.size[0])) {
      T48[0] = T3[i436];
    }
    for (mf_index_t i261 = 0; i261 < 2; ++i261) {
      for (mf_index_t i262 = 0; i262 < 8; ++i262) {
        const mf_index_t i446 = ((((i261 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i262);
        const mf_index_t i471 = ((i261 * 8) + i262);
        alignas(16) float T5[1];
        alignas(16) float T12[1];
        T12[0] = T11[((((i446 / 8) / 256) * 8) + (i446 % 8))];
        T5[0] = mf_toFloatForArithmetic(T45[i471]);
        T13[i471] = (T12[0] * T5[0]);
      }
    }
    if (b1017) {
      T14[0] = 0.0f;
    }
    alignas(16) float T51[1];
    if (b1017) {
      T51[0] = 0.0f;
    }
    for (mf_index_t i264 = 0; i264 < 2; ++i264) {
      for (mf_index_t i265 = 0; i265 < 8; ++i265) {
        if (b1017) {
          T51[0] = (T51[0] + T13[((i264 * 8) + i265)]);
        }
      }
    }
    if (b1017) {
      T17[0] = 0.0f;
    }
    alignas(16) float T52[1];
    if (b1017) {
      T52[0] = 0.0f;
    }
    for (mf_index_t i267 = 0; i267 < 2; ++i267) {
      for (mf_index_t i268 = 0; i268 < 8; ++i268) {
        const mf_index_t i524 = ((i267 * 8) + i268);
        alignas(16) float T16[1];
        alignas(16) float T10[1];
        alignas(16) float T6[1];
        alignas(16) float T9[1];
        alignas(16) float T7[1];
        alignas(16) float T8[1];
        T8[0] = mf_toFloatForArithmetic(T46[i524]);
        T7[0] = T47[0];
        T9[0] = (T8[0] - T7[0]);
        T6[0] = T48[0];
        T10[0] = (T9[0] * T6[0]);
        T16[0] = (T13[i524] * T10[0]);
        if (b1017) {
          T52[0] = (T52[0] + T16[0]);
        }
      }
    }
    {
      float block_values0[1];
      float block_values1[1];
      block_values0[0] = b1017 ? T51[0] : 0.0f;
      block_values1[0] = b1017 ? T52[0] : 0.0f;
      mf_blockAllReduceTupleX(mf_reduceMember(block_values0, [](float a, float b) { return (a + b); }, 0.0f), mf_reduceMember(block_values1, [](float a, float b) { return (a + b); }, 0.0f));
      if (b1017) {
        T14[0] = (T14[0] + block_values0[0]);
      }
      if (b1017) {
        T17[0] = (T17[0] + block_values1[0]);
      }
    }
    T15[0] = (T14[0] / 4096.0f);
    T18[0] = (T17[0] / 4096.0f);
    for (mf_index_t i270 = 0; i270 < 2; ++i270) {
      const mf_index_t i613 = (((i270 * 256) + ((mf_index_t)threadIdx.x)) * 8);
      alignas(16) mf_bfloat16 T50[8];
      for (mf_index_t i271 = 0; i271 < 8; ++i271) {
        const mf_index_t i614 = (i613 + i271);
        const mf_index_t i639 = ((i270 * 8) + i271);
        alignas(16) float T25[1];
        alignas(16) float T24[1];
        alignas(16) float T23[1];
        alignas(16) float T20[1];
        alignas(16) float T19[1];
        alignas(16) float T39[1];
        alignas(16) float T38[1];
        alignas(16) float T37[1];
        alignas(16) float T36[1];
        alignas(16) float T35[1];
        alignas(16) float T22[1];
        alignas(16) float T21[1];
        alignas(16) float T34[1];
        alignas(16) float T33[1];
        alignas(16) float T32[1];
        T32[0] = T11[((((i614 / 8) / 256) * 8) + (i614 % 8))];
        T33[0] = mf_toFloatForArithmetic(T45[i639]);
        T34[0] = (T32[0] * T33[0]);
        T21[0] = T15[0];
        T22[0] = (T34[0] - T21[0]);
        T35[0] = mf_toFloatForArithmetic(T46[i639]);
        T36[0] = T47[0];
        T37[0] = (T35[0] - T36[0]);
        T38[0] = T48[0];
        T39[0] = (T37[0] * T38[0]);
        T19[0] = T18[0];
        T20[0] = (T39[0] * T19[0]);
        T23[0] = (T22[0] - T20[0]);
        T24[0] = T48[0];
        T25[0] = (T23[0] * T24[0]);
        T50[i271] = mf_cast<mf_bfloat16>(T25[0]);
      }
      if (b1017) {
        mf_vectorCopy<mf_bfloat16, 8>(&T26[((i387 * T26.stride[0]) + i613)], &T50[0]);
      }
    }
    for (mf_index_t i274 = 0; i274 < 2; ++i274) {
      for (mf_index_t i275 = 0; i275 < 8; ++i275) {
        const mf_index_t i836 = ((i274 * 8) + i275);
        const mf_index_t i923 = (((i920 + i274) * 8) + i275);
        alignas(16) float T27[1];
        alignas(16) float T44[1];
        alignas(16) float T43[1];
        alignas(16) float T42[1];
        alignas(16) float T41[1];
        alignas(16) float T40[1];
        alignas(16) float T30[1];
        T30[0] = mf_toFloatForArithmetic(T45[i836]);
        T40[0] = mf_toFloatForArithmetic(T46[i836]);
        T41[0] = T47[0];
        T42[0] = (T40[0] - T41[0]);
        T43[0] = T48[0];
        T44[0] = (T42[0] * T43[0]);
        T27[0] = (T30[0] * T44[0]);
        if (b1017) {
          T53[(i923 + (i923 / 16))] = (T53[(i923 + (i923 / 16))] + T27[0]);
        }
      }
    }
    for (mf_index_t i277 = 0; i277 < 2; ++i277) {
      for (mf_index_t i278 = 0; i278 < 8; ++i278) {
        const mf_index_t i955 = (((i920 + i277) * 8) + i278);
        alignas(16) float T31[1];
        T31[0] = mf_cast<float>(T45[((i277 * 8) + i278)]);
        if (b1017) {
          T54[(i955 + (i955 / 16))] = (T54[(i955 + (i955 / 16))] + T31[0]);
        }
      }
    }
  }
  __syncthreads();
  __syncthreads();
  for (mf_index_t i282 = 0; i282 < 2; ++i282) {
    for (mf_index_t i283 = 0; i283 < 8; ++i283) {
      T28[((((i282 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i283)] = 0.0f;
    }
  }
  {
    float block_values[16];
    for (mf_index_t i282 = 0; i282 < 2; ++i282) {
      for (mf_index_t i283 = 0; i283 < 8; ++i283) {
        block_values[i282 * 8 + i283] = T53[((((((i918 + ((((((i282 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i283) / 8) % 256)) * 2) + ((((((i282 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i283) / 8) / 256)) * 8) + (((((i282 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i283) % 8)) + ((((((i918 + ((((((i282 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i283) / 8) % 256)) * 2) + ((((((i282 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i283) / 8) / 256)) * 8) + (((((i282 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i283) % 8)) / 16))];
      }
    }
    mf_blockAllReduceY<float, 16>(block_values, [](float a, float b) { return (a + b); }, 0.0f);
    const bool grid_last = mf_gridReduceInPlaceY<float, 16>(block_values, [](float a, float b) { return (a + b); }, 0.0f, static_cast<float*>(mf_grid_work), mf_grid_semaphores, 0, 0);
    for (mf_index_t i282 = 0; i282 < 2; ++i282) {
      for (mf_index_t i283 = 0; i283 < 8; ++i283) {
        if (grid_last && (((mf_index_t)threadIdx.y) == 0)) {
          T28[((((i282 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i283)] = (T28[((((i282 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i283)] + block_values[i282 * 8 + i283]);
        }
      }
    }
  }
  __syncthreads();
  __syncthreads();
  for (mf_index_t i287 = 0; i287 < 2; ++i287) {
    for (mf_index_t i288 = 0; i288 < 8; ++i288) {
      T29[((((i287 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i288)] = 0.0f;
    }
  }
  {
    float block_values[16];
    for (mf_index_t i287 = 0; i287 < 2; ++i287) {
      for (mf_index_t i288 = 0; i288 < 8; ++i288) {
        block_values[i287 * 8 + i288] = T54[((((((i918 + ((((((i287 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i288) / 8) % 256)) * 2) + ((((((i287 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i288) / 8) / 256)) * 8) + (((((i287 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i288) % 8)) + ((((((i918 + ((((((i287 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i288) / 8) % 256)) * 2) + ((((((i287 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i288) / 8) / 256)) * 8) + (((((i287 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i288) % 8)) / 16))];
      }
    }
    mf_blockAllReduceY<float, 16>(block_values, [](float a, float b) { return (a + b); }, 0.0f);
    const bool grid_last = mf_gridReduceInPlaceY<float, 16>(block_values, [](float a, float b) { return (a + b); }, 0.0f, static_cast<float*>(mf_grid_work), mf_grid_semaphores, 16, 1);
    for (mf_index_t i287 = 0; i287 < 2; ++i287) {
      for (mf_index_t i288 = 0; i288 < 8; ++i288) {
        if (grid_last && (((mf_index_t)threadIdx.y) == 0)) {
          T29[((((i287 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i288)] = (T29[((((i287 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i288)] + block_values[i287 * 8 + i288]);
        }
      }
    }
  }
}
