// Helpers of the lowering tests: kernel IR after one pass (with the kernel-IR checks run
// after every pass) and expected texts written as raw strings.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "lower/pipeline.h"

namespace mf::testing {

//! The printed kernel IR after `pass`, verified after every pass.
inline std::string irAfter(const Fusion& fusion, std::string_view pass,
                           DataType index_type = DataType::Int64) {
  return lowerFusionUpTo(fusion, pass, {.index_type = index_type, .verify = true})->toString();
}

//! An expected text written as R"(<newline>...)": the first newline is dropped.
inline std::string text(std::string_view s) {
  if (!s.empty() && s.front() == '\n') s.remove_prefix(1);
  return std::string(s);
}

}  // namespace mf::testing

//! Compares printed IR with an expected raw string and prints the actual text on mismatch.
#define EXPECT_IR(actual, expected) \
  EXPECT_EQ(actual, ::mf::testing::text(expected)) << "actual:\n" << (actual)
