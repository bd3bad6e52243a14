// Index math of indexTensors by feature: allocation domains (permuted, split), contiguity,
// broadcast operands, register buffers of partially inlined tensors. Each test pins the
// kernel IR after indexTensors.
#include <gtest/gtest.h>

#include "minifuser/minifuser.h"
#include "unit/lower/lower_test_utils.h"

namespace mf {
namespace {

using testing::irAfter;

// Output allocated [axis 1, axis 0] (column-major): logical (i, j) is written at
// j * T1.stride[0] + i, the innermost allocation axis (logical 0) having stride 1.
TEST(Indexing, PermutedAllocationDomain) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = abs(t0);
  fusion.addOutput(t1);
  t1->setAllocationDomain({t1->axis(1), t1->axis(0)}, true);

  std::string ir = irAfter(fusion, "indexTensors");
  EXPECT_IR(ir, R"(
%kernel {
  FOR i2 in iS2{i0}:
    FOR i3 in iS3{i1}:
      T1[( ( i3 * T1.stride[0] ) + i2 )] = abs(T0[( ( i2 * T0.stride[0] ) + ( i3 * T0.stride[1] ) )])
} // %kernel
)");
}

// Output axis 1 allocated split into [ceilDiv(i1, 4), 4]: logical (i, j) is written at
// i * T1.stride[0] + (j / 4) * T1.stride[1] + j % 4.
TEST(Indexing, SplitAllocationDomain) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = abs(t0);
  fusion.addOutput(t1);
  auto [outer, inner] = IterDomain::split(t1->axis(1), constInt(4), /*inner_split=*/true);
  t1->setAllocationDomain({t1->axis(0), outer, inner}, true);

  std::string ir = irAfter(fusion, "indexTensors");
  EXPECT_IR(ir, R"(
%kernel {
  FOR i4 in iS2{i0}:
    FOR i5 in iS3{i1}:
      T1[( ( ( i4 * T1.stride[0] ) + ( ( i5 / 4 ) * T1.stride[1] ) ) + ( i5 % 4 ) )] = abs(T0[( ( i4 * T0.stride[0] ) + ( i5 * T0.stride[1] ) )])
} // %kernel
)");
}

// A contiguous input's innermost stride is the literal 1 (no T0.stride[1]); a
// non-contiguous input reads T1.stride[1].
TEST(Indexing, Contiguity) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  TensorView* t1 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  fusion.addInput(t1);
  TensorView* t2 = add(t0, t1);
  fusion.addOutput(t2);

  std::string ir = irAfter(fusion, "indexTensors");
  EXPECT_IR(ir, R"(
%kernel {
  FOR i4 in iS4{i0}:
    FOR i5 in iS5{i1}:
      T2[( ( i4 * T2.stride[0] ) + i5 )] = T0[( ( i4 * T0.stride[0] ) + i5 )] + T1[( ( i4 * T1.stride[0] ) + ( i5 * T1.stride[1] ) )]
} // %kernel
)");
}

// A global operand with a broadcast axis: that axis contributes nothing (index 0) and only
// its other axis is multiplied by its stride.
TEST(Indexing, BroadcastOperandIndexZero) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeConcreteTensor({1, -1});
  TensorView* t1 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  fusion.addInput(t1);
  TensorView* t2 = add(t0, t1);
  fusion.addOutput(t2);

  std::string ir = irAfter(fusion, "indexTensors");
  EXPECT_IR(ir, R"(
%kernel {
  FOR i4 in iS4{i2}:
    FOR i5 in iS5{i1}:
      T2[( ( i4 * T2.stride[0] ) + i5 )] = T0[( i5 * T0.stride[1] )] + T1[( ( i4 * T1.stride[0] ) + ( i5 * T1.stride[1] ) )]
} // %kernel
)");
}

// broadcast() of a 1-D input: the input is read at the consumer's index of the mapped
// (non-broadcast) axis; the broadcast tensor, bound to TIDx, is one register.
TEST(Indexing, BroadcastOpReadsMappedAxis) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  TensorView* t1 = makeSymbolicTensor(1);
  fusion.addInput(t0);
  fusion.addInput(t1);
  TensorView* t2 = broadcast(t1, {true, false});
  TensorView* t3 = add(t0, t2);
  fusion.addOutput(t3);
  t2->axis(1)->parallelize(ParallelType::TIDx);
  t3->axis(0)->parallelize(ParallelType::BIDx);
  t3->axis(1)->parallelize(ParallelType::TIDx);

  std::string ir = irAfter(fusion, "indexTensors");
  EXPECT_IR(ir, R"(
%kernel {
  T2_l_float[bS3{1}, ithreadIdx.x4{i2}] = ALLOCATE(size = 1, mem = l)
  FOR i5 in bS3{1}:
    FOR ((mf_index_t)threadIdx.x) in ithreadIdx.x4{i2}:
      T2[0] = broadcast(T1[( ((mf_index_t)threadIdx.x) * T1.stride[0] )], {true, false})
  FOR ((mf_index_t)blockIdx.x) in iblockIdx.x5{i0}:
    FOR ((mf_index_t)threadIdx.x) in ithreadIdx.x6{i1}:
      T3[( ( ((mf_index_t)blockIdx.x) * T3.stride[0] ) + ((mf_index_t)threadIdx.x) )] = T0[( ( ((mf_index_t)blockIdx.x) * T0.stride[0] ) + ( ((mf_index_t)threadIdx.x) * T0.stride[1] ) )] + T2[0]
} // %kernel
)");
}

// [BIDx, serial 4, TIDx] inlined at 1: a register buffer of 4 written at the serial loop
// index; the consumer, whose loops map to the buffer's, reads at its own serial index s (not
// ((b * 4 + s) * 128 + t) / 128 % 4, the same element through a division and a remainder).
TEST(Indexing, RegisterBufferOfPartialInline) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t1);
  fusion.addOutput(t2);
  for (TensorView* tv : {t1, t2}) {
    tv->split(0, 128)->split(0, 4);
    tv->axis(0)->parallelize(ParallelType::BIDx);
    tv->axis(2)->parallelize(ParallelType::TIDx);
  }
  t1->inlineAt(1);

  std::string ir = irAfter(fusion, "indexTensors");
  EXPECT_IR(ir, R"(
%kernel {
  FOR ((mf_index_t)blockIdx.x) in iblockIdx.x5{ceilDiv(ceilDiv(i0, 128), 4)}:
    T1_l_float[iblockIdx.x5{ceilDiv(ceilDiv(i0, 128), 4)}, iS6{4}, ithreadIdx.x4{128}] ca_pos( 1 ) = ALLOCATE(size = 4, mem = l)
    FOR i12 in iS6{4}:
      FOR ((mf_index_t)threadIdx.x) in ithreadIdx.x4{128}:
        T1[i12] = -T0[( ( ( ( ((mf_index_t)blockIdx.x) * 4 ) + i12 ) * 128 ) + ((mf_index_t)threadIdx.x) )]
    FOR i14 in iS10{4}:
      FOR ((mf_index_t)threadIdx.x) in ithreadIdx.x8{128}:
        T2[( ( ( ( ((mf_index_t)blockIdx.x) * 4 ) + i14 ) * 128 ) + ((mf_index_t)threadIdx.x) )] = exp(T1[i14])
} // %kernel
)");
}

// A vectorized copy is addressed by its first element: the vector axis contributes index 0
// to both operands.
TEST(Indexing, VectorCopyAddressedByFirstElement) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = set(t0);
  fusion.addOutput(t1);
  t1->split(0, 4);
  t1->axis(0)->parallelize(ParallelType::TIDx);
  t1->axis(1)->parallelize(ParallelType::Vectorize);

  std::string ir = irAfter(fusion, "indexTensors");
  EXPECT_IR(ir, R"(
%kernel {
  FOR ((mf_index_t)threadIdx.x) in ithreadIdx.x2{ceilDiv(i0, 4)}:
    FOR i4 in iV3{4}:
      T1[( ((mf_index_t)threadIdx.x) * 4 )] = set(T0[( ((mf_index_t)threadIdx.x) * 4 )])
} // %kernel
)");
}

// Inlined across its broadcast axis, T2 is one register written in every iteration of T3's
// loops from T1 at N's index; its broadcast axis is never indexed (logical index 0).
TEST(Indexing, BroadcastInlinedIntoConsumer) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  TensorView* t1 = makeSymbolicTensor(1);
  fusion.addInput(t0);
  fusion.addInput(t1);
  TensorView* t2 = broadcast(t1, {true, false});
  TensorView* t3 = add(t0, t2);
  fusion.addOutput(t3);
  for (TensorView* tv : {t2, t3}) {
    tv->axis(0)->parallelize(ParallelType::BIDx);
    tv->axis(1)->parallelize(ParallelType::TIDx);
  }
  t2->inlineAt(2);

  EXPECT_IR(irAfter(fusion, "insertPredicates"), R"(
%kernel {
  FOR ((mf_index_t)blockIdx.x) in iblockIdx.x5{i0}:
    FOR ((mf_index_t)threadIdx.x) in ithreadIdx.x4{i2}:
      T2_l_float[bblockIdx.x3{1}, ithreadIdx.x4{i2}] ca_pos( 2 ) = ALLOCATE(size = 1, mem = l)
      T2[0] = broadcast(T1[( ((mf_index_t)threadIdx.x) * T1.stride[0] )], {true, false})
      T3[( ( ((mf_index_t)blockIdx.x) * T3.stride[0] ) + ((mf_index_t)threadIdx.x) )] = T0[( ( ((mf_index_t)blockIdx.x) * T0.stride[0] ) + ( ((mf_index_t)threadIdx.x) * T0.stride[1] ) )] + T2[0]
} // %kernel
)");
}

}  // namespace
}  // namespace mf
