// RuntimeCall: block and grid all-reduces and the layout op's two forms lower to a call of a
// runtime function with named operands (indexTensors); a collective call gets its read and
// write predicates instead of a guard (insertPredicates); codegen prints it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "minifuser/minifuser.h"
#include "unit/lower/lower_test_utils.h"

namespace mf {
namespace {

using testing::checkPass;
using ::testing::HasSubstr;
using testing::irAfter;

// A row sum across threadIdx.x.
void blockRowSum(Fusion& fusion) {
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = sum(t0, {1});
  fusion.addOutput(t1);
  t1->split(1, 64)->axis(2)->parallelize(ParallelType::TIDx);
}

// A column sum across threadIdx.x and blockIdx.y.
void gridColumnSum(Fusion& fusion) {
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = sum(t0, {0});
  fusion.addOutput(t1);
  t1->split(0, 32);
  t1->axis(0)->parallelize(ParallelType::BIDy);
  t1->axis(1)->parallelize(ParallelType::TIDx);
}

// The layout op read from a staged copy; `gather` loops over the padded buffer instead.
void layoutOp(Fusion& fusion, bool gather) {
  FusionGuard fg(&fusion);
  TensorView* in = makeContigTensor(2);
  TensorView* in_off = makeContigTensor(1, DataType::Int32);
  TensorView* out_off = makeContigTensor(1, DataType::Int32);
  fusion.addInput(in);
  fusion.addInput(in_off);
  fusion.addInput(out_off);
  TensorView* cache = gather ? in : set(in);
  TensorView* out = preprocessGroupedMatmulInputSf(cache, in_off, out_off);
  fusion.addOutput(out);
  if (gather) {
    out->setLoopDomain(out->getMaybeAllocationDomain());
    out->merge(0)->split(0, 4)->split(0, 128);
    out->axis(0)->parallelize(ParallelType::BIDx);
    out->axis(1)->parallelize(ParallelType::TIDx);
    out->axis(2)->parallelize(ParallelType::Vectorize);
    return;
  }
  for (TensorView* tv : {cache, out}) {
    tv->axis(0)->parallelize(ParallelType::BIDx);
    tv->axis(1)->parallelize(ParallelType::TIDx);
  }
  inlineMost();
}

// The block reduction is a call of mf_blockAllReduceX with its operands by name; before
// insertPredicates it has no predicates.
TEST(RuntimeCall, BlockAllReduceAfterIndexTensors) {
  Fusion fusion;
  blockRowSum(fusion);
  EXPECT_TRUE(checkPass(fusion, "indexTensors", R"(
%kernel {
  FOR i5 in iS2{i0}:
    T1[i5] = set(0.0)
    FOR i6 in rS4{ceilDiv(i1, 64)}:
      FOR ((mf_index_t)threadIdx.x) in rthreadIdx.x5{64}:
        T1[i5] = call BlockAllReduce mf_blockAllReduceX(in = T0[( ( i5 * T0.stride[0] ) + ( ( i6 * 64 ) + ((mf_index_t)threadIdx.x) ) )], init = 0.0, op = add, across = threadIdx.x)
} // %kernel
)"));
}

// insertPredicates passes the bounds in (read) and lets thread 0 write the global output
// (write) instead of wrapping the collective call in a guard.
TEST(RuntimeCall, BlockAllReducePredicates) {
  Fusion fusion;
  blockRowSum(fusion);
  EXPECT_TRUE(checkPass(fusion, "insertPredicates", R"(
%kernel {
  FOR i5 in iS2{i0}:
    T1[i5] = set(0.0)
    FOR i6 in rS4{ceilDiv(i1, 64)}:
      FOR ((mf_index_t)threadIdx.x) in rthreadIdx.x5{64}:
        T1[i5] = call BlockAllReduce mf_blockAllReduceX(in = T0[( ( i5 * T0.stride[0] ) + ( ( i6 * 64 ) + ((mf_index_t)threadIdx.x) ) )], init = 0.0, op = add, across = threadIdx.x) (read: ( ( ( i6 * 64 ) + ((mf_index_t)threadIdx.x) ) < i1 ), write: ( ((mf_index_t)threadIdx.x) == 0 ))
} // %kernel
)"));
}

// A reduction across blockIdx.y too is a GridAllReduce (scope: the grid), with the same
// operands and predicates.
TEST(RuntimeCall, GridAllReduce) {
  Fusion fusion;
  gridColumnSum(fusion);
  EXPECT_TRUE(checkPass(fusion, "insertPredicates", R"(
%kernel {
  T1[0] = set(0.0)
  FOR ((mf_index_t)blockIdx.y) in rblockIdx.y2{ceilDiv(i0, 32)}:
    FOR ((mf_index_t)threadIdx.x) in rthreadIdx.x3{32}:
      T1[0] = call GridAllReduce mf_gridAllReduceY(in = T0[( ( ((mf_index_t)blockIdx.y) * 32 ) + ((mf_index_t)threadIdx.x) )], init = 0.0, op = add, across = threadIdx.x) (read: ( ( ( ((mf_index_t)blockIdx.y) * 32 ) + ((mf_index_t)threadIdx.x) ) < i0 ), write: ( ((mf_index_t)threadIdx.x) == 0 ))
} // %kernel
)"));
  std::unique_ptr<Kernel> kernel = lowerFusion(fusion, {.verify = true});
  EXPECT_THAT(generateCuda(*kernel, "").kernel_code,
              HasSubstr("if (!mf_gridAllReduceY<float>(block_result, "));
}

// The scatter form: the element, the offsets' base pointers, k, g and the element's logical
// (row, col). Not collective: insertPredicates guards it like any write where it needs one.
TEST(RuntimeCall, LayoutScatter) {
  Fusion fusion;
  layoutOp(fusion, /*gather=*/false);
  EXPECT_TRUE(checkPass(fusion, "indexTensors", R"(
%kernel {
  FOR ((mf_index_t)blockIdx.x) in iblockIdx.x4{i0}:
    FOR ((mf_index_t)threadIdx.x) in ithreadIdx.x5{i1}:
      T3_l_float[iblockIdx.x4{i0}, ithreadIdx.x5{i1}] ca_pos( 2 ) = ALLOCATE(size = 1, mem = l)
      T3[0] = set(T0[( ( ((mf_index_t)blockIdx.x) * T0.stride[0] ) + ((mf_index_t)threadIdx.x) )])
      T4[0] = call LayoutScatter mf_preprocessGroupedMatmulInputSf(in = T3[0], input_offsets = T1[0], output_offsets = T2[0], k = i1, g = i2, row = ((mf_index_t)blockIdx.x), col = ((mf_index_t)threadIdx.x))
} // %kernel
)"));
}

// The gather form: the input's base pointer, the flat position in the padded buffer and the
// vector width.
TEST(RuntimeCall, LayoutGather) {
  Fusion fusion;
  layoutOp(fusion, /*gather=*/true);
  EXPECT_TRUE(checkPass(fusion, "insertPredicates", R"(
%kernel {
  FOR ((mf_index_t)blockIdx.x) in iblockIdx.x11{ceilDiv(ceilDiv(( ( i0 + ( i2 * 127 ) ) * ( ceilDiv(i1, 4) * 4 ) ), 4), 128)}:
    FOR ((mf_index_t)threadIdx.x) in ithreadIdx.x12{128}:
      FOR i18 in iV10{4}:
        IF ( ( ( ( ((mf_index_t)blockIdx.x) * 128 ) + ((mf_index_t)threadIdx.x) ) * 4 ) < ( ( i0 + ( i2 * 127 ) ) * ( ceilDiv(i1, 4) * 4 ) ) ):
          T3[0] = call LayoutGather mf_layoutOpGather(in = T0[0], input_offsets = T1[0], output_offsets = T2[0], k = i1, g = i2, position = ( ( ( ((mf_index_t)blockIdx.x) * 128 ) + ((mf_index_t)threadIdx.x) ) * 4 ), width = 4)
} // %kernel
)"));
}

// Operands are asked for by role; the form lists them, and a role the form does not take is
// no operand of it.
TEST(RuntimeCall, OperandsByRole) {
  EXPECT_EQ(RuntimeCall::operandsOf(RuntimeCallForm::LayoutGather).back(), CallOperand::Position);
  EXPECT_EQ(RuntimeCall::operandsOf(RuntimeCallForm::GridAllReduce).size(), 2u);
  Fusion fusion;
  blockRowSum(fusion);
  std::unique_ptr<Kernel> kernel = lowerFusionUpTo(fusion, "insertPredicates");
  RuntimeCall* call = nullptr;
  for (const Kernel::LoopNested& n : kernel->computeExprs())
    if (auto* c = dynamic_cast<RuntimeCall*>(n.expr)) call = c;
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->collectiveScope(), CollectiveScope::Block);
  EXPECT_EQ(call->operand(CallOperand::In), call->input(0));
  EXPECT_EQ(call->operand(CallOperand::Init)->toInlineString(), "0.0");
  EXPECT_EQ(call->params().across, ParallelType::TIDx);
  // A pass replacing the call keeps its form, function, params and predicates.
  auto* copy = call->newObject(&kernel->ir(), call->inputs(), call->outputs())->as<RuntimeCall>();
  EXPECT_EQ(copy->toString(), call->toString());
}

}  // namespace
}  // namespace mf
