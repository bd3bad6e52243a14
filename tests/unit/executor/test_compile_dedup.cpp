// One compile per distinct kernel: kernels are named and cached by their canonical source (the
// values renamed in order of appearance), so segments of the same math compile once, and a
// runtime's compile profile says what it compiled and what the cache served.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "codegen/codegen.h"
#include "cuda/kernel_cache.h"
#include "cuda/runtime_sources.h"
#include "lower/pipeline.h"
#include "minifuser.h"

namespace mf {
namespace {

// x -> n ops (per 5: mul by a constant, neg, add x, neg, neg), a segment_set every 5 ops.
std::unique_ptr<Fusion> segmentedChain(int n) {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* x = makeSymbolicTensor(2);
  fusion->addInput(x);
  TensorView* t = x;
  for (int i = 0; i < n; ++i) {
    t = i % 5 == 0 ? mul(t, constFloat(1.0001)) : i % 5 == 2 ? add(t, x) : neg(t);
    if (i % 5 == 4 && i + 1 < n) t = segment_set(t);
  }
  fusion->addOutput(t);
  return fusion;
}

// Two kernels of the same math whose values the IR numbered differently (the second fusion
// made other values first) print different code but share a name and a canonical source.
TEST(CompileDedup, KernelsEqualUpToNumberingShareANameAndKey) {
  auto kernelOf = [](int shift) {
    Fusion fusion;
    FusionGuard fg(&fusion);
    for (int i = 0; i < shift; ++i) makeSymbolicTensor(1);  // unused: shifts the numbering
    TensorView* x = makeContigTensor(1);
    fusion.addInput(x);
    TensorView* y = exp(x);
    fusion.addOutput(y);
    y->split(0, 128);
    y->axis(0)->parallelize(ParallelType::BIDx);
    y->axis(1)->parallelize(ParallelType::TIDx);
    std::unique_ptr<Kernel> kernel = lowerFusion(fusion, {.index_type = DataType::Int64});
    return generateCuda(*kernel, cuda::runtimePrelude());
  };
  const GeneratedKernel a = kernelOf(0);
  const GeneratedKernel b = kernelOf(5);
  EXPECT_NE(a.kernel_code, b.kernel_code);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.canonical_source, b.canonical_source);
  EXPECT_THAT(a.canonical_source, ::testing::HasSubstr("T0"));
}

// 30 ops in 6 segments whose math repeats every 3 segments: at most 4 distinct kernels (the
// first segment reads only the input), the rest served by the kernel cache, and the same
// outputs as the reference.
TEST(CompileDedup, RepeatedSegmentsCompileOnce) {
  // An empty disk cache of its own and an empty memory cache: the counts do not depend on
  // what this process or a concurrent one compiled before (the shared default folder made
  // them vary under ctest -j2).
  OptionsGuard guard;
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    fmt::format("mf_compile_dedup_{}", std::random_device{}());
  guard.get().cache_dir = dir.string();
  cuda::clearMemoryCache();
  FusionExecutorCache fec(segmentedChain(30));
  std::vector<Tensor> inputs = {Tensor::random({8, 33}, DataType::Float, 3)};
  guard.enableDump(DumpOption::FecCache);
  ::testing::internal::CaptureStdout();
  std::vector<Tensor> out = fec.runFusionWithInputs(inputs);
  // Groups 1 to 4 are the same kernel (the op pattern repeats with the segments); group 0
  // reads only x and group 5 writes the fusion's output straight from its last op.
  EXPECT_THAT(::testing::internal::GetCapturedStdout(),
              ::testing::HasSubstr("fec_cache: miss; new runtime (6 groups; kernels: 3 "
                                   "compiled, 3 from the cache)"));
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  const auto& p = fec.getMostRecentKernelRuntime()->compileProfile();
  EXPECT_EQ(p.groups, 6u);
  EXPECT_EQ(p.kernels_compiled + p.kernels_reused, 6u);
  EXPECT_EQ(p.kernels_reused, 3u);
  EXPECT_GT(p.segment_ms + p.heuristics_ms + p.schedule_ms + p.lower_ms, 0.0);
  std::vector<Tensor> ref = ReferenceEvaluator(fec.fusion()).run(inputs);
  ASSERT_EQ(out.size(), 1u);
  for (int64_t i = 0; i < ref[0].numel(); ++i) EXPECT_NEAR(out[0].item(i), ref[0].item(i), 1e-4);
}

}  // namespace
}  // namespace mf
