// The CPU reference of sum, prod, max and min: every op and dtype against a plain loop over
// exactly representable data, axes and keep_dim, empty axes, NaN and infinities, integer
// wrap-around as in PyTorch, exact floating sums rounded once, and the tolerance helper.
#include <gmock/gmock.h>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "reduction_tolerance.h"
#include "reference_helpers.h"

namespace {

using namespace mf;
using reftest::makeTensor;
using reftest::runOne;
using reftest::values;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

using ReduceFn = TensorView* (*)(TensorView*, const std::vector<int64_t>&, bool,
                                 std::optional<DataType>);

// Runs fn(T0, axes, keep_dim, dtype) on `in`.
Tensor reduce(ReduceFn fn, const Tensor& in, const std::vector<int64_t>& axes,
              bool keep_dim = false, std::optional<DataType> dtype = std::nullopt) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(in.dim(), in.dtype());
  fusion.addInput(tv0);
  fusion.addOutput(fn(tv0, axes, keep_dim, dtype));
  return runOne(fusion, {in});
}

TEST(ReferenceReduction, RowsAndColumns) {
  Tensor in = makeTensor({1, 2, 3, 4, 5, 6}, {2, 3}, DataType::Float);
  Tensor rows = reduce(sum, in, {1});
  EXPECT_EQ(rows.sizes(), (std::vector<int64_t>{2}));
  EXPECT_EQ(values(rows), (std::vector<double>{6, 15}));
  EXPECT_EQ(values(reduce(sum, in, {-2})), (std::vector<double>{5, 7, 9}));
  EXPECT_EQ(values(reduce(prod, in, {1})), (std::vector<double>{6, 120}));
  EXPECT_EQ(values(reduce(max, in, {0})), (std::vector<double>{4, 5, 6}));
  EXPECT_EQ(values(reduce(min, in, {1})), (std::vector<double>{1, 4}));
  Tensor kept = reduce(sum, in, {1}, /*keep_dim=*/true);
  EXPECT_EQ(kept.sizes(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(values(kept), (std::vector<double>{6, 15}));
  // Empty axes reduce everything, as torch.sum(x, dim=[]).
  Tensor all = reduce(sum, in, {});
  EXPECT_EQ(all.dim(), 0);
  EXPECT_EQ(values(all), (std::vector<double>{21}));
}

// Axes 0 and 2 of [2, 3, 2]: out[j] = sum over i, k of in[i, j, k].
TEST(ReferenceReduction, NonAdjacentAxesKeepDim) {
  Tensor in = Tensor::arange({2, 3, 2}, DataType::Int32);
  Tensor out = reduce(sum, in, {0, -1}, /*keep_dim=*/true);
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{1, 3, 1}));
  EXPECT_EQ(out.dtype(), DataType::Int64);
  // j = 0: 0 + 1 + 6 + 7; j = 1: 2 + 3 + 8 + 9; j = 2: 4 + 5 + 10 + 11.
  EXPECT_EQ(values(out), (std::vector<double>{14, 22, 30}));
}

struct OpDtypeCase {
  std::string name;
  ReduceFn fn;
  BinaryOpType op;
  DataType dtype;
};

class ReferenceReductionOpDtype : public ::testing::TestWithParam<OpDtypeCase> {};

// Small integers (|x| <= 3, rows of 5) keep every sum and product exact in every dtype, so a
// plain double loop, converted once to the result dtype, is the expected value.
TEST_P(ReferenceReductionOpDtype, MatchesAPlainLoop) {
  const OpDtypeCase& c = GetParam();
  constexpr int64_t kRows = 7, kCols = 5;
  std::mt19937_64 rng(17);
  std::uniform_int_distribution<int> dist(c.dtype == DataType::Bool ? 0 : -3,
                                          c.dtype == DataType::Bool ? 1 : 3);
  std::vector<double> data(kRows * kCols);
  for (double& x : data) x = dist(rng);
  Tensor out = reduce(c.fn, makeTensor(data, {kRows, kCols}, c.dtype), {1});
  const bool additive = c.op == BinaryOpType::Add || c.op == BinaryOpType::Mul;
  const bool integral = isIntegralType(c.dtype) || c.dtype == DataType::Bool;
  const DataType expected_dtype = additive && integral ? DataType::Int64 : c.dtype;
  ASSERT_EQ(out.dtype(), expected_dtype);
  std::vector<double> expected;
  for (int64_t r = 0; r < kRows; ++r) {
    double acc = data[r * kCols];
    for (int64_t k = 1; k < kCols; ++k) {
      double x = data[r * kCols + k];
      acc = c.op == BinaryOpType::Add       ? acc + x
            : c.op == BinaryOpType::Mul     ? acc * x
            : c.op == BinaryOpType::Maximum ? std::max(acc, x)
                                            : std::min(acc, x);
    }
    expected.push_back(acc);
  }
  EXPECT_EQ(values(out), values(makeTensor(expected, {kRows}, expected_dtype)));
}

std::vector<OpDtypeCase> opDtypeCases() {
  std::vector<OpDtypeCase> cases;
  struct Op {
    std::string name;
    ReduceFn fn;
    BinaryOpType op;
  };
  for (const Op& op :
       {Op{"sum", sum, BinaryOpType::Add}, Op{"prod", prod, BinaryOpType::Mul},
        Op{"max", max, BinaryOpType::Maximum}, Op{"min", min, BinaryOpType::Minimum}})
    for (DataType t : {DataType::Bool, DataType::Int32, DataType::Int64, DataType::Half,
                       DataType::BFloat16, DataType::Float, DataType::Double})
      cases.push_back({op.name + "_" + std::string(toString(t)), op.fn, op.op, t});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(, ReferenceReductionOpDtype, ::testing::ValuesIn(opDtypeCases()),
                         [](const auto& info) { return info.param.name; });

// Reducing an empty axis gives the identity, as PyTorch.
TEST(ReferenceReduction, EmptyAxisGivesTheIdentity) {
  Tensor empty_rows = Tensor::empty({0, 3}, DataType::Float);
  EXPECT_EQ(values(reduce(sum, empty_rows, {0})), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(values(reduce(prod, empty_rows, {0})), (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(values(reduce(max, empty_rows, {0})), (std::vector<double>{-kInf, -kInf, -kInf}));
  EXPECT_EQ(values(reduce(min, empty_rows, {0})), (std::vector<double>{kInf, kInf, kInf}));
  Tensor empty_cols = Tensor::empty({2, 0}, DataType::Int32);
  EXPECT_EQ(values(reduce(max, empty_cols, {1})),
            (std::vector<double>{std::numeric_limits<int32_t>::min(),
                                 std::numeric_limits<int32_t>::min()}));
  EXPECT_EQ(values(reduce(min, empty_cols, {1})),
            (std::vector<double>{std::numeric_limits<int32_t>::max(),
                                 std::numeric_limits<int32_t>::max()}));
  EXPECT_EQ(values(reduce(sum, empty_cols, {1}, true)), (std::vector<double>{0, 0}));
  // Reducing the non-empty axis of an empty tensor gives an empty result.
  EXPECT_EQ(reduce(sum, empty_cols, {0}).sizes(), (std::vector<int64_t>{0}));
}

TEST(ReferenceReduction, NanPropagatesThroughMaxAndMin) {
  for (DataType t : {DataType::Float, DataType::Half, DataType::BFloat16, DataType::Double}) {
    Tensor in = makeTensor({1, kNan, 3, kNan, 5, 6, 7, 8, 9}, {3, 3}, t);
    std::vector<double> mx = values(reduce(max, in, {1}));
    EXPECT_TRUE(std::isnan(mx[0]) && std::isnan(mx[1])) << toString(t);
    EXPECT_EQ(mx[2], 9);
    std::vector<double> mn = values(reduce(min, in, {0}));
    EXPECT_TRUE(std::isnan(mn[0]) && std::isnan(mn[1])) << toString(t);
    EXPECT_EQ(mn[2], 3);
  }
}

TEST(ReferenceReduction, InfinitiesInSums) {
  Tensor in = makeTensor({kInf, 1, -kInf, kInf, 2, 3, 1, kNan, 1}, {3, 3}, DataType::Float);
  std::vector<double> s = values(reduce(sum, in, {1}));
  EXPECT_TRUE(std::isnan(s[0]));  // inf + (-inf)
  EXPECT_EQ(s[1], kInf);
  EXPECT_TRUE(std::isnan(s[2]));
}

// Integers wrap around in 64 bits, as PyTorch's sums and products do.
TEST(ReferenceReduction, IntegerOverflowWraps) {
  const int64_t big = std::numeric_limits<int64_t>::max();
  Tensor in64 = Tensor::fromVector<int64_t>({big, 1, int64_t{1} << 62, 4}, {2, 2});
  Tensor s = reduce(sum, in64, {1});
  EXPECT_EQ(s.data<int64_t>()[0], std::numeric_limits<int64_t>::min());
  Tensor p = reduce(prod, in64, {1});
  EXPECT_EQ(p.data<int64_t>()[1], 0);  // 2^62 * 4 = 2^64
  // Int32 sums to Int64 by default (no overflow) and wraps in 32 bits when asked for Int32.
  const int32_t big32 = std::numeric_limits<int32_t>::max();
  Tensor in32 = Tensor::fromVector<int32_t>({big32, 1}, {2});
  EXPECT_EQ(reduce(sum, in32, {0}).data<int64_t>()[0], int64_t{big32} + 1);
  EXPECT_EQ(reduce(sum, in32, {0}, false, DataType::Int32).data<int32_t>()[0],
            std::numeric_limits<int32_t>::min());
  // Bool sums count the true values.
  Tensor b = Tensor::fromVector<bool>({true, false, true, true}, {4});
  EXPECT_EQ(reduce(sum, b, {0}).data<int64_t>()[0], 3);
}

// The sum is exact, then rounded once: a running double sum would give 0 and 2^24.
TEST(ReferenceReduction, FloatingSumsAreExact) {
  Tensor d = Tensor::fromVector<double>({1e16, 1, -1e16}, {3});
  EXPECT_EQ(values(reduce(sum, d, {0})), (std::vector<double>{1}));
  const float two24 = 16777216.0f;
  Tensor f = Tensor::fromVector<float>({two24, 1, 1}, {3});
  EXPECT_EQ(values(reduce(sum, f, {0})), (std::vector<double>{two24 + 2}));
  // Half accumulates in Float: 4096 ones sum to 4096 (a half accumulator stops at 2048).
  Tensor h = Tensor::full({4096}, DataType::Half, 1.0);
  Tensor hs = reduce(sum, h, {0});
  EXPECT_EQ(hs.dtype(), DataType::Half);
  EXPECT_EQ(values(hs), (std::vector<double>{4096}));
}

// After rFactor the reference reduces the original axes at once (the rfactor tensor's partial
// results are not materialized); an rfactor tensor rFactor'ed again is refused.
TEST(ReferenceReduction, RFactoredFusionGivesTheSameResult) {
  Tensor in = Tensor::random({5, 11, 3}, DataType::Float, 3);
  Tensor expected = reduce(sum, in, {1, 2});
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(3);
  fusion.addInput(tv0);
  TensorView* tv1 = sum(tv0, {1, 2});
  fusion.addOutput(tv1);
  tv1->merge(1)->split(1, 4);
  TensorView* rf = tv1->rFactor({1});
  EXPECT_EQ(values(runOne(fusion, {in})), values(expected));
  rf->split(0, 2);
  EXPECT_EQ(values(runOne(fusion, {in})), values(expected));

  Fusion twice;
  FusionGuard fg2(&twice);
  TensorView* t0 = makeSymbolicTensor(1);
  twice.addInput(t0);
  TensorView* t1 = sum(t0, {0});
  twice.addOutput(t1);
  t1->split(0, 4)->split(0, 2);
  t1->rFactor({0});
  t1->rFactor({0});
  EXPECT_THAT([&] { ReferenceEvaluator(&twice).run({Tensor::random({8}, DataType::Float, 1)}); },
              ThrowsMessage<UserError>(HasSubstr("reads a tensor rFactor'ed twice")));
}

// The tolerance rule accepts a float-accumulated blocked sum and rejects one that drops a term.
TEST(ReductionTolerance, AcceptsRoundingRejectsAMissingTerm) {
  constexpr int64_t kN = 20011, kThreads = 128;
  Tensor x = Tensor::random({kN}, DataType::Float, 5);
  const float* v = x.data<float>();
  // As a block would: each thread sums a strided slice in float, then a tree in float.
  std::vector<float> partial(kThreads, 0.0f);
  for (int64_t i = 0; i < kN; ++i) partial[i % kThreads] += v[i];
  for (int64_t width = kThreads / 2; width > 0; width /= 2)
    for (int64_t t = 0; t < width; ++t) partial[t] += partial[t + width];
  double sum_abs = 0;
  for (int64_t i = 0; i < kN; ++i) sum_abs += std::fabs(v[i]);
  Tensor ref = reduce(sum, x, {0});
  const int64_t depth = reftest::accumulationDepth(kN, kThreads);
  EXPECT_EQ(depth, (kN + kThreads - 1) / kThreads + 7);
  Tensor abs_sum = Tensor::fromVector<double>({sum_abs}, {});
  reftest::expectSumsClose(Tensor::fromVector<float>({partial[0]}, {}), ref, abs_sum, depth,
                           DataType::Float);
  // Dropping the largest term (near 2) leaves the tolerance (about 0.08 here).
  int64_t largest = 0;
  for (int64_t i = 0; i < kN; ++i)
    if (std::fabs(v[i]) > std::fabs(v[largest])) largest = i;
  const double tol =
      reftest::sumTolerance(DataType::Float, DataType::Float, depth, sum_abs, ref.item(0));
  EXPECT_LT(tol, 0.1);
  EXPECT_GT(std::fabs(v[largest]), 1.9);
  Tensor dropped = Tensor::fromVector<float>({partial[0] - v[largest]}, {});
  EXPECT_NONFATAL_FAILURE(reftest::expectSumsClose(dropped, ref, abs_sum, depth, DataType::Float),
                          "within");
  EXPECT_EQ(reftest::unitRoundoff(DataType::Int64), 0.0);
  EXPECT_EQ(reftest::sumTolerance(DataType::Float, DataType::Half, 1, 0, 1024), 1.0);
}

}  // namespace
