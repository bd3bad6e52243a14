// tools/bench/lab_utils.cuh: what the standalone labs (layout_tile_lab.cu, quantize_lab.cu)
// share: a CUDA error check naming the lab and the line, and the benchmarks' timing rule.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

inline void mfLabCheck(cudaError_t e, const char* lab, int line) {
  if (e == cudaSuccess) return;
  std::printf("%s: CUDA error %s at line %d\n", lab, cudaGetErrorString(e), line);
  std::exit(1);
}
// MF_LAB_NAME: the lab's name, defined before this file is included.
#define MF_CK(x) mfLabCheck((x), MF_LAB_NAME, __LINE__)

// After 3 warm-up launches, the median of 30 samples of CUDA events around 20 back-to-back
// launches, divided by 20 (layout_op_bench's and quantize_bench's rule), in microseconds.
inline float mfLabTimeUs(const std::function<void()>& launch) {
  cudaEvent_t start, stop;
  MF_CK(cudaEventCreate(&start));
  MF_CK(cudaEventCreate(&stop));
  for (int i = 0; i < 3; ++i) launch();
  MF_CK(cudaDeviceSynchronize());
  std::vector<float> us;
  for (int s = 0; s < 30; ++s) {
    MF_CK(cudaEventRecord(start));
    for (int i = 0; i < 20; ++i) launch();
    MF_CK(cudaEventRecord(stop));
    MF_CK(cudaEventSynchronize(stop));
    float ms = 0;
    MF_CK(cudaEventElapsedTime(&ms, start, stop));
    us.push_back(ms * 1000 / 20);
  }
  MF_CK(cudaGetLastError());
  MF_CK(cudaEventDestroy(start));
  MF_CK(cudaEventDestroy(stop));
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}
