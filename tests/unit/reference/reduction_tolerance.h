// The tolerance rule for comparing a GPU sum with the exact CPU reference (docs/numerics.md,
// "Reductions"): |gpu - ref| <= 5 * sqrt(depth) * u(acc) * sum|x| + 2 * u(out) * |ref|.
#pragma once

#include <gtest/gtest.h>

#include <cmath>

#include "minifuser.h"

namespace reftest {

using namespace mf;

//! The unit roundoff of `dtype` (half the distance from 1 to the next value); 0 for integers
//! and Bool, which reduce exactly.
inline double unitRoundoff(DataType dtype) {
  switch (dtype) {
    case DataType::Half:
      return std::ldexp(1.0, -11);
    case DataType::BFloat16:
      return std::ldexp(1.0, -8);
    case DataType::Float:
      return std::ldexp(1.0, -24);
    case DataType::Double:
      return std::ldexp(1.0, -53);
    case DataType::Float8_e4m3fn:
      return std::ldexp(1.0, -4);
    default:
      return 0.0;
  }
}

//! The longest chain of roundings one term of an `n`-term sum goes through when each of
//! `threads` threads first sums its ceil(n / threads) terms serially and a tree combines the
//! partial sums: ceil(n / threads) + ceil(log2(threads)). A serial loop is threads = 1.
inline int64_t accumulationDepth(int64_t n, int64_t threads) {
  int64_t tree = 0;
  while ((int64_t{1} << tree) < threads) ++tree;
  return (n + threads - 1) / threads + tree;
}

//! Higham and Mary's probabilistic bound with lambda = 5: rounding errors of random data are
//! independent enough that they grow as sqrt(depth), not depth (the worst case, reached only
//! by adversarial data, which tests do not use).
constexpr double kSumToleranceLambda = 5.0;

//! The allowed |gpu - ref| for one sum: `sum_abs` is the sum of the terms' magnitudes, `ref`
//! the exact sum rounded to `out`, `acc` the accumulator's dtype (Float for narrow floats).
//! The second term allows one ulp of `out` for the GPU's final rounding.
inline double sumTolerance(DataType acc, DataType out, int64_t depth, double sum_abs, double ref) {
  return kSumToleranceLambda * std::sqrt(static_cast<double>(depth)) * unitRoundoff(acc) * sum_abs +
         2 * unitRoundoff(out) * std::fabs(ref);
}

//! Expects each element of `gpu` within sumTolerance of `ref` (same shape and dtype);
//! `sum_abs` holds, per element, the sum of the magnitudes of the terms it adds (the
//! reference evaluator's sum of abs(x) in Double). NaN must meet NaN, infinities the same sign.
inline void expectSumsClose(const Tensor& gpu, const Tensor& ref, const Tensor& sum_abs,
                            int64_t depth, DataType acc) {
  ASSERT_EQ(gpu.sizes(), ref.sizes());
  ASSERT_EQ(gpu.dtype(), ref.dtype());
  ASSERT_EQ(sum_abs.numel(), ref.numel());
  int64_t bad = 0;
  for (int64_t i = 0; i < ref.numel() && bad < 10; ++i) {
    const double g = gpu.item(i), r = ref.item(i);
    if (std::isnan(r) || std::isinf(r)) {
      bool same = std::isnan(r) ? std::isnan(g) : g == r;
      EXPECT_TRUE(same) << "element " << i << ": got " << g << ", expected " << r;
      bad += same ? 0 : 1;
      continue;
    }
    const double tol = sumTolerance(acc, ref.dtype(), depth, sum_abs.item(i), r);
    const bool ok = std::fabs(g - r) <= tol;
    EXPECT_TRUE(ok) << "element " << i << ": got " << g << ", expected " << r << " within " << tol
                    << " (depth " << depth << ", sum|x| " << sum_abs.item(i) << ")";
    bad += ok ? 0 : 1;
  }
}

}  // namespace reftest
