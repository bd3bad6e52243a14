// GPU: the device's e2m1 conversion and NVFP4 block arithmetic (runtime/fp4.cuh with the
// device's e4m3 rounding, run by tests/unit/reference/fp4_check_kernel.h) equal the host's bit
// for bit: codes of floats and doubles at and beside every rounding midpoint, saturation,
// signed zeros, infinities, NaN and random values over many binades; the 16 codes' values;
// the scales and packed codes of random, zero, tiny, huge, NaN and infinite blocks, with a
// global scale. Outputs are poisoned before the launch.
#include <gmock/gmock.h>
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
#include "unit/ops/layout_test_utils.h"
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

// blockQuantize and groupedBlockQuantize through FusionExecutorCache on device inputs (one
// PointWise kernel each), outputs poisoned: the packed codes and the scales equal the
// reference's bit for bit (the grouped scales at their swizzled positions), for K in {16, 32,
// 48, 80, 112, 2048, 7168} (a row's last call of four blocks holding one to four), groups with
// empty ones and one of exactly 128 rows, bf16, half and float, with and without a global
// scale (0.37, or 3e20: no block takes the kernel's common case), a strided input that is not
// 16-byte aligned (element loads), and blocks of zeros, of tiny values, with a NaN, an
// infinity or a huge value (the general path inside a kernel's common case).
TEST(Fp4Gpu, BlockQuantizeThroughTheCacheMatchesTheReference) {
  const std::vector<int64_t> tokens = {37, 0, 128, 1, 301};
  const int64_t m = 467;
  auto [io, oo] = testing::layoutOffsets(tokens);
  int trial = 0;
  for (int64_t k : {16, 32, 48, 80, 112, 2048, 7168})
    for (bool grouped : {false, true})
      for (bool strided : {false, true}) {
        const bool with_gs = trial % 2 == 1;
        const float global_scale = trial % 4 == 3 ? 3e20f : 0.37f;
        const DataType dtype = trial % 3 == 0   ? DataType::BFloat16
                               : trial % 3 == 1 ? DataType::Half
                                                : DataType::Float;
        ++trial;
        SCOPED_TRACE(fmt::format("K = {}, grouped {}, strided {}, global scale {}, {}", k, grouped,
                                 strided, with_gs ? global_scale : 1.0f, toString(dtype)));
        auto fusion = std::make_unique<Fusion>();
        {
          FusionGuard fg(fusion.get());
          TensorView* x = makeSymbolicTensor(2, dtype);
          TensorView* in_off = makeSymbolicTensor(1, DataType::Int32);
          TensorView* out_off = makeSymbolicTensor(1, DataType::Int32);
          TensorView* gs = with_gs ? makeSymbolicTensor(0, DataType::Float) : nullptr;
          for (TensorView* tv : {x, in_off, out_off}) fusion->addInput(tv);
          if (gs) fusion->addInput(gs);
          BlockQuantizationResults r =
              grouped ? groupedBlockQuantize(x, in_off, out_off,
                                             BlockScalingFactorLayout::Block128x4, gs)
                      : blockQuantize(x, gs);
          fusion->addOutput(r.quantized_tensor);
          fusion->addOutput(r.block_scales);
        }
        // Values over several binades, so the scales differ block to block.
        Tensor base = Tensor::random({m, k + 16}, dtype, 40 + trial);
        for (int64_t i = 0; i < base.numel(); ++i)
          storeElementAt(static_cast<std::byte*>(base.rawData()), i, dtype,
                         base.item(i) * std::ldexp(1.0, static_cast<int>(i / 16 % 11) - 5));
        // Rows 2..6 (each row's first block, in both views): zeros, tiny values, a NaN, an
        // infinity, a huge value.
        for (int64_t j = 0; j < 17; ++j) {
          auto put = [&](int64_t row, double v) {
            storeElementAt(static_cast<std::byte*>(base.rawData()), row * (k + 16) + j, dtype, v);
          };
          put(2, 0.0);
          put(3, j % 2 ? 1e-30 : -1e-30);
          if (j == 5) put(4, std::nan(""));
          if (j == 9) put(5, -std::numeric_limits<double>::infinity());
          if (j == 3) put(6, 3e38);
        }
        // Strided: rows of k + 16, starting one element in (not 16-byte aligned).
        Tensor x =
            strided ? base.asStrided({m, k}, {k + 16, 1}, 1) : base.asStrided({m, k}, {k, 1}, 0);
        std::vector<Tensor> host = {x, testing::layoutOffsetTensor(io, DataType::Int32),
                                    testing::layoutOffsetTensor(oo, DataType::Int32)};
        if (with_gs) host.push_back(Tensor::fromVector(std::vector<float>{global_scale}, {}));
        std::vector<Tensor> dev;
        for (const Tensor& t : host) dev.push_back(t.isContiguous() ? t.toDevice() : t);
        if (strided) {
          // The same view of a device copy of the whole storage.
          Tensor whole = base.toDevice();
          dev[0] = whole.asStrided({m, k}, {k + 16, 1}, 1);
        }
        FusionExecutorCache fec(std::move(fusion));
        std::vector<Tensor> out = fec.runFusionWithInputs(dev, {.poison_outputs = true});
        FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
        ASSERT_EQ(rt->fusionSegments()->groups().size(), 1u);
        const std::vector<Tensor> ref = ReferenceEvaluator(fec.fusion()).run(host);
        const Tensor q = out[0].toHost();
        ASSERT_EQ(q.nbytes(), m * k / 2);
        EXPECT_EQ(std::memcmp(q.rawData(), ref[0].rawData(), q.nbytes()), 0);
        const Tensor s = out[1].toHost();
        if (!grouped) {
          EXPECT_EQ(std::memcmp(s.rawData(), ref[1].rawData(), s.nbytes()), 0);
        } else {
          // The logical scales (blockQuantize's) at their swizzled positions; pads are left.
          Tensor plain =
              quantizeBlocks("blockQuantize", nullptr, host[0], with_gs ? &host[3] : nullptr, 16)
                  .block_scales;
          testing::expectGroupedLayout(s, plain, io, oo, /*pads_zero=*/false);
          EXPECT_EQ(s.usedRows(), ref[1].usedRows());
        }
      }
}

// Bad offsets on device tensors: the kernel's flag is raised and the run throws, naming the op.
TEST(Fp4Gpu, GroupedBlockQuantizeBadDeviceOffsetsRaiseTheFlag) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* x = makeSymbolicTensor(2, DataType::BFloat16);
    TensorView* in_off = makeSymbolicTensor(1, DataType::Int32);
    TensorView* out_off = makeSymbolicTensor(1, DataType::Int32);
    for (TensorView* tv : {x, in_off, out_off}) fusion->addInput(tv);
    BlockQuantizationResults r =
        groupedBlockQuantize(x, in_off, out_off, BlockScalingFactorLayout::Block128x4);
    fusion->addOutput(r.quantized_tensor);
    fusion->addOutput(r.block_scales);
  }
  FusionExecutorCache fec(std::move(fusion));
  std::vector<Tensor> inputs = {Tensor::random({300, 64}, DataType::BFloat16, 5).toDevice(),
                                Tensor::fromVector<int32_t>({0, 250, 100}, {3}).toDevice(),
                                Tensor::fromVector<int32_t>({0, 256, 384}, {3}).toDevice()};
  EXPECT_THAT([&] { fec.runFusionWithInputs(inputs); },
              ::testing::ThrowsMessage<UserError>(
                  ::testing::HasSubstr("groupedBlockQuantize: bad offsets detected on the GPU")));
}

}  // namespace
}  // namespace mf
