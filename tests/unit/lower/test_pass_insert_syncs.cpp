// insertSyncs: a barrier between a shared-memory write and its first reader (read-after-
// write) in the innermost scope holding both, and at the end of a serial loop around both
// (write-after-read: the next iteration overwrites what this one's readers use).
#include <gtest/gtest.h>

#include "minifuser/minifuser.h"
#include "unit/lower/lower_test_utils.h"

namespace mf {
namespace {

using testing::checkPass;
using testing::checkPassUnchanged;

// Rows of 128 staged in shared memory one at a time (serial loop over rows), then read by
// 64 threads two elements each: RAW before the read, WAR at the end of the row loop.
TEST(InsertSyncs, ReadAfterWriteAndWriteAfterRead) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigConcreteTensor({-1, 128});
  fusion.addInput(t0);
  TensorView* t1 = set(t0);
  TensorView* t2 = exp(t1);
  fusion.addOutput(t2);
  t1->setMemoryType(MemoryType::Shared);
  t1->axis(1)->parallelize(ParallelType::TIDx);
  t2->split(1, 2)->axis(1)->parallelize(ParallelType::TIDx);
  t1->inlineAt(1);
  EXPECT_TRUE(checkPass(fusion, "insertSyncs", R"(
%kernel {
  FOR i12 in iS2{i0}:
    T1_s_float[iS2{i0}, ithreadIdx.x3{128}] ca_pos( 1 ) = ALLOCATE(size = 128, mem = s)
    FOR ((mf_index_t)threadIdx.x) in ithreadIdx.x3{128}:
      IF ( ((mf_index_t)threadIdx.x) < 128 ):
        T1[((mf_index_t)threadIdx.x)] = set(T0[( ( i12 * T0.stride[0] ) + ((mf_index_t)threadIdx.x) )])
    BLOCKSYNC
    FOR ((mf_index_t)threadIdx.x) in ithreadIdx.x6{64}:
      FOR i15 in iS7{2}:
        IF ( ((mf_index_t)threadIdx.x) < 64 ):
          T2[( ( i12 * T2.stride[0] ) + ( ( ((mf_index_t)threadIdx.x) * 2 ) + i15 ) )] = exp(T1[( ( ((mf_index_t)threadIdx.x) * 2 ) + i15 )])
    BLOCKSYNC
} // %kernel
)"));
}

// Registers only: nothing to synchronize.
TEST(InsertSyncs, NoSharedMemoryNoBarrier) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = set(t0);
  fusion.addOutput(exp(t1));
  inlineMost();
  EXPECT_TRUE(checkPassUnchanged(fusion, "insertSyncs"));
}

}  // namespace
}  // namespace mf
