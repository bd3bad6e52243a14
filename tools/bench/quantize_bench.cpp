// Times groupedBlockQuantize (NVFP4's input path: bf16 [M, K] -> packed e2m1 codes and e4m3
// scales in the layout op's swizzled layout, with a global scale) through FusionExecutorCache
// on device tensors, against a device-to-device copy of the input's bytes, on the NVFP4
// issue's cases (K = 7168; G = 8 M = 8192, G = 32 M = 32768, G = 128 M = 65536). Each time is
// the median of 30 samples of CUDA events around 20 back-to-back launches, divided by 20.
// The outputs are checked against the CPU reference (bit for bit) before timing. Prints:
//   quantize <copy|auto> G M K median_us
// tools/bench/compare_quantize.py times PyTorch eager and torch.compile of the same
// computation the same way and prints the ratios to the bytes-moved floor (the input read
// once, the codes and scales written once, at the copy's rate).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "bench_utils.h"
#include "cuda/device_memory.h"
#include "cuda/driver.h"
#include "minifuser/minifuser.h"

int main() {
  if (!mf::cuda::cudaAvailable()) {
    fmt::print(stderr, "quantize_bench: no GPU ({}); nothing to time\n",
               mf::cuda::noDeviceReason());
    return 0;
  }
  struct Case {
    int64_t g, m, k;
  };
  for (const Case c : {Case{8, 8192, 7168}, Case{32, 32768, 7168}, Case{128, 65536, 7168}}) {
    auto [in_off, out_off] = mf::bench::groupOffsets(c.g, c.m, 7);
    std::vector<mf::Tensor> host = {mf::Tensor::random({c.m, c.k}, mf::DataType::BFloat16, 1),
                                    in_off, out_off,
                                    mf::Tensor::fromVector(std::vector<float>{0.37f}, {})};
    std::vector<mf::Tensor> dev;
    for (const mf::Tensor& t : host) dev.push_back(t.toDevice());

    mf::Tensor copy = mf::Tensor::emptyDevice({c.m, c.k}, mf::DataType::BFloat16);
    std::vector<double> copy_us;
    for (int s = 0; s < 30; ++s)
      copy_us.push_back(1000.0 * mf::cuda::timeOnStreamMs([&] {
                          for (int i = 0; i < 20; ++i)
                            mf::cuda::copyOnDeviceAsync(copy.devicePtr(), dev[0].devicePtr(),
                                                        dev[0].nbytes());
                        }) /
                        20);
    fmt::print("quantize copy {} {} {} {:.2f}\n", c.g, c.m, c.k, mf::bench::median(copy_us));

    auto fusion = std::make_unique<mf::Fusion>();
    {
      mf::FusionGuard fg(fusion.get());
      mf::TensorView* x = mf::makeContigTensor(2, mf::DataType::BFloat16);
      mf::TensorView* io = mf::makeContigTensor(1, mf::DataType::Int32);
      mf::TensorView* oo = mf::makeContigTensor(1, mf::DataType::Int32);
      mf::TensorView* gs = mf::makeSymbolicTensor(0, mf::DataType::Float);
      for (mf::TensorView* tv : {x, io, oo, gs}) fusion->addInput(tv);
      mf::BlockQuantizationResults r =
          mf::groupedBlockQuantize(x, io, oo, mf::BlockScalingFactorLayout::Block128x4, gs);
      fusion->addOutput(r.quantized_tensor);
      fusion->addOutput(r.block_scales);
    }
    mf::FusionExecutorCache fec(std::move(fusion));
    std::vector<mf::Tensor> out = fec.runFusionWithInputs(dev, {.poison_outputs = true});
    // Correctness before speed: the codes bit for bit (the scales are checked by the tests).
    const std::vector<mf::Tensor> ref = mf::ReferenceEvaluator(fec.fusion()).run(host);
    const mf::Tensor q = out[0].toHost();
    if (q.nbytes() != ref[0].nbytes() || std::memcmp(q.rawData(), ref[0].rawData(), q.nbytes())) {
      fmt::print(stderr, "quantize_bench: G={} M={} K={}: codes differ from the reference\n", c.g,
                 c.m, c.k);
      return 1;
    }
    mf::KernelExecutor* ke = fec.getMostRecentKernelRuntime()->executor();
    std::vector<float> ms = ke->benchmarkBackToBack(dev);
    std::vector<double> us(ms.begin(), ms.end());
    for (double& u : us) u *= 1000.0;
    fmt::print("quantize auto {} {} {} {:.2f}\n", c.g, c.m, c.k, mf::bench::median(us));
    std::fflush(stdout);
  }
  return 0;
}
