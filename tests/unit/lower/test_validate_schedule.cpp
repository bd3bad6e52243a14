// validateSchedule's user errors, one test per message: each names the tensor and the axis
// and says what to do.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "minifuser/minifuser.h"
#include "unit/lower/lower_test_utils.h"

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace mf {
namespace {

using testing::irAfter;

auto validate(const Fusion& fusion) {
  return [&fusion] { irAfter(fusion, "validateSchedule"); };
}

// One tensor cannot bind a hardware dimension to two of its axes.
TEST(ValidateSchedule, ParallelTypeBoundTwice) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  fusion.addOutput(t1);
  t1->axis(0)->parallelize(ParallelType::TIDx);
  t1->axis(1)->parallelize(ParallelType::TIDx);
  EXPECT_THAT(validate(fusion),
              ThrowsMessage<UserError>(HasSubstr(
                  "T1_g_float[ithreadIdx.x2{i0}, ithreadIdx.x3{i1}]: threadIdx.x is bound to "
                  "two axes")));
}

// A vectorized axis must be the innermost loop axis.
TEST(ValidateSchedule, VectorizedAxisNotInnermost) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigConcreteTensor({4, 8});
  fusion.addInput(t0);
  TensorView* t1 = set(t0);
  fusion.addOutput(t1);
  t1->axis(0)->parallelize(ParallelType::Vectorize);
  EXPECT_THAT(validate(fusion),
              ThrowsMessage<UserError>(HasSubstr(
                  "T1_g_float[iV2{4}, iS3{8}]: vectorized axis iV2{4} must be the innermost "
                  "loop axis")));
}

// A vector width must be known when the kernel is generated.
TEST(ValidateSchedule, VectorizedAxisSymbolicExtent) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = set(t0);
  fusion.addOutput(t1);
  t1->axis(0)->parallelize(ParallelType::Vectorize);
  EXPECT_THAT(validate(fusion),
              ThrowsMessage<UserError>(HasSubstr(
                  "T1_g_float[iV1{i0}]: vectorized axis iV1{i0} needs a constant extent")));
}

// 8 floats are 32 bytes, wider than one 16-byte access.
TEST(ValidateSchedule, VectorTooWide) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = set(t0);
  fusion.addOutput(t1);
  t1->split(0, 8);
  t1->axis(1)->parallelize(ParallelType::Vectorize);
  EXPECT_THAT(validate(fusion),
              ThrowsMessage<UserError>(HasSubstr(
                  "T1_g_float[iS2{ceilDiv(i0, 8)}, iV3{8}]: vector width 8 of 32 bytes is not a "
                  "power of two of at most 16 bytes")));
}

// 3 halves are 6 bytes: not a power of two.
TEST(ValidateSchedule, VectorWidthNotPowerOfTwo) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1, DataType::Half);
  fusion.addInput(t0);
  TensorView* t1 = set(t0);
  fusion.addOutput(t1);
  t1->split(0, 3);
  t1->axis(1)->parallelize(ParallelType::Vectorize);
  EXPECT_THAT(validate(fusion),
              ThrowsMessage<UserError>(HasSubstr(
                  "T1_g_half[iS2{ceilDiv(i0, 3)}, iV3{3}]: vector width 3 of 6 bytes is not a "
                  "power of two of at most 16 bytes")));
}

// Only copies are vectorized; arithmetic runs on registers staged by a vectorized copy.
TEST(ValidateSchedule, VectorizedNonCopy) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  fusion.addOutput(t1);
  t1->split(0, 4);
  t1->axis(1)->parallelize(ParallelType::Vectorize);
  EXPECT_THAT(validate(fusion),
              ThrowsMessage<UserError>(HasSubstr(
                  "T1_g_float[iS2{ceilDiv(i0, 4)}, iV3{4}]: only the output of a set() copy can "
                  "be vectorized; vectorize the copy that stages it and compute on registers")));
}

// Regression: a copy into a column-major output vectorized along (a split of) logical axis
// 0 writes adjacent elements, but read 4 adjacent elements of a row of the row-major input
// instead of 4 rows. The vectorized axis must run along the innermost allocation axis of
// each global operand.
TEST(ValidateSchedule, VectorizedAxisNotInnermostInInputMemory) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = set(t0);
  fusion.addOutput(t1);
  t1->setAllocationDomain({t1->axis(1), t1->axis(0)}, true);
  t1->reorder({{0, 1}})->split(1, 4);
  t1->axis(0)->parallelize(ParallelType::TIDx);
  t1->axis(1)->parallelize(ParallelType::BIDx);
  t1->axis(2)->parallelize(ParallelType::Vectorize);
  EXPECT_THAT(validate(fusion),
              ThrowsMessage<UserError>(HasSubstr(
                  "T1_g_float[ithreadIdx.x3{i1}, iblockIdx.x4{ceilDiv(i0, 4)}, iV5{4}]: "
                  "vectorized axis iV5{4} does not run along iS1{i1}, the innermost allocation "
                  "axis of T0_g_float[iS0{i0}, iS1{i1}], so the elements of a vector are not "
                  "adjacent in memory; vectorize an inner split of that axis")));
}

// Vectorized along logical axis 1, innermost in the row-major input but not in the
// column-major output, whose innermost allocation axis is logical axis 0.
TEST(ValidateSchedule, VectorizedAxisNotInnermostInOutputMemory) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = set(t0);
  fusion.addOutput(t1);
  t1->setAllocationDomain({t1->axis(1), t1->axis(0)}, true);
  t1->split(1, 4);
  t1->axis(2)->parallelize(ParallelType::Vectorize);
  EXPECT_THAT(validate(fusion),
              ThrowsMessage<UserError>(HasSubstr(
                  "T1_g_float[iS2{i0}, iS4{ceilDiv(i1, 4)}, iV5{4}]: vectorized axis iV5{4} "
                  "does not run along iS2{i0}, the innermost allocation axis of "
                  "T1_g_float[iS2{i0}, iS4{ceilDiv(i1, 4)}, iV5{4}]")));
}

// A register tensor at position 0 with a symbolic serial axis needs a buffer of unknown size.
TEST(ValidateSchedule, SymbolicRegisterBuffer) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t1);
  fusion.addOutput(t2);
  t1->split(1, 4);
  t2->split(1, 4);
  t1->inlineAt(1);
  EXPECT_THAT(validate(fusion),
              ThrowsMessage<UserError>(HasSubstr(
                  "T1_l_float[iS2{i0}, iS6{ceilDiv(i1, 4)}, iS7{4}] ca_pos( 1 ) is held in "
                  "registers but needs a buffer of symbolic size ( ceilDiv(i1, 4) * 4 ); inline "
                  "it (inlineAt / inlineMost), bind its axes to threads, or split by constants")));
}

// Regression: T1 (blocks of 128) was read by T2 (blocks of 64) from registers of threads
// that never computed those elements. A tensor read by a consumer must bind each thread or
// block axis to the consumer's matching axis.
TEST(ValidateSchedule, ConsumerReadsOtherThreadsElements) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t1);
  fusion.addOutput(t2);
  t1->split(0, 128);
  t2->split(0, 64);
  for (TensorView* tv : {t1, t2}) {
    tv->axis(0)->parallelize(ParallelType::BIDx);
    tv->axis(1)->parallelize(ParallelType::TIDx);
  }
  EXPECT_THAT(validate(fusion),
              ThrowsMessage<UserError>(HasSubstr(
                  "T1_l_float[iblockIdx.x3{ceilDiv(i0, 128)}, ithreadIdx.x4{128}]: axis 0 "
                  "(iblockIdx.x3{ceilDiv(i0, 128)}) is bound to blockIdx.x but its consumer "
                  "T2_g_float[iblockIdx.x5{ceilDiv(i0, 64)}, ithreadIdx.x6{64}] binds no "
                  "matching axis to blockIdx.x, so threads would read elements other threads "
                  "computed; split, merge and parallelize the two alike")));
}

// A thread axis of the producer read by a serial loop of the consumer is rejected too.
TEST(ValidateSchedule, ConsumerReadsThreadAxisSerially) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t1);
  fusion.addOutput(t2);
  t1->axis(0)->parallelize(ParallelType::TIDx);
  EXPECT_THAT(validate(fusion),
              ThrowsMessage<UserError>(HasSubstr(
                  "T1_l_float[ithreadIdx.x1{i0}]: axis 0 (ithreadIdx.x1{i0}) is bound to "
                  "threadIdx.x but its consumer T2_g_float[iS2{i0}] binds no matching axis")));
}

// Regression: a broadcast axis bound to TIDx is computed by thread 0 only (the other
// threads are guarded off), but every thread of the consumer reads it from its own
// registers.
TEST(ValidateSchedule, BroadcastAxisBoundToThreads) {
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
    tv->axis(0)->parallelize(ParallelType::TIDx);
    tv->axis(1)->parallelize(ParallelType::BIDx);
  }
  EXPECT_THAT(
      validate(fusion),
      ThrowsMessage<UserError>(HasSubstr(
          "T2_l_float[bthreadIdx.x3{1}, iblockIdx.x4{i2}]: axis 0 (bthreadIdx.x3{1}) is "
          "bound to threadIdx.x but covers a broadcast axis that its consumer "
          "T3_g_float[ithreadIdx.x5{i0}, iblockIdx.x6{i1}] iterates, so one thread "
          "would compute what every thread reads; leave broadcast axes serial or inline the "
          "tensor into its consumer")));
}

// Regression: a producer scheduled after inlineAt keeps a compute-at position whose axes no
// longer map to its consumer's.
TEST(ValidateSchedule, ComputeAtPositionNoLongerMaps) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeConcreteTensor({-1, 8});
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t1);
  fusion.addOutput(t2);
  t1->inlineAt(2);
  t1->split(1, 4);
  EXPECT_THAT(validate(fusion),
              ThrowsMessage<UserError>(HasSubstr(
                  "T1_l_float[iS2{i0}, iS6{2}, iS7{4}] ca_pos( 2 ): compute-at position 2 is "
                  "past 1, the last position whose axes map to all its consumers' (scheduled "
                  "after inlineAt?); inline after the last split, merge or parallelize")));
}

// The layout op reads its offsets whole: offsets computed in the kernel are rejected.
TEST(ValidateSchedule, LayoutOpOffsetsComputedInKernel) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* in = makeSymbolicTensor(2);
  TensorView* in_off = makeSymbolicTensor(1, DataType::Int32);
  TensorView* out_off = makeSymbolicTensor(1, DataType::Int32);
  fusion.addInput(in);
  fusion.addInput(in_off);
  fusion.addInput(out_off);
  TensorView* out_off1 = add(out_off, constInt(1, DataType::Int32));
  TensorView* out = preprocessGroupedMatmulInputSf(in, in_off, out_off1);
  fusion.addOutput(out);
  EXPECT_THAT(validate(fusion),
              ThrowsMessage<UserError>(HasSubstr(
                  "preprocessGroupedMatmulInputSf: output_offsets T3_l_int32[iS4{i3}] is "
                  "computed in the kernel, but the op reads the offsets whole, so they must be "
                  "fusion inputs")));
}

// Regression: relu of the layout op's output read the padded, swizzled buffer at logical
// indices (an internal error in indexing). Any use of the output is a user error.
TEST(ValidateSchedule, LayoutOpOutputRead) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* in = makeSymbolicTensor(2);
  TensorView* in_off = makeSymbolicTensor(1, DataType::Int32);
  TensorView* out_off = makeSymbolicTensor(1, DataType::Int32);
  fusion.addInput(in);
  fusion.addInput(in_off);
  fusion.addInput(out_off);
  TensorView* out = preprocessGroupedMatmulInputSf(in, in_off, out_off);
  TensorView* r = relu(out);
  fusion.addOutput(out);
  fusion.addOutput(r);
  EXPECT_THAT(validate(fusion),
              ThrowsMessage<UserError>(
                  HasSubstr("unsafe use of the output of preprocessGroupedMatmulInputSf: "
                            "T3_g_float[iS4{i0}, iS5{i1}] is read by T4_g_float[iS8{i0}, iS9{i1}], "
                            "but only a block-scaled grouped GEMM "
                            "can read the padded, swizzled layout; do not use it in the fusion")));
}

// Regression: an output set to Local memory reached NVRTC as an InternalError.
TEST(ValidateSchedule, OutputInRegisters) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  fusion.addOutput(t1);
  t1->setMemoryType(MemoryType::Local);
  EXPECT_THAT(validate(fusion),
              ThrowsMessage<UserError>(
                  HasSubstr("T1_l_float[iS1{i0}]: a fusion output must be in global memory, got "
                            "MemoryType::Local; leave the memory type addOutput set")));
}

// A fusion output lives in global memory; the message names the memory type it was given.
TEST(ValidateSchedule, SharedOutput) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  fusion.addOutput(t1);
  t1->setMemoryType(MemoryType::Shared);
  EXPECT_THAT(validate(fusion), ThrowsMessage<UserError>(HasSubstr(
                                    "T1_s_float[iS1{i0}]: a fusion output must be in global "
                                    "memory, got MemoryType::Shared")));
}

// Regression: a symbolic scalar that is not a fusion input reached NVRTC as an undeclared
// identifier (an InternalError); the reference evaluator already rejected it.
TEST(ValidateSchedule, ScalarThatIsNotAnInput) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  Val* s = newScalar(DataType::Float);
  TensorView* t1 = mul(t0, s);
  fusion.addOutput(t1);
  EXPECT_THAT(validate(fusion),
              ThrowsMessage<UserError>(HasSubstr(
                  "T1_g_float[iS1{i0}] = T0 * f1 uses the scalar f1, which is neither a fusion "
                  "input nor computed from fusion inputs and constants; add it with addInput")));
}

// A split by a symbolic factor that is not an input cannot be evaluated at launch either.
TEST(ValidateSchedule, SplitFactorThatIsNotAnInput) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  fusion.addOutput(t1);
  Val* factor = newScalar(DataType::Index);
  t1->split(0, factor);
  EXPECT_THAT(validate(fusion),
              ThrowsMessage<UserError>(HasSubstr(
                  "T1_g_float[iS2{ceilDiv(i0, i1)}, iS3{i1}] uses the scalar i1, which is "
                  "neither a fusion input")));
}

}  // namespace
}  // namespace mf
