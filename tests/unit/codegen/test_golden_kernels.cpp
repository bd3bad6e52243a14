// Golden kernels: the CUDA generated for each named fusion is pinned in tests/golden/*.cu
// (MINIFUSER_UPDATE_GOLDEN=1 rewrites them) and must compile with NVRTC for sm_90.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "codegen/codegen.h"
#include "cuda/nvrtc.h"
#include "cuda/runtime_sources.h"
#include "lower/pipeline.h"
#include "random/kernel_interpreter.h"
#include "reference/reference_evaluator.h"
#include "unit/codegen/golden_fusions.h"
#include "unit/codegen/reduction_schedules.h"

namespace mf {
namespace {

using testing::GoldenFusion;

class GoldenKernel : public ::testing::TestWithParam<GoldenFusion> {};

std::string readFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The generated kernel equals its golden file, and the full source compiles for sm_90.
TEST_P(GoldenKernel, MatchesGoldenAndCompiles) {
  const GoldenFusion& g = GetParam();
  Fusion fusion;
  FusionGuard fg(&fusion);
  g.build(fusion);
  verifyFusion(fusion);
  std::unique_ptr<Kernel> kernel =
      lowerFusion(fusion, {.index_type = DataType::Int64, .verify = true});
  GeneratedKernel code = generateCuda(*kernel, cuda::runtimePrelude());

  std::string path = std::string(MF_SOURCE_DIR) + "/tests/golden/" + g.name + ".cu";
  if (options().update_golden) {
    std::ofstream(path) << code.kernel_code;
  } else {
    std::string golden = readFile(path);
    ASSERT_FALSE(golden.empty()) << "missing golden file " << path
                                 << " (run with MINIFUSER_UPDATE_GOLDEN=1)";
    EXPECT_EQ(code.kernel_code, golden) << "generated kernel differs from " << path;
  }

  cuda::CompiledKernel compiled =
      cuda::compileWithNvrtc(code.full_source, code.name, cuda::NvrtcOptions{});
  EXPECT_FALSE(compiled.cubin.empty()) << compiled.log;
  EXPECT_EQ(compiled.arch, "sm_90");
  EXPECT_THAT(compiled.ptx, ::testing::HasSubstr(".entry " + code.name));
}

// Each golden kernel, run on the host kernel interpreter at a few sizes, computes what the
// reference computes (within the fusion's tolerance): its indexing and predicates are right
// without a GPU. Kernels the interpreter does not model (shared memory, block reductions,
// the layout op) are skipped.
TEST_P(GoldenKernel, HostInterpreterMatchesReference) {
  const GoldenFusion& g = GetParam();
  Fusion fusion;
  FusionGuard fg(&fusion);
  g.build(fusion);
  std::unique_ptr<Kernel> kernel =
      lowerFusion(fusion, {.index_type = DataType::Int64, .verify = true});
  for (int64_t n : {1, 5, 37}) {
    std::vector<Tensor> inputs = g.inputs(n, static_cast<uint64_t>(n));
    std::optional<std::vector<Tensor>> outputs = testing::interpretKernel(*kernel, inputs);
    if (!outputs) GTEST_SKIP() << "the interpreter does not model this kernel";
    std::vector<Tensor> reference = ReferenceEvaluator(&fusion).run(inputs);
    ASSERT_EQ(outputs->size(), reference.size());
    for (size_t o = 0; o < reference.size(); ++o)
      for (int64_t i = 0; i < reference[o].numel(); ++i) {
        const double got = (*outputs)[o].item(i), want = reference[o].item(i);
        const bool same = std::isnan(want)
                              ? std::isnan(got)
                              : std::abs(got - want) <= g.tolerance * (1 + std::abs(want));
        ASSERT_TRUE(same) << "n = " << n << ", output " << o << " element " << i << ": got " << got
                          << ", reference " << want;
      }
  }
}

INSTANTIATE_TEST_SUITE_P(Codegen, GoldenKernel, ::testing::ValuesIn(testing::goldenFusions()),
                         [](const auto& info) { return info.param.name; });

// The 32-bit index variant differs only in the index typedef, and compiles too.
TEST(GoldenKernelIndexType, Int32SourceCompiles) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  testing::goldenFusions()[0].build(fusion);
  std::unique_ptr<Kernel> kernel = lowerFusion(fusion, {.index_type = DataType::Int32});
  GeneratedKernel code = generateCuda(*kernel, cuda::runtimePrelude());
  EXPECT_THAT(code.full_source, ::testing::HasSubstr("typedef int mf_index_t;"));
  EXPECT_FALSE(cuda::compileWithNvrtc(code.full_source, code.name, {}).cubin.empty());
}

class ReductionKernel : public ::testing::TestWithParam<testing::ReductionCase> {};

// Every serial reduction the GPU test runs (tests/gpu/test_reduction_gpu.cpp) lowers and
// compiles with NVRTC: the CPU half of that test.
TEST_P(ReductionKernel, Compiles) {
  Fusion fusion;
  testing::buildScheduled(fusion, GetParam());
  std::unique_ptr<Kernel> kernel = lowerFusion(fusion, {.index_type = DataType::Int64});
  GeneratedKernel code = generateCuda(*kernel, cuda::runtimePrelude());
  cuda::CompiledKernel compiled =
      cuda::compileWithNvrtc(code.full_source, code.name, cuda::NvrtcOptions{});
  EXPECT_FALSE(compiled.cubin.empty()) << compiled.log;
}

INSTANTIATE_TEST_SUITE_P(Codegen, ReductionKernel, ::testing::ValuesIn(testing::reductionCases()),
                         [](const auto& info) { return info.param.name; });

// The reduction cases the host kernel interpreter models: the serial schedules (a block
// schedule's all-reduce is not modelled).
std::vector<testing::ReductionCase> serialReductionCases() {
  std::vector<testing::ReductionCase> serial;
  for (const testing::ReductionCase& c : testing::reductionCases())
    if (c.schedule != testing::ReductionCase::Schedule::RowPerBlock) serial.push_back(c);
  return serial;
}

class SerialReductionKernel : public ::testing::TestWithParam<testing::ReductionCase> {};

// The serial schedules, run on the host kernel interpreter, compute what the reference
// computes (floats within a relative 1e-3 for the different summation order).
TEST_P(SerialReductionKernel, HostInterpreterMatchesReference) {
  const testing::ReductionCase& c = GetParam();
  Fusion fusion;
  testing::buildScheduled(fusion, c);
  std::unique_ptr<Kernel> kernel =
      lowerFusion(fusion, {.index_type = DataType::Int64, .verify = true});
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{1, 1}, {5, 17}, {37, 3}, {130, 9}}) {
    std::vector<Tensor> inputs = {Tensor::random({rows, cols}, c.dtype, 11)};
    std::optional<std::vector<Tensor>> outputs = testing::interpretKernel(*kernel, inputs);
    ASSERT_TRUE(outputs.has_value());
    std::vector<Tensor> reference = ReferenceEvaluator(&fusion).run(inputs);
    for (int64_t i = 0; i < reference[0].numel(); ++i) {
      const double got = (*outputs)[0].item(i), want = reference[0].item(i);
      const double tolerance = isFloatingType(reference[0].dtype()) ? 1e-3 : 0;
      EXPECT_LE(std::abs(got - want), tolerance * (1 + std::abs(want)))
          << rows << "x" << cols << " element " << i << ": got " << got << ", reference " << want;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Codegen, SerialReductionKernel,
                         ::testing::ValuesIn(serialReductionCases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace mf
