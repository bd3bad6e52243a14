// GPU: conversions and the IEEE-exact ops of generated kernels equal the CPU reference bit for
// bit (docs/numerics.md). Each case is a small fusion of 1-D contiguous inputs with one output
// scheduled [BIDx, TIDx] by 128: casts between the storage types (every half, bf16 and e4m3
// bit pattern; floats, doubles and integers near every rounding, saturation and overflow
// boundary), relu/abs/neg/floor/ceil/sqrt/rsqrt/reciprocal, + - * /, maximum/minimum and
// comparisons in float, double, half and bf16, clamp, where, integer and bool pow, scalar
// constants and scalar inputs. Inputs are special values (+-0, NaNs with payloads, +-inf, 448, 449,
// 464, 480, 65520, subnormals, ties) and seeded random values and bit patterns. Outputs are
// poisoned before the launch. Elements are compared as raw bytes; only float and double NaNs
// compare as "both NaN", since the NaN bits arithmetic produces are not part of the contract.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>

#include "cuda/driver.h"
#include "minifuser/minifuser.h"

namespace mf {
namespace {

constexpr uint64_t kSeed = 20240611;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

// ---- input values ----

float fromBits(uint32_t bits) {
  return std::bit_cast<float>(bits);
}

// Values at every boundary docs/numerics.md names, and both signs of each.
std::vector<float> floatSpecials() {
  std::vector<float> v = {
      0.0f, kNan, fromBits(0x7fc00001u), fromBits(0x7f800001u) /* signaling */, kInf,
      // plain values
      1.0f, 0.5f, 1.5f, 2.5f, 2.9f, 0.1f, 1.0f / 3.0f, 0.49999997f, 16777216.0f, 16777218.0f,
      // e4m3: 416 (0x7d), 431, the tie 432, the largest 448, saturation from 449, the tie 464
      // (PyTorch rounds it to 448), 480 (PyTorch's NaN)
      416.0f, 431.0f, 432.0f, 440.0f, 447.0f, 448.0f, 449.0f, 456.0f, 464.0f, 470.0f, 480.0f, 1e9f,
      // half: the largest 65504, the overflow tie 65520
      65504.0f, 65505.0f, 65519.0f, 65519.996f, 65520.0f, 65536.0f, 1e10f,
      // half subnormals and ties around them: 2^-24, 2^-25 (tie with 0), 3 * 2^-25, 2^-14
      0x1p-24f, 0x1p-25f, 0x3p-25f, 0x3p-26f, 0x1p-14f, 0x3ffp-24f, 0x7ffp-25f,
      // e4m3 subnormals: 2^-9, 2^-10 (tie with 0), 3 * 2^-10, 7 * 2^-9, 15 * 2^-10, 2^-6
      0x1p-9f, 0x1p-10f, 0x3p-10f, 0x7p-9f, 0xfp-10f, 0x1p-6f, 0x1p-12f,
      // float and bf16 subnormals and bf16 ties among them
      fromBits(0x00010000u), fromBits(0x00008000u), fromBits(0x00018000u), fromBits(1u),
      fromBits(0x007fffffu), 0x1p-126f,
      // ties: bf16 (1 + 2^-8, 1 + 3 * 2^-8), half (1 + 2^-11, 1 + 3 * 2^-11), e4m3 (1.0625,
      // 1.1875), just below / at the bf16 tie, bf16 overflow tie
      1.0f + 0x1p-8f, 1.0f + 0x3p-8f, 1.0f + 0x1p-11f, 1.0f + 0x3p-11f, 1.0f + 0x1p-11f + 0x1p-20f,
      1.0625f, 1.1875f, fromBits(0x3f807fffu), fromBits(0x3f808000u), fromBits(0x7f7f7fffu),
      fromBits(0x7f7f8000u), std::numeric_limits<float>::max(),
      // integer conversion: around 2^31 and 2^63 (saturation)
      2147483520.0f, 0x1p31f, 3e9f, 0x1p63f, 1e19f};
  const size_t n = v.size();
  for (size_t i = 0; i < n; ++i) v.push_back(-v[i]);
  return v;
}

std::vector<double> doubleSpecials() {
  std::vector<double> v;
  for (float f : floatSpecials()) v.push_back(f);
  // Doubles that round differently once (directly) than through float (docs/numerics.md).
  for (double d :
       {// just past a tie of half, bf16, e4m3 (float(d) is the tie itself)
        1.0 + 0x1p-11 + 0x1p-40, 1.0 + 0x1p-8 + 0x1p-40, 1.0625 + 0x1p-40,
        // around e4m3's 432 and 464 and half's 65520 ties, and half's subnormal tie
        464.0 - 0x1p-40, 464.0 + 0x1p-40, 432.0 - 0x1p-40, 65520.0 - 0x1p-30, 0x1p-25 + 0x1p-60,
        // outside float's range, below its subnormals, not floats at all
        1e300, 1e-300, 4.9e-324, 0x1p-150, 0.1, 1.0 / 3.0,
        // integer conversion limits
        0x1p63 - 1024, 0x1p63, -0x1p63 - 2048, 2147483647.5, -2147483648.9, 0x1p53 + 2}) {
    v.push_back(d);
    v.push_back(-d);
  }
  return v;
}

std::vector<int64_t> int64Specials() {
  constexpr int64_t kOne = 1;
  std::vector<int64_t> v = {
      0, 1, 7, 255, 449, 464, 65504, 65519, 65520, 16777216, 16777217,
      // 2^24 + 2^16 + 1: through float (ties to 2^24 + 2^16, itself a bf16 tie) -> bf16 2^24
      // (0x4b80); rounded once it would be 2^24 + 2^17 (0x4b81).
      (kOne << 24) + (kOne << 16) + 1, (kOne << 24) + (kOne << 16),
      // 2^60 + 2^36 + 1 -> float rounds up (0x5d800001); through double it would tie to 2^60.
      (kOne << 60) + (kOne << 36) + 1, (kOne << 60) + (kOne << 52) + 1,
      (kOne << 40) + (kOne << 32) + (kOne << 16), (kOne << 53) + 1, 2147483647, 2147483648,
      0x1'0000'0005, std::numeric_limits<int64_t>::max()};
  const size_t n = v.size();
  for (size_t i = 0; i < n; ++i) v.push_back(-v[i]);
  v.push_back(std::numeric_limits<int64_t>::min());
  return v;
}

// Specials, then `count` values each of: random bit patterns (NaN payloads, subnormals,
// infinities), uniform in [-600, 600] (e4m3's range), uniform in [-70000, 70000] (half's), and
// random magnitudes 2^-30 .. 2^20.
std::vector<float> floatValues(int64_t count = 2048) {
  std::vector<float> v = floatSpecials();
  std::mt19937_64 gen(kSeed);
  std::uniform_real_distribution<float> small(-600.0f, 600.0f), medium(-70000.0f, 70000.0f),
      mantissa(1.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-30, 20);
  for (int64_t i = 0; i < count; ++i) {
    v.push_back(fromBits(static_cast<uint32_t>(gen())));
    v.push_back(small(gen));
    v.push_back(medium(gen));
    v.push_back(std::ldexp((gen() & 1) ? -mantissa(gen) : mantissa(gen), exponent(gen)));
  }
  return v;
}

std::vector<double> doubleValues(int64_t count = 2048) {
  std::vector<double> v = doubleSpecials();
  std::mt19937_64 gen(kSeed + 1);
  std::uniform_real_distribution<double> small(-600.0, 600.0), medium(-70000.0, 70000.0),
      mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-40, 70);
  for (int64_t i = 0; i < count; ++i) {
    v.push_back(std::bit_cast<double>(gen()));
    v.push_back(small(gen));
    v.push_back(medium(gen));
    v.push_back(std::ldexp((gen() & 1) ? -mantissa(gen) : mantissa(gen), exponent(gen)));
  }
  return v;
}

std::vector<int64_t> int64Values(int64_t count = 2048) {
  std::vector<int64_t> v = int64Specials();
  std::mt19937_64 gen(kSeed + 2);
  std::uniform_int_distribution<int64_t> near(-(int64_t{1} << 26), int64_t{1} << 26);
  for (int64_t i = 0; i < count; ++i) {
    v.push_back(static_cast<int64_t>(gen()));
    v.push_back(near(gen));
    v.push_back(static_cast<int64_t>(gen()) >> (gen() % 64));  // every magnitude
  }
  return v;
}

std::vector<int32_t> int32Values() {
  std::vector<int32_t> v;
  for (int64_t x : int64Values()) v.push_back(static_cast<int32_t>(x));  // low bits
  v.push_back(std::numeric_limits<int32_t>::min());
  v.push_back(std::numeric_limits<int32_t>::max());
  return v;
}

// Every bit pattern of a narrow type.
template <typename T>
std::vector<T> allBitPatterns() {
  std::vector<T> v(size_t{1} << (8 * sizeof(T)));
  for (size_t b = 0; b < v.size(); ++b) v[b].bits = static_cast<decltype(v[b].bits)>(b);
  return v;
}

// `values` converted to T (castValue: narrow types round once, NaN canonical), plus raw
// narrow bit patterns that conversion never produces (NaN payloads).
template <typename T>
std::vector<T> convertAll(const std::vector<float>& values) {
  std::vector<T> v;
  for (float f : values) v.push_back(castValue<T>(f));
  if constexpr (sizeof(T) == 2 && !std::is_integral_v<T>) {
    for (uint16_t bits : {0x7c01, 0xfc01, 0x7f81, 0xffc1, 0x7e00, 0xfe00, 0x0001, 0x8001})
      v.push_back(T{bits});
  }
  return v;
}

// Every pair of `specials`, then `random_pairs` pairs of random bit patterns (narrow types) or
// random values (others) drawn from `pool`.
template <typename T>
std::pair<std::vector<T>, std::vector<T>> pairsOf(const std::vector<T>& specials,
                                                  const std::vector<T>& pool,
                                                  int64_t random_pairs = 8192) {
  std::vector<T> a, b;
  for (const T& x : specials)
    for (const T& y : specials) {
      a.push_back(x);
      b.push_back(y);
    }
  std::mt19937_64 gen(kSeed + 3);
  std::uniform_int_distribution<size_t> pick(0, pool.size() - 1);
  for (int64_t i = 0; i < random_pairs; ++i) {
    a.push_back(pool[pick(gen)]);
    b.push_back(pool[pick(gen)]);
  }
  return {a, b};
}

template <typename T>
Tensor tensorOf(const std::vector<T>& v) {
  return Tensor::fromVector(v, {static_cast<int64_t>(v.size())});
}

// ---- cases ----

using BuildOutput = std::function<TensorView*(const std::vector<Val*>& inputs)>;

struct NumericsCase {
  std::string name;
  //! One entry per fusion input: a 1-D contiguous tensor, or a scalar of `scalar_dtypes`.
  std::vector<DataType> input_dtypes;
  BuildOutput build;
  std::function<std::vector<Tensor>()> inputs;
  //! Which of input_dtypes are scalars (0-dim tensors when run).
  std::vector<bool> is_scalar = {};
};

std::string dtypeName(DataType t) {
  return std::string(toString(t));
}

// One input tensor of T: its specials and random values, or every bit pattern (narrow).
template <typename T>
std::vector<Tensor> unaryInputs() {
  if constexpr (std::is_same_v<T, float>) {
    return {tensorOf(floatValues())};
  } else if constexpr (std::is_same_v<T, double>) {
    return {tensorOf(doubleValues())};
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return {tensorOf(int64Values())};
  } else if constexpr (std::is_same_v<T, int32_t>) {
    return {tensorOf(int32Values())};
  } else if constexpr (std::is_same_v<T, bool>) {
    return {tensorOf(std::vector<bool>{false, true, true, false, true})};
  } else {
    return {tensorOf(allBitPatterns<T>())};
  }
}

template <typename T>
std::vector<Tensor> binaryInputs() {
  std::pair<std::vector<T>, std::vector<T>> ab;
  if constexpr (std::is_same_v<T, float>) {
    ab = pairsOf(floatSpecials(), floatValues());
  } else if constexpr (std::is_same_v<T, double>) {
    ab = pairsOf(doubleSpecials(), doubleValues());
  } else {
    ab = pairsOf(convertAll<T>(floatSpecials()), allBitPatterns<T>());
  }
  return {tensorOf(ab.first), tensorOf(ab.second)};
}

// Integer pow (#16): every pair of small and extreme bases with negative, zero, small,
// overflowing and extreme exponents, then random pairs of int values and of small bases
// with exponents in [-70, 70].
template <typename T>
std::vector<Tensor> powInputs() {
  std::vector<T> specials;
  for (int64_t v : {-3, -2, -1, 0, 1, 2, 3, 7, 10, 21, 31, 32, 40, 63, 64, 65})
    specials.push_back(static_cast<T>(v));
  for (T v : {std::numeric_limits<T>::min(), std::numeric_limits<T>::max()}) specials.push_back(v);
  std::vector<T> pool;
  for (int64_t x : int64Values(256)) pool.push_back(static_cast<T>(x));
  auto [a, b] = pairsOf(specials, pool);
  std::mt19937_64 gen(kSeed + 4);
  std::uniform_int_distribution<int> base(-5, 5), exponent(-70, 70);
  for (int i = 0; i < 4096; ++i) {
    a.push_back(static_cast<T>(base(gen)));
    b.push_back(static_cast<T>(exponent(gen)));
  }
  return {tensorOf(a), tensorOf(b)};
}

template <typename From>
void addCastCases(std::vector<NumericsCase>& cases, std::vector<DataType> targets) {
  constexpr DataType from = dataTypeOf<From>();
  for (DataType to : targets)
    cases.push_back(
        {"cast_" + dtypeName(from) + "_to_" + dtypeName(to),
         {from},
         [to](const std::vector<Val*>& in) { return castOp(to, in[0]->as<TensorView>()); },
         [] { return unaryInputs<From>(); }});
}

// The IEEE-exact unary and binary ops (docs/numerics.md) and where, on T tensors.
template <typename T>
void addMathCases(std::vector<NumericsCase>& cases) {
  constexpr DataType dtype = dataTypeOf<T>();
  for (UnaryOpType op :
       {UnaryOpType::Relu, UnaryOpType::Abs, UnaryOpType::Neg, UnaryOpType::Floor,
        UnaryOpType::Ceil, UnaryOpType::Sqrt, UnaryOpType::Rsqrt, UnaryOpType::Reciprocal}) {
    cases.push_back(
        {std::string(toString(op)) + "_" + dtypeName(dtype),
         {dtype},
         [op](const std::vector<Val*>& in) { return unaryOp(op, in[0]->as<TensorView>()); },
         [] { return unaryInputs<T>(); }});
  }
  const std::vector<std::pair<BinaryOpType, std::string>> binary = {
      {BinaryOpType::Add, "add"},
      {BinaryOpType::Sub, "sub"},
      {BinaryOpType::Mul, "mul"},
      {BinaryOpType::Div, "div"},
      {BinaryOpType::Maximum, "maximum"},
      {BinaryOpType::Minimum, "minimum"},
      {BinaryOpType::Eq, "eq"},
      {BinaryOpType::Lt, "lt"},
      {BinaryOpType::Ge, "ge"}};
  for (const auto& entry : binary) {
    const BinaryOpType op = entry.first;
    cases.push_back(
        {entry.second + "_" + dtypeName(dtype),
         {dtype, dtype},
         [op](const std::vector<Val*>& in) { return binaryOp(op, in[0], in[1])->as<TensorView>(); },
         [] { return binaryInputs<T>(); }});
  }
  // where(a > b, a, b): a branch of the output's dtype is copied, NaN payloads included.
  cases.push_back(
      {"where_" + dtypeName(dtype),
       {dtype, dtype},
       [](const std::vector<Val*>& in) { return where(gt(in[0], in[1]), in[0], in[1]); },
       [] { return binaryInputs<T>(); }});
}

// A Double constant that is not a float: float(x) = 1 + 2^-8 exactly, the bf16 tie between 1
// and 1 + 2^-7, which rounds to even (1.0); x itself, rounded once, gives 1 + 2^-7.
constexpr double kPastBf16Tie = 1.0 + 0x1p-8 + 0x1p-40;

std::vector<NumericsCase> numericsCases() {
  std::vector<NumericsCase> cases;
  const std::vector<DataType> all = {DataType::Bool,   DataType::Int32,        DataType::Int64,
                                     DataType::Half,   DataType::BFloat16,     DataType::Float,
                                     DataType::Double, DataType::Float8_e4m3fn};
  auto others = [&](DataType from) {
    std::vector<DataType> v;
    for (DataType t : all)
      if (t != from) v.push_back(t);
    return v;
  };
  // Every conversion between two dtypes, and the same-dtype cast (a copy) of the narrow ones.
  addCastCases<bool>(cases, others(DataType::Bool));
  addCastCases<int32_t>(cases, others(DataType::Int32));
  addCastCases<int64_t>(cases, others(DataType::Int64));
  addCastCases<float>(cases, others(DataType::Float));
  addCastCases<double>(cases, others(DataType::Double));
  addCastCases<Half>(cases, all);
  addCastCases<BFloat16>(cases, all);
  addCastCases<Float8e4m3>(cases, all);
  // Round trips through each narrow type.
  for (DataType narrow : {DataType::Half, DataType::BFloat16, DataType::Float8_e4m3fn}) {
    cases.push_back({"round_trip_float_" + dtypeName(narrow),
                     {DataType::Float},
                     [narrow](const std::vector<Val*>& in) {
                       return castOp(DataType::Float, castOp(narrow, in[0]->as<TensorView>()));
                     },
                     [] { return unaryInputs<float>(); }});
  }

  addMathCases<float>(cases);
  addMathCases<double>(cases);
  addMathCases<Half>(cases);
  addMathCases<BFloat16>(cases);

  // int64 + float computes in float: the int64 rounds once to float.
  cases.push_back({"add_int64_float",
                   {DataType::Int64, DataType::Float},
                   [](const std::vector<Val*>& in) { return add(in[0], in[1])->as<TensorView>(); },
                   [] {
                     std::vector<int64_t> a = int64Values();
                     std::vector<float> b(a.size(), 0.0f);
                     for (size_t i = 0; i < b.size(); i += 2) b[i] = -0.0f;
                     return std::vector<Tensor>{tensorOf(a), tensorOf(b)};
                   }});
  // Narrow op Double constant: the constant converts to float (the compute type), the result
  // rounds once to the narrow type.
  cases.push_back({"add_bfloat16_double_constant",
                   {DataType::BFloat16},
                   [](const std::vector<Val*>& in) {
                     return add(in[0]->as<TensorView>(), constFloat(kPastBf16Tie));
                   },
                   [] { return unaryInputs<BFloat16>(); }});
  cases.push_back(
      {"mul_half_double_constant",
       {DataType::Half},
       [](const std::vector<Val*>& in) { return mul(in[0]->as<TensorView>(), constFloat(0.1)); },
       [] { return unaryInputs<Half>(); }});

  // clamp = minimum(maximum(x, lo), hi) in the compute type, rounded once.
  cases.push_back({"clamp_float",
                   {DataType::Float},
                   [](const std::vector<Val*>& in) {
                     return clamp(in[0]->as<TensorView>(), constFloat(-1.5), constFloat(448.5));
                   },
                   [] { return unaryInputs<float>(); }});
  cases.push_back({"clamp_float_signed_zeros",
                   {DataType::Float},
                   [](const std::vector<Val*>& in) {
                     return clamp(in[0]->as<TensorView>(), constFloat(-0.0), constFloat(0.0));
                   },
                   [] { return unaryInputs<float>(); }});
  cases.push_back({"clamp_bfloat16",
                   {DataType::BFloat16},
                   [](const std::vector<Val*>& in) {
                     return clamp(in[0]->as<TensorView>(), constFloat(kPastBf16Tie),
                                  constFloat(2.0));
                   },
                   [] { return unaryInputs<BFloat16>(); }});
  cases.push_back({"clamp_half",
                   {DataType::Half},
                   [](const std::vector<Val*>& in) {
                     return clamp(in[0]->as<TensorView>(), constFloat(-65519.0), constFloat(0.1));
                   },
                   [] { return unaryInputs<Half>(); }});
  cases.push_back({"clamp_int32",
                   {DataType::Int32},
                   [](const std::vector<Val*>& in) {
                     return clamp(in[0]->as<TensorView>(), constInt(-7, DataType::Int64),
                                  constFloat(9.9));
                   },
                   [] { return unaryInputs<int32_t>(); }});
  // lo > hi: every element is hi (torch.clamp).
  cases.push_back({"clamp_int64_empty_range",
                   {DataType::Int64},
                   [](const std::vector<Val*>& in) {
                     return clamp(in[0]->as<TensorView>(), constInt(5, DataType::Int64),
                                  constInt(3, DataType::Int64));
                   },
                   [] { return unaryInputs<int64_t>(); }});

  // Integer and bool pow: by squaring, wrapping, nvFuser's rules for negative exponents.
  auto powBuild = [](const std::vector<Val*>& in) {
    return pow(in[0]->as<TensorView>(), in[1]->as<TensorView>());
  };
  cases.push_back({"pow_int32", {DataType::Int32, DataType::Int32}, powBuild, [] {
                     return powInputs<int32_t>();
                   }});
  cases.push_back({"pow_int64", {DataType::Int64, DataType::Int64}, powBuild, [] {
                     return powInputs<int64_t>();
                   }});
  cases.push_back({"pow_int32_int64", {DataType::Int32, DataType::Int64}, powBuild, [] {
                     std::vector<Tensor> in = powInputs<int64_t>();
                     std::vector<int32_t> a;
                     for (int64_t i = 0; i < in[0].numel(); ++i)
                       a.push_back(static_cast<int32_t>(asInt(in[0].value(i))));
                     return std::vector<Tensor>{tensorOf(a), in[1]};
                   }});
  cases.push_back({"pow_bool", {DataType::Bool, DataType::Bool}, powBuild, [] {
                     std::vector<bool> a, b;
                     for (int i = 0; i < 300; ++i) {
                       a.push_back(i % 2 == 0);
                       b.push_back(i % 4 < 2);
                     }
                     return std::vector<Tensor>{tensorOf(a), tensorOf(b)};
                   }});

  // maximum/minimum read only by arithmetic (x * 1 here) are one instruction each
  // (mf_maximumAnyNaN, codegen's choice, pinned by CodegenSubstrings): the same values as
  // mf_maximum, +0 above -0 included; only a NaN's bits may differ.
  for (BinaryOpType op : {BinaryOpType::Maximum, BinaryOpType::Minimum}) {
    auto build = [op](const std::vector<Val*>& in) {
      return mul(binaryOp(op, in[0], in[1]), constFloat(1.0))->as<TensorView>();
    };
    const std::string name = std::string(toString(op)) + "_into_arithmetic_";
    cases.push_back({name + "float", {DataType::Float, DataType::Float}, build, [] {
                       return binaryInputs<float>();
                     }});
    cases.push_back({name + "bfloat16", {DataType::BFloat16, DataType::BFloat16}, build, [] {
                       return binaryInputs<BFloat16>();
                     }});
    cases.push_back({name + "half", {DataType::Half, DataType::Half}, build, [] {
                       return binaryInputs<Half>();
                     }});
  }

  // where with a constant branch: converted to the output dtype once (no narrow literal).
  cases.push_back({"where_bfloat16_constant",
                   {DataType::BFloat16},
                   [](const std::vector<Val*>& in) {
                     return where(lt(in[0], constFloat(0.0)), in[0], constFloat(kPastBf16Tie));
                   },
                   [] { return unaryInputs<BFloat16>(); }});
  cases.push_back({"where_half_int_constant",
                   {DataType::Bool, DataType::Half},
                   [](const std::vector<Val*>& in) {
                     return where(in[0], constInt(65519, DataType::Int64), in[1]);
                   },
                   [] {
                     std::vector<Half> x = allBitPatterns<Half>();
                     std::vector<bool> c;
                     for (size_t i = 0; i < x.size(); ++i) c.push_back(i % 3 == 0);
                     return std::vector<Tensor>{tensorOf(c), tensorOf(x)};
                   }});
  // An int64 constant into float: 2^60 + 2^36 + 1 rounds once (up), not via double.
  cases.push_back({"where_float_int64_constant",
                   {DataType::Bool, DataType::Float},
                   [](const std::vector<Val*>& in) {
                     return where(
                         in[0], in[1],
                         constInt((int64_t{1} << 60) + (int64_t{1} << 36) + 1, DataType::Int64));
                   },
                   [] {
                     std::vector<float> x = floatValues(256);
                     std::vector<bool> c;
                     for (size_t i = 0; i < x.size(); ++i) c.push_back(i % 2 == 0);
                     return std::vector<Tensor>{tensorOf(c), tensorOf(x)};
                   }});

  // Scalar inputs: maximum/minimum of double scalars use mf_maximum/mf_minimum inside the
  // kernel too (a NaN wins, +0 > -0), and an int64 scalar past 2^53 arrives exactly.
  auto scalarCase = [&](std::string name, BinaryOpType op, double s0, double s1) {
    cases.push_back({name,
                     {DataType::Double, DataType::Double, DataType::Double},
                     [op](const std::vector<Val*>& in) {
                       return add(in[2]->as<TensorView>(), binaryOp(op, in[0], in[1]));
                     },
                     [s0, s1] {
                       return std::vector<Tensor>{Tensor::fromVector<double>({s0}, {}),
                                                  Tensor::fromVector<double>({s1}, {}),
                                                  tensorOf(doubleValues(64))};
                     },
                     {true, true, false}});
  };
  scalarCase("scalar_maximum_signed_zeros", BinaryOpType::Maximum, 0.0, -0.0);
  scalarCase("scalar_minimum_signed_zeros", BinaryOpType::Minimum, -0.0, 0.0);
  scalarCase("scalar_maximum_nan_first", BinaryOpType::Maximum, std::nan(""), 1.0);
  scalarCase("scalar_minimum_nan_second", BinaryOpType::Minimum, 1.0, std::nan(""));
  cases.push_back({"scalar_int64_past_2_53",
                   {DataType::Int64, DataType::Int64},
                   [](const std::vector<Val*>& in) { return add(in[1]->as<TensorView>(), in[0]); },
                   [] {
                     return std::vector<Tensor>{
                         Tensor::fromVector<int64_t>({(int64_t{1} << 60) + 1}, {}),
                         tensorOf(int64Values(64))};
                   },
                   {true, false}});
  return cases;
}

// ---- running and comparing ----

// Builds the case's fusion: inputs, its one output, every tensor split by 128 [BIDx, TIDx].
void buildFusion(Fusion& fusion, const NumericsCase& c) {
  std::vector<Val*> inputs;
  for (size_t i = 0; i < c.input_dtypes.size(); ++i) {
    const bool scalar = i < c.is_scalar.size() && c.is_scalar[i];
    Val* v = scalar ? newScalar(c.input_dtypes[i]) : makeContigTensor(1, c.input_dtypes[i]);
    fusion.addInput(v);
    inputs.push_back(v);
  }
  fusion.addOutput(c.build(inputs));
  for (TensorView* tv : fusion.allTvs()) {
    if (tv->isFusionInput()) continue;
    tv->split(0, 128);
    tv->axis(0)->parallelize(ParallelType::BIDx);
    tv->axis(1)->parallelize(ParallelType::TIDx);
  }
  inlineMost();
}

std::string hexBits(const std::byte* p, int64_t bytes) {
  uint64_t b = 0;
  std::memcpy(&b, p, static_cast<size_t>(bytes));
  return fmt::format("0x{:0{}x}", b, 2 * bytes);
}

std::string inputsAt(const std::vector<Tensor>& inputs, int64_t i) {
  std::string s;
  for (const Tensor& t : inputs) {
    const int64_t k = t.numel() == 1 ? 0 : i;
    const auto* p = static_cast<const std::byte*>(t.rawData()) + k * dataTypeSize(t.dtype());
    s += fmt::format(" {}({}, bits {})", t.dtype(), toString(t.value(k)),
                     hexBits(p, dataTypeSize(t.dtype())));
  }
  return s;
}

void expectBitExact(const Tensor& out, const Tensor& ref, const std::vector<Tensor>& inputs,
                    const std::string& what) {
  ASSERT_EQ(out.dtype(), ref.dtype()) << what;
  ASSERT_EQ(out.sizes(), ref.sizes()) << what;
  ASSERT_TRUE(out.isContiguous() && ref.isContiguous()) << what;
  const int64_t bytes = dataTypeSize(ref.dtype());
  const bool wide_float = ref.dtype() == DataType::Float || ref.dtype() == DataType::Double;
  const auto* o = static_cast<const std::byte*>(out.rawData());
  const auto* r = static_cast<const std::byte*>(ref.rawData());
  int64_t bad = 0;
  for (int64_t i = 0; i < ref.numel(); ++i) {
    if (std::memcmp(o + i * bytes, r + i * bytes, static_cast<size_t>(bytes)) == 0) continue;
    if (wide_float && std::isnan(out.item(i)) && std::isnan(ref.item(i))) continue;
    if (++bad <= 10) {
      ADD_FAILURE() << what << ": element " << i << ": device " << hexBits(o + i * bytes, bytes)
                    << ", reference " << hexBits(r + i * bytes, bytes) << "; inputs"
                    << inputsAt(inputs, i);
    }
  }
  EXPECT_EQ(bad, 0) << what << ": elements that differ from the reference";
}

class NumericsGpu : public ::testing::TestWithParam<NumericsCase> {};

// Lowering, NVRTC and the reference need no device: without one, the case still checks that
// its kernel compiles, then skips.
TEST_P(NumericsGpu, MatchesReferenceBitForBit) {
  const NumericsCase& c = GetParam();
  Fusion fusion;
  FusionGuard fg(&fusion);
  buildFusion(fusion, c);
  const std::vector<Tensor> inputs = c.inputs();
  const std::vector<Tensor> ref = ReferenceEvaluator(&fusion).run(inputs);
  KernelExecutor ke;
  ke.compile(&fusion, inputs);
  if (!cuda::cudaAvailable()) GTEST_SKIP() << cuda::noDeviceReason();
  const std::vector<Tensor> out = ke.run(inputs, {.poison_outputs = true});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(ref.size(), 1u);
  expectBitExact(out[0], ref[0], inputs, c.name);
}

INSTANTIATE_TEST_SUITE_P(Gpu, NumericsGpu, ::testing::ValuesIn(numericsCases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace mf
