// InnerOuterPersistentParams(row_extent = 4096, vectorization_factor = 8, persistent_batch = 2, threads_per_row = 256, rows_per_block = 1, grid_blocks = 264, project_to_inputs = false, sums_in_shared = false, index_type = int32, LaunchParams(grid = [-, 264, -], block = [256, 1, -]))
extern "C" __global__ void __launch_bounds__(256) k_gen(Tensor<mf_bfloat16, 2, 2> T0, Tensor<mf_bfloat16, 2, 2> T1, Tensor<float, 1, 1> T2, Tensor<float, 1, 1> T3, Tensor<mf_bfloat16, 1, 1> T4, Tensor<mf_bfloat16, 2, 2> T26, Tensor<float, 1, 1> T28, Tensor<float, 1, 1> T29, void* mf_grid_work, unsigned* mf_grid_semaphores) {
  __builtin_assume(threadIdx.x < 256);
  __builtin_assume(blockDim.x == 256);
  __builtin_assume(threadIdx.y < 1);
  __builtin_assume(blockDim.y == 1);
  const mf_index_t i39 = ((T0.size[0] + 264 - 1) / 264);
  alignas(16) float T39[16];
  alignas(16) float T38[16];
  alignas(16) float T11[16];
  for (mf_index_t i166 = 0; i166 < 2; ++i166) {
    for (mf_index_t i167 = 0; i167 < 8; ++i167) {
      alignas(16) mf_bfloat16 T34[1];
      T34[0] = T4[((((i166 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i167)];
      T11[((i166 * 8) + i167)] = mf_toFloatForArithmetic(T34[0]);
    }
  }
  for (mf_index_t i193 = 0; i193 < 2; ++i193) {
    for (mf_index_t i194 = 0; i194 < 8; ++i194) {
      T38[((i193 * 8) + i194)] = 0.0f;
    }
  }
  for (mf_index_t i196 = 0; i196 < 2; ++i196) {
    for (mf_index_t i197 = 0; i197 < 8; ++i197) {
      T39[((i196 * 8) + i197)] = 0.0f;
    }
  }
  for (mf_index_t i169 = 0; i169 < i39; ++i169) {
    const mf_index_t i281 = (((((mf_index_t)blockIdx.y) * i39) + i169) + ((mf_index_t)threadIdx.y));
    const bool b711 = (i281 < T0.size[0]);
    const mf_index_t i312 = (((((mf_index_t)blockIdx.y) * ((T2.size[0] + 264 - 1) / 264)) + i169) + ((mf_index_t)threadIdx.y));
    const mf_index_t i321 = (((((mf_index_t)blockIdx.y) * ((T3.size[0] + 264 - 1) / 264)) + i169) + ((mf_index_t)threadIdx.y));
    const mf_index_t i334 = (((((mf_index_t)blockIdx.y) * ((T1.size[0] + 264 - 1) / 264)) + i169) + ((mf_index_t)threadIdx.y));
    alignas(16) float T18[1];
    alignas(16) float T17[1];
    alignas(16) float T15[1];
    alignas(16) float T14[1];
    alignas(16) float T13[16];
    alignas(16) float T10[16];
    alignas(16) float T33[1];
    alignas(16) float T32[1];
    alignas(16) float T5[16];
    for (mf_index_t i172 = 0; i172 < 2; ++i172) {
      alignas(16) mf_bfloat16 T30[8];
      if (b711) {
        mf_vectorCopy<mf_bfloat16, 8>(&T30[0], &T0[((i281 * T0.stride[0]) + (((i172 * 256) + ((mf_index_t)threadIdx.x)) * 8))]);
      }
      for (mf_index_t i174 = 0; i174 < 8; ++i174) {
        T5[((i172 * 8) + i174)] = mf_cast<float>(T30[i174]);
      }
    }
    if ((i312 < T2.size[0])) {
      T32[0] = T2[i312];
    }
    if ((i321 < T3.size[0])) {
      T33[0] = T3[i321];
    }
    for (mf_index_t i176 = 0; i176 < 2; ++i176) {
      alignas(16) mf_bfloat16 T31[8];
      if ((i334 < T1.size[0])) {
        mf_vectorCopy<mf_bfloat16, 8>(&T31[0], &T1[((i334 * T1.stride[0]) + (((i176 * 256) + ((mf_index_t)threadIdx.x)) * 8))]);
      }
      for (mf_index_t i178 = 0; i178 < 8; ++i178) {
        alignas(16) float T6[1];
        alignas(16) float T9[1];
        alignas(16) float T7[1];
        alignas(16) float T8[1];
        T8[0] = mf_toFloatForArithmetic(T31[i178]);
        T7[0] = T32[0];
        T9[0] = (T8[0] - T7[0]);
        T6[0] = T33[0];
        T10[((i176 * 8) + i178)] = (T9[0] * T6[0]);
      }
    }
    for (mf_index_t i180 = 0; i180 < 2; ++i180) {
      for (mf_index_t i181 = 0; i181 < 8; ++i181) {
        const mf_index_t i414 = ((((i180 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i181);
        const mf_index_t i441 = ((i180 * 8) + i181);
        alignas(16) float T12[1];
        T12[0] = T11[((((i414 / 8) / 256) * 8) + (i414 % 8))];
        T13[i441] = (T12[0] * T5[i441]);
      }
    }
    if (b711) {
      T14[0] = 0.0f;
    }
    alignas(16) float T36[1];
    if (b711) {
      T36[0] = 0.0f;
    }
    for (mf_index_t i183 = 0; i183 < 2; ++i183) {
      for (mf_index_t i184 = 0; i184 < 8; ++i184) {
        if (b711) {
          T36[0] = (T36[0] + T13[((i183 * 8) + i184)]);
        }
      }
    }
    if (b711) {
      T17[0] = 0.0f;
    }
    alignas(16) float T37[1];
    if (b711) {
      T37[0] = 0.0f;
    }
    for (mf_index_t i186 = 0; i186 < 2; ++i186) {
      for (mf_index_t i187 = 0; i187 < 8; ++i187) {
        const mf_index_t i483 = ((i186 * 8) + i187);
        alignas(16) float T16[1];
        T16[0] = (T13[i483] * T10[i483]);
        if (b711) {
          T37[0] = (T37[0] + T16[0]);
        }
      }
    }
    {
      float block_values0[1];
      float block_values1[1];
      block_values0[0] = b711 ? T36[0] : 0.0f;
      block_values1[0] = b711 ? T37[0] : 0.0f;
      mf_blockAllReduceTupleX(mf_reduceMember(block_values0, [](float a, float b) { return (a + b); }, 0.0f), mf_reduceMember(block_values1, [](float a, float b) { return (a + b); }, 0.0f));
      if (b711) {
        T14[0] = (T14[0] + block_values0[0]);
      }
      if (b711) {
        T17[0] = (T17[0] + block_values1[0]);
      }
    }
    T15[0] = (T14[0] / 4096.0f);
    T18[0] = (T17[0] / 4096.0f);
    for (mf_index_t i189 = 0; i189 < 2; ++i189) {
      alignas(16) mf_bfloat16 T35[8];
      for (mf_index_t i190 = 0; i190 < 8; ++i190) {
        const mf_index_t i536 = ((i189 * 8) + i190);
        alignas(16) float T25[1];
        alignas(16) float T24[1];
        alignas(16) float T23[1];
        alignas(16) float T20[1];
        alignas(16) float T19[1];
        alignas(16) float T22[1];
        alignas(16) float T21[1];
        T21[0] = T15[0];
        T22[0] = (T13[i536] - T21[0]);
        T19[0] = T18[0];
        T20[0] = (T10[i536] * T19[0]);
        T23[0] = (T22[0] - T20[0]);
        T24[0] = T33[0];
        T25[0] = (T23[0] * T24[0]);
        T35[i190] = mf_cast<mf_bfloat16>(T25[0]);
      }
      if (b711) {
        mf_vectorCopy<mf_bfloat16, 8>(&T26[((i281 * T26.stride[0]) + (((i189 * 256) + ((mf_index_t)threadIdx.x)) * 8))], &T35[0]);
      }
    }
    for (mf_index_t i193 = 0; i193 < 2; ++i193) {
      for (mf_index_t i194 = 0; i194 < 8; ++i194) {
        const mf_index_t i643 = ((i193 * 8) + i194);
        alignas(16) float T27[1];
        T27[0] = (T5[i643] * T10[i643]);
        if (b711) {
          T38[i643] = (T38[i643] + T27[0]);
        }
      }
    }
    for (mf_index_t i196 = 0; i196 < 2; ++i196) {
      for (mf_index_t i197 = 0; i197 < 8; ++i197) {
        const mf_index_t i671 = ((i196 * 8) + i197);
        if (b711) {
          T39[i671] = (T39[i671] + T5[i671]);
        }
      }
    }
  }
  for (mf_index_t i201 = 0; i201 < 2; ++i201) {
    for (mf_index_t i202 = 0; i202 < 8; ++i202) {
      T28[((((i201 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i202)] = 0.0f;
    }
  }
  {
    float block_values[16];
    for (mf_index_t i201 = 0; i201 < 2; ++i201) {
      for (mf_index_t i202 = 0; i202 < 8; ++i202) {
        block_values[i201 * 8 + i202] = T38[((i201 * 8) + i202)];
      }
    }
    mf_blockAllReduceY<float, 16>(block_values, [](float a, float b) { return (a + b); }, 0.0f);
    const bool grid_last = mf_gridReduceInPlaceY<float, 16>(block_values, [](float a, float b) { return (a + b); }, 0.0f, static_cast<float*>(mf_grid_work), mf_grid_semaphores, 0, 0);
    for (mf_index_t i201 = 0; i201 < 2; ++i201) {
      for (mf_index_t i202 = 0; i202 < 8; ++i202) {
        if (grid_last && (((mf_index_t)threadIdx.y) == 0)) {
          T28[((((i201 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i202)] = (T28[((((i201 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i202)] + block_values[i201 * 8 + i202]);
        }
      }
    }
  }
  for (mf_index_t i206 = 0; i206 < 2; ++i206) {
    for (mf_index_t i207 = 0; i207 < 8; ++i207) {
      T29[((((i206 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i207)] = 0.0f;
    }
  }
  {
    float block_values[16];
    for (mf_index_t i206 = 0; i206 < 2; ++i206) {
      for (mf_index_t i207 = 0; i207 < 8; ++i207) {
        block_values[i206 * 8 + i207] = T39[((i206 * 8) + i207)];
      }
    }
    mf_blockAllReduceY<float, 16>(block_values, [](float a, float b) { return (a + b); }, 0.0f);
    const bool grid_last = mf_gridReduceInPlaceY<float, 16>(block_values, [](float a, float b) { return (a + b); }, 0.0f, static_cast<float*>(mf_grid_work), mf_grid_semaphores, 16, 1);
    for (mf_index_t i206 = 0; i206 < 2; ++i206) {
      for (mf_index_t i207 = 0; i207 < 8; ++i207) {
        if (grid_last && (((mf_index_t)threadIdx.y) == 0)) {
          T29[((((i206 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i207)] = (T29[((((i206 * 256) + ((mf_index_t)threadIdx.x)) * 8) + i207)] + block_values[i206 * 8 + i207]);
        }
      }
    }
  }
}
