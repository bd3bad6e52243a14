// tools/bench/quantize_lab.cu: a standalone harness for groupedBlockQuantize's kernel, built by
// nvcc in seconds (tools/bench/quantize_lab.sh) instead of the project's build, so that one
// device call times several thread mappings of runtime/block_quantize.cuh against each other
// and a device copy, on quantize_bench's cases (bf16 [M, 7168], random group sizes, global
// scale 0.37). Forms:
//   old        with -DMF_LAB_OLD (tools/bench/lab_old/: copies of runtime/fp4.cuh,
//              layout_op.cuh and block_quantize.cuh from before a change): the generated kernel's
//              shape on that runtime, the baseline a change is timed and checked against
//   thread     the generated kernel of tests/golden/auto_grouped_block_quantize.cu (one
//              thread per 16-value block, 128 threads, row and column by division)
//   gridT      rows on blockIdx.x, T threads of blocks of one row per CTA on blockIdx.y
//   quad       four blocks of one row per thread (mf_groupedBlockQuantize4), 128 threads
//   gridquadT  the same, rows on blockIdx.x, T threads of quads per CTA on blockIdx.y
// Every form's codes and scales are checked byte for byte against the first form's (poisoned
// buffers) before timing. Every time is the median of 30 samples of CUDA events around 20
// back-to-back launches, divided by 20. Prints `case FORM G M K us xCOPY xFLOOR ok|WRONG`,
// where the floor is the bytes moved (input read, codes and scales written) at the copy's rate.
#define MF_LAB_NAME "quantize_lab"
#include "lab_utils.cuh"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

typedef int mf_index_t;
#include "../../runtime/helpers.cuh"
#include "../../runtime/numerics.cuh"
#include "../../runtime/tensor.cuh"
#include "../../runtime/vector.cuh"
// The runtime as of the lab's baseline (with MF_LAB_OLD: tools/bench/lab_old/ holding copies
// of fp4.cuh, layout_op.cuh and block_quantize.cuh from before a change), in its own namespace,
// then the current one: `old` runs the first, every other form the second.
#ifdef MF_LAB_OLD
namespace labold {
// In dependency order.
// clang-format off
#include "lab_old/fp4.cuh"
#include "lab_old/layout_op.cuh"
#include "lab_old/block_quantize.cuh"
// clang-format on
}  // namespace labold
#undef MF_RUNTIME_FP4_CUH
#endif
namespace labnew {
// In dependency order.
// clang-format off
#include "../../runtime/fp4.cuh"
#include "../../runtime/layout_op.cuh"
#include "../../runtime/block_quantize.cuh"
// clang-format on
}  // namespace labnew
using namespace labnew;

namespace {

typedef mf_bfloat16 T;

// The generated kernel's body (tests/golden/auto_grouped_block_quantize.cu), contiguous
// tensors: one thread per block, the block's row and column by division.
template <bool OLD>
__global__ void __launch_bounds__(128)
    threadKernel(const T* in, int M, int K, const int* io, const int* oo, int G, float gs,
                 mf_fp4e2m1x2* q, mf_fp8e4m3* scales, int numel, int* err) {
  const int kb = K / 16;
  const int b = blockIdx.x * 128 + threadIdx.x;
  if (b >= M * kb) return;
  const int row = b / kb, col = b % kb;
#ifdef MF_LAB_OLD
  if (OLD) {
    labold::mf_groupedBlockQuantize<T, int>(
        scales, numel, reinterpret_cast<labold::mf_fp4e2m1x2*>(q) + (row * K + col * 16) / 2,
        in + row * K + col * 16, 1, gs, io, oo, row, col, M, kb, G, err);
    return;
  }
#endif
  mf_groupedBlockQuantize<T, int>(scales, numel, q + (row * K + col * 16) / 2,
                                  in + row * K + col * 16, 1, gs, io, oo, row, col, M, kb, G, err);
}

// Rows on blockIdx.x, THREADS columns of blocks per CTA on blockIdx.y: no division.
template <int THREADS>
__global__ void __launch_bounds__(THREADS)
    gridKernel(const T* in, int M, int K, const int* io, const int* oo, int G, float gs,
               mf_fp4e2m1x2* q, mf_fp8e4m3* scales, int numel, int* err) {
  const int kb = K / 16;
  const int row = blockIdx.x;
  const int col = blockIdx.y * THREADS + threadIdx.x;
  if (col >= kb) return;
  mf_groupedBlockQuantize<T, int>(scales, numel, q + (row * K + col * 16) / 2,
                                  in + row * K + col * 16, 1, gs, io, oo, row, col, M, kb, G, err);
}

// Up to four blocks of one row: columns col0 .. col0 + 3 of the [M, KB] scales (those below
// KB), the input and the codes of block j at in + 16 * j * in_stride and q + 8 * j. The four
// scales of columns 4i .. 4i + 3 are one 4-byte word of the swizzled layout: with col0 a
// multiple of 4 they take one group lookup and one store.
template <typename T, typename OffsetT>
__device__ inline void mf_groupedBlockQuantize4(mf_fp8e4m3* scales, mf_index_t scales_numel,
                                                mf_fp4e2m1x2* q, const T* in, mf_index_t in_stride,
                                                float global_scale, const OffsetT* in_off,
                                                const OffsetT* out_off, mf_index_t row,
                                                mf_index_t col0, mf_index_t M, mf_index_t KB,
                                                mf_index_t G, int* error_flag) {
  mf_fp8e4m3 s[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    if (col0 + j < KB)
      s[j] = mf_quantizeBlock16(in + 16 * j * in_stride, in_stride, global_scale, q + 8 * j);
  }
  mf_preprocessGroupedMatmulInputSf<mf_fp8e4m3, OffsetT>(scales, scales_numel, s, 4, row, col0,
                                                         in_off, out_off, M, KB, G, error_flag);
}

// Four blocks of one row per thread (mf_groupedBlockQuantize4): rows and quads by division.
__global__ void __launch_bounds__(128)
    quadKernel(const T* in, int M, int K, const int* io, const int* oo, int G, float gs,
               mf_fp4e2m1x2* q, mf_fp8e4m3* scales, int numel, int* err) {
  const int kb = K / 16;
  const int kq = (kb + 3) / 4;
  const int b = blockIdx.x * 128 + threadIdx.x;
  if (b >= M * kq) return;
  const int row = b / kq, col0 = b % kq * 4;
  mf_groupedBlockQuantize4<T, int>(scales, numel, q + (row * K + col0 * 16) / 2,
                                   in + row * K + col0 * 16, 1, gs, io, oo, row, col0, M, kb, G,
                                   err);
}

// The same, rows on blockIdx.x and THREADS quads of one row per CTA on blockIdx.y.
template <int THREADS>
__global__ void __launch_bounds__(THREADS)
    gridQuadKernel(const T* in, int M, int K, const int* io, const int* oo, int G, float gs,
                   mf_fp4e2m1x2* q, mf_fp8e4m3* scales, int numel, int* err) {
  const int kb = K / 16;
  const int row = blockIdx.x;
  const int col0 = (blockIdx.y * THREADS + threadIdx.x) * 4;
  if (col0 >= kb) return;
  mf_groupedBlockQuantize4<T, int>(scales, numel, q + (row * K + col0 * 16) / 2,
                                   in + row * K + col0 * 16, 1, gs, io, oo, row, col0, M, kb, G,
                                   err);
}

struct Case {
  int g, m, k;
};

unsigned short bf16Bits(float f) {
  unsigned u;
  std::memcpy(&u, &f, 4);
  return static_cast<unsigned short>((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

}  // namespace

int main() {
  const Case cases[] = {{8, 8192, 7168}, {32, 32768, 7168}, {128, 65536, 7168}};
  for (const Case& c : cases) {
    std::mt19937_64 rng(static_cast<uint64_t>(c.g) * 1000 + c.m);
    std::vector<long long> cuts = {0, c.m};
    for (int i = 1; i < c.g; ++i) cuts.push_back(static_cast<long long>(rng() % (c.m + 1)));
    std::sort(cuts.begin(), cuts.end());
    std::vector<int> io(c.g), oo(c.g);
    long long rows = 0;
    for (int e = 0; e < c.g; ++e) {
      io[e] = static_cast<int>(cuts[e]);
      oo[e] = static_cast<int>(rows);
      rows += (cuts[e + 1] - cuts[e] + 127) / 128 * 128;
    }
    const int kb = c.k / 16;
    const int kp = (kb + 3) / 4 * 4;
    const int numel = static_cast<int>((c.m + 127LL * c.g) * kp);
    const size_t n = static_cast<size_t>(c.m) * c.k;
    std::vector<unsigned short> in(n);
    std::normal_distribution<float> normal(0.0f, 3.0f);
    for (unsigned short& b : in) b = bf16Bits(normal(rng));
    T* d_in;
    mf_fp4e2m1x2* d_q;
    mf_fp8e4m3* d_s;
    int *d_io, *d_oo, *d_err;
    MF_CK(cudaMalloc(&d_in, 2 * n));
    MF_CK(cudaMalloc(&d_q, n / 2));
    MF_CK(cudaMalloc(&d_s, numel));
    MF_CK(cudaMalloc(&d_io, 4 * c.g));
    MF_CK(cudaMalloc(&d_oo, 4 * c.g));
    MF_CK(cudaMalloc(&d_err, 4));
    MF_CK(cudaMemcpy(d_in, in.data(), 2 * n, cudaMemcpyHostToDevice));
    MF_CK(cudaMemcpy(d_io, io.data(), 4 * c.g, cudaMemcpyHostToDevice));
    MF_CK(cudaMemcpy(d_oo, oo.data(), 4 * c.g, cudaMemcpyHostToDevice));
    MF_CK(cudaMemset(d_err, 0, 4));
    // The copy reads and writes the input's bytes: its rate is 2 * 2n bytes over its time.
    void* d_copy;
    MF_CK(cudaMalloc(&d_copy, 2 * n));
    const float copy =
        mfLabTimeUs([&] { MF_CK(cudaMemcpyAsync(d_copy, d_in, 2 * n, cudaMemcpyDeviceToDevice)); });
    MF_CK(cudaFree(d_copy));
    const double floor_us = copy * (2.0 * n + n / 2.0 + n / 16.0) / (4.0 * n);
    std::printf("case copy %d %d %d %.2f floor %.2f\n", c.g, c.m, c.k, copy, floor_us);
    std::vector<unsigned char> want_q, want_s;
    auto form = [&](const char* name, dim3 grid, int threads, auto kernel) {
      auto launch = [&] {
        kernel<<<grid, threads>>>(d_in, c.m, c.k, d_io, d_oo, c.g, 0.37f, d_q, d_s, numel, d_err);
      };
      MF_CK(cudaMemset(d_q, 0xFF, n / 2));
      MF_CK(cudaMemset(d_s, 0xFF, numel));
      launch();
      std::vector<unsigned char> got_q(n / 2), got_s(numel);
      MF_CK(cudaMemcpy(got_q.data(), d_q, n / 2, cudaMemcpyDeviceToHost));
      MF_CK(cudaMemcpy(got_s.data(), d_s, numel, cudaMemcpyDeviceToHost));
      int err = 0;
      MF_CK(cudaMemcpy(&err, d_err, 4, cudaMemcpyDeviceToHost));
      if (want_q.empty()) {
        want_q = got_q;
        want_s = got_s;
      }
      const bool ok = err == 0 && got_q == want_q && got_s == want_s;
      const float us = mfLabTimeUs(launch);
      std::printf("case %s %d %d %d %.2f x%.2f x%.2f %s\n", name, c.g, c.m, c.k, us, us / copy,
                  us / floor_us, ok ? "ok" : "WRONG");
      std::fflush(stdout);
    };
    const dim3 by_block((c.m * kb + 127) / 128);
#ifdef MF_LAB_OLD
    form("old", by_block, 128, threadKernel<true>);
#endif
    form("thread", by_block, 128, threadKernel<false>);
    form("grid64", dim3(c.m, (kb + 63) / 64), 64, gridKernel<64>);
    form("grid128", dim3(c.m, (kb + 127) / 128), 128, gridKernel<128>);
    form("grid224", dim3(c.m, (kb + 223) / 224), 224, gridKernel<224>);
    const int kq = (kb + 3) / 4;
    form("quad", dim3((c.m * kq + 127) / 128), 128, quadKernel);
    form("gridquad64", dim3(c.m, (kq + 63) / 64), 64, gridQuadKernel<64>);
    form("gridquad128", dim3(c.m, (kq + 127) / 128), 128, gridQuadKernel<128>);
    MF_CK(cudaFree(d_in));
    MF_CK(cudaFree(d_q));
    MF_CK(cudaFree(d_s));
    MF_CK(cudaFree(d_io));
    MF_CK(cudaFree(d_oo));
    MF_CK(cudaFree(d_err));
  }
  return 0;
}
