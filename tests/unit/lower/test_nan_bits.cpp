// NaN-bit reach (lower/nan_bits.h): indexTensors marks the writes whose NaN bits reach only
// arithmetic, `(any NaN bits)` in the kernel IR; codegen prints the cheaper instruction for
// exactly those and analyzes nothing itself.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "minifuser/minifuser.h"
#include "unit/lower/lower_test_utils.h"

namespace mf {
namespace {

using testing::checkPass;
using ::testing::HasSubstr;
using ::testing::Not;

// A float maximum read only by a product may return any NaN; the one that is a fusion output
// returns its NaN operand.
TEST(NaNBits, MaximumIntoArithmetic) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  TensorView* t1 = makeContigTensor(1);
  fusion.addInput(t0);
  fusion.addInput(t1);
  fusion.addOutput(mul(maximum(t0, t1), t1));
  fusion.addOutput(maximum(t1, t0));
  inlineMost();
  EXPECT_TRUE(checkPass(fusion, "indexTensors", R"(
%kernel {
  FOR i3 in iS2{i0}:
    T2_l_float[iS2{i0}] ca_pos( 1 ) = ALLOCATE(size = 1, mem = l)
    T2[0] = maximum(T0[i3], T1[i3]) (any NaN bits)
    T3[i3] = T2[0] * T1[i3]
  FOR i4 in iS4{i1}:
    T4[i4] = maximum(T1[i4], T0[i4])
} // %kernel
)"));
}

// A bf16 widening read only by exp need not make a NaN canonical; one read by neg (which
// passes the bits on) must.
TEST(NaNBits, WideningIntoArithmetic) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1, DataType::BFloat16);
  fusion.addInput(t0);
  fusion.addOutput(exp(castOp(DataType::Float, t0)));
  fusion.addOutput(neg(castOp(DataType::Float, t0)));
  inlineMost();
  EXPECT_TRUE(checkPass(fusion, "indexTensors", R"(
%kernel {
  FOR i3 in iS1{i0}:
    T1_l_float[iS1{i0}] ca_pos( 1 ) = ALLOCATE(size = 1, mem = l)
    T1[0] = cast<float>(T0[i3]) (any NaN bits)
    T2[i3] = exp(T1[0])
  FOR i4 in iS3{i0}:
    T3_l_float[iS3{i0}] ca_pos( 1 ) = ALLOCATE(size = 1, mem = l)
    T3[0] = cast<float>(T0[i4])
    T4[i4] = -T3[0]
} // %kernel
)"));
}

// A max reduction across threadIdx.x whose result only x - max reads: the all-reduce call is
// marked, through the broadcast that passes the value on.
TEST(NaNBits, MaxAllReduceIntoSubtraction) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigConcreteTensor({-1, 128});
  fusion.addInput(t0);
  TensorView* t1 = max(t0, {1});
  TensorView* t2 = broadcast(t1, {false, true});
  TensorView* t3 = sub(t0, t2);
  fusion.addOutput(t3);
  for (TensorView* tv : {t1, t2, t3}) tv->axis(0)->parallelize(ParallelType::BIDx);
  for (TensorView* tv : {t1, t3}) tv->axis(1)->parallelize(ParallelType::TIDx);
  inlineMost();
  EXPECT_TRUE(checkPass(fusion, "insertPredicates", R"(
%kernel {
  FOR ((mf_index_t)blockIdx.x) in iblockIdx.x2{i0}:
    T2_l_float[iblockIdx.x4{i0}, bS5{1}] ca_pos( 1 ) = ALLOCATE(size = 1, mem = l)
    T1_l_float[iblockIdx.x2{i0}, rthreadIdx.x3{128}] ca_pos( 1 ) = ALLOCATE(size = 1, mem = l)
    T1[0] = set(-INFINITY)
    FOR ((mf_index_t)threadIdx.x) in rthreadIdx.x3{128}:
      T1[0] = call BlockAllReduce mf_blockAllReduceX(in = T0[( ( ((mf_index_t)blockIdx.x) * T0.stride[0] ) + ((mf_index_t)threadIdx.x) )], init = -INFINITY, op = max, across = threadIdx.x) (read: true, write: true) (any NaN bits)
    FOR i8 in bS5{1}:
      T2[0] = broadcast(T1[0], {false, true})
    FOR ((mf_index_t)threadIdx.x) in ithreadIdx.x7{128}:
      T3[( ( ((mf_index_t)blockIdx.x) * T3.stride[0] ) + ((mf_index_t)threadIdx.x) )] = T0[( ( ((mf_index_t)blockIdx.x) * T0.stride[0] ) + ((mf_index_t)threadIdx.x) )] - T2[0]
} // %kernel
)"));
  std::unique_ptr<Kernel> kernel = lowerFusion(fusion, {.verify = true});
  EXPECT_THAT(generateCuda(*kernel, "").kernel_code,
              HasSubstr("[](float a, float b) { return mf_maximumAnyNaN(a, b); }"));
}

// Codegen follows the mark alone: marked by hand, the output's maximum prints as
// mf_maximumAnyNaN although its bits reach memory.
TEST(NaNBits, CodegenPrintsTheMark) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  TensorView* t1 = makeContigTensor(1);
  fusion.addInput(t0);
  fusion.addInput(t1);
  fusion.addOutput(maximum(t0, t1));
  std::unique_ptr<Kernel> kernel = lowerFusion(fusion, {.verify = true});
  EXPECT_THAT(generateCuda(*kernel, "").kernel_code, Not(HasSubstr("AnyNaN")));
  for (const Kernel::LoopNested& n : kernel->computeExprs())
    n.expr->output(0)->as<TensorIndex>()->setAnyNaNBits();
  EXPECT_THAT(generateCuda(*kernel, "").kernel_code, HasSubstr("= mf_maximumAnyNaN(T0["));
}

}  // namespace
}  // namespace mf
