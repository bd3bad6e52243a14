// Helpers of the lowering tests: one pass's input and output IR compared with an expected
// text written as a raw string (TVM's before/expected, reported the way Halide's
// test/correctness/simplify.cpp reports a failed rule: input, output, expected).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "lower/pipeline.h"

namespace mf::testing {

//! A callable that lowers `fusion` whole, for EXPECT_THAT(lowering(f), ThrowsMessage<...>).
inline auto lowering(const Fusion& fusion) {
  return [&fusion] { lowerFusion(fusion); };
}

//! The printed kernel IR after `pass`, verified after every pass.
inline std::string irAfter(const Fusion& fusion, std::string_view pass,
                           DataType index_type = DataType::Int64) {
  return lowerFusionUpTo(fusion, pass, {.index_type = index_type, .verify = true})->toString();
}

//! The printed kernel IR that `pass` receives: after the pass before it in the table (the
//! empty kernel for the first pass).
inline std::string irBefore(const Fusion& fusion, std::string_view pass,
                            DataType index_type = DataType::Int64) {
  const std::vector<PassEntry>& passes = loweringPasses();
  for (size_t i = 1; i < passes.size(); ++i)
    if (passes[i].name == pass) return irAfter(fusion, passes[i - 1].name, index_type);
  return Kernel(fusion).toString();
}

//! An expected text written as R"(<newline>...)": the first newline is dropped.
inline std::string text(std::string_view s) {
  if (!s.empty() && s.front() == '\n') s.remove_prefix(1);
  return std::string(s);
}

//! Runs the pipeline up to `pass` and compares its output with `expected`; on a mismatch
//! the failure shows the pass's input, its output and the expected text.
//!   EXPECT_TRUE(checkPass(fusion, "insertPredicates", R"(
//!   %kernel { ... } // %kernel
//!   )"));
inline ::testing::AssertionResult checkPass(const Fusion& fusion, std::string_view pass,
                                            std::string_view expected,
                                            DataType index_type = DataType::Int64) {
  std::string after = irAfter(fusion, pass, index_type);
  if (after == text(expected)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << pass << " on\n"
                                       << irBefore(fusion, pass, index_type) << "gave\n"
                                       << after << "but expected\n"
                                       << text(expected);
}

//! `pass` leaves the IR as it received it.
inline ::testing::AssertionResult checkPassUnchanged(const Fusion& fusion, std::string_view pass,
                                                     DataType index_type = DataType::Int64) {
  std::string before = irBefore(fusion, pass, index_type);
  std::string after = irAfter(fusion, pass, index_type);
  if (after == before) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << pass << " should leave unchanged\n"
                                       << before << "but gave\n"
                                       << after;
}

}  // namespace mf::testing

//! Compares printed IR with an expected raw string and prints the actual text on mismatch.
#define EXPECT_IR(actual, expected) \
  EXPECT_EQ(actual, ::mf::testing::text(expected)) << "actual:\n" << (actual)
