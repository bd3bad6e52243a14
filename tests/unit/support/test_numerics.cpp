#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "support/numerics.h"
#include "support/scalar_math.h"

namespace mf {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

// x * 2^e, exact for the values used here.
double p2(double x, int e) {
  return std::ldexp(x, e);
}

uint32_t floatBits(float f) {
  return std::bit_cast<uint32_t>(f);
}

uint16_t half(double v) {
  return doubleToHalf(v).bits;
}
uint16_t halfF(float v) {
  return floatToHalf(v).bits;
}
uint16_t bf16(double v) {
  return doubleToBFloat16(v).bits;
}
uint16_t bf16F(float v) {
  return floatToBFloat16(v).bits;
}
uint8_t fp8(double v) {
  return doubleToFloat8e4m3(v).bits;
}
uint8_t fp8F(float v) {
  return floatToFloat8e4m3(v).bits;
}

// Exactly representable values convert without rounding, from float and from double.
TEST(Numerics, ExactValuesConvertExactly) {
  EXPECT_EQ(halfF(1.0f), 0x3c00);
  EXPECT_EQ(halfF(-2.0f), 0xc000);
  EXPECT_EQ(halfF(65504.0f), 0x7bff);
  EXPECT_EQ(half(0.5), 0x3800);
  EXPECT_EQ(bf16F(1.0f), 0x3f80);
  EXPECT_EQ(bf16F(-3.0f), 0xc040);
  EXPECT_EQ(bf16(p2(1.0, 127)), 0x7f00);
  EXPECT_EQ(fp8F(1.0f), 0x38);
  EXPECT_EQ(fp8F(448.0f), 0x7e);
  EXPECT_EQ(fp8F(-448.0f), 0xfe);
  EXPECT_EQ(fp8(416.0), 0x7d);
  EXPECT_EQ(fp8(0.015625), 0x08);  // smallest normal, 2^-6
}

// A value halfway between two neighbours rounds to the one with an even last bit, up or down.
TEST(Numerics, TiesRoundToEven) {
  EXPECT_EQ(halfF(1.0f + 0x1p-11f), 0x3c00);             // 1 (even) vs 0x3c01: down
  EXPECT_EQ(halfF(1.0f + 3 * 0x1p-11f), 0x3c02);         // 0x3c01 (odd) vs 0x3c02: up
  EXPECT_EQ(halfF(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);  // just past the tie: up
  EXPECT_EQ(halfF(-(1.0f + 0x1p-11f)), 0xbc00);
  EXPECT_EQ(bf16F(1.0f + 0x1p-8f), 0x3f80);
  EXPECT_EQ(bf16F(1.0f + 3 * 0x1p-8f), 0x3f82);
  EXPECT_EQ(bf16F(std::bit_cast<float>(0x3f80'7fffu)), 0x3f80);  // just below the tie
  EXPECT_EQ(fp8F(1.0f + 0.0625f), 0x38);                         // 1 (even) vs 1.125: down
  EXPECT_EQ(fp8F(1.0f + 0.1875f), 0x3a);                         // 1.125 (odd) vs 1.25: up
  EXPECT_EQ(fp8F(432.0f), 0x7e);                                 // 416 (odd) vs 448 (even): up
  EXPECT_EQ(fp8F(431.0f), 0x7d);
  EXPECT_EQ(fp8F(-432.0f), 0xfe);
}

// Double inputs are rounded once, directly: going through float first would round twice.
TEST(Numerics, DoubleRoundsOnce) {
  const double just_past_tie_h = 1.0 + p2(1, -11) + p2(1, -40);  // float(...) is the tie
  EXPECT_EQ(half(just_past_tie_h), 0x3c01);
  EXPECT_EQ(halfF(static_cast<float>(just_past_tie_h)), 0x3c00);
  EXPECT_EQ(bf16(1.0 + p2(1, -8) + p2(1, -40)), 0x3f81);
  EXPECT_EQ(bf16F(static_cast<float>(1.0 + p2(1, -8) + p2(1, -40))), 0x3f80);
  EXPECT_EQ(fp8(1.0 + 0.0625 + p2(1, -40)), 0x39);
  EXPECT_EQ(fp8F(static_cast<float>(1.0 + 0.0625 + p2(1, -40))), 0x38);
}

// Subnormal results are produced (no flush to zero) and round to even like normal ones.
TEST(Numerics, Subnormals) {
  EXPECT_EQ(half(p2(1, -24)), 0x0001);     // smallest subnormal
  EXPECT_EQ(half(p2(1, -25)), 0x0000);     // tie between 0 and 0x0001: even (0)
  EXPECT_EQ(half(p2(3, -26)), 0x0001);     // 0.75 of the smallest subnormal: up
  EXPECT_EQ(half(p2(3, -25)), 0x0002);     // tie between 0x0001 and 0x0002: even
  EXPECT_EQ(half(p2(1023, -24)), 0x03ff);  // largest subnormal
  EXPECT_EQ(half(p2(2047, -25)), 0x0400);  // tie between 0x03ff and 0x0400 (smallest normal)
  EXPECT_EQ(half(-p2(1, -24)), 0x8001);
  EXPECT_EQ(bf16F(std::bit_cast<float>(0x0001'0000u)), 0x0001);  // float subnormal inputs
  EXPECT_EQ(bf16F(std::bit_cast<float>(0x0000'8000u)), 0x0000);  // tie: even
  EXPECT_EQ(bf16F(std::bit_cast<float>(0x0001'8000u)), 0x0002);  // tie: even
  EXPECT_EQ(bf16(p2(1, -133)), 0x0001);
  EXPECT_EQ(fp8(p2(1, -9)), 0x01);    // smallest subnormal
  EXPECT_EQ(fp8(p2(1, -10)), 0x00);   // tie with 0: even
  EXPECT_EQ(fp8(p2(3, -10)), 0x02);   // tie between 0x01 and 0x02: even
  EXPECT_EQ(fp8(p2(7, -9)), 0x07);    // largest subnormal
  EXPECT_EQ(fp8(p2(15, -10)), 0x08);  // tie between 0x07 and 0x08: even (normal)
  EXPECT_EQ(fp8(p2(1, -12)), 0x00);   // far below: zero
  EXPECT_EQ(fp8(-p2(1, -12)), 0x80);  // ... keeping the sign
}

// Half overflows to infinity from 65520 (the tie above 65504) on; bf16 likewise past its max.
TEST(Numerics, HalfAndBFloat16OverflowToInfinity) {
  EXPECT_EQ(half(65519.99), 0x7bff);
  EXPECT_EQ(half(65520.0), 0x7c00);
  EXPECT_EQ(half(-65520.0), 0xfc00);
  EXPECT_EQ(halfF(1e10f), 0x7c00);
  EXPECT_EQ(half(1e300), 0x7c00);
  EXPECT_EQ(halfF(kInf), 0x7c00);
  EXPECT_EQ(halfF(-kInf), 0xfc00);
  EXPECT_EQ(bf16F(std::bit_cast<float>(0x7f7f'7fffu)), 0x7f7f);  // below the tie: largest
  EXPECT_EQ(bf16F(std::bit_cast<float>(0x7f7f'8000u)), 0x7f80);  // tie, odd below: infinity
  EXPECT_EQ(bf16F(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(bf16(-1e300), 0xff80);
  EXPECT_EQ(bf16F(kInf), 0x7f80);
}

// e4m3 saturates (satfinite): every finite magnitude past 448 and +-inf give +-448.
TEST(Numerics, Float8e4m3Saturates) {
  EXPECT_EQ(fp8F(449.0f), 0x7e);
  EXPECT_EQ(fp8F(464.0f), 0x7e);  // the tie between 448 and 480
  EXPECT_EQ(fp8F(470.0f), 0x7e);
  EXPECT_EQ(fp8F(480.0f), 0x7e);  // PyTorch's CPU conversion gives NaN here
  EXPECT_EQ(fp8F(1e9f), 0x7e);
  EXPECT_EQ(fp8(1e300), 0x7e);
  EXPECT_EQ(fp8F(-1e9f), 0xfe);
  EXPECT_EQ(fp8F(kInf), 0x7e);
  EXPECT_EQ(fp8F(-kInf), 0xfe);
  EXPECT_EQ(fp8(-std::numeric_limits<double>::infinity()), 0xfe);
}

// Every NaN, whatever its sign or payload, converts to the canonical NaN of the target.
TEST(Numerics, NanIsCanonical) {
  const float negative_nan = std::bit_cast<float>(0xffc0'0001u);
  EXPECT_EQ(halfF(kNan), kHalfCanonicalNan);
  EXPECT_EQ(halfF(negative_nan), kHalfCanonicalNan);
  EXPECT_EQ(half(-std::numeric_limits<double>::quiet_NaN()), kHalfCanonicalNan);
  EXPECT_EQ(bf16F(negative_nan), kBFloat16CanonicalNan);
  EXPECT_EQ(bf16F(std::bit_cast<float>(0x7f80'0001u)), kBFloat16CanonicalNan);  // signaling
  EXPECT_EQ(fp8F(kNan), kFloat8e4m3CanonicalNan);
  EXPECT_EQ(fp8F(negative_nan), kFloat8e4m3CanonicalNan);
  EXPECT_EQ(fp8(-std::numeric_limits<double>::quiet_NaN()), kFloat8e4m3CanonicalNan);
  EXPECT_EQ(floatBits(halfToFloat(Half{0xfe01})), kFloatCanonicalNan);
  EXPECT_EQ(floatBits(bfloat16ToFloat(BFloat16{0x7f81})), kFloatCanonicalNan);
  EXPECT_EQ(floatBits(float8e4m3ToFloat(Float8e4m3{0xff})), kFloatCanonicalNan);
}

// Zero keeps its sign both ways.
TEST(Numerics, NegativeZero) {
  EXPECT_EQ(halfF(-0.0f), 0x8000);
  EXPECT_EQ(bf16(-0.0), 0x8000);
  EXPECT_EQ(fp8F(-0.0f), 0x80);
  EXPECT_EQ(floatBits(halfToFloat(Half{0x8000})), 0x8000'0000u);
  EXPECT_EQ(floatBits(bfloat16ToFloat(BFloat16{0x8000})), 0x8000'0000u);
  EXPECT_EQ(floatBits(float8e4m3ToFloat(Float8e4m3{0x80})), 0x8000'0000u);
}

// Widening gives the exact value, infinities included.
TEST(Numerics, WideningIsExact) {
  EXPECT_EQ(halfToFloat(Half{0x3c00}), 1.0f);
  EXPECT_EQ(halfToFloat(Half{0x0001}), 0x1p-24f);
  EXPECT_EQ(halfToFloat(Half{0x7bff}), 65504.0f);
  EXPECT_EQ(halfToFloat(Half{0xfc00}), -kInf);
  EXPECT_EQ(bfloat16ToFloat(BFloat16{0x3f81}), 1.0f + 0x1p-7f);
  EXPECT_EQ(bfloat16ToFloat(BFloat16{0xff80}), -kInf);
  EXPECT_EQ(float8e4m3ToFloat(Float8e4m3{0x7e}), 448.0f);
  EXPECT_EQ(float8e4m3ToFloat(Float8e4m3{0xfe}), -448.0f);
  EXPECT_EQ(float8e4m3ToFloat(Float8e4m3{0x01}), 0x1p-9f);
  EXPECT_EQ(float8e4m3ToFloat(Float8e4m3{0x3a}), 1.25f);
}

// narrow -> float -> narrow (and via double) is the identity for every non-NaN bit pattern.
TEST(Numerics, RoundTripEveryBitPattern) {
  for (uint32_t b = 0; b < 65536; ++b) {
    const Half h{static_cast<uint16_t>(b)};
    const float f = halfToFloat(h);
    const uint16_t expected = std::isnan(f) ? kHalfCanonicalNan : h.bits;
    ASSERT_EQ(floatToHalf(f).bits, expected) << "half bits " << b;
    ASSERT_EQ(doubleToHalf(f).bits, expected) << "half bits " << b;
  }
  for (uint32_t b = 0; b < 65536; ++b) {
    const BFloat16 v{static_cast<uint16_t>(b)};
    const float f = bfloat16ToFloat(v);
    const uint16_t expected = std::isnan(f) ? kBFloat16CanonicalNan : v.bits;
    ASSERT_EQ(floatToBFloat16(f).bits, expected) << "bf16 bits " << b;
    ASSERT_EQ(doubleToBFloat16(f).bits, expected) << "bf16 bits " << b;
  }
  for (uint32_t b = 0; b < 256; ++b) {
    const Float8e4m3 v{static_cast<uint8_t>(b)};
    const float f = float8e4m3ToFloat(v);
    const uint8_t expected = std::isnan(f) ? kFloat8e4m3CanonicalNan : v.bits;
    ASSERT_EQ(floatToFloat8e4m3(f).bits, expected) << "e4m3 bits " << b;
    ASSERT_EQ(doubleToFloat8e4m3(f).bits, expected) << "e4m3 bits " << b;
  }
}

// Float -> int truncates toward zero, saturates out-of-range values, and maps NaN to 0
// (the GPU's cvt.rzi).
TEST(Numerics, FloatToIntTruncatesAndSaturates) {
  constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();
  constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
  constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(floatToInt32(2.9), 2);
  EXPECT_EQ(floatToInt32(-2.9), -2);
  EXPECT_EQ(floatToInt32(kNan), 0);
  EXPECT_EQ(floatToInt32(2147483647.0), kMax32);
  EXPECT_EQ(floatToInt32(2147483648.0), kMax32);
  EXPECT_EQ(floatToInt32(-2147483648.9), kMin32);
  EXPECT_EQ(floatToInt32(-2147483649.0), kMin32);
  EXPECT_EQ(floatToInt32(3e9), kMax32);
  EXPECT_EQ(floatToInt32(-kInf), kMin32);
  EXPECT_EQ(floatToInt64(p2(1, 63) - 1024), int64_t{0x7fff'ffff'ffff'fc00});
  EXPECT_EQ(floatToInt64(p2(1, 63)), kMax64);
  EXPECT_EQ(floatToInt64(-p2(1, 63)), kMin64);
  EXPECT_EQ(floatToInt64(-1e19), kMin64);
  EXPECT_EQ(floatToInt64(kInf), kMax64);
  EXPECT_EQ(floatToInt64(-kNan), 0);
}

// castValue follows the documented path for each pair of types.
TEST(Numerics, CastValueRules) {
  EXPECT_EQ(castValue<int32_t>(int64_t{0x1'0000'0005}), 5);  // int narrowing: low bits
  EXPECT_TRUE(castValue<bool>(kNan));                        // NaN != 0
  EXPECT_FALSE(castValue<bool>(-0.0));
  EXPECT_FALSE(castValue<bool>(Half{0x8000}));
  EXPECT_EQ(castValue<int32_t>(Half{0xfc00}), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(castValue<int64_t>(Float8e4m3{0xfe}), -448);
  EXPECT_EQ(castValue<Half>(int64_t{65520}).bits, 0x7c00);
  EXPECT_EQ(castValue<Half>(true).bits, 0x3c00);
  // int64 -> bf16 goes through float (two roundings): 2^60 + 2^52 + 1 becomes the float tie
  // 2^60 + 2^52, which rounds to even (2^60); one rounding would give the next value up.
  const int64_t big = (int64_t{1} << 60) + (int64_t{1} << 52) + 1;
  EXPECT_EQ(castValue<BFloat16>(big).bits, 0x5d80);
  // Not only where double would round too: 2^24 + 2^16 + 1 is exact in double (one rounding to
  // bf16 gives 0x4b81), but float ties it to 2^24 + 2^16, a bf16 tie that rounds to even 2^24.
  EXPECT_EQ(castValue<BFloat16>(int64_t{(1 << 24) + (1 << 16) + 1}).bits, 0x4b80);
  EXPECT_EQ(castValue<BFloat16>(int32_t{(1 << 24) + (1 << 16) + 1}).bits, 0x4b80);
  EXPECT_EQ(castValue<BFloat16>(double{(1 << 24) + (1 << 16) + 1}).bits, 0x4b81);
  EXPECT_EQ(castValue<Float8e4m3>(BFloat16{0x43f0}).bits, 0x7e);  // 480 saturates to 448
  EXPECT_EQ(castValue<Half>(Half{0x7c01}).bits, 0x7c01);          // same type: bits kept
  EXPECT_EQ(castValue<Half>(BFloat16{0x7f81}).bits, kHalfCanonicalNan);
  EXPECT_EQ(castValue<double>(Half{0x0001}), p2(1, -24));
  EXPECT_EQ(castValue<float>(int64_t{(1 << 24) + 1}), 16777216.0f);  // round to even
}

// relu keeps NaN and the sign of zero: relu(x) = x < 0 ? 0 : x.
TEST(ScalarMath, ReluKeepsNanAndNegativeZero) {
  EXPECT_TRUE(std::isnan(math::relu(kNan)));
  EXPECT_EQ(floatBits(math::relu(-0.0f)), 0x8000'0000u);
  EXPECT_EQ(math::relu(-3.0), 0.0);
  EXPECT_EQ(math::relu(2.5f), 2.5f);
}

// maximum / minimum propagate NaN (torch.maximum) and order -0 below +0, in either argument order.
TEST(ScalarMath, MaximumMinimumPropagateNanAndOrderZeros) {
  EXPECT_TRUE(std::isnan(math::maximum(kNan, 1.0f)));
  EXPECT_TRUE(std::isnan(math::maximum(1.0f, kNan)));
  EXPECT_TRUE(std::isnan(math::minimum(1.0, static_cast<double>(kNan))));
  EXPECT_FALSE(std::signbit(math::maximum(-0.0f, 0.0f)));
  EXPECT_FALSE(std::signbit(math::maximum(0.0f, -0.0f)));
  EXPECT_TRUE(std::signbit(math::minimum(-0.0, 0.0)));
  EXPECT_TRUE(std::signbit(math::minimum(0.0, -0.0)));
  EXPECT_EQ(math::maximum(-kInf, 2.0f), 2.0f);
  EXPECT_EQ(math::minimum(3.0, -1.0), -1.0);
}

// rsqrt and reciprocal are divisions of correctly rounded values; sigmoid is 1 / (1 + exp(-x)).
TEST(ScalarMath, ComposedFormulas) {
  EXPECT_EQ(math::rsqrt(4.0f), 0.5f);
  EXPECT_EQ(math::rsqrt(2.0), 1.0 / std::sqrt(2.0));
  EXPECT_EQ(math::rsqrt(0.0f), kInf);
  EXPECT_EQ(math::reciprocal(-0.0), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(math::sigmoid(0.0f), 0.5f);
  EXPECT_EQ(math::sigmoid(-kInf), 0.0f);
  EXPECT_EQ(math::sigmoid(1000.0), 1.0);
}

}  // namespace
}  // namespace mf
