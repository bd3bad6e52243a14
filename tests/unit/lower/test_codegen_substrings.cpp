// Codegen of lowered kernels, checked by substrings of the generated CUDA (TVM style): the
// constructs each schedule feature must produce.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cuda/nvrtc.h"
#include "cuda/runtime_sources.h"
#include "minifuser/minifuser.h"

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

namespace mf {
namespace {

GeneratedKernel generate(const Fusion& fusion, DataType index_type = DataType::Int64) {
  return generateCuda(*lowerFusion(fusion, {.index_type = index_type, .verify = true}), "");
}

// An Unroll axis is a serial loop preceded by #pragma unroll; a Serial axis gets no pragma.
TEST(CodegenSubstrings, UnrollPragma) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  fusion.addOutput(t1);
  t1->split(1, 4);
  t1->axis(2)->parallelize(ParallelType::Unroll);
  std::string code = generate(fusion).kernel_code;
  EXPECT_THAT(code,
              HasSubstr("      #pragma unroll\n      for (mf_index_t i6 = 0; i6 < 4; ++i6) {"));
  EXPECT_THAT(code, HasSubstr("  for (mf_index_t i4 = 0; i4 < T0.size[0]; ++i4) {"));
  EXPECT_THAT(code, Not(HasSubstr("#pragma unroll\n  for (mf_index_t i4")));
}

// A vectorized set() is one mf_vectorCopy of the vector width, addressed by the first
// element; register buffers are declared alignas(16) with their size.
TEST(CodegenSubstrings, VectorizedCopy) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = set(t0);
  TensorView* t2 = set(t1);
  TensorView* t3 = neg(t2);
  fusion.addOutput(t3);
  for (TensorView* tv : {t1, t2, t3}) {
    tv->split(0, 4);
    tv->axis(0)->parallelize(ParallelType::TIDx);
  }
  t1->axis(1)->parallelize(ParallelType::Vectorize);
  t2->axis(1)->parallelize(ParallelType::Vectorize);
  inlineMost();
  std::string code = generate(fusion).kernel_code;
  EXPECT_THAT(code, HasSubstr("alignas(16) float T2[4];"));
  EXPECT_THAT(code, HasSubstr("alignas(16) float T1[4];"));
  // The first element's index, t * 4, is used by all three copies: computed once.
  EXPECT_THAT(code, HasSubstr("const mf_index_t i20 = (((mf_index_t)threadIdx.x) * 4);"));
  EXPECT_THAT(code, HasSubstr("mf_vectorCopy<float, 4>(&T1[0], &T0[i20]);"));
  // The register source is addressed by the copy's loop index: the vector's first element.
  EXPECT_THAT(code, HasSubstr("mf_vectorCopy<float, 4>(&T2[0], &T1[0]);"));
  // The executor checks that the vectorized input holds whole vectors: the split by 4 divides
  // and nothing is guarded.
  EXPECT_THAT(code, Not(HasSubstr("if (")));
}

// A block whose thread extents are constants is announced with __launch_bounds__ (ptxas then
// keeps the registers within what that many threads may use; see the next test); a block
// with any symbolic thread extent is not.
TEST(CodegenSubstrings, NoLaunchBoundsForASymbolicBlock) {
  auto kernel = [](bool constant) {
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* t0 = makeContigTensor(2);
    fusion.addInput(t0);
    TensorView* t1 = neg(t0);
    fusion.addOutput(t1);
    if (constant) t1->split(1, 96);
    t1->axis(0)->parallelize(ParallelType::TIDy);
    t1->axis(-1)->parallelize(ParallelType::TIDx);
    return generate(fusion).kernel_code;
  };
  EXPECT_THAT(kernel(false), Not(HasSubstr("__launch_bounds__")));
  // TIDy runs over the symbolic rows: no bound either.
  EXPECT_THAT(kernel(true), Not(HasSubstr("__launch_bounds__")));
}

TEST(CodegenSubstrings, LaunchBoundsOfConstantThreadAxes) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  fusion.addOutput(t1);
  t1->split(0, 96);
  t1->split(0, 4);
  t1->axis(1)->parallelize(ParallelType::TIDy);
  t1->axis(2)->parallelize(ParallelType::TIDx);
  EXPECT_THAT(generate(fusion).kernel_code,
              HasSubstr("__global__ void __launch_bounds__(384) kernel"));
}

// The index type is a typedef in front of the runtime: int for Int32, long long for Int64.
TEST(CodegenSubstrings, IndexTypedef) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  fusion.addOutput(t1);
  EXPECT_THAT(generate(fusion, DataType::Int32).full_source,
              HasSubstr("\ntypedef int mf_index_t;\n"));
  EXPECT_THAT(generate(fusion, DataType::Int64).full_source,
              HasSubstr("\ntypedef long long mf_index_t;\n"));
}

// bf16 is loaded and stored through casts; the math runs in float. A widening read only by
// arithmetic (exp here) keeps a NaN's bits (mf_toFloatForArithmetic, no canonicalizing select).
TEST(CodegenSubstrings, BFloat16Casts) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1, DataType::BFloat16);
  fusion.addInput(t0);
  TensorView* t1 = castOp(DataType::Float, t0);
  TensorView* t2 = exp(t1);
  TensorView* t3 = castOp(DataType::BFloat16, t2);
  fusion.addOutput(t3);
  inlineMost();
  std::string code = generate(fusion).kernel_code;
  EXPECT_THAT(code, HasSubstr("Tensor<mf_bfloat16, 1, 1> T0"));
  EXPECT_THAT(code, HasSubstr("T1[0] = mf_toFloatForArithmetic(T0[i"));
  EXPECT_THAT(code, HasSubstr("T2[0] = mf_exp(T1[0]);"));
  EXPECT_THAT(code, HasSubstr("] = mf_cast<mf_bfloat16>(T2[0]);"));
}

// A widened value whose bits can reach memory keeps the canonicalizing mf_cast: a fusion
// output, or a register read by neg (a sign flip passes the NaN's bits on) or maximum (which
// returns its NaN operand).
TEST(CodegenSubstrings, WideningKeepsCanonicalNanWhereBitsAreVisible) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1, DataType::BFloat16);
  fusion.addInput(t0);
  TensorView* t1 = castOp(DataType::Float, t0);
  TensorView* t2 = castOp(DataType::Float, t0);
  TensorView* t3 = castOp(DataType::Float, t0);
  fusion.addOutput(t1);
  fusion.addOutput(neg(t2));
  fusion.addOutput(maximum(t3, mul(t3, t3)));
  inlineMost();
  std::string code = generate(fusion).kernel_code;
  EXPECT_THAT(code, HasSubstr("T1[i4] = mf_cast<float>(T0[i4]);")) << code;
  EXPECT_THAT(code, HasSubstr("T2[0] = mf_cast<float>(T0[i5]);")) << code;
  EXPECT_THAT(code, HasSubstr("T3[0] = mf_cast<float>(T0[i6]);")) << code;
  EXPECT_THAT(code, Not(HasSubstr("mf_toFloatForArithmetic"))) << code;
}

// maximum passes its NaN operand on: the widening skips the canonicalizing select when what
// the maximum returns is itself read by arithmetic only (softmax's x - max(x)), and keeps it
// when the maximum's result reaches a neg (which would pass the bits to memory).
TEST(CodegenSubstrings, WideningFollowsMaximumToItsReaders) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1, DataType::BFloat16);
  fusion.addInput(t0);
  TensorView* t1 = castOp(DataType::Float, t0);
  TensorView* t2 = castOp(DataType::Float, t0);
  fusion.addOutput(add(maximum(t1, constFloat(0.5)), t1));
  fusion.addOutput(neg(maximum(t2, constFloat(0.5))));
  inlineMost();
  std::string code = generate(fusion).kernel_code;
  EXPECT_THAT(code, ContainsRegex(R"(T1\[0\] = mf_toFloatForArithmetic\(T0\[i[0-9]+\]\);)"))
      << code;
  EXPECT_THAT(code, ContainsRegex(R"(T2\[0\] = mf_cast<float>\(T0\[i[0-9]+\]\);)")) << code;
}

// A float maximum/minimum whose result only arithmetic reads may return any NaN
// (mf_maximumAnyNaN, one instruction); one whose result reaches memory returns its NaN
// operand (mf_maximum). Double keeps mf_maximum: there is no such instruction for it.
TEST(CodegenSubstrings, MaximumIntoArithmeticMayReturnAnyNaN) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  TensorView* t1 = makeContigTensor(1);
  TensorView* d0 = makeContigTensor(1, DataType::Double);
  fusion.addInput(t0);
  fusion.addInput(t1);
  fusion.addInput(d0);
  fusion.addOutput(mul(maximum(t0, t1), t1));
  fusion.addOutput(sub(minimum(t0, t1), t0));
  fusion.addOutput(maximum(t1, t0));
  fusion.addOutput(mul(maximum(d0, d0), d0));
  inlineMost();
  std::string code = generate(fusion).kernel_code;
  EXPECT_THAT(code, ContainsRegex(R"(T3\[0\] = mf_maximumAnyNaN\(T0\[i[0-9]+\], T1\[i[0-9]+\]\);)"))
      << code;
  EXPECT_THAT(code, ContainsRegex(R"(T5\[0\] = mf_minimumAnyNaN\(T0\[i[0-9]+\], T1\[i[0-9]+\]\);)"))
      << code;
  EXPECT_THAT(code, ContainsRegex(R"(T7\[i[0-9]+\] = mf_maximum\(T1\[i[0-9]+\], T0\[i[0-9]+\]\);)"))
      << code;
  EXPECT_THAT(code, ContainsRegex(R"(T8\[0\] = mf_maximum\(T2\[i[0-9]+\], T2\[i[0-9]+\]\);)"))
      << code;
}

// The layout op is one call of the runtime function with the output and offset types, the
// logical (row, col) and the error flag, which the kernel takes as its last parameter.
TEST(CodegenSubstrings, LayoutOpCall) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* in = makeSymbolicTensor(2);
  TensorView* in_off = makeSymbolicTensor(1, DataType::Int32);
  TensorView* out_off = makeSymbolicTensor(1, DataType::Int32);
  fusion.addInput(in);
  fusion.addInput(in_off);
  fusion.addInput(out_off);
  TensorView* cache = set(in);
  TensorView* out = preprocessGroupedMatmulInputSf(cache, in_off, out_off);
  fusion.addOutput(out);
  for (TensorView* tv : {cache, out}) {
    tv->axis(0)->parallelize(ParallelType::BIDx);
    tv->axis(1)->parallelize(ParallelType::TIDx);
  }
  inlineMost();
  std::string code = generate(fusion).kernel_code;
  EXPECT_THAT(code, HasSubstr(", Tensor<float, 2, 2> T4, int* mf_error) {"));
  EXPECT_THAT(code, HasSubstr("mf_preprocessGroupedMatmulInputSf<float, int>(T4.data, "));
  EXPECT_THAT(code, HasSubstr(", &T3[0], 1, ((mf_index_t)blockIdx.x), ((mf_index_t)threadIdx.x), "
                              "T1.data, T2.data, T0.size[0], T0.size[1], T1.size[0], mf_error);"));
}

// Regression: T1, inlined at 2 into T3, was emitted in a serial loop closed before T3 read
// it (T1 out of scope: NVRTC failed). T2, inlined at 1, now comes first and T1 sits in T3's
// loop; the kernel compiles.
TEST(CodegenSubstrings, InlinedProducerInConsumerLoopCompiles) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeConcreteTensor({-1, 4});
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t0);
  TensorView* t3 = add(t1, t2);
  fusion.addOutput(t3);
  for (TensorView* tv : {t1, t2, t3}) tv->axis(0)->parallelize(ParallelType::BIDx);
  t1->inlineAt(2);
  t2->inlineAt(1);
  GeneratedKernel code =
      generateCuda(*lowerFusion(fusion, {.verify = true}), cuda::runtimePrelude());
  // T0's row offset is read by both loops: hoisted above them.
  EXPECT_THAT(code.kernel_code, HasSubstr(R"(
  const mf_index_t i13 = (((mf_index_t)blockIdx.x) * T0.stride[0]);
  alignas(16) float T2[4];
  for (mf_index_t i6 = 0; i6 < 4; ++i6) {
    T2[i6] = mf_exp(T0[(i13 + (i6 * T0.stride[1]))]);
  }
  for (mf_index_t i7 = 0; i7 < 4; ++i7) {
    alignas(16) float T1[1];
    T1[0] = mf_neg(T0[(i13 + (i7 * T0.stride[1]))]);
    T3[((((mf_index_t)blockIdx.x) * T3.stride[0]) + i7)] = (T1[0] + T2[i7]);
  }
)"));
  cuda::CompiledKernel compiled = cuda::compileWithNvrtc(code.full_source, code.name, {});
  EXPECT_FALSE(compiled.cubin.empty()) << compiled.log;
}

// Common index and predicate math is computed once per block: the load and the store guarded
// by one predicate test one hoisted bool (the register-only exprs between them are not
// guarded); an index that reads a serial loop's index is declared in that loop's body, where
// the index exists, and not outside it.
TEST(CodegenSubstrings, CommonScalarsAreHoisted) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t1);
  TensorView* t3 = abs(t2);
  TensorView* t4 = sin(t3);
  fusion.addOutput(t4);
  for (TensorView* tv : {t1, t2, t3, t4}) {
    tv->split(0, 128)->split(1, 32);
    tv->axis(0)->parallelize(ParallelType::BIDx);
    tv->axis(2)->parallelize(ParallelType::TIDx);
  }
  inlineMost();
  std::string code = generate(fusion).kernel_code;
  EXPECT_THAT(code, HasSubstr(R"(
  for (mf_index_t i21 = 0; i21 < 4; ++i21) {
    const mf_index_t i29 = ((((mf_index_t)blockIdx.x) * 128) + ((i21 * 32) + ((mf_index_t)threadIdx.x)));
    const bool b57 = (i29 < T0.size[0]);
    alignas(16) float T3[1];
    alignas(16) float T2[1];
    alignas(16) float T1[1];
    if (b57) {
      T1[0] = mf_neg(T0[i29]);
    }
    T2[0] = mf_exp(T1[0]);
    T3[0] = mf_abs(T2[0]);
    if (b57) {
      T4[i29] = mf_sin(T3[0]);
    }
)"));
  EXPECT_EQ(code.find("< T0.size[0])"), code.rfind("< T0.size[0])")) << code;
}

}  // namespace
}  // namespace mf
