// pow of int32, int64 and bool tensors (#16, section 4): codegen emits integer pow by
// squaring (its own helper, before the kernel) and bool pow as a || !b; the kernel compiles
// with NVRTC, and on the host kernel interpreter it equals the CPU reference bit for bit on
// negative, zero and positive bases and exponents, overflow included (two's complement wrap).
// Negative exponents follow nvFuser's and PyTorch's rules: 1 for a base of 1, +-1 by the
// exponent's parity for -1, 0 for any other base.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "codegen/codegen.h"
#include "cuda/nvrtc.h"
#include "cuda/runtime_sources.h"
#include "lower/pipeline.h"
#include "minifuser/minifuser.h"
#include "random/kernel_interpreter.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();
constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();

// Every pair (base, exponent) of these: negative, zero and positive values of both, the
// extremes, and exponents that overflow int32 and int64.
const std::vector<int64_t> kBases = {-3, -2, -1, 0, 1, 2, 3, 7, 10, kMin32, kMax32, kMin64, kMax64};
const std::vector<int64_t> kExponents = {kMin64, kMin32, -3, -2, -1, 0,  1,  2,     3,
                                         5,      21,     31, 32, 40, 63, 64, kMax32};

// a, b as 1-D tensors of T (each base with each exponent), plus bools a, b of every pair.
template <typename T>
std::pair<Tensor, Tensor> pairs() {
  std::vector<T> a, b;
  for (int64_t x : kBases)
    for (int64_t y : kExponents) {
      a.push_back(static_cast<T>(x));
      b.push_back(static_cast<T>(y));
    }
  const auto n = static_cast<int64_t>(a.size());
  return {Tensor::fromVector(a, {n}), Tensor::fromVector(b, {n})};
}

// pow(int32, int32), pow(int64, int64), pow(bool, bool) and the promoted pow(int32, int64),
// each output split by 128 over [BIDx, TIDx] (a partial last block: 221 elements).
void buildPowFusion(Fusion& fusion) {
  TensorView* a32 = makeContigTensor(1, DataType::Int32);
  TensorView* b32 = makeContigTensor(1, DataType::Int32);
  TensorView* a64 = makeContigTensor(1, DataType::Int64);
  TensorView* b64 = makeContigTensor(1, DataType::Int64);
  TensorView* p = makeContigTensor(1, DataType::Bool);
  TensorView* q = makeContigTensor(1, DataType::Bool);
  for (TensorView* tv : {a32, b32, a64, b64, p, q}) fusion.addInput(tv);
  fusion.addOutput(pow(a32, b32));
  fusion.addOutput(pow(a64, b64));
  fusion.addOutput(pow(p, q));
  fusion.addOutput(pow(a32, b64));
  for (TensorView* tv : fusion.allTvs()) {
    if (tv->isFusionInput()) continue;
    tv->split(0, 128);
    tv->axis(0)->parallelize(ParallelType::BIDx);
    tv->axis(1)->parallelize(ParallelType::TIDx);
  }
}

std::vector<Tensor> powInputs() {
  auto [a32, b32] = pairs<int32_t>();
  auto [a64, b64] = pairs<int64_t>();
  std::vector<bool> p, q;
  for (int i = 0; i < static_cast<int>(a32.numel()); ++i) {
    p.push_back(i % 2 == 0);
    q.push_back(i % 4 < 2);
  }
  const int64_t n = a32.numel();
  return {a32, b32, a64, b64, Tensor::fromVector(p, {n}), Tensor::fromVector(q, {n})};
}

// The index of (base, exponent) in the pairs.
int64_t at(int64_t base, int64_t exponent) {
  const auto i = std::find(kBases.begin(), kBases.end(), base) - kBases.begin();
  const auto j = std::find(kExponents.begin(), kExponents.end(), exponent) - kExponents.begin();
  return static_cast<int64_t>(i * kExponents.size() + j);
}

TEST(IntegerPow, CompilesWithNvrtc) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  buildPowFusion(fusion);
  GeneratedKernel code =
      generateCuda(*lowerFusion(fusion, {.index_type = DataType::Int64, .verify = true}),
                   cuda::runtimePrelude());
  EXPECT_THAT(code.kernel_code, HasSubstr("__device__ inline T mf_integerPow(T a, T b) {"));
  EXPECT_THAT(code.kernel_code, HasSubstr("mf_integerPow<int, unsigned int>(T0["));
  EXPECT_THAT(code.kernel_code, HasSubstr("mf_integerPow<long long, unsigned long long>(T2["));
  // The promoted pow converts its int32 base to int64 first.
  EXPECT_THAT(code.kernel_code,
              HasSubstr("mf_integerPow<long long, unsigned long long>(mf_cast<long long>(T0["));
  EXPECT_THAT(code.kernel_code, HasSubstr(" || !T5["));
  cuda::CompiledKernel compiled = cuda::compileWithNvrtc(code.full_source, code.name, {});
  EXPECT_FALSE(compiled.cubin.empty()) << compiled.log;
}

// The helper is the kernel's own: a kernel without integer pow does not carry it (and keeps
// its name: the prelude is unchanged).
TEST(IntegerPow, HelperOnlyInKernelsThatUseIt) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* a = makeContigTensor(1, DataType::Int64);
  TensorView* f = makeContigTensor(1, DataType::Float);
  fusion.addInput(a);
  fusion.addInput(f);
  fusion.addOutput(pow(f, f));
  fusion.addOutput(neg(a));
  const std::string code =
      generateCuda(*lowerFusion(fusion, {.index_type = DataType::Int64}), "").kernel_code;
  EXPECT_THAT(code, Not(HasSubstr("mf_integerPow")));
  EXPECT_THAT(code, HasSubstr("mf_pow("));
}

// The reference's values, pinned: nvFuser's negative-exponent rules, wrap-around on overflow,
// 0^0 = 1, and bools as a || !b.
TEST(IntegerPow, ReferenceFollowsNvfuserRules) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  buildPowFusion(fusion);
  const std::vector<Tensor> inputs = powInputs();
  const std::vector<Tensor> out = ReferenceEvaluator(&fusion).run(inputs);
  const Tensor &p32 = out[0], &p64 = out[1], &pb = out[2], &mixed = out[3];
  EXPECT_EQ(p64.value(at(1, -3)), ScalarValue{int64_t{1}});
  EXPECT_EQ(p64.value(at(-1, -3)), ScalarValue{int64_t{-1}});
  EXPECT_EQ(p64.value(at(-1, -2)), ScalarValue{int64_t{1}});
  EXPECT_EQ(p64.value(at(-1, kMin64)), ScalarValue{int64_t{1}});  // even
  EXPECT_EQ(p64.value(at(2, -1)), ScalarValue{int64_t{0}});
  EXPECT_EQ(p64.value(at(0, -1)), ScalarValue{int64_t{0}});
  EXPECT_EQ(p64.value(at(0, 0)), ScalarValue{int64_t{1}});
  EXPECT_EQ(p64.value(at(-3, 3)), ScalarValue{int64_t{-27}});
  EXPECT_EQ(p64.value(at(10, 5)), ScalarValue{int64_t{100000}});
  EXPECT_EQ(p64.value(at(2, 63)), ScalarValue{kMin64});  // wraps
  EXPECT_EQ(p64.value(at(2, 64)), ScalarValue{int64_t{0}});
  EXPECT_EQ(p64.value(at(-1, kMax32)), ScalarValue{int64_t{-1}});
  EXPECT_EQ(p32.value(at(2, 31)), ScalarValue{int64_t{kMin32}});
  EXPECT_EQ(p32.value(at(2, 32)), ScalarValue{int64_t{0}});
  EXPECT_EQ(p32.value(at(3, 21)), ScalarValue{int64_t{1870418611}});  // 3^21 mod 2^32, signed
  EXPECT_EQ(p32.value(at(7, -2)), ScalarValue{int64_t{0}});
  // int32 exponents are the int64 ones' low bits: kMin64 is 0 there, 64 stays 64.
  EXPECT_EQ(p32.value(at(10, kMin64)), ScalarValue{int64_t{1}});
  // The promoted pow computes in int64: 2^40 does not wrap.
  EXPECT_EQ(mixed.value(at(2, 40)), ScalarValue{int64_t{1} << 40});
  // p = i even, q = i % 4 < 2: (1, 1), (0, 1), (1, 0), (0, 0) -> 1, 0, 1, 1.
  EXPECT_EQ(pb.value(0), ScalarValue{true});
  EXPECT_EQ(pb.value(1), ScalarValue{false});
  EXPECT_EQ(pb.value(2), ScalarValue{true});
  EXPECT_EQ(pb.value(3), ScalarValue{true});
}

TEST(IntegerPow, HostInterpreterMatchesReferenceBitForBit) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  buildPowFusion(fusion);
  const std::vector<Tensor> inputs = powInputs();
  const std::vector<Tensor> ref = ReferenceEvaluator(&fusion).run(inputs);
  std::unique_ptr<Kernel> kernel =
      lowerFusion(fusion, {.index_type = DataType::Int64, .verify = true});
  std::optional<std::vector<Tensor>> out = testing::interpretKernel(*kernel, inputs);
  ASSERT_TRUE(out.has_value());
  ASSERT_EQ(out->size(), ref.size());
  for (size_t o = 0; o < ref.size(); ++o) {
    ASSERT_EQ((*out)[o].dtype(), ref[o].dtype());
    ASSERT_EQ((*out)[o].numel(), ref[o].numel());
    const size_t bytes = static_cast<size_t>(ref[o].numel() * dataTypeSize(ref[o].dtype()));
    EXPECT_EQ(std::memcmp((*out)[o].rawData(), ref[o].rawData(), bytes), 0) << "output " << o;
  }
}

}  // namespace
}  // namespace mf
