// GPU: the device's e2m1 conversion and NVFP4 block arithmetic (runtime/fp4.cuh with the
// device's e4m3 rounding, run by tests/unit/reference/fp4_check_kernel.h) equal the host's bit
// for bit: codes of floats and doubles at and beside every rounding midpoint, saturation,
// signed zeros, infinities, NaN and random values over many binades; the 16 codes' values;
// the scales and packed codes of random, zero, tiny, huge, NaN and infinite blocks, with a
// global scale. Outputs are poisoned before the launch.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "cuda/device_memory.h"
#include "cuda/module.h"
#include "cuda/nvrtc.h"
#include "minifuser/minifuser.h"
#include "reference/quantization_reference.h"
#include "unit/reference/fp4_check_kernel.h"

namespace mf {
namespace {

Tensor poisoned(int64_t n, DataType dtype) {
  Tensor t = Tensor::emptyDevice({n}, dtype);
  cuda::fillAsync(t.devicePtr(), 0xFF, static_cast<size_t>(t.nbytes()));
  return t;
}

TEST(Fp4Gpu, ConversionAndBlockArithmeticMatchTheHostBitForBit) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> xf = {0.0f, -0.0f, inf, -inf, std::nanf(""), 6.0f, 6.5f, 1e30f, 1e-40f};
  std::vector<double> xd;
  for (double mid : {0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0})
    for (double s : {1.0, -1.0}) {
      const float f = static_cast<float>(mid * s);
      for (float v : {f, std::nextafter(f, 10.0f), std::nextafter(f, -10.0f)}) xf.push_back(v);
      for (double v : {mid * s, mid * s + std::ldexp(1.0, -40), mid * s - std::ldexp(1.0, -40)})
        xd.push_back(v);
    }
  std::mt19937_64 rng(2026);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  while (xf.size() < 4096)
    xf.push_back(static_cast<float>(unit(rng) * std::ldexp(1.0, rng() % 8 - 3)));
  while (xd.size() < xf.size()) xd.push_back(unit(rng) * std::ldexp(1.0, rng() % 8 - 3));
  const int n = static_cast<int>(xf.size());

  // Blocks: random over binades, then zero, tiny, huge, with a NaN, with an infinity.
  const int nblocks = 512;
  std::vector<float> blocks(16 * nblocks);
  for (int b = 0; b < nblocks; ++b)
    for (int j = 0; j < 16; ++j)
      blocks[16 * b + j] = static_cast<float>(unit(rng) * std::ldexp(1.0, b % 24 - 12));
  for (int j = 0; j < 16; ++j) {
    blocks[j] = 0.0f;
    blocks[16 + j] = 1e-6f;
    blocks[32 + j] = 1e6f;
  }
  blocks[48 + 7] = std::nanf("");
  blocks[64 + 2] = -inf;
  const float gs = 0.37f;

  Tensor d_xf = Tensor::fromVector(xf, {n}).toDevice();
  Tensor d_xd = Tensor::fromVector(xd, {n}).toDevice();
  Tensor d_blocks = Tensor::fromVector(blocks, {16 * nblocks}).toDevice();
  Tensor d_gs = Tensor::fromVector(std::vector<float>{gs}, {1}).toDevice();
  Tensor codes_f = poisoned(n, DataType::Float8_e4m3fn),
         codes_d = poisoned(n, DataType::Float8_e4m3fn);
  Tensor decoded = poisoned(16, DataType::Float);
  Tensor scales = poisoned(nblocks, DataType::Float8_e4m3fn);
  Tensor packed = poisoned(8 * nblocks, DataType::Float8_e4m3fn);

  const cuda::CompiledKernel compiled =
      cuda::compileWithNvrtc(testing::fp4CheckSource(), testing::kFp4CheckKernel, {});
  cuda::LoadedKernel kernel(compiled);
  uint64_t p[10] = {d_xf.devicePtr(),    d_xd.devicePtr(),    codes_f.devicePtr(),
                    codes_d.devicePtr(), decoded.devicePtr(), d_blocks.devicePtr(),
                    d_gs.devicePtr(),    scales.devicePtr(),  packed.devicePtr()};
  int n_arg = n, nblocks_arg = nblocks;
  std::vector<void*> args = {&p[0], &p[1], &p[2], &p[3], &p[4],       &n_arg,
                             &p[5], &p[6], &p[7], &p[8], &nblocks_arg};
  kernel.launch({.grid_x = static_cast<uint32_t>((n + 127) / 128), .block_x = 128}, args);

  const Tensor cf = codes_f.toHost(), cd = codes_d.toHost(), dec = decoded.toHost();
  const auto* cf_bytes = static_cast<const uint8_t*>(cf.rawData());
  const auto* cd_bytes = static_cast<const uint8_t*>(cd.rawData());
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(cf_bytes[i], floatToFloat4e2m1(xf[i]).bits) << "float " << xf[i];
    ASSERT_EQ(cd_bytes[i], doubleToFloat4e2m1(xd[i]).bits) << "double " << xd[i];
  }
  for (uint8_t c = 0; c < 16; ++c) {
    const float host = float4e2m1ToFloat(Float4e2m1{c});
    const float dev = dec.data<float>()[c];
    EXPECT_EQ(std::memcmp(&host, &dev, sizeof(float)), 0) << int(c);
  }
  Tensor host_gs = Tensor::fromVector(std::vector<float>{gs}, {});
  const QuantizedTensors ref = quantizeBlocks(
      "blockQuantize", nullptr, Tensor::fromVector(blocks, {nblocks, 16}), &host_gs, 16);
  const Tensor s = scales.toHost(), q = packed.toHost();
  EXPECT_EQ(std::memcmp(s.rawData(), ref.block_scales.rawData(), nblocks), 0);
  EXPECT_EQ(std::memcmp(q.rawData(), ref.quantized.rawData(), 8 * nblocks), 0);
  EXPECT_EQ(static_cast<const uint8_t*>(s.rawData())[3], 0x7f);  // the NaN block
}

}  // namespace
}  // namespace mf
