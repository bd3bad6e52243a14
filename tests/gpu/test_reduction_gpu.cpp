// GPU: hand-scheduled serial reductions (one row or one column per thread) of every op and
// dtype against the exact CPU reference, at sizes 1, primes and rows longer than a block, with
// poisoned outputs. Integer results and float max/min must be exact; sums are compared with
// the tolerance rule of docs/numerics.md (unit/reference/reduction_tolerance.h), products with
// its relative form.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "cuda/driver.h"
#include "minifuser/minifuser.h"
#include "unit/codegen/reduction_schedules.h"
#include "unit/reference/reduction_tolerance.h"

namespace mf {
namespace {

using testing::buildScheduled;
using testing::ReduceFn;
using testing::ReductionCase;

// The sum of |x| along the reduced axis, in Double, by the reference.
Tensor sumOfMagnitudes(const Tensor& in, int64_t axis) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2, in.dtype());
  fusion.addInput(t0);
  fusion.addOutput(sum(abs(castOp(DataType::Double, t0)), {axis}));
  return ReferenceEvaluator(&fusion).run({in}).at(0);
}

class ReductionGpu : public ::testing::TestWithParam<ReductionCase> {
 protected:
  void SetUp() override {
    if (!cuda::cudaAvailable()) GTEST_SKIP() << cuda::noDeviceReason();
  }
};

TEST_P(ReductionGpu, MatchesReference) {
  const ReductionCase& c = GetParam();
  uint64_t seed = 99;
  // (rows, columns): size 1, primes, and reductions longer than a 128-thread block.
  for (auto [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{
           {1, 1}, {7, 13}, {131, 1031}, {1000, 3}, {3, 4099}}) {
    Fusion fusion;
    buildScheduled(fusion, c);
    // Products of long rows over/underflow; keep them short enough to stay finite.
    if (c.op == BinaryOpType::Mul)
      (c.inner() ? cols : rows) = std::min<int64_t>(c.inner() ? cols : rows, 17);
    Tensor in = Tensor::random({rows, cols}, c.dtype, seed++);
    KernelExecutor ke;
    ke.compile(&fusion, {in});
    Tensor out = ke.run({in}, {.poison_outputs = true}).at(0);
    Fusion unscheduled;
    {
      FusionGuard fg(&unscheduled);
      TensorView* t0 = makeContigTensor(2, c.dtype);
      unscheduled.addInput(t0);
      unscheduled.addOutput(c.fn(t0, {c.inner() ? 1 : 0}, false, std::nullopt));
    }
    Tensor ref = ReferenceEvaluator(&unscheduled).run({in}).at(0);
    const std::string what = fmt::format("{} [{}, {}]", c.name, rows, cols);
    ASSERT_EQ(out.sizes(), ref.sizes()) << what;
    ASSERT_EQ(out.dtype(), ref.dtype()) << what;
    const int64_t n = c.inner() ? cols : rows;
    const bool exact = !isFloatingType(ref.dtype()) || c.op == BinaryOpType::Maximum ||
                       c.op == BinaryOpType::Minimum;
    if (exact) {
      for (int64_t i = 0; i < ref.numel(); ++i)
        ASSERT_EQ(out.value(i), ref.value(i)) << what << " element " << i;
    } else if (c.op == BinaryOpType::Add) {
      SCOPED_TRACE(what);
      const bool block = c.schedule == ReductionCase::Schedule::RowPerBlock;
      reftest::expectSumsClose(out, ref, sumOfMagnitudes(in, c.inner() ? 1 : 0),
                               reftest::accumulationDepth(n, block ? testing::kReductionBlock : 1),
                               computeType(ref.dtype()));
    } else {
      const double rel = 2 * n * reftest::unitRoundoff(computeType(ref.dtype())) +
                         2 * reftest::unitRoundoff(ref.dtype());
      for (int64_t i = 0; i < ref.numel(); ++i)
        ASSERT_LE(std::fabs(out.item(i) - ref.item(i)), rel * std::fabs(ref.item(i)))
            << what << " element " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(, ReductionGpu, ::testing::ValuesIn(testing::reductionCases()),
                         [](const auto& info) { return info.param.name; });

// NaN anywhere in a row makes its max and min NaN; an empty row gives the identity.
TEST(ReductionGpuSpecial, NanAndEmptyRows) {
  if (!cuda::cudaAvailable()) GTEST_SKIP() << cuda::noDeviceReason();
  for (ReduceFn fn : {static_cast<ReduceFn>(max), static_cast<ReduceFn>(min)}) {
    Fusion fusion;
    ReductionCase c{"nan", fn, BinaryOpType::Maximum, DataType::Float,
                    ReductionCase::Schedule::RowPerThread};
    buildScheduled(fusion, c);
    const double nan = std::nan("");
    Tensor in = Tensor::fromVector<float>({1, static_cast<float>(nan), 3, 4, 5, 6}, {2, 3});
    KernelExecutor ke;
    ke.compile(&fusion, {in});
    Tensor out = ke.run({in}, {.poison_outputs = true}).at(0);
    EXPECT_TRUE(std::isnan(out.item(0)));
    EXPECT_EQ(out.item(1), fn == static_cast<ReduceFn>(max) ? 6 : 4);
    Tensor empty = Tensor::empty({3, 0}, DataType::Float);
    Tensor e = ke.run({empty}, {.poison_outputs = true}).at(0);
    ASSERT_EQ(e.numel(), 3);
    for (int64_t i = 0; i < 3; ++i)
      EXPECT_EQ(e.item(i), fn == static_cast<ReduceFn>(max) ? -INFINITY : INFINITY);
  }
}

}  // namespace
}  // namespace mf
