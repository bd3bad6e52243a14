// Layer norm backward lab (bf16 [32Ki, 4096]; run.sh builds and runs it): the kernels the
// inner-outer scheduler generated (k_*.cuh, which run.sh writes: k_gen as the heuristics
// make it, k_projgen with project_to_inputs, k_smem<n> also with sums_in_shared, at n = 2, 3
// and 4 blocks per SM) against hand-written variants of the main loop, to learn what the
// scheduler should emit. The hand-written variants: PREFETCH (the next row's loads issued before
// this row's reduction), SMEM (running column sums in shared memory, one slot per thread and
// value), WREG (w as float in registers, else re-read each row), MINB (launch bounds' blocks per
// SM); all keep dy and x as bf16 and recompute the floats after the row's reduction. Prints, per
// kernel and grid, registers, blocks per SM, median us (lab_utils.cuh's rule) and x copy, and the
// error against the generated kernel. The generated kernels take the fusion inputs in order (dy, x,
// mean, rstd, w), then the outputs (dx, dw, db), the grid work buffer and semaphores. Not yet
// run on a GPU (2026-12-06: no device time left).
#define MF_LAB_NAME "norm_bwd_lab"
#include "../lab_utils.cuh"
typedef int mf_index_t;
#define MF_BLOCK_REDUCE_Y_BYTES 8192  // the generated smem-sum kernels need the room
#include "../../../runtime/block_reduction.cuh"
#include "../../../runtime/fp4.cuh"
#include "../../../runtime/helpers.cuh"
#include "../../../runtime/numerics.cuh"
#include "../../../runtime/tensor.cuh"
#include "../../../runtime/vector.cuh"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

// Written by run.sh into the lab's output folder (on nvcc's include path).
#include "k_gen.cuh"
#include "k_projgen.cuh"
#include "k_smem2.cuh"
#include "k_smem3.cuh"
#include "k_smem4.cuh"

constexpr int kN = 4096, kT = 256, kE = 16;  // row, threads, elements per thread (2 x 8)

template <int MINB, bool PREFETCH, bool SMEM, bool WREG>
__global__ void __launch_bounds__(kT, MINB)
    k_var(Tensor<mf_bfloat16, 1, 1> W, Tensor<mf_bfloat16, 2, 2> DYt, Tensor<mf_bfloat16, 2, 2> Xt,
          Tensor<float, 1, 1> MEAN, Tensor<float, 1, 1> RSTD, Tensor<mf_bfloat16, 2, 2> DX,
          Tensor<float, 1, 1> DW, Tensor<float, 1, 1> DB, void* work, unsigned* sems) {
  const int tid = threadIdx.x;
  const mf_index_t M = DYt.size[0];
  const mf_index_t per = (M + gridDim.y - 1) / gridDim.y;
  const mf_index_t first = blockIdx.y * per;
  const mf_index_t last = min(M, first + per);
  extern __shared__ float ssum[];  // 2 * kE * kT floats when SMEM
  float rdw[SMEM ? 1 : kE], rdb[SMEM ? 1 : kE];
  float wreg[WREG ? kE : 1];
#pragma unroll
  for (int i = 0; i < kE; ++i) {
    if constexpr (SMEM) {
      ssum[i * kT + tid] = 0.f;
      ssum[(kE + i) * kT + tid] = 0.f;
    } else {
      rdw[i] = 0.f;
      rdb[i] = 0.f;
    }
    if constexpr (WREG) wreg[i] = mf_toFloatForArithmetic(W[((i / 8) * kT + tid) * 8 + i % 8]);
  }
  auto wAt = [&](int i) {
    if constexpr (WREG)
      return wreg[i];
    else
      return mf_toFloatForArithmetic(W[((i / 8) * kT + tid) * 8 + i % 8]);
  };
  alignas(16) mf_bfloat16 dy[kE], x[kE], ndy[PREFETCH ? kE : 1], nx[PREFETCH ? kE : 1];
  float mean = 0.f, rstd = 0.f, nmean = 0.f, nrstd = 0.f;
  auto load = [&](mf_index_t row, mf_bfloat16* d, mf_bfloat16* xx, float& mu, float& rs) {
    if (row < last) {
#pragma unroll
      for (int v = 0; v < 2; ++v) {
        mf_vectorCopy<mf_bfloat16, 8>(&d[v * 8], &DYt[row * DYt.stride[0] + (v * kT + tid) * 8]);
        mf_vectorCopy<mf_bfloat16, 8>(&xx[v * 8], &Xt[row * Xt.stride[0] + (v * kT + tid) * 8]);
      }
      mu = MEAN[row];
      rs = RSTD[row];
    }
  };
  if constexpr (PREFETCH) load(first, dy, x, mean, rstd);
  for (mf_index_t row = first; row < last; ++row) {
    if constexpr (PREFETCH) {
      load(row + 1, ndy, nx, nmean, nrstd);
    } else {
      load(row, dy, x, mean, rstd);
    }
    float s0[1] = {0.f}, s1[1] = {0.f};
#pragma unroll
    for (int i = 0; i < kE; ++i) {
      const float g = wAt(i) * mf_cast<float>(dy[i]);
      const float xh = (mf_cast<float>(x[i]) - mean) * rstd;
      s0[0] += g;
      s1[0] += g * xh;
    }
    mf_blockAllReduceTupleX(mf_reduceMember(
                                s0, [](float a, float b) { return a + b; }, 0.0f),
                            mf_reduceMember(
                                s1, [](float a, float b) { return a + b; }, 0.0f));
    const float mg = s0[0] / float(kN), mgx = s1[0] / float(kN);
#pragma unroll
    for (int v = 0; v < 2; ++v) {
      alignas(16) mf_bfloat16 o[8];
#pragma unroll
      for (int e = 0; e < 8; ++e) {
        const int i = v * 8 + e;
        const float d = mf_cast<float>(dy[i]);
        const float xh = (mf_cast<float>(x[i]) - mean) * rstd;
        o[e] = mf_cast<mf_bfloat16>((wAt(i) * d - mg - xh * mgx) * rstd);
        if constexpr (SMEM) {
          ssum[i * kT + tid] += d * xh;
          ssum[(kE + i) * kT + tid] += d;
        } else {
          rdw[i] += d * xh;
          rdb[i] += d;
        }
      }
      mf_vectorCopy<mf_bfloat16, 8>(&DX[row * DX.stride[0] + (v * kT + tid) * 8], &o[0]);
    }
    if constexpr (PREFETCH) {
#pragma unroll
      for (int i = 0; i < kE; ++i) {
        dy[i] = ndy[i];
        x[i] = nx[i];
      }
      mean = nmean;
      rstd = nrstd;
    }
  }
  for (int k = 0; k < 2; ++k) {
    float bv[kE];
#pragma unroll
    for (int i = 0; i < kE; ++i)
      bv[i] = SMEM ? ssum[(k * kE + i) * kT + tid] : (k == 0 ? rdw[i] : rdb[i]);
    const bool grid_last = mf_gridReduceInPlaceY<float, kE>(
        bv, [](float a, float b) { return a + b; }, 0.0f, static_cast<float*>(work), sems, k * kE,
        k);
    if (grid_last)
#pragma unroll
      for (int i = 0; i < kE; ++i) (k == 0 ? DW : DB)[((i / 8) * kT + tid) * 8 + i % 8] = bv[i];
  }
}

uint16_t toBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return uint16_t((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}
float fromBf16(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

template <typename T, int N>
Tensor<T, N, N> view(void* p, std::initializer_list<mf_index_t> sizes) {
  Tensor<T, N, N> t;
  t.data = static_cast<T*>(p);
  int d = 0;
  for (mf_index_t s : sizes) t.size[d++] = s;
  mf_index_t stride = 1;
  for (int k = N - 1; k >= 0; --k) {
    t.stride[k] = stride;
    stride *= t.size[k];
  }
  return t;
}

int main() {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  const int M = 32 * 1024;
  uint64_t state = 88172645463325252ull;  // xorshift64: 268M values in well under a second
  auto u = [&](auto&) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return float(state >> 40) / float(1 << 24) * 2.f - 1.f;
  };
  int rng = 0;
  auto pos = [&](auto& r) { return 1.f + 0.5f * u(r); };
  std::vector<uint16_t> h_dy(size_t(M) * kN), h_x(size_t(M) * kN), h_w(kN);
  std::vector<float> h_mean(M), h_rstd(M);
  for (auto& v : h_dy) v = toBf16(u(rng));
  for (auto& v : h_x) v = toBf16(u(rng));
  for (auto& v : h_w) v = toBf16(u(rng));
  for (auto& v : h_mean) v = 0.1f * u(rng);
  for (auto& v : h_rstd) v = pos(rng);
  const size_t big = size_t(M) * kN * 2;
  void *dy, *x, *w, *mean, *rstd, *dx, *dw, *db, *work, *sems, *copy_dst;
  MF_CK(cudaMalloc(&dy, big));
  MF_CK(cudaMalloc(&x, big));
  MF_CK(cudaMalloc(&dx, big));
  MF_CK(cudaMalloc(&copy_dst, 2 * big));
  MF_CK(cudaMalloc(&w, kN * 2));
  MF_CK(cudaMalloc(&mean, M * 4));
  MF_CK(cudaMalloc(&rstd, M * 4));
  MF_CK(cudaMalloc(&dw, kN * 4));
  MF_CK(cudaMalloc(&db, kN * 4));
  const size_t work_bytes = size_t(2) * 2 * 1200 * kE * kT * 4;
  MF_CK(cudaMalloc(&work, work_bytes));
  MF_CK(cudaMalloc(&sems, 1 << 20));
  MF_CK(cudaMemset(sems, 0, 1 << 20));
  MF_CK(cudaMemcpy(dy, h_dy.data(), big, cudaMemcpyHostToDevice));
  MF_CK(cudaMemcpy(x, h_x.data(), big, cudaMemcpyHostToDevice));
  MF_CK(cudaMemcpy(w, h_w.data(), kN * 2, cudaMemcpyHostToDevice));
  MF_CK(cudaMemcpy(mean, h_mean.data(), M * 4, cudaMemcpyHostToDevice));
  MF_CK(cudaMemcpy(rstd, h_rstd.data(), M * 4, cudaMemcpyHostToDevice));
  auto W = view<mf_bfloat16, 1>(w, {kN});
  auto DY = view<mf_bfloat16, 2>(dy, {M, kN});
  auto X = view<mf_bfloat16, 2>(x, {M, kN});
  auto MEAN = view<float, 1>(mean, {M});
  auto RSTD = view<float, 1>(rstd, {M});
  auto DX = view<mf_bfloat16, 2>(dx, {M, kN});
  auto DW = view<float, 1>(dw, {kN});
  auto DB = view<float, 1>(db, {kN});
  const double bytes = 3.0 * big + kN * 10.0 + M * 8.0;
  const float copy_us = mfLabTimeUs(
      [&] { MF_CK(cudaMemcpyAsync(copy_dst, dy, 3 * big / 2, cudaMemcpyDeviceToDevice)); });
  std::printf("copy %.1f us (%.0f GB/s counting read + write)\n", copy_us,
              3.0 * big / copy_us / 1e3);

  auto fetch = [&](std::vector<uint16_t>& hdx, std::vector<float>& hdw, std::vector<float>& hdb) {
    MF_CK(cudaDeviceSynchronize());
    hdx.resize(size_t(M) * kN);
    hdw.resize(kN);
    hdb.resize(kN);
    MF_CK(cudaMemcpy(hdx.data(), dx, big, cudaMemcpyDeviceToHost));
    MF_CK(cudaMemcpy(hdw.data(), dw, kN * 4, cudaMemcpyDeviceToHost));
    MF_CK(cudaMemcpy(hdb.data(), db, kN * 4, cudaMemcpyDeviceToHost));
  };
  std::vector<uint16_t> ref_dx;
  std::vector<float> ref_dw, ref_db;
  k_gen<<<dim3(1, 264), kT>>>(DY, X, MEAN, RSTD, W, DX, DW, DB, work, (unsigned*)sems);
  fetch(ref_dx, ref_dw, ref_db);
  {  // the generated kernel against the formula on the host (dw, db of every column; dx of
     // 64 rows and the last)
    std::vector<double> hw(kN), sdw(kN, 0), sdb(kN, 0);
    for (int c = 0; c < kN; ++c) hw[c] = fromBf16(h_w[c]);
    for (int r = 0; r < M; ++r)
      for (int c = 0; c < kN; ++c) {
        const size_t i = size_t(r) * kN + c;
        const double d = fromBf16(h_dy[i]), xh = (fromBf16(h_x[i]) - h_mean[r]) * h_rstd[r];
        sdw[c] += d * xh;
        sdb[c] += d;
      }
    double werr = 0, xerr = 0;
    for (int c = 0; c < kN; ++c)
      werr = std::max({werr, std::fabs(sdw[c] - ref_dw[c]) / (1 + std::fabs(sdw[c])),
                       std::fabs(sdb[c] - ref_db[c]) / (1 + std::fabs(sdb[c]))});
    for (int r : {0, 1, 2, 3, 63, M - 1}) {
      double mg = 0, mgx = 0;
      for (int c = 0; c < kN; ++c) {
        const size_t i = size_t(r) * kN + c;
        const double g = hw[c] * fromBf16(h_dy[i]), xh = (fromBf16(h_x[i]) - h_mean[r]) * h_rstd[r];
        mg += g / kN;
        mgx += g * xh / kN;
      }
      for (int c = 0; c < kN; ++c) {
        const size_t i = size_t(r) * kN + c;
        const double g = hw[c] * fromBf16(h_dy[i]), xh = (fromBf16(h_x[i]) - h_mean[r]) * h_rstd[r];
        const double want = (g - mg - xh * mgx) * h_rstd[r];
        xerr = std::max(xerr, std::fabs(want - fromBf16(ref_dx[i])) / (1 + std::fabs(want)));
      }
    }
    std::printf("generated kernel vs host formula: sums rel err %.1e, dx rel err %.1e%s\n", werr,
                xerr, werr > 1e-3 || xerr > 1e-2 ? "  WRONG" : "");
  }
  const float gen_us = mfLabTimeUs([&] {
    k_gen<<<dim3(1, 264), kT>>>(DY, X, MEAN, RSTD, W, DX, DW, DB, work, (unsigned*)sems);
  });
  cudaFuncAttributes attr;
  MF_CK(cudaFuncGetAttributes(&attr, k_gen));
  std::printf("%-34s grid %4d regs %3d  %7.1f us  %.2fx copy\n", "generated", 264, attr.numRegs,
              gen_us, copy_us / gen_us);

  // One kernel at one grid: its outputs (dx poisoned first) against the generated kernel's,
  // then its time.
  auto measure = [&](const char* name, int grid, const std::function<void()>& launch, int regs,
                     int per_sm) {
    MF_CK(cudaMemset(dx, 0xff, big));
    launch();
    std::vector<uint16_t> hdx;
    std::vector<float> hdw, hdb;
    fetch(hdx, hdw, hdb);
    double err = 0, cerr = 0;
    for (size_t i = 0; i < hdx.size(); i += 7)
      err = std::max(err, (double)std::fabs(fromBf16(hdx[i]) - fromBf16(ref_dx[i])) /
                              (1 + std::fabs(fromBf16(ref_dx[i]))));
    for (int i = 0; i < kN; ++i)
      cerr = std::max({cerr, std::fabs(hdw[i] - ref_dw[i]) / (1.0 + std::fabs(ref_dw[i])),
                       std::fabs(hdb[i] - ref_db[i]) / (1.0 + std::fabs(ref_db[i]))});
    const float us = mfLabTimeUs(launch);
    std::printf("%-34s grid %4d regs %3d (%d/SM) %7.1f us  %.2fx copy  err dx %.1e sums %.1e%s\n",
                name, grid, regs, per_sm, us, copy_us / us, err, cerr,
                err > 2e-2 || cerr > 1e-3 ? "  WRONG" : "");
  };
  // A generated kernel (fusion inputs, outputs, work buffer, semaphores) at its grid.
  auto runGenerated = [&](const char* name, auto kernel, int grid) {
    MF_CK(cudaFuncGetAttributes(&attr, kernel));
    int per_sm = 0;
    MF_CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kT, 0));
    measure(
        name, grid,
        [&] {
          kernel<<<dim3(1, grid), kT>>>(DY, X, MEAN, RSTD, W, DX, DW, DB, work, (unsigned*)sems);
        },
        attr.numRegs, per_sm);
  };
  runGenerated("generated, smem sums, 3/SM", k_smem3, 396);
  runGenerated("generated, projected", k_projgen, 264);
  runGenerated("generated, smem sums, 4/SM", k_smem4, 528);
  runGenerated("generated, smem sums, 2/SM", k_smem2, 264);
  // A hand-written variant at every grid whose blocks fit one wave.
  auto run = [&](const char* name, auto kernel) {
    const int smem = sizeof(float) * 2 * kE * kT;
    MF_CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    MF_CK(cudaFuncGetAttributes(&attr, kernel));
    int per_sm = 0;
    MF_CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kT, smem));
    for (int grid : {132, 264, 396, 528, 660}) {
      if (grid > 132 * per_sm)
        continue;  // the in-place grid reduction needs no co-residency,
                   // but more blocks than fit only add waves
      measure(
          name, grid,
          [&] {
            kernel<<<dim3(1, grid), kT, smem>>>(W, DY, X, MEAN, RSTD, DX, DW, DB, work,
                                                (unsigned*)sems);
          },
          attr.numRegs, per_sm);
    }
  };
  // <MINB, PREFETCH, SMEM, WREG>
  run("proj", k_var<2, false, false, true>);
  run("proj w-reload", k_var<2, false, false, false>);
  run("proj prefetch", k_var<2, true, false, true>);
  run("proj prefetch w-reload", k_var<2, true, false, false>);
  run("proj smem minb3", k_var<3, false, true, true>);
  run("proj smem w-reload minb3", k_var<3, false, true, false>);
  run("proj smem prefetch minb3", k_var<3, true, true, false>);
  run("proj smem prefetch minb2", k_var<2, true, true, false>);
  run("proj smem w-reload minb4", k_var<4, false, true, false>);
  run("proj smem prefetch minb4", k_var<4, true, true, false>);
  std::printf("bytes %.0f MB\n", bytes / 1e6);
  return 0;
}
