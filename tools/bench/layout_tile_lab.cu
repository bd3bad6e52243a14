// tools/bench/layout_tile_lab.cu: a standalone harness for the layout op's tile form, built by
// nvcc in seconds (tools/bench/layout_tile_lab.sh) instead of the project's build, so that a
// device session can time variants of runtime/layout_op.cuh in one call. It times, on the
// four cases of layout_op_bench (fp8, random group sizes), a device-to-device copy of the
// input and mf_layoutOpTile at several block shapes, each kernel declared as the generated
// one is (`__launch_bounds__(T, 1536 / T)`, runtime strides), and checks every output byte
// against the layout formula (pads inside the used rows 0) before timing. Built with
// -DMF_LAB_LAYOUT_OP='"path.cuh"' (a copy of runtime/layout_op.cuh, edited) it times that
// file's mf_layoutOpTile instead, its forms named `edited` (the script builds and runs both,
// so the two are timed in one call, on one device). Every time is the
// median of 30 samples of CUDA events around 20 back-to-back launches, divided by 20
// (layout_op_bench's rule). Prints `case FORM G M K us xCOPY ok|WRONG`.
#define MF_LAB_NAME "layout_tile_lab"
#include "lab_utils.cuh"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

typedef int mf_index_t;
#include "../../csrc/ir/block_scaling_factor_layout.h"
#include "../../runtime/helpers.cuh"
#include "../../runtime/numerics.cuh"
#include "../../runtime/tensor.cuh"
#include "../../runtime/vector.cuh"
#ifdef MF_LAB_LAYOUT_OP
#include MF_LAB_LAYOUT_OP
#define MF_LAB_FORM "edited"
#else
#include "../../runtime/layout_op.cuh"
#define MF_LAB_FORM "tile"
#endif

namespace {

typedef mf_fp8e4m3 T;

// Declared as codegen declares a kernel with a tile-form layout op.
template <int N, int THREADS>
__global__ void __launch_bounds__(THREADS, 1536 / THREADS)
    tileKernel(T* out, int numel, const T* in, int s0, int s1, const int* io, const int* oo, int m,
               int k, int g, int* err) {
  mf_layoutOpTile<T, int, N, THREADS>(
      out, numel, (static_cast<int>(blockIdx.x) * THREADS + static_cast<int>(threadIdx.x)) * N, in,
      s0, s1, io, oo, m, k, g, err);
}

struct Case {
  int g, m, k;
};

}  // namespace

int main(int argc, char** argv) {
  // A run-time stride of 1, as the generated code has it (argv cannot be parsed to it).
  const int s1 = argc > 1 ? std::atoi(argv[1]) : 1;
  const Case cases[] = {{8, 8192, 448}, {32, 65536, 448}, {128, 262144, 448}, {8, 1 << 20, 512}};
  for (const Case& c : cases) {
    std::mt19937_64 rng(static_cast<uint64_t>(c.g) * 1000 + c.m);
    std::vector<long long> cuts = {0, c.m};
    for (int i = 1; i < c.g; ++i) cuts.push_back(static_cast<long long>(rng() % (c.m + 1)));
    std::sort(cuts.begin(), cuts.end());
    // The layout's geometry (csrc/ir/block_scaling_factor_layout.h; this program links no
    // library, so Block128x4's tile is named here).
    const mf::BlockScalingFactorGeometry geometry{128, 4};
    std::vector<int> io(c.g), oo(c.g);
    long long rows = 0;
    for (int e = 0; e < c.g; ++e) {
      io[e] = static_cast<int>(cuts[e]);
      oo[e] = static_cast<int>(rows);
      rows += geometry.groupRows(cuts[e + 1] - cuts[e]);
    }
    const int kp = static_cast<int>(geometry.paddedCols(c.k));
    const int numel = static_cast<int>(geometry.paddedRows(c.m, c.g) * kp);
    std::vector<unsigned char> in(static_cast<size_t>(c.m) * c.k), want(numel, 0xFF);
    for (unsigned char& b : in) b = static_cast<unsigned char>(rng());
    for (int e = 0; e < c.g; ++e) {
      const long long m = cuts[e + 1] - cuts[e];
      for (long long r = 0; r < geometry.groupRows(m); ++r)
        for (int col = 0; col < kp; ++col)
          want[oo[e] * kp + geometry.swizzledOffset(r, col, kp)] =
              r < m && col < c.k ? in[(io[e] + r) * c.k + col] : 0;
    }
    T *d_in, *d_out;
    int *d_io, *d_oo, *d_err;
    MF_CK(cudaMalloc(&d_in, in.size()));
    MF_CK(cudaMalloc(&d_out, numel));
    MF_CK(cudaMalloc(&d_io, 4 * c.g));
    MF_CK(cudaMalloc(&d_oo, 4 * c.g));
    MF_CK(cudaMalloc(&d_err, 4));
    MF_CK(cudaMemcpy(d_in, in.data(), in.size(), cudaMemcpyHostToDevice));
    MF_CK(cudaMemcpy(d_io, io.data(), 4 * c.g, cudaMemcpyHostToDevice));
    MF_CK(cudaMemcpy(d_oo, oo.data(), 4 * c.g, cudaMemcpyHostToDevice));
    MF_CK(cudaMemset(d_err, 0, 4));
    const float copy = mfLabTimeUs(
        [&] { MF_CK(cudaMemcpyAsync(d_out, d_in, in.size(), cudaMemcpyDeviceToDevice)); });
    std::printf("case copy %d %d %d %.2f\n", c.g, c.m, c.k, copy);
    auto form = [&](int threads, int n, auto kernel) {
      if ((kp / 4) % (threads * n / 512) != 0) return;  // the slab would straddle two tiles
      const int blocks = (numel + threads * n - 1) / (threads * n);
      auto launch = [&] {
        kernel<<<blocks, threads>>>(d_out, numel, d_in, c.k, s1, d_io, d_oo, c.m, c.k, c.g, d_err);
      };
      MF_CK(cudaMemset(d_out, 0xFF, numel));
      launch();
      std::vector<unsigned char> got(numel);
      MF_CK(cudaMemcpy(got.data(), d_out, numel, cudaMemcpyDeviceToHost));
      int err = 0;
      MF_CK(cudaMemcpy(&err, d_err, 4, cudaMemcpyDeviceToHost));
      const bool ok = err == 0 && got == want;
      const float us = mfLabTimeUs(launch);
      std::printf("case %s%dx%d %d %d %d %.2f x%.2f %s\n", MF_LAB_FORM, threads, n, c.g, c.m, c.k,
                  us, us / copy, ok ? "ok" : "WRONG");
      std::fflush(stdout);
    };
    form(128, 32, tileKernel<32, 128>);
    form(128, 16, tileKernel<16, 128>);
    form(256, 32, tileKernel<32, 256>);
    form(128, 64, tileKernel<64, 128>);
    MF_CK(cudaFree(d_in));
    MF_CK(cudaFree(d_out));
    MF_CK(cudaFree(d_io));
    MF_CK(cudaFree(d_oo));
    MF_CK(cudaFree(d_err));
  }
  return 0;
}
