// tools/bench/quantize_lab.cu: a standalone harness for groupedBlockQuantize's kernel, built by
// nvcc in seconds (tools/bench/quantize_lab.sh) instead of the project's build, so that one
// device call times several thread mappings of runtime/block_quantize.cuh against each other
// and a device copy, on quantize_bench's cases (bf16 [M, 7168], random group sizes, global
// scale 0.37). Forms:
//   old        with -DMF_LAB_OLD (tools/bench/lab_old/: copies of runtime/fp4.cuh,
//              layout_op.cuh and block_quantize.cuh from before a change): the generated kernel's
//              shape at that runtime's time (one thread per block), the baseline a change is
//              timed and checked against
//   thread     one thread per 16-value block (mf_groupedBlockQuantize<1>), 128 threads, row
//              and column by division
//   gridT      rows on blockIdx.x, T threads of blocks of one row per CTA on blockIdx.y
//   quad       four blocks of one row per thread (mf_groupedBlockQuantize<4, 128>), 128
//              threads, the warps' quads through shared memory: the generated kernel's shape
//              (tests/golden/auto_grouped_block_quantize.cu)
//   quadlocal  the same, each thread loading its own 128 bytes (THREADS = 0)
//   gridquadT  quads, rows on blockIdx.x, T threads of quads per CTA on blockIdx.y
// First, leanBlockCheck compares the common case's block constants (mf_nvfp4LeanBlock) with
// the rule's divisions for every bf16 amax and 4,096 global scales. MF_LAB_PROFILE=1 runs
// the first case's forms once each, untimed (for ncu).
// Every form's codes and scales are checked byte for byte against the first form's (poisoned
// buffers) before timing. Every time is the median of 30 samples of CUDA events around 20
// back-to-back launches, divided by 20. Prints `case FORM G M K us xCOPY xFLOOR ok|WRONG`,
// where the floor is the bytes moved (input read, codes and scales written) at the copy's rate.
#define MF_LAB_NAME "quantize_lab"
#include "lab_utils.cuh"

#include <algorithm>
#include <cmath>
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
  mf_groupedBlockQuantize<1, 128, T, int>(scales, numel, q + (row * K + col * 16) / 2,
                                          in + row * K + col * 16, 1, gs, io, oo, row, col, M, kb,
                                          G, err);
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
  mf_groupedBlockQuantize<1, THREADS, T, int>(scales, numel, q + (row * K + col * 16) / 2,
                                              in + row * K + col * 16, 1, gs, io, oo, row, col, M,
                                              kb, G, err);
}

// Four blocks of one row per thread (mf_groupedBlockQuantize<4>): rows and quads by division;
// SHARED = 128 lets the warps move their quads through shared memory (the generated kernel),
// 0 keeps each thread to its own 128 bytes.
template <int SHARED>
__global__ void __launch_bounds__(128)
    quadKernel(const T* in, int M, int K, const int* io, const int* oo, int G, float gs,
               mf_fp4e2m1x2* q, mf_fp8e4m3* scales, int numel, int* err) {
  const int kb = K / 16;
  const int kq = (kb + 3) / 4;
  const int b = blockIdx.x * 128 + threadIdx.x;
  if (b >= M * kq) return;
  const int row = b / kq, col0 = b % kq * 4;
  mf_groupedBlockQuantize<4, SHARED, T, int>(scales, numel, q + (row * K + col0 * 16) / 2,
                                             in + row * K + col0 * 16, 1, gs, io, oo, row, col0, M,
                                             kb, G, err);
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
  mf_groupedBlockQuantize<4, THREADS, T, int>(scales, numel, q + (row * K + col0 * 16) / 2,
                                              in + row * K + col0 * 16, 1, gs, io, oo, row, col0, M,
                                              kb, G, err);
}

// The common case's block constants against the rule's divisions: for every bf16 magnitude as
// amax and the global scale gs[blockIdx.y], mf_nvfp4LeanBlock's scale, divisor and reciprocal
// equal mf_nvfp4BlockScale's e4m3 rounding, s / gs and 1 / d (IEEE) wherever it takes the block.
__global__ void leanBlockCheck(const float* gs, unsigned long long* mismatches,
                               unsigned long long* taken) {
  const unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= 0x8000u) return;
  const float amax = __uint_as_float(b << 16);
  const mf_Nvfp4Call c = mf_nvfp4Call(gs[blockIdx.y]);
  mf_fp8e4m3 s;
  float d, y;
  if (!mf_nvfp4LeanBlock(amax, c, &s, &d, &y)) return;
  atomicAdd(taken, 1ull);
  const mf_fp8e4m3 s_ref = mf_toFp8e4m3(mf_nvfp4BlockScale(amax, c.global_scale));
  const float d_ref = mf_toFloat(s_ref) / c.global_scale;
  const float y_ref = 1.0f / d_ref;
  if (s.bits != s_ref.bits || __float_as_uint(d) != __float_as_uint(d_ref) ||
      __float_as_uint(y) != __float_as_uint(y_ref))
    atomicAdd(mismatches, 1ull);
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
  {
    // Global scales: powers of two, 1 and 0.37, and random ones spread over [2^-70, 2^70].
    std::vector<float> gs = {1.0f, 0.37f, 0.5f, 2.0f, 0x1p-64f, 0x1p64f, 0x1.fffffep-65f, 3.0f};
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> expo(-70.0f, 70.0f);
    while (gs.size() < 4096) gs.push_back(std::exp2(expo(rng)));
    float* d_gs;
    unsigned long long* d_count;
    MF_CK(cudaMalloc(&d_gs, 4 * gs.size()));
    MF_CK(cudaMalloc(&d_count, 16));
    MF_CK(cudaMemcpy(d_gs, gs.data(), 4 * gs.size(), cudaMemcpyHostToDevice));
    MF_CK(cudaMemset(d_count, 0, 16));
    leanBlockCheck<<<dim3(0x8000 / 256, gs.size()), 256>>>(d_gs, d_count, d_count + 1);
    unsigned long long count[2];
    MF_CK(cudaMemcpy(count, d_count, 16, cudaMemcpyDeviceToHost));
    std::printf("lean block check: %llu blocks taken, %llu mismatches %s\n", count[1], count[0],
                count[0] == 0 ? "ok" : "WRONG");
    MF_CK(cudaFree(d_gs));
    MF_CK(cudaFree(d_count));
  }
  // MF_LAB_PROFILE=1 (for ncu): the first case only, each form launched once, untimed.
  const bool profile = std::getenv("MF_LAB_PROFILE") != nullptr;
  const Case cases[] = {{8, 8192, 7168}, {32, 32768, 7168}, {128, 65536, 7168}};
  for (const Case& c : cases) {
    if (profile && &c != cases) break;
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
    const float copy = profile ? 1.0f : mfLabTimeUs([&] {
      MF_CK(cudaMemcpyAsync(d_copy, d_in, 2 * n, cudaMemcpyDeviceToDevice));
    });
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
      const float us = profile ? 0.0f : mfLabTimeUs(launch);
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
    form("quad", dim3((c.m * kq + 127) / 128), 128, quadKernel<128>);
    form("quadlocal", dim3((c.m * kq + 127) / 128), 128, quadKernel<0>);
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
