// Times minifuser's layout-op kernels (preprocessGroupedMatmulInputSf) on docs/layout_op.md's
// benchmark cases, fp8 (byte) scale factors: the automatic path (FusionExecutorCache on
// device tensors: the tile form), and two hand schedules, scatter (nvFuser's ManualKernel:
// loops over logical [M, K], one row per block, one element per thread) and gather (loops over
// the padded buffer, 16 bytes per thread, 256 threads per block), against a device-to-device
// copy of the input's bytes. Every time is the median of 30 samples of CUDA events around 20
// back-to-back launches, divided by 20 (so a small case does not show its launch). Prints
// one line per case and form:
//   case <copy|auto|scatter|gather256|tile256xN> G M K median_us
// tools/bench/run_benchmarks.sh feeds these lines to compare_layout_op.py, which times
// PyTorch eager and torch.compile of a scatter reference the same way and prints the ratios.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "bench_utils.h"
#include "cuda/device_memory.h"
#include "cuda/driver.h"
#include "cuda/module.h"
#include "ir/block_scaling_factor_layout.h"
#include "minifuser/minifuser.h"

namespace {

struct Case {
  int64_t g, m, k;
};

}  // namespace

int main() {
  if (!mf::cuda::cudaAvailable()) {
    fmt::print(stderr, "layout_op_bench: no GPU ({}); nothing to time\n",
               mf::cuda::noDeviceReason());
    return 0;
  }
  const Case cases[] = {{8, 8192, 448}, {32, 65536, 448}, {128, 262144, 448}, {8, 1 << 20, 512}};
  for (const Case& c : cases) {
    auto [io, oo] = mf::bench::groupOffsets(c.g, c.m, 7);
    std::vector<mf::Tensor> inputs = {
        mf::Tensor::random({c.m, c.k}, mf::DataType::Float8_e4m3fn, 1), io, oo};
    std::vector<mf::Tensor> on_device;
    for (const mf::Tensor& t : inputs) on_device.push_back(t.toDevice());

    // The copy: the input's bytes to a buffer of the same size, timed as the kernels are.
    mf::Tensor copy = mf::Tensor::emptyDevice({c.m, c.k}, mf::DataType::Float8_e4m3fn);
    std::vector<double> copy_us;
    for (int s = 0; s < 30; ++s)
      copy_us.push_back(1000.0 * mf::cuda::timeOnStreamMs([&] {
                          for (int i = 0; i < 20; ++i)
                            mf::cuda::copyOnDeviceAsync(copy.devicePtr(), on_device[0].devicePtr(),
                                                        on_device[0].nbytes());
                        }) /
                        20);
    if (std::getenv("MINIFUSER_LAYOUT_BENCH") == nullptr)
      fmt::print("case copy {} {} {} {:.2f}\n", c.g, c.m, c.k, mf::bench::median(copy_us));

    // Forms: the automatic path, then the hand schedules (gather with 256 threads per block;
    // 128 and 1024 measured no better: docs/layout_op.md).
    // Hand tiles of 256 threads x N bytes whose slab divides the row's column quads: how the
    // heuristics' choice of N compares.
    std::vector<std::string> forms = {"auto", "scatter", "gather256"};
    for (auto [threads, n] : {std::pair{256, 16}, {256, 32}, {128, 32}, {128, 64}})
      if (((c.k + 3) / 4) % (threads * n / 512) == 0)
        forms.push_back(fmt::format("tile{}x{}", threads, n));
    // MINIFUSER_LAYOUT_BENCH="G FORM" times that case and form only (for a profiler).
    const char* only = std::getenv("MINIFUSER_LAYOUT_BENCH");
    for (const std::string& name : forms) {
      if (only != nullptr && fmt::format("{} {}", c.g, name) != only) continue;
      mf::Fusion fusion;
      mf::FusionGuard fg(&fusion);
      mf::TensorView* in = mf::makeContigTensor(2, mf::DataType::Float8_e4m3fn);
      mf::TensorView* in_off = mf::makeContigTensor(1, mf::DataType::Int32);
      mf::TensorView* out_off = mf::makeContigTensor(1, mf::DataType::Int32);
      fusion.addInput(in);
      fusion.addInput(in_off);
      fusion.addInput(out_off);
      mf::TensorView* out = mf::preprocessGroupedMatmulInputSf(in, in_off, out_off);
      fusion.addOutput(out);
      std::unique_ptr<mf::FusionExecutorCache> fec;
      mf::KernelExecutor hand;
      mf::KernelExecutor* ke = &hand;
      mf::Tensor gpu;
      if (name == "auto") {
        fec = std::make_unique<mf::FusionExecutorCache>(std::make_unique<mf::Fusion>(fusion));
        gpu = fec->runFusionWithInputs(on_device)[0].toHost();
        ke = fec->getMostRecentKernelRuntime()->executor();
      } else {
        if (name == "gather256" || name.rfind("tile", 0) == 0) {
          const int64_t n = name == "gather256" ? 16 : std::stoll(name.substr(name.find('x') + 1));
          const int64_t threads = name == "gather256" ? 256 : std::stoll(name.substr(4));
          out->setLoopDomain(out->getMaybeAllocationDomain());
          out->merge(0)->split(0, n)->split(0, threads);
          out->axis(2)->parallelize(mf::ParallelType::Vectorize);
          if (name != "gather256")
            out->definition()->as<mf::PreprocessGroupedMatmulInputSf>()->setForm(
                mf::LayoutOpForm::Tile);
        }
        out->axis(0)->parallelize(mf::ParallelType::BIDx);
        out->axis(1)->parallelize(mf::ParallelType::TIDx);
        hand.compile(&fusion, inputs);
        gpu = hand.run(inputs, {.zero_fill_layout_pads = true})[0];
      }
      // Correctness before speed: every logical element at its swizzled position (the
      // layout's geometry, group by group), compared as bytes. The swizzled offset is a row
      // part plus a column part: the column part is computed once per column.
      {
        const auto* in_off_v = io.data<int32_t>();
        const auto* out_off_v = oo.data<int32_t>();
        const auto* want = static_cast<const uint8_t*>(inputs[0].dataPtr());
        const auto* got = static_cast<const uint8_t*>(gpu.dataPtr());
        const mf::BlockScalingFactorGeometry geometry =
            mf::blockScalingFactorGeometry(mf::BlockScalingFactorLayout::Block128x4);
        const int64_t kp = geometry.paddedCols(c.k);
        std::vector<int64_t> col_offset(static_cast<size_t>(c.k));
        for (int64_t col = 0; col < c.k; ++col)
          col_offset[static_cast<size_t>(col)] = geometry.swizzledOffset(0, col, kp);
        for (int64_t e = 0; e < c.g; ++e) {
          const int64_t end = e + 1 < c.g ? in_off_v[e + 1] : c.m;
          for (int64_t row = in_off_v[e]; row < end; ++row) {
            const int64_t base =
                out_off_v[e] * kp + geometry.swizzledOffset(row - in_off_v[e], 0, kp);
            for (int64_t col = 0; col < c.k; ++col) {
              const int64_t pos = base + col_offset[static_cast<size_t>(col)];
              if (got[pos] != want[row * c.k + col]) {
                fmt::print(stderr, "layout_op_bench: {} G={} M={} K={}: wrong result at {}\n", name,
                           c.g, c.m, c.k, pos);
                return 1;
              }
            }
          }
        }
      }
      std::vector<float> ms = ke->benchmarkBackToBack(on_device);
      std::vector<double> us(ms.begin(), ms.end());
      for (double& u : us) u *= 1000.0;
      fmt::print("case {} {} {} {} {:.2f}\n", name, c.g, c.m, c.k, mf::bench::median(us));
      std::fflush(stdout);
    }
  }
  return 0;
}
