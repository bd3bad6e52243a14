// GPU: automatically scheduled reductions through FusionExecutorCache against the exact CPU
// reference, with fresh random inputs (host and device) and poisoned outputs, at sizes 1,
// primes and rows longer than a block: every op and a few dtypes as inner and outer
// reductions, and the fusions of the segmentation tests (unit/segmenter/reduction_fusions.h).
// Integer results and max/min are exact; sums use the rule of docs/numerics.md.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "cuda/driver.h"
#include "minifuser.h"
#include "unit/reference/reduction_tolerance.h"
#include "unit/segmenter/reduction_fusions.h"

namespace mf {
namespace {

class ReductionSchedulerGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::cudaAvailable()) GTEST_SKIP() << cuda::noDeviceReason();
  }
};

// (m, n): size 1, primes, a reduction longer than a block, a long column.
const std::vector<std::pair<int64_t, int64_t>> kSizes = {{1, 1},    {7, 13},   {131, 1031},
                                                         {3, 4099}, {1000, 3}, {2, 70001}};

// |gpu - ref| <= abs_tol + rel_tol * |ref| at every element; NaN meets NaN.
void expectClose(const std::vector<Tensor>& got, const std::vector<Tensor>& ref, double abs_tol,
                 double rel_tol, const std::string& what) {
  ASSERT_EQ(got.size(), ref.size()) << what;
  for (size_t o = 0; o < ref.size(); ++o) {
    Tensor g = got[o].toHost();
    ASSERT_EQ(g.sizes(), ref[o].sizes()) << what;
    ASSERT_EQ(g.dtype(), ref[o].dtype()) << what;
    for (int64_t i = 0; i < ref[o].numel(); ++i) {
      const double a = g.item(i), b = ref[o].item(i);
      if (std::isnan(b)) {
        ASSERT_TRUE(std::isnan(a)) << what << " output " << o << " element " << i;
        continue;
      }
      ASSERT_LE(std::fabs(a - b), abs_tol + rel_tol * std::fabs(b))
          << what << " output " << o << " element " << i << ": " << a << " vs " << b;
    }
  }
}

// One op over one axis of a [m, n] tensor of `dtype`, through one cache at every size.
struct OpCase {
  std::string name;
  TensorView* (*fn)(TensorView*, const std::vector<int64_t>&, bool, std::optional<DataType>);
  bool exact_for_floats;
};

void runOp(const OpCase& op, DataType dtype, int64_t axis) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* x = makeContigTensor(2, dtype);
    fusion->addInput(x);
    fusion->addOutput(op.fn(x, {axis}, false, std::nullopt));
  }
  FusionExecutorCache fec(std::move(fusion));
  uint64_t seed = 7;
  for (auto [m, n] : kSizes) {
    for (bool device : {false, true}) {
      std::vector<Tensor> in = {Tensor::random({m, n}, dtype, seed++)};
      std::vector<Tensor> ref = ReferenceEvaluator(fec.fusion()).run(in);
      if (device) in[0] = in[0].toDevice();
      std::vector<Tensor> out = fec.runFusionWithInputs(in, {.poison_outputs = true});
      const std::string what =
          fmt::format("{} {} axis {} [{}, {}] device={}", op.name, dtype, axis, m, n, device);
      const int64_t terms = axis == 1 ? n : m;
      const DataType acc = computeType(ref[0].dtype());
      if (!isFloatingType(ref[0].dtype()) || op.exact_for_floats) {
        expectClose(out, ref, 0, 0, what);
      } else {
        // Random terms of magnitude < 2: sum|x| <= 2 * terms; the depth at most the row.
        const double tol = reftest::sumTolerance(acc, ref[0].dtype(), terms, 2.0 * terms, 0.0);
        expectClose(out, ref, tol, 2 * reftest::unitRoundoff(ref[0].dtype()), what);
      }
    }
  }
}

TEST_F(ReductionSchedulerGpu, EveryOpInnerAndOuter) {
  for (const OpCase& op :
       {OpCase{"sum", sum, false}, OpCase{"max", max, true}, OpCase{"min", min, true}})
    for (DataType dtype : {DataType::Float, DataType::BFloat16, DataType::Int32})
      for (int64_t axis : {0, 1}) runOp(op, dtype, axis);
}

// Outer reductions with vectors along the columns (each thread keeps V running results,
// the block and grid reductions take the V values in one call): column counts whose vector
// width is 4 or 8 (bf16), 2, and 1 (odd), a partial block of vectors (1028 = 257 vectors of
// 4) and a single vector; rows from 1 to long columns shared by several blocks (cross_block;
// 8192 x 4096 is the benchmark's schedule with a quarter of its rows, small enough for the
// sanitizers). Each case also checks the heuristics chose what it means to test.
TEST_F(ReductionSchedulerGpu, VectorizedOuter) {
  struct Case {
    int64_t m, n;
    DataType dtype;
    int64_t vector;
    bool cross_block;
  };
  const std::vector<Case> cases = {
      {1, 4096, DataType::Float, 4, false},      {7, 4096, DataType::Float, 4, false},
      {4099, 1028, DataType::Float, 4, true},    {131, 4094, DataType::Float, 2, false},
      {4099, 4093, DataType::Float, 1, true},    {8192, 4096, DataType::Float, 4, true},
      {4099, 4, DataType::Float, 4, true},       {13, 24, DataType::BFloat16, 8, false},
      {8192, 4096, DataType::BFloat16, 8, true}, {4099, 1000, DataType::BFloat16, 8, true},
  };
  for (const OpCase& op : {OpCase{"sum", sum, false}, OpCase{"max", max, true}}) {
    for (const Case& c : cases) {
      auto fusion = std::make_unique<Fusion>();
      {
        FusionGuard fg(fusion.get());
        TensorView* x = makeContigTensor(2, c.dtype);
        fusion->addInput(x);
        fusion->addOutput(op.fn(x, {0}, false, std::nullopt));
      }
      FusionExecutorCache fec(std::move(fusion));
      std::vector<Tensor> in = {Tensor::random({c.m, c.n}, c.dtype, 31).toDevice()};
      std::vector<Tensor> ref = ReferenceEvaluator(fec.fusion()).run({in[0].toHost()});
      auto runOnHost = [&] {
        std::vector<Tensor> result = fec.runFusionWithInputs(in, {.poison_outputs = true});
        for (Tensor& t : result) t = t.toHost();
        return result;
      };
      std::vector<Tensor> out = runOnHost();
      const std::string what = fmt::format("{} {} [{}, {}]", op.name, c.dtype, c.m, c.n);
      auto* p = dynamic_cast<const ReductionParams*>(
          fec.getMostRecentKernelRuntime()->heuristics().at(0));
      ASSERT_NE(p, nullptr) << what;
      EXPECT_FALSE(p->inner_reduction) << what;
      EXPECT_EQ(p->vectorization_factor, c.vector) << what;
      EXPECT_EQ(p->cross_block, c.cross_block) << what;
      if (op.exact_for_floats) {
        expectClose(out, ref, 0, 0, what);
      } else {
        const double tol = reftest::sumTolerance(DataType::Float, c.dtype, c.m, 2.0 * c.m, 0.0);
        expectClose(out, ref, tol, 2 * reftest::unitRoundoff(c.dtype), what);
      }
      // A second run reuses the executor: the grid reduction's semaphores are back at 0.
      expectClose(runOnHost(), out, 0, 0, what + " (second run, bitwise equal)");
    }
  }
}

// Reductions of any axis set of a [a, b, c] tensor (the schedule merges the iteration axes
// and the reduction axes into one each): the middle axis (an outer schedule over columns
// a*c apart), the outer and inner axes together (an inner schedule over rows whose runs of
// c are b*c apart, vectorized only within a run), each through one cache at every size.
void runAxes(const std::vector<int64_t>& axes) {
  const std::vector<std::vector<int64_t>> sizes = {{1, 1, 1},    {3, 7, 13},    {5, 1031, 4},
                                                   {2, 3, 4099}, {17, 129, 32}, {64, 3, 64}};
  for (bool is_sum : {true, false}) {
    auto fusion = std::make_unique<Fusion>();
    {
      FusionGuard fg(fusion.get());
      TensorView* x = makeContigTensor(3);
      fusion->addInput(x);
      fusion->addOutput(is_sum ? sum(x, axes) : max(x, axes));
    }
    FusionExecutorCache fec(std::move(fusion));
    uint64_t seed = 23;
    for (const std::vector<int64_t>& size : sizes) {
      for (bool device : {false, true}) {
        std::vector<Tensor> in = {Tensor::random(size, DataType::Float, seed++)};
        std::vector<Tensor> ref = ReferenceEvaluator(fec.fusion()).run(in);
        if (device) in[0] = in[0].toDevice();
        std::vector<Tensor> out = fec.runFusionWithInputs(in, {.poison_outputs = true});
        const std::string what =
            fmt::format("{} axes [{}] of [{}] device={}", is_sum ? "sum" : "max",
                        fmt::join(axes, ", "), fmt::join(size, ", "), device);
        if (!is_sum) {
          expectClose(out, ref, 0, 0, what);
          continue;
        }
        int64_t terms = 1;
        for (int64_t a : axes) terms *= size[a];
        const double tol =
            reftest::sumTolerance(DataType::Float, DataType::Float, terms, 2.0 * terms, 0.0);
        expectClose(out, ref, tol, 2 * reftest::unitRoundoff(DataType::Float), what);
      }
    }
  }
}

TEST_F(ReductionSchedulerGpu, MiddleAxis) {
  runAxes({1});
}
TEST_F(ReductionSchedulerGpu, OuterAndInnerAxes) {
  runAxes({0, 2});
}

void runFusion(const redtest::ReductionFusion& rf, double rel_tol_per_term) {
  FusionExecutorCache fec(std::make_unique<Fusion>(*rf.fusion));
  uint64_t seed = 11;
  for (auto [m, n] : kSizes) {
    if (m * n > 300000) continue;  // the 5-D and 3-D fusions multiply the sizes
    for (bool device : {false, true}) {
      std::vector<Tensor> in = rf.inputs(m, n, seed++);
      std::vector<Tensor> ref = ReferenceEvaluator(fec.fusion()).run(in);
      if (device)
        for (Tensor& t : in)
          if (t.dim() > 0) t = t.toDevice();
      std::vector<Tensor> out = fec.runFusionWithInputs(in, {.poison_outputs = true});
      int64_t terms = 1;
      for (const Tensor& t : in) terms = std::max(terms, t.numel());
      expectClose(out, ref, rel_tol_per_term * terms, 1e-5,
                  fmt::format("[{}, {}] device={}", m, n, device));
    }
  }
}

TEST_F(ReductionSchedulerGpu, ReduceThenPointwise) {
  runFusion(redtest::reducePointwise(), 0);
}
TEST_F(ReductionSchedulerGpu, FourChainedSums) {
  runFusion(redtest::fourChainedSums(), 1e-6);
}
TEST_F(ReductionSchedulerGpu, ScalarsBeforeAndAfterReductions) {
  runFusion(redtest::scalarsAroundReductions(), 1e-6);
}
TEST_F(ReductionSchedulerGpu, DifferentAxesOfOneInput) {
  runFusion(redtest::differentAxes(), 1e-6);
}
TEST_F(ReductionSchedulerGpu, TwoIndependentReductions) {
  runFusion(redtest::islands(), 1e-6);
}
TEST_F(ReductionSchedulerGpu, BiasMaxKeepDim) {
  runFusion(redtest::biasMaxKeepDim(1), 0);
  runFusion(redtest::biasMaxKeepDim(0), 0);
}
TEST_F(ReductionSchedulerGpu, SameAxesShareOneKernel) {
  runFusion(redtest::sumAndMaxOfRows(), 1e-6);
}

// max/min reductions whose results only arithmetic reads (x * 1 here) run on the
// one-instruction mf_maximumAnyNaN/mf_minimumAnyNaN, serially, across a block and across a
// grid: +0 is still above -0 and a NaN still wins. Rows of zeros of random signs (some all
// -0, some all +0, one +0 among -0s), some with a NaN, against the reference sign for sign.
TEST_F(ReductionSchedulerGpu, MaxMinIntoArithmeticKeepSignedZerosAndNaN) {
  using ReduceFn =
      TensorView* (*)(TensorView*, const std::vector<int64_t>&, bool, std::optional<DataType>);
  for (ReduceFn fn : {static_cast<ReduceFn>(max), static_cast<ReduceFn>(min)}) {
    for (int64_t axis : {0, 1}) {
      auto fusion = std::make_unique<Fusion>();
      {
        FusionGuard fg(fusion.get());
        TensorView* x = makeContigTensor(2);
        fusion->addInput(x);
        fusion->addOutput(mul(fn(x, {axis}, false, std::nullopt), constFloat(1.0)));
      }
      FusionExecutorCache fec(std::move(fusion));
      uint64_t seed = 11;
      for (auto [m, n] : kSizes) {
        std::vector<float> v(static_cast<size_t>(m * n));
        const int64_t lines = axis == 1 ? m : n, len = axis == 1 ? n : m;
        auto at = [&](int64_t line, int64_t k) { return axis == 1 ? line * n + k : k * n + line; };
        std::mt19937 gen(static_cast<uint32_t>(seed++));
        for (int64_t line = 0; line < lines; ++line) {
          const int64_t kind = line % 4;  // random signs, all -0, all +0 but one, NaN
          for (int64_t k = 0; k < len; ++k) {
            const bool negative = kind == 1 || (kind == 2 && k != len / 2) ||
                                  ((kind == 0 || kind == 3) && gen() % 2 == 0);
            v[at(line, k)] = negative ? -0.0f : 0.0f;
          }
          if (kind == 3) v[at(line, static_cast<int64_t>(gen() % len))] = NAN;
        }
        Tensor in = Tensor::fromVector<float>(v, {m, n});
        std::vector<Tensor> ref = ReferenceEvaluator(fec.fusion()).run({in});
        Tensor out =
            fec.runFusionWithInputs({in.toDevice()}, {.poison_outputs = true}).at(0).toHost();
        const std::string what = fmt::format(
            "{} axis {} [{}, {}]", fn == static_cast<ReduceFn>(max) ? "max" : "min", axis, m, n);
        ASSERT_EQ(out.sizes(), ref[0].sizes()) << what;
        for (int64_t i = 0; i < out.numel(); ++i) {
          const double got = out.item(i), want = ref[0].item(i);
          if (std::isnan(want)) {
            EXPECT_TRUE(std::isnan(got)) << what << " element " << i;
          } else {
            EXPECT_EQ(got, want) << what << " element " << i;
            EXPECT_EQ(std::signbit(got), std::signbit(want)) << what << " element " << i;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace mf
