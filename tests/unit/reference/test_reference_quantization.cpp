// float4 e2m1 and NVFP4 block quantization on the CPU (docs/numerics.md): the conversion of
// every code, ties, saturation, NaN, packing; blockQuantize and groupedBlockQuantize by hand
// on worked blocks, against the explicit pattern (reshape, abs, max, divide, clamp, casts,
// layout op) bit for bit on random inputs, and their UserErrors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <set>

#include "cuda/nvrtc.h"
#include "fp4_check_kernel.h"
#include "ir/scalar_ops.h"
#include "reference_helpers.h"
#include "unit/ops/layout_test_utils.h"

namespace {

using namespace mf;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

constexpr float kMagnitudes[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};

TEST(Float4e2m1, EveryCodeDecodesAndEncodesBack) {
  for (uint8_t code = 0; code < 16; ++code) {
    const float v = float4e2m1ToFloat(Float4e2m1{code});
    EXPECT_EQ(std::abs(v), kMagnitudes[code & 7]) << int(code);
    EXPECT_EQ(std::signbit(v), (code & 8) != 0) << int(code);  // 0x8 is -0
    EXPECT_EQ(floatToFloat4e2m1(v).bits, code) << int(code);
    EXPECT_EQ(doubleToFloat4e2m1(v).bits, code) << int(code);
  }
}

TEST(Float4e2m1, TiesGoToTheEvenCodeAndTheSignIsKept) {
  // midpoint -> code: the even one of its two neighbours.
  const std::pair<float, uint8_t> ties[] = {{0.25f, 0}, {0.75f, 2}, {1.25f, 2}, {1.75f, 4},
                                            {2.5f, 4},  {3.5f, 6},  {5.0f, 6}};
  for (auto [v, code] : ties) {
    EXPECT_EQ(floatToFloat4e2m1(v).bits, code) << v;
    EXPECT_EQ(floatToFloat4e2m1(-v).bits, code | 8) << -v;
    // Just past a midpoint rounds away from it.
    EXPECT_EQ(floatToFloat4e2m1(std::nextafter(v, 10.0f)).bits,
              code % 2 == 0 && v != 0.25f && v != 1.25f && v != 2.5f && v != 5.0f ? code : code + 1)
        << v;
  }
  EXPECT_EQ(floatToFloat4e2m1(0.2f).bits, 0);
  EXPECT_EQ(floatToFloat4e2m1(-0.2f).bits, 8);  // a negative value rounding to 0 keeps its sign
  EXPECT_EQ(floatToFloat4e2m1(-0.0f).bits, 8);
  EXPECT_EQ(floatToFloat4e2m1(2.9f).bits, 5);
}

TEST(Float4e2m1, SaturatesAndMapsNaNToPlusSix) {
  const float inf = std::numeric_limits<float>::infinity();
  for (float v : {6.0f, 6.5f, 100.0f, 1e30f, inf}) {
    EXPECT_EQ(floatToFloat4e2m1(v).bits, 0x7) << v;
    EXPECT_EQ(floatToFloat4e2m1(-v).bits, 0xf) << -v;
  }
  EXPECT_EQ(floatToFloat4e2m1(std::nanf("")).bits, 0x7);
  EXPECT_EQ(floatToFloat4e2m1(-std::nanf("")).bits, 0x7);
}

// The kernels round a quotient to e2m1 as the smallest of three rounded pieces, 2a, a + 2 and
// a / 2 + 4 (runtime/fp4.cuh's mf_e2m1MagnitudeBits, through nvfp4Quantize with a divisor of
// 1, on the fast path and on the divided one): it equals the comparisons with the midpoints on
// every float within 2^14 ulps of a code's value or of a midpoint, on every 101st float of
// [0, 6], and past 6 (checked once on every float of [0, 6]).
TEST(Float4e2m1, RoundingByThreePiecesEqualsTheComparisons) {
  const float inf = std::numeric_limits<float>::infinity();
  auto expectSame = [inf](float v) {
    for (float x : {v, -v}) {
      const uint8_t want = floatToFloat4e2m1(x).bits;
      ASSERT_EQ(nvfp4Quantize(x, 1.0f, 1.0f, std::abs(x)).bits, want) << x << " (fast)";
      ASSERT_EQ(nvfp4Quantize(x, 1.0f, 1.0f, inf).bits, want) << x << " (divided)";
    }
  };
  auto bitsOf = [](float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
  };
  auto floatOf = [](uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  };
  const float marks[] = {0.0f, 0.25f, 0.5f, 0.75f, 1.0f, 1.25f, 1.5f, 1.75f,
                         2.0f, 2.5f,  3.0f, 3.5f,  4.0f, 5.0f,  6.0f};
  int64_t checked = 0;
  for (float mark : marks) {
    const uint32_t center = bitsOf(mark);
    const uint32_t lo = center > (1u << 14) ? center - (1u << 14) : 0;
    for (uint32_t b = lo; b <= center + (1u << 14); ++b, ++checked) expectSame(floatOf(b));
  }
  for (uint32_t b = 0; b <= bitsOf(6.0f); b += 101, ++checked) expectSame(floatOf(b));
  for (float v : {6.5f, 7.0f, 100.0f, 1e30f}) expectSame(v);
  EXPECT_GT(checked, 10000000);
}

// From double, one rounding: a value just above the 0.25 midpoint rounds up, where going
// through float first would land on the midpoint and round down.
TEST(Float4e2m1, FromDoubleRoundsOnce) {
  const double v = 0.25 + std::ldexp(1.0, -40);
  EXPECT_EQ(static_cast<float>(v), 0.25f);
  EXPECT_EQ(doubleToFloat4e2m1(v).bits, 1);
  EXPECT_EQ(floatToFloat4e2m1(static_cast<float>(v)).bits, 0);
  EXPECT_EQ(castScalar(ScalarValue{v}, DataType::Float4_e2m1fn), ScalarValue{0.5});
}

TEST(Float4e2m1, DtypeSizesAndPromotion) {
  EXPECT_EQ(dataTypeSizeBit(DataType::Float4_e2m1fn), 4);
  EXPECT_EQ(storageBytes(DataType::Float4_e2m1fn, 7), 4);
  EXPECT_TRUE(isSubByteType(DataType::Float4_e2m1fn));
  EXPECT_FALSE(isSubByteType(DataType::Float8_e4m3fn));
  EXPECT_EQ(toString(DataType::Float4_e2m1fn), "float4_e2m1fn");
  EXPECT_EQ(promoteTypes(DataType::Float4_e2m1fn, DataType::BFloat16), DataType::BFloat16);
  EXPECT_EQ(promoteTypes(DataType::Float8_e4m3fn, DataType::Float4_e2m1fn),
            DataType::Float8_e4m3fn);
  EXPECT_EQ(computeType(DataType::Float4_e2m1fn), DataType::Float);
}

// Element 2i in the low nibble of byte i, 2i + 1 in the high nibble.
TEST(Float4e2m1, TensorsPackTwoPerByteLowNibbleFirst) {
  Tensor t = reftest::makeTensor({0.5, 1.0, -2.0, 6.0, 3.0}, {5}, DataType::Float4_e2m1fn);
  EXPECT_EQ(t.nbytes(), 3);
  const auto* bytes = static_cast<const uint8_t*>(t.rawData());
  EXPECT_EQ(bytes[0], 0x21);
  EXPECT_EQ(bytes[1], 0x7c);
  EXPECT_EQ(bytes[2] & 0x0f, 0x05);
  EXPECT_EQ(reftest::values(t), (std::vector<double>{0.5, 1.0, -2.0, 6.0, 3.0}));
  // A view starting inside a byte has no address.
  Tensor odd = t.asStrided({2}, {1}, 1);
  EXPECT_THAT([&] { odd.rawData(); },
              ThrowsMessage<UserError>(HasSubstr(
                  "a view of a float4_e2m1fn tensor (two elements per byte) must start at an "
                  "even element, got storage offset 1")));
  EXPECT_EQ(odd.item(0), 1.0);  // element access still works
  Tensor even = t.asStrided({2}, {1}, 2);
  EXPECT_EQ(*static_cast<const uint8_t*>(even.rawData()), 0x7c);
}

// ---- blockQuantize by hand -------------------------------------------------------------

struct Quantized {
  std::vector<uint8_t> scales;  // e4m3 bits
  std::vector<uint8_t> packed;  // fp4 bytes
};

Quantized bytesOf(const Tensor& scales, const Tensor& quantized) {
  Quantized q;
  const auto* s = static_cast<const uint8_t*>(scales.rawData());
  q.scales.assign(s, s + scales.nbytes());
  const auto* p = static_cast<const uint8_t*>(quantized.rawData());
  q.packed.assign(p, p + quantized.nbytes());
  return q;
}

// x [rows, 16 * blocks] (Float) -> blockQuantize, with a global scale when `gs`.
Quantized quantizeByReference(const std::vector<double>& x, int64_t rows, int64_t k,
                              std::optional<double> gs, DataType dtype = DataType::Float) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* in = makeSymbolicTensor(2, dtype);
  fusion.addInput(in);
  TensorView* g = nullptr;
  if (gs) {
    g = makeSymbolicTensor(0, DataType::Float);
    fusion.addInput(g);
  }
  auto [quantized, scales] = blockQuantize(in, g);
  EXPECT_EQ(quantized->dtype(), DataType::Float4_e2m1fn);
  EXPECT_EQ(scales->dtype(), DataType::Float8_e4m3fn);
  fusion.addOutput(scales);
  fusion.addOutput(quantized);
  std::vector<Tensor> inputs = {reftest::makeTensor(x, {rows, k}, dtype)};
  if (gs) inputs.push_back(reftest::makeTensor({*gs}, {}, DataType::Float));
  std::vector<Tensor> out = ReferenceEvaluator(&fusion).run(inputs);
  EXPECT_EQ(out[0].sizes(), (std::vector<int64_t>{rows, k / 16}));
  EXPECT_EQ(out[1].sizes(), (std::vector<int64_t>{rows, k}));
  return bytesOf(out[0], out[1]);
}

// x_j = 0.75 j: amax 11.25, s = 11.25 / 6 = 1.875 (exact in e4m3: 0x3f), x / s = 0.4 j.
TEST(BlockQuantize, WorkedBlock) {
  std::vector<double> x;
  for (int j = 0; j < 16; ++j) x.push_back(0.75 * j);
  // 0.4 j -> 0, 0.5, 1, 1, 1.5, 2, 2, 3, 3, 4, 4, 4, 4, 6, 6, 6.
  const std::vector<uint8_t> packed = {0x10, 0x22, 0x43, 0x54, 0x65, 0x66, 0x76, 0x77};
  Quantized q = quantizeByReference(x, 1, 16, std::nullopt);
  EXPECT_EQ(q.scales, (std::vector<uint8_t>{0x3f}));
  EXPECT_EQ(q.packed, packed);
  // A global scale of 2 doubles the stored scale (3.75: 0x47) and leaves the values: they are
  // divided by s / global_scale.
  q = quantizeByReference(x, 1, 16, 2.0);
  EXPECT_EQ(q.scales, (std::vector<uint8_t>{0x47}));
  EXPECT_EQ(q.packed, packed);
  // bf16 input: the same values, exact in bf16.
  q = quantizeByReference(x, 1, 16, std::nullopt, DataType::BFloat16);
  EXPECT_EQ(q.packed, packed);
}

// The scale is clamped to [2^-6, 448]; a NaN makes the block's scale NaN (0x7f) and every
// code +6; an infinity gives the largest scale, the infinity saturates to 6.
TEST(BlockQuantize, ClampsNaNsAndInfinities) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> x(16 * 5, 0.0);
  // block 0: all zero -> s = 2^-6 (0x08), codes 0.
  for (int j = 0; j < 16; ++j) x[16 + j] = 1e-4 * (j + 1);             // block 1: tiny -> 2^-6, 0
  for (int j = 0; j < 16; ++j) x[32 + j] = 6000.0 * (j % 2 ? 1 : -1);  // block 2: s 448, +-6
  for (int j = 0; j < 16; ++j) x[48 + j] = 1.0;
  x[48 + 3] = std::nan("");  // block 3: NaN
  for (int j = 0; j < 16; ++j) x[64 + j] = 448.0;
  x[64 + 5] = -inf;  // block 4: -inf: s 448, the others 448/448 = 1
  Quantized q = quantizeByReference(x, 1, 80, std::nullopt);
  EXPECT_EQ(q.scales, (std::vector<uint8_t>{0x08, 0x08, 0x7e, 0x7f, 0x7e}));
  const std::vector<uint8_t> zeros(8, 0x00), alternating(8, 0x7f), nan_block(8, 0x77);
  EXPECT_EQ(std::vector<uint8_t>(q.packed.begin(), q.packed.begin() + 8), zeros);
  EXPECT_EQ(std::vector<uint8_t>(q.packed.begin() + 8, q.packed.begin() + 16), zeros);
  EXPECT_EQ(std::vector<uint8_t>(q.packed.begin() + 16, q.packed.begin() + 24), alternating);
  EXPECT_EQ(std::vector<uint8_t>(q.packed.begin() + 24, q.packed.begin() + 32), nan_block);
  std::vector<uint8_t> inf_block(8, 0x22);
  inf_block[2] = 0xf2;  // element 5: high nibble of byte 2, -6
  EXPECT_EQ(std::vector<uint8_t>(q.packed.begin() + 32, q.packed.end()), inf_block);
}

// ---- the explicit pattern and the fused ops, bit for bit --------------------------------

// The rule written as fusion ops (docs/numerics.md): in float, reshape into blocks, amax,
// the scale (clamped, to e4m3), the values divided by scale / global_scale, clamped, to e2m1.
struct Explicit {
  TensorView* scales;
  TensorView* quantized;
};
Explicit explicitPattern(TensorView* in, TensorView* gs, int64_t m, int64_t k) {
  TensorView* x = reshape(castOp(DataType::Float, in), {m, k}, {m, k / 16, 16});
  TensorView* amax = max(abs(x), {2});
  TensorView* g = gs != nullptr ? broadcast(castOp(DataType::Float, gs), {true, true}) : nullptr;
  TensorView* s = div(amax, constFloat(6.0));
  if (g != nullptr) s = mul(s, g);
  s = clamp(s, constFloat(0.015625), constFloat(448.0));
  TensorView* s8 = castOp(DataType::Float8_e4m3fn, s);
  TensorView* d = castOp(DataType::Float, s8);
  if (g != nullptr) d = div(d, g);
  TensorView* q =
      clamp(div(x, broadcast(d, {false, false, true})), constFloat(-6.0), constFloat(6.0));
  return {s8, castOp(DataType::Float4_e2m1fn, reshape(q, {m, k / 16, 16}, {m, k}))};
}

class QuantizationPatterns : public ::testing::TestWithParam<std::tuple<int64_t, bool, DataType>> {
};

TEST_P(QuantizationPatterns, FusedOpsEqualTheExplicitPatternBitForBit) {
  const auto [k, with_gs, dtype] = GetParam();
  const std::vector<int64_t> tokens = {37, 0, 128, 1, 90};
  const int64_t m = 256;
  auto [io, oo] = mf::testing::layoutOffsets(tokens);
  auto build = [&](Fusion& fusion, bool fused, bool grouped) {
    FusionGuard fg(&fusion);
    TensorView* in = makeContigConcreteTensor({m, k}, dtype);
    TensorView* in_off = makeSymbolicTensor(1, DataType::Int32);
    TensorView* out_off = makeSymbolicTensor(1, DataType::Int32);
    TensorView* gs = with_gs ? makeSymbolicTensor(0, DataType::Float) : nullptr;
    fusion.addInput(in);
    fusion.addInput(in_off);
    fusion.addInput(out_off);
    if (gs) fusion.addInput(gs);
    TensorView *scales = nullptr, *quantized = nullptr;
    if (fused) {
      BlockQuantizationResults r =
          grouped
              ? groupedBlockQuantize(in, in_off, out_off, BlockScalingFactorLayout::Block128x4, gs)
              : blockQuantize(in, gs);
      scales = r.block_scales;
      quantized = r.quantized_tensor;
    } else {
      Explicit e = explicitPattern(in, gs, m, k);
      scales = grouped ? preprocessGroupedMatmulInputSf(e.scales, in_off, out_off) : e.scales;
      quantized = e.quantized;
    }
    fusion.addOutput(scales);
    fusion.addOutput(quantized);
  };
  std::vector<Tensor> inputs = {Tensor::random({m, k}, dtype, 7 + k),
                                mf::testing::layoutOffsetTensor(io, DataType::Int32),
                                mf::testing::layoutOffsetTensor(oo, DataType::Int32)};
  // Magnitudes over several binades, so scales differ from block to block.
  Tensor& x = inputs[0];
  for (int64_t i = 0; i < x.numel(); ++i)
    storeElementAt(static_cast<std::byte*>(x.rawData()), i, dtype,
                   x.item(i) * std::ldexp(1.0, static_cast<int>(i / 16 % 13) - 6));
  if (with_gs) inputs.push_back(reftest::makeTensor({0.37}, {}, DataType::Float));
  for (bool grouped : {false, true}) {
    SCOPED_TRACE(grouped ? "groupedBlockQuantize" : "blockQuantize");
    Fusion fused, pattern;
    build(fused, true, grouped);
    build(pattern, false, grouped);
    std::vector<Tensor> a = ReferenceEvaluator(&fused).run(inputs);
    std::vector<Tensor> b = ReferenceEvaluator(&pattern).run(inputs);
    ASSERT_EQ(a[0].allocationSizes(), b[0].allocationSizes());
    Quantized qa = bytesOf(a[0], a[1]), qb = bytesOf(b[0], b[1]);
    EXPECT_EQ(qa.scales, qb.scales);
    EXPECT_EQ(qa.packed, qb.packed);
    // Not all one value: the inputs exercise the codes and the scales.
    EXPECT_GT(std::set<uint8_t>(qa.packed.begin(), qa.packed.end()).size(), 16u);
    EXPECT_GT(std::set<uint8_t>(qa.scales.begin(), qa.scales.end()).size(), 4u);
    if (grouped) {
      // The grouped scales are blockQuantize's, laid out as the layout op lays them out.
      EXPECT_EQ(a[0].usedRows(), b[0].usedRows());
      Fusion plain;
      build(plain, true, false);
      Tensor flat = ReferenceEvaluator(&plain).run(inputs)[0];
      mf::testing::expectGroupedLayout(a[0], flat, io, oo, /*pads_zero=*/true);
    }
  }
}

std::string patternName(const ::testing::TestParamInfo<QuantizationPatterns::ParamType>& info) {
  return fmt::format("K{}_{}_{}", std::get<0>(info.param), toString(std::get<2>(info.param)),
                     std::get<1>(info.param) ? "global_scale" : "no_global_scale");
}

INSTANTIATE_TEST_SUITE_P(Shapes, QuantizationPatterns,
                         ::testing::Values(std::tuple{int64_t{16}, false, DataType::BFloat16},
                                           std::tuple{int64_t{32}, true, DataType::BFloat16},
                                           std::tuple{int64_t{2048}, false, DataType::Float},
                                           std::tuple{int64_t{7168}, true, DataType::BFloat16},
                                           std::tuple{int64_t{48}, true, DataType::Half}),
                         patternName);

// ---- errors ------------------------------------------------------------------------------

TEST(BlockQuantize, BadOperandsAreUserErrors) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* x = makeContigConcreteTensor({4, 32}, DataType::BFloat16);
  TensorView* odd = makeContigConcreteTensor({4, 20}, DataType::BFloat16);
  TensorView* ints = makeContigConcreteTensor({4, 32}, DataType::Int32);
  TensorView* vec = makeContigConcreteTensor({2}, DataType::Float);
  TensorView* x3 = makeContigConcreteTensor({2, 4, 32}, DataType::BFloat16);
  TensorView* off = makeSymbolicTensor(1, DataType::Int32);
  for (TensorView* tv : {x, odd, ints, vec, x3, off}) fusion.addInput(tv);
  auto error = [](auto f, const std::string& what) {
    EXPECT_THAT(f, ThrowsMessage<UserError>(HasSubstr(what)));
  };
  error([&] { blockQuantize(x, nullptr, 32); },
        "blockQuantize: block_size must be 16 (NVFP4's block), got 32");
  error([&] { blockQuantize(x, nullptr, 16, false, DataType::Float8_e4m3fn); },
        "blockQuantize: out_dtype must be Float4_e2m1fn (NVFP4), got float8_e4m3fn");
  error([&] { blockQuantize(x, nullptr, 16, true); },
        "blockQuantize: swizzle_scales = true is not supported");
  error([&] { blockQuantize(odd); },
        "blockQuantize: the last extent of input T1 must be a multiple of the block size 16, "
        "got 20");
  error([&] { blockQuantize(ints); },
        "blockQuantize: input T2 must be Float, BFloat16 or Half, got int32");
  error([&] { blockQuantize(x, vec); },
        "blockQuantize: global_scaling_factor T3 must be a 0-dim tensor, got rank 1");
  error([&] { blockQuantize(nullptr); }, "blockQuantize: input");
  error([&] { groupedBlockQuantize(x3, off, off, BlockScalingFactorLayout::Block128x4); },
        "groupedBlockQuantize: input T4");
  error([&] { groupedBlockQuantize(x, off, x, BlockScalingFactorLayout::Block128x4); },
        "groupedBlockQuantize: output_offsets T0");
}

// A symbolic last extent is checked when inputs are bound (the reference, and the kernel's
// launch: the runtime function reads whole blocks).
TEST(BlockQuantize, LastExtentIsCheckedAtRunTime) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* x = makeSymbolicTensor(2, DataType::Float);
    fusion->addInput(x);
    auto [q, s] = blockQuantize(x);
    fusion->addOutput(q);
    fusion->addOutput(s);
  }
  EXPECT_THAT(fusion->exprs().back()->toString(),
              HasSubstr("= blockQuantize(T0, block_size = 16)"));
  const std::vector<Tensor> bad = {Tensor::random({3, 24}, DataType::Float, 1)};
  const auto message =
      AllOf(HasSubstr("blockQuantize(T0, block_size = 16)`: the last extent of "
                      "T0 must be a multiple of 16, got 24"));
  EXPECT_THAT([&] { ReferenceEvaluator(fusion.get()).run(bad); },
              ThrowsMessage<UserError>(message));
  FusionExecutorCache fec(std::move(fusion));
  fec.runFusionWithInputs({Tensor::random({3, 32}, DataType::Float, 1)});
  EXPECT_THAT([&] { fec.runFusionWithInputs(bad); }, ThrowsMessage<UserError>(message));
  KernelExecutor* ke = fec.getMostRecentKernelRuntime()->executor();
  ASSERT_NE(ke, nullptr);
  EXPECT_THAT([&] { ke->run(bad); }, ThrowsMessage<UserError>(message));
}

// Through FusionExecutorCache each op is one PointWise kernel calling its runtime function
// (compiled by NVRTC here; without a device the outputs come from the reference). Offsets
// computed in the fusion cross in global memory: two segments.
TEST(BlockQuantize, AutomaticPathIsOnePointwiseKernel) {
  for (bool grouped : {false, true})
    for (bool computed_offsets : {false, true}) {
      if (computed_offsets && !grouped) continue;
      SCOPED_TRACE(fmt::format("grouped {}, computed offsets {}", grouped, computed_offsets));
      auto fusion = std::make_unique<Fusion>();
      {
        FusionGuard fg(fusion.get());
        TensorView* x = makeSymbolicTensor(2, DataType::BFloat16);
        TensorView* in_off = makeSymbolicTensor(1, DataType::Int32);
        TensorView* out_off = makeSymbolicTensor(1, DataType::Int32);
        TensorView* gs = makeSymbolicTensor(0, DataType::Float);
        for (TensorView* tv : {x, in_off, out_off, gs}) fusion->addInput(tv);
        if (computed_offsets) {
          in_off = add(in_off, constInt(0, DataType::Int32));
          out_off = add(out_off, constInt(0, DataType::Int32));
        }
        BlockQuantizationResults r =
            grouped
                ? groupedBlockQuantize(x, in_off, out_off, BlockScalingFactorLayout::Block128x4, gs)
                : blockQuantize(x, gs);
        fusion->addOutput(r.quantized_tensor);
        fusion->addOutput(r.block_scales);
      }
      FusionExecutorCache fec(std::move(fusion));
      auto [io, oo] = mf::testing::layoutOffsets({3, 0, 130});
      std::vector<Tensor> inputs = {Tensor::random({133, 64}, DataType::BFloat16, 2),
                                    mf::testing::layoutOffsetTensor(io, DataType::Int32),
                                    mf::testing::layoutOffsetTensor(oo, DataType::Int32),
                                    reftest::makeTensor({0.5}, {}, DataType::Float)};
      std::vector<Tensor> out = fec.runFusionWithInputs(inputs);
      FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
      const auto& groups = rt->fusionSegments()->groups();
      ASSERT_EQ(groups.size(), computed_offsets ? 3u : 1u) << rt->fusionSegments()->toString();
      EXPECT_EQ(groups.back()->schedulerType(), SchedulerType::PointWise);
      EXPECT_THAT(rt->heuristics().back()->toString(),
                  HasSubstr("block quantize: 4 block(s) of 16 values per thread, 532 blocks"));
      EXPECT_THAT(rt->code(),
                  HasSubstr(grouped ? "mf_groupedBlockQuantize<4, 128, mf_bfloat16, int>("
                                    : "mf_blockQuantize<4, 128, mf_bfloat16>("));
      EXPECT_EQ(out[0].dtype(), DataType::Float4_e2m1fn);
      EXPECT_EQ(out[0].nbytes(), 133 * 64 / 2);
    }
}

// Reading an output in the fusion is refused before anything runs.
TEST(BlockQuantize, ReadingAnOutputInTheFusionIsRefused) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* x = makeSymbolicTensor(2, DataType::Float);
    fusion->addInput(x);
    auto [q, s] = blockQuantize(x);
    fusion->addOutput(q);
    fusion->addOutput(castOp(DataType::Float, s));
  }
  FusionExecutorCache fec(std::move(fusion));
  EXPECT_THAT(
      [&] {
        fec.runFusionWithInputs({Tensor::random({4, 32}, DataType::Float, 2)});
      },
      ThrowsMessage<UserError>(HasSubstr("unsafe use of the output of blockQuantize")));
}

}  // namespace

namespace {

// The device side of the e2m1 conversion (tests/gpu/test_fp4_gpu.cpp runs it) compiles.
TEST(Float4e2m1, DeviceConversionCompilesWithNvrtc) {
  const mf::cuda::CompiledKernel k = mf::cuda::compileWithNvrtc(
      mf::testing::fp4CheckSource(), mf::testing::kFp4CheckKernel, mf::cuda::NvrtcOptions{});
  EXPECT_FALSE(k.ptx.empty() && k.cubin.empty());
}

}  // namespace

namespace {

// The kernels' quotient (the reciprocal once per block, two fused multiply-adds per value)
// gives the code of the correctly rounded x / d: checked where it matters, at and around the
// values x whose quotient is a rounding midpoint of e2m1 (and 6), for random e4m3 scales and
// global scales, and on random values; and the bit-level e2m1 rounding equals the comparisons.
TEST(Float4e2m1, KernelQuotientAndCodeEqualDivisionAndRounding) {
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const float targets[] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f, 6.0f, 0.5f, 1.0f, 4.0f};
  int64_t checked = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    // A scale: an e4m3 value in [2^-6, 448], a global scale over many binades (or 1).
    const float rounded = float8e4m3ToFloat(floatToFloat8e4m3(
        static_cast<float>(std::ldexp(1.0 + unit(rng), static_cast<int>(rng() % 14) - 6))));
    const float gs =
        trial % 4 == 0
            ? 1.0f
            : static_cast<float>(unit(rng) * std::ldexp(1.0, static_cast<int>(rng() % 40) - 20));
    const float d = rounded / gs;
    for (float t : targets) {
      const float center = t * d;
      float x = center;
      for (int i = 0; i < 4; ++i) x = std::nextafter(x, 0.0f);
      for (int i = 0; i < 9; ++i, x = std::nextafter(x, 1e38f)) {
        for (float v : {x, -x}) {
          const uint8_t want = floatToFloat4e2m1(std::clamp(v / d, -6.0f, 6.0f)).bits;
          ASSERT_EQ(nvfp4Quantize(v, rounded, gs, std::abs(v)).bits, want)
              << v << " / (" << rounded << " / " << gs << ")";
          ++checked;
        }
      }
    }
    const float v = static_cast<float>((unit(rng) * 2 - 1) * 8 * d);
    ASSERT_EQ(nvfp4Quantize(v, rounded, gs, std::abs(v)).bits,
              floatToFloat4e2m1(std::clamp(v / d, -6.0f, 6.0f)).bits);
  }
  EXPECT_GT(checked, 1000000);
  // Zeros keep their sign.
  EXPECT_EQ(nvfp4Quantize(-0.0f, 2.0f, 1.0f, 0.0f).bits, 0x8);
  EXPECT_EQ(nvfp4Quantize(0.0f, 2.0f, 1.0f, 0.0f).bits, 0x0);
}

}  // namespace

namespace {

// A cast to float4 (the explicit pattern's last step) has no kernel: the automatic path says
// so; the CPU reference evaluates it (QuantizationPatterns above).
TEST(Float4e2m1, KernelsRefuseFloat4Casts) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* x = makeSymbolicTensor(2, DataType::Float);
    fusion->addInput(x);
    fusion->addOutput(castOp(DataType::Float4_e2m1fn, x));
  }
  FusionExecutorCache fec(std::move(fusion));
  EXPECT_THAT(
      [&] {
        fec.runFusionWithInputs({Tensor::random({4, 32}, DataType::Float, 2)});
      },
      ThrowsMessage<UserError>(HasSubstr("kernels do not read or compute float4 elements yet")));
}

}  // namespace
