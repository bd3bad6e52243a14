// Index and predicate math of flattened (pointwise) schedules, checked by substrings of the
// generated CUDA: a merged loop index addresses contiguous operands directly, other layouts
// keep the division and remainder; a vector's elements share the vector's guard; register-only
// exprs are not guarded.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "minifuser/minifuser.h"

using ::testing::HasSubstr;
using ::testing::Not;

namespace mf {
namespace {

std::string kernelCode(const Fusion& fusion) {
  return generateCuda(*lowerFusion(fusion, {.index_type = DataType::Int64, .verify = true}), "")
      .kernel_code;
}

// [all axes merged] -> [BIDx, TIDx{128}].
void flattenLoop(TensorView* tv) {
  while (tv->nDims() > 1) tv->merge(0);
  tv->split(0, 128);
  tv->axis(0)->parallelize(ParallelType::BIDx);
  tv->axis(1)->parallelize(ParallelType::TIDx);
}

// neg(t0) of a rank-`rank` input built by `input`, output contiguous, flattened.
std::string negFlattened(int64_t rank, const std::function<TensorView*(int64_t)>& input) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = input(rank);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  fusion.addOutput(t1);
  flattenLoop(t1);
  return kernelCode(fusion);
}

// Contiguous operands, every axis merged into one loop: the flat index is the element offset
// (no division, no remainder, no stride), and the bound is the product of the sizes.
TEST(PointwiseIndexing, ContiguousMergedAxesAreOneIndex) {
  for (int64_t rank : {2, 3}) {
    std::string code = negFlattened(rank, [](int64_t r) { return makeContigTensor(r); });
    EXPECT_THAT(code, HasSubstr("T1[i")) << code;
    EXPECT_THAT(code, HasSubstr("= mf_neg(T0[i")) << code;
    EXPECT_THAT(code, Not(HasSubstr(" / "))) << code;
    EXPECT_THAT(code, Not(HasSubstr(" % "))) << code;
    EXPECT_THAT(code, Not(HasSubstr("stride"))) << code;
  }
  EXPECT_THAT(negFlattened(3, [](int64_t r) { return makeContigTensor(r); }),
              HasSubstr("((T0.size[0] * T0.size[1]) * T0.size[2])"));
}

// A strided input (nothing declared contiguous) keeps the division and remainder by the inner
// extent and its strides; the contiguous output is still addressed by the flat index.
TEST(PointwiseIndexing, StridedInputKeepsDivMod) {
  std::string code = negFlattened(2, [](int64_t r) { return makeSymbolicTensor(r); });
  EXPECT_THAT(code, HasSubstr("T1[i8] = mf_neg(T0[(((i8 / T0.size[1]) * T0.stride[0]) + ((i8 % "
                              "T0.size[1]) * T0.stride[1]))]);"))
      << code;
}

// Contiguous rows of a padded matrix (the outer axis not dense with the inner one): the row
// index is still divided out and multiplied by the row stride.
TEST(PointwiseIndexing, PaddedRowsKeepDivMod) {
  std::string code = negFlattened(2, [](int64_t r) {
    return TensorViewBuilder().ndims(r).contiguity(Contiguity{false, true}).build();
  });
  EXPECT_THAT(code, HasSubstr("T0[(((i8 / T0.size[1]) * T0.stride[0]) + (i8 % T0.size[1]))]"))
      << code;
}

// Merged in logical order but allocated column-major: the flat index does not walk the
// output's memory in order, so its allocation indices are divided out.
TEST(PointwiseIndexing, PermutedAllocationKeepsDivMod) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  fusion.addOutput(t1);
  t1->setAllocationDomain({t1->axis(1), t1->axis(0)}, true);
  flattenLoop(t1);
  std::string code = kernelCode(fusion);
  EXPECT_THAT(code, HasSubstr("T1[(((i8 % T0.size[1]) * T1.stride[0]) + (i8 / T0.size[1]))] = "
                              "mf_neg(T0[i8]);"))
      << code;
}

// t1 = set(t0) and t3 = set(t2) are vectorized copies of 4 around t2 = t1 * 3 of a 3-D
// contiguous input, flattened as the pointwise scheduler does: [BIDx, TIDx, 4]. With
// `vectorize` false the 4 is a serial loop.
std::string vectorKernel(bool vectorize) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(3);
  fusion.addInput(t0);
  TensorView* t1 = set(t0);
  TensorView* t2 = mul(t1, constFloat(3.0));
  TensorView* t3 = set(t2);
  fusion.addOutput(t3);
  for (TensorView* tv : {t1, t2, t3}) {
    tv->merge(0)->merge(0)->split(0, 4)->split(0, 128);
    tv->axis(0)->parallelize(ParallelType::BIDx);
    tv->axis(1)->parallelize(ParallelType::TIDx);
  }
  if (vectorize) {
    t1->axis(2)->parallelize(ParallelType::Vectorize);
    t3->axis(2)->parallelize(ParallelType::Vectorize);
  }
  inlineMost();
  return kernelCode(fusion);
}

// The executor checks that a vectorized input or output holds whole vectors, so the split by
// 4 divides: the guard is the vector's (`v < n / 4`, no element index), shared by the load,
// the store and nothing else; elements index the registers by the loop index.
TEST(PointwiseIndexing, VectorGuardCoversItsElements) {
  std::string code = vectorKernel(true);
  EXPECT_THAT(code, HasSubstr(R"(
  const mf_index_t i5 = ((T0.size[0] * T0.size[1]) * T0.size[2]);
  const mf_index_t i37 = ((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x));
  const bool b81 = (i37 < (i5 / 4));
  const mf_index_t i38 = (i37 * 4);
  alignas(16) float T2[4];
  alignas(16) float T1[4];
  if (b81) {
    mf_vectorCopy<float, 4>(&T1[0], &T0[i38]);
  }
  for (mf_index_t i29 = 0; i29 < 4; ++i29) {
    T2[i29] = (T1[i29] * 3.0f);
  }
  if (b81) {
    mf_vectorCopy<float, 4>(&T3[i38], &T2[0]);
  }
)")) << code;
}

// Without vectorization nothing proves the split by 4 divides: each element is guarded at its
// own flat index (the product bound, no division).
TEST(PointwiseIndexing, SerialSplitGuardsEachElement) {
  std::string code = vectorKernel(false);
  EXPECT_THAT(code, HasSubstr(R"(
    const mf_index_t i32 = ((((((mf_index_t)blockIdx.x) * 128) + ((mf_index_t)threadIdx.x)) * 4) + i26);
    const bool b68 = (i32 < i5);
    alignas(16) float T2[1];
    alignas(16) float T1[1];
    if (b68) {
      T1[0] = T0[i32];
    }
    T2[0] = (T1[0] * 3.0f);
    if (b68) {
      T3[i32] = T2[0];
    }
)")) << code;
}

// Exprs that only compute registers from registers are not guarded; the loads and stores are,
// and so is an integer division (a divisor of 0 read past the bounds would be undefined).
TEST(PointwiseIndexing, RegisterOnlyExprsAreNotGuarded) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1, DataType::Int32);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = div(t1, t1);
  TensorView* t3 = abs(t2);
  TensorView* t4 = neg(t3);
  fusion.addOutput(t4);
  for (TensorView* tv : {t1, t2, t3, t4}) {
    tv->split(0, 128);
    tv->axis(0)->parallelize(ParallelType::BIDx);
    tv->axis(1)->parallelize(ParallelType::TIDx);
  }
  inlineMost();
  std::string code = kernelCode(fusion);
  EXPECT_THAT(code, HasSubstr(R"(
  if (b39) {
    T1[0] = (-T0[i18]);
  }
  if (b39) {
    T2[0] = (T1[0] / T1[0]);
  }
  T3[0] = (T2[0] < 0 ? -T2[0] : T2[0]);
  if (b39) {
    T4[i18] = (-T3[0]);
  }
)")) << code;
}

}  // namespace
}  // namespace mf
