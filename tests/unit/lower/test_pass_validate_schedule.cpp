// validateSchedule: a schedule that can be lowered passes unchanged (the pass only checks;
// its errors are in test_validate_schedule.cpp).
#include <gtest/gtest.h>

#include "minifuser/minifuser.h"
#include "unit/lower/lower_test_utils.h"

namespace mf {
namespace {

using testing::checkPassUnchanged;

// Accepted: the kernel body stays empty and the kernel's copy of the fusion is unchanged
// (vectorized copy along the innermost axis, register tensor inlined, one thread mapping).
TEST(ValidateSchedulePass, ValidScheduleChangesNothing) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = set(t0);
  TensorView* t2 = mul(t1, constFloat(3.0, DataType::Float));
  TensorView* t3 = set(t2);
  fusion.addOutput(t3);
  for (TensorView* tv : {t1, t2, t3}) {
    tv->merge(0)->split(0, 4)->split(0, 128);
    tv->axis(0)->parallelize(ParallelType::BIDx);
    tv->axis(1)->parallelize(ParallelType::TIDx);
  }
  t1->axis(2)->parallelize(ParallelType::Vectorize);
  t3->axis(2)->parallelize(ParallelType::Vectorize);
  inlineMost();

  EXPECT_TRUE(checkPassUnchanged(fusion, "validateSchedule"));
  auto kernel = lowerFusionUpTo(fusion, "validateSchedule", {.verify = true});
  EXPECT_EQ(kernel->ir().mathString(), fusion.mathString());
}

}  // namespace
}  // namespace mf
