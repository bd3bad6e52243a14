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
#include "ir/builder.h"
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
// without a GPU, block and grid reductions and shared memory included. A layout op's padded
// output is compared on its logical elements' positions (those where the reference's pad
// fill does not show), wherever they are in the buffer.
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
    const std::vector<Tensor> one_pads =
        ReferenceEvaluator(&fusion).run(inputs, {.layout_pad_fill = 1.0});
    for (size_t o = 0; o < reference.size(); ++o) {
      if (reference[o].usedRows()) {
        ASSERT_EQ((*outputs)[o].allocationSizes(), reference[o].allocationSizes());
        EXPECT_EQ((*outputs)[o].usedRows(), reference[o].usedRows());
        int64_t logical = 0;
        for (int64_t p = 0; p < reference[o].allocationNumel(); ++p) {
          if (reference[o].allocationItem(p) != one_pads[o].allocationItem(p)) continue;
          ++logical;
          ASSERT_EQ((*outputs)[o].allocationItem(p), reference[o].allocationItem(p))
              << "n = " << n << ", output " << o << " position " << p;
        }
        EXPECT_EQ(logical, reference[o].numel());
        continue;
      }
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

class InterpretedReductionKernel : public ::testing::TestWithParam<testing::ReductionCase> {};

// Every schedule (serial, and a row per block with its all-reduce), run on the host kernel
// interpreter, computes what the reference computes (floats within a relative 1e-3 for the
// different summation order).
TEST_P(InterpretedReductionKernel, HostInterpreterMatchesReference) {
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

INSTANTIATE_TEST_SUITE_P(Codegen, InterpretedReductionKernel,
                         ::testing::ValuesIn(testing::reductionCases()),
                         [](const auto& info) { return info.param.name; });

// The interpreter's checks of how threads cooperate, on the shared-memory exchange kernel
// (128 threads stage a tile in shared memory, a barrier, then 64 threads read it): without
// the barrier the reads race with the writes, and a barrier that only some threads reach
// is an error. Lowering never produces either; the tests edit its kernel IR.
std::unique_ptr<Kernel> lowerGolden(Fusion& fusion, std::string_view name) {
  for (const GoldenFusion& g : testing::goldenFusions())
    if (g.name == name) g.build(fusion);
  return lowerFusion(fusion, {.index_type = DataType::Int64});
}

// Every scope of `scope`'s tree, outermost first.
void collectScopes(Scope& scope, std::vector<Scope*>& out) {
  out.push_back(&scope);
  for (Expr* e : scope.exprs()) {
    if (auto* loop = dynamic_cast<ForLoop*>(e)) collectScopes(loop->body(), out);
    if (auto* ite = dynamic_cast<IfThenElse*>(e)) collectScopes(ite->thenBody(), out);
  }
}

TEST(HostInterpreter, MissingBarrierIsARace) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  std::unique_ptr<Kernel> kernel = lowerGolden(fusion, "shared_memory_exchange");
  const std::vector<Tensor> inputs = {Tensor::random({300}, DataType::Float, 3)};
  ASSERT_TRUE(testing::interpretKernel(*kernel, inputs).has_value());
  std::vector<Scope*> scopes;
  collectScopes(kernel->body(), scopes);
  int64_t removed = 0;
  for (Scope* scope : scopes)
    removed += std::erase_if(scope->exprs(), [](Expr* e) { return e->isA<BlockSync>(); });
  ASSERT_EQ(removed, 1);
  EXPECT_THAT([&] { testing::interpretKernel(*kernel, inputs); },
              ::testing::ThrowsMessage<std::runtime_error>(
                  ::testing::AllOf(::testing::HasSubstr("shared memory race on T1"),
                                   ::testing::HasSubstr("reads it after thread"),
                                   ::testing::HasSubstr("wrote it, with no barrier between"))));
}

TEST(HostInterpreter, BarrierReachedByPartOfABlockIsAnError) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  std::unique_ptr<Kernel> kernel = lowerGolden(fusion, "shared_memory_exchange");
  std::vector<Scope*> scopes;
  collectScopes(kernel->body(), scopes);
  // The last guard is the readers' (threadIdx.x < 64 among others): a barrier inside it.
  IfThenElse* guard = nullptr;
  for (Scope* scope : scopes)
    for (Expr* e : scope->exprs())
      if (auto* ite = dynamic_cast<IfThenElse*>(e)) guard = ite;
  ASSERT_NE(guard, nullptr);
  guard->thenBody().push_back(IrBuilder::createIn<BlockSync>(&kernel->ir()));
  EXPECT_THAT(
      [&] { testing::interpretKernel(*kernel, {Tensor::random({300}, DataType::Float, 3)}); },
      ::testing::ThrowsMessage<std::runtime_error>(
          ::testing::HasSubstr("__syncthreads() reached by part of a block only")));
}

}  // namespace
}  // namespace mf
