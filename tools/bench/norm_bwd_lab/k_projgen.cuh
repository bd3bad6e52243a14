// InnerOuterPersistentParams(row_extent = 4096, vectorization_factor = 8, persistent_batch = 2, threads_per_row = 256, rows_per_block = 1, grid_blocks = 264, project_to_inputs = true, sums_in_shared = false, index_type = int32, LaunchParams(grid = [-, 264, -], block = [256, 1, -]))
extern "C" __global__ void __launch_bounds__(256) k_projgen(Tensor<mf_bfloat16, 2, 2> T0, Tensor<mf_bfloat16, 2, 2> T1, Tensor<float, 1, 1> T2, Tensor<float, 1, 1> T3, Tensor<mf_bfloat16, 1, 1> T4, Tensor<mf_bfloat16, 2, 2> T26, Tensor<float, 1, 1> T28, Tensor<float, 1, 1> T29, void* mf_grid_work, unsigned* mf_grid_semaphores) {
  __builtin_assume(threadIdx.x < 256);
  __builtin_assume(blockDim.x == 256);
  __builtin_assume(threadIdx.y < 1);
  __builtin_assume(blockDim.y == 1);
  const mf_index_t i36 = ((T0.size[0] + 264 - 1) / 264);
  alignas(16) float T54[16];
  alignas(16) float T53[16];
  alignas(16) float T11[16];
  for (mf_index_t i225 = 0; i225 < 2; ++i225) {
    for (mf_index_t i226 = 0; i226 < 8; ++i226) {
      alignas(16) mf_bfloat16 T49[1];
      T49[0] = T4[((((i225 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i226)];
      T11[((i225 * 8) + i226)] = mf_toFloatForArithmetic(T49[0]);
    }
  }
  for (mf_index_t i250 = 0; i250 < 2; ++i250) {
    for (mf_index_t i251 = 0; i251 < 8; ++i251) {
      T53[((i250 * 8) + i251)] = 0.0f;
    }
  }
  for (mf_index_t i253 = 0; i253 < 2; ++i253) {
    for (mf_index_t i254 = 0; i254 < 8; ++i254) {
      T54[((i253 * 8) + i254)] = 0.0f;
    }
  }
  for (mf_index_t i228 = 0; i228 < i36; ++i228) {
    const mf_index_t i351 = (((((mf_index_t)blockIdx.y) * i36) + i228) + ((mf_index_t)threadIdx.y));
    const bool b943 = (i351 < T0.size[0]);
    const mf_index_t i373 = (((((mf_index_t)blockIdx.y) * ((T1.size[0] + 264 - 1) / 264)) + i228) + ((mf_index_t)threadIdx.y));
    const mf_index_t i391 = (((((mf_index_t)blockIdx.y) * ((T2.size[0] + 264 - 1) / 264)) + i228) + ((mf_index_t)threadIdx.y));
    const mf_index_t i400 = (((((mf_index_t)blockIdx.y) * ((T3.size[0] + 264 - 1) / 264)) + i228) + ((mf_index_t)threadIdx.y));
    alignas(16) float T18[1];
    alignas(16) float T17[1];
    alignas(16) float T15[1];
    alignas(16) float T14[1];
    alignas(16) float T13[16];
    alignas(16) float T48[1];
    alignas(16) float T47[1];
    alignas(16) mf_bfloat16 T46[16];
    alignas(16) mf_bfloat16 T45[16];
    for (mf_index_t i231 = 0; i231 < 2; ++i231) {
      if (b943) {
        mf_vectorCopy<mf_bfloat16, 8>(&T45[(i231 * 8)], &T0[((i351 * T0.stride[0]) + (((i231 * 256) + ((mf_index_t)threadIdx.x)) * 8))]);
      }
    }
    for (mf_index_t i234 = 0; i234 < 2; ++i234) {
      if ((i373 < T1.size[0])) {
        mf_vectorCopy<mf_bfloat16, 8>(&T46[(i234 * 8)], &T1[((i373 * T1.stride[0]) + (((i234 * 256) + ((mf_index_t)threadIdx.x)) * 8))]);
      }
    }
    if ((i391 < T2.size[0])) {
      T47[0] = T2[i391];
    }
    if ((i400 < T3.size[0])) {
      T48[0] = T3[i400];
    }
    for (mf_index_t i237 = 0; i237 < 2; ++i237) {
      for (mf_index_t i238 = 0; i238 < 8; ++i238) {
        const mf_index_t i410 = ((((i237 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i238);
        const mf_index_t i435 = ((i237 * 8) + i238);
        alignas(16) float T5[1];
        alignas(16) float T12[1];
        T12[0] = T11[((((i410 / 8) / 256) * 8) + (i410 % 8))];
        T5[0] = mf_toFloatForArithmetic(T45[i435]);
        T13[i435] = (T12[0] * T5[0]);
      }
    }
    if (b943) {
      T14[0] = 0.0f;
    }
    alignas(16) float T51[1];
    if (b943) {
      T51[0] = 0.0f;
    }
    for (mf_index_t i240 = 0; i240 < 2; ++i240) {
      for (mf_index_t i241 = 0; i241 < 8; ++i241) {
        if (b943) {
          T51[0] = (T51[0] + T13[((i240 * 8) + i241)]);
        }
      }
    }
    if (b943) {
      T17[0] = 0.0f;
    }
    alignas(16) float T52[1];
    if (b943) {
      T52[0] = 0.0f;
    }
    for (mf_index_t i243 = 0; i243 < 2; ++i243) {
      for (mf_index_t i244 = 0; i244 < 8; ++i244) {
        const mf_index_t i488 = ((i243 * 8) + i244);
        alignas(16) float T16[1];
        alignas(16) float T10[1];
        alignas(16) float T6[1];
        alignas(16) float T9[1];
        alignas(16) float T7[1];
        alignas(16) float T8[1];
        T8[0] = mf_toFloatForArithmetic(T46[i488]);
        T7[0] = T47[0];
        T9[0] = (T8[0] - T7[0]);
        T6[0] = T48[0];
        T10[0] = (T9[0] * T6[0]);
        T16[0] = (T13[i488] * T10[0]);
        if (b943) {
          T52[0] = (T52[0] + T16[0]);
        }
      }
    }
    {
      float block_values0[1];
      float block_values1[1];
      block_values0[0] = b943 ? T51[0] : 0.0f;
      block_values1[0] = b943 ? T52[0] : 0.0f;
      mf_blockAllReduceTupleX(mf_reduceMember(block_values0, [](float a, float b) { return (a + b); }, 0.0f), mf_reduceMember(block_values1, [](float a, float b) { return (a + b); }, 0.0f));
      if (b943) {
        T14[0] = (T14[0] + block_values0[0]);
      }
      if (b943) {
        T17[0] = (T17[0] + block_values1[0]);
      }
    }
    T15[0] = (T14[0] / 4096.0f);
    T18[0] = (T17[0] / 4096.0f);
    for (mf_index_t i246 = 0; i246 < 2; ++i246) {
      const mf_index_t i577 = (((i246 * 256) + ((mf_index_t)threadIdx.x)) * 8);
      alignas(16) mf_bfloat16 T50[8];
      for (mf_index_t i247 = 0; i247 < 8; ++i247) {
        const mf_index_t i578 = (i577 + i247);
        const mf_index_t i603 = ((i246 * 8) + i247);
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
        T32[0] = T11[((((i578 / 8) / 256) * 8) + (i578 % 8))];
        T33[0] = mf_toFloatForArithmetic(T45[i603]);
        T34[0] = (T32[0] * T33[0]);
        T21[0] = T15[0];
        T22[0] = (T34[0] - T21[0]);
        T35[0] = mf_toFloatForArithmetic(T46[i603]);
        T36[0] = T47[0];
        T37[0] = (T35[0] - T36[0]);
        T38[0] = T48[0];
        T39[0] = (T37[0] * T38[0]);
        T19[0] = T18[0];
        T20[0] = (T39[0] * T19[0]);
        T23[0] = (T22[0] - T20[0]);
        T24[0] = T48[0];
        T25[0] = (T23[0] * T24[0]);
        T50[i247] = mf_cast<mf_bfloat16>(T25[0]);
      }
      if (b943) {
        mf_vectorCopy<mf_bfloat16, 8>(&T26[((i351 * T26.stride[0]) + i577)], &T50[0]);
      }
    }
    for (mf_index_t i250 = 0; i250 < 2; ++i250) {
      for (mf_index_t i251 = 0; i251 < 8; ++i251) {
        const mf_index_t i800 = ((i250 * 8) + i251);
        alignas(16) float T27[1];
        alignas(16) float T44[1];
        alignas(16) float T43[1];
        alignas(16) float T42[1];
        alignas(16) float T41[1];
        alignas(16) float T40[1];
        alignas(16) float T30[1];
        T30[0] = mf_toFloatForArithmetic(T45[i800]);
        T40[0] = mf_toFloatForArithmetic(T46[i800]);
        T41[0] = T47[0];
        T42[0] = (T40[0] - T41[0]);
        T43[0] = T48[0];
        T44[0] = (T42[0] * T43[0]);
        T27[0] = (T30[0] * T44[0]);
        if (b943) {
          T53[i800] = (T53[i800] + T27[0]);
        }
      }
    }
    for (mf_index_t i253 = 0; i253 < 2; ++i253) {
      for (mf_index_t i254 = 0; i254 < 8; ++i254) {
        const mf_index_t i894 = ((i253 * 8) + i254);
        alignas(16) float T31[1];
        T31[0] = mf_cast<float>(T45[i894]);
        if (b943) {
          T54[i894] = (T54[i894] + T31[0]);
        }
      }
    }
  }
  for (mf_index_t i258 = 0; i258 < 2; ++i258) {
    for (mf_index_t i259 = 0; i259 < 8; ++i259) {
      T28[((((i258 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i259)] = 0.0f;
    }
  }
  {
    float block_values[16];
    for (mf_index_t i258 = 0; i258 < 2; ++i258) {
      for (mf_index_t i259 = 0; i259 < 8; ++i259) {
        block_values[i258 * 8 + i259] = T53[((i258 * 8) + i259)];
      }
    }
    mf_blockAllReduceY<float, 16>(block_values, [](float a, float b) { return (a + b); }, 0.0f);
    const bool grid_last = mf_gridReduceInPlaceY<float, 16>(block_values, [](float a, float b) { return (a + b); }, 0.0f, static_cast<float*>(mf_grid_work), mf_grid_semaphores, 0, 0);
    for (mf_index_t i258 = 0; i258 < 2; ++i258) {
      for (mf_index_t i259 = 0; i259 < 8; ++i259) {
        if (grid_last && (((mf_index_t)threadIdx.y) == 0)) {
          T28[((((i258 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i259)] = (T28[((((i258 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i259)] + block_values[i258 * 8 + i259]);
        }
      }
    }
  }
  for (mf_index_t i263 = 0; i263 < 2; ++i263) {
    for (mf_index_t i264 = 0; i264 < 8; ++i264) {
      T29[((((i263 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i264)] = 0.0f;
    }
  }
  {
    float block_values[16];
    for (mf_index_t i263 = 0; i263 < 2; ++i263) {
      for (mf_index_t i264 = 0; i264 < 8; ++i264) {
        block_values[i263 * 8 + i264] = T54[((i263 * 8) + i264)];
      }
    }
    mf_blockAllReduceY<float, 16>(block_values, [](float a, float b) { return (a + b); }, 0.0f);
    const bool grid_last = mf_gridReduceInPlaceY<float, 16>(block_values, [](float a, float b) { return (a + b); }, 0.0f, static_cast<float*>(mf_grid_work), mf_grid_semaphores, 16, 1);
    for (mf_index_t i263 = 0; i263 < 2; ++i263) {
      for (mf_index_t i264 = 0; i264 < 8; ++i264) {
        if (grid_last && (((mf_index_t)threadIdx.y) == 0)) {
          T29[((((i263 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i264)] = (T29[((((i263 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i264)] + block_values[i263 * 8 + i264]);
        }
      }
    }
  }
}
