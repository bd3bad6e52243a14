// The kernel summary (analyzeKernel): parameters in signature order, the launch of each
// hardware dimension, vectorized accesses, the layout op's error flag; codegen's signature
// and the executor's arguments follow it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "codegen/codegen.h"
#include "cuda/nvrtc.h"
#include "cuda/runtime_sources.h"
#include "minifuser/minifuser.h"
#include "scheduler/tools/inlining.h"
#include "unit/codegen/golden_fusions.h"
#include "unit/lower/lower_test_utils.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::ThrowsMessage;

void buildGolden(Fusion& fusion, std::string_view name) {
  for (const testing::GoldenFusion& g : testing::goldenFusions())
    if (g.name == name) return g.build(fusion);
  FAIL() << "no golden fusion " << name;
}

std::unique_ptr<Kernel> lower(const Fusion& fusion, DataType index_type = DataType::Int64) {
  return lowerFusion(fusion, {.index_type = index_type, .verify = true});
}

// Inputs, then outputs, then global intermediates; TIDx is as wide as its widest loop
// (128 for T2, i1 for T3 and T4), BIDx and BIDy as the one extent bound to each.
TEST(KernelSummary, ParamsAndLaunch) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  TensorView* t1 = makeContigTensor(2);
  fusion.addInput(t0);
  fusion.addInput(t1);
  TensorView* t2 = add(t0, t1);
  TensorView* t3 = neg(t0);
  t3->setMemoryType(MemoryType::Global);
  TensorView* t4 = exp(t3);
  fusion.addOutput(t2);
  fusion.addOutput(t4);
  t2->merge(0)->split(0, 128);
  t2->axis(0)->parallelize(ParallelType::BIDx);
  t2->axis(1)->parallelize(ParallelType::TIDx);
  for (TensorView* tv : {t3, t4}) {
    tv->axis(0)->parallelize(ParallelType::BIDy);
    tv->axis(1)->parallelize(ParallelType::TIDx);
  }

  std::unique_ptr<Kernel> kernel = lower(fusion);
  EXPECT_IR(kernel->summary().toString(), R"(
%summary {
  params:
    input 0: T0_g_float[iS0{i0}, iS1{i1}]
    input 1: T1_g_float[iS2{i2}, iS3{i3}]
    output 0: T2_g_float[iblockIdx.x11{ceilDiv(( i0 * i1 ), 128)}, ithreadIdx.x12{128}]
    output 1: T4_g_float[iblockIdx.y8{i0}, ithreadIdx.x9{i1}]
    intermediate: T3_g_float[iblockIdx.y6{i0}, ithreadIdx.x7{i1}]
  shared memory: 0 static bytes, dynamic none
  launch:
    threadIdx.x = max(128, i1)
    blockIdx.x = ceilDiv(( i0 * i1 ), 128)
    blockIdx.y = i0
  min compute capability: 9.0
} // %summary
)");
  EXPECT_FALSE(kernel->summary().has_error_flag);
  std::string code = generateCuda(*kernel, "").kernel_code;
  EXPECT_THAT(code,
              HasSubstr("(Tensor<float, 2, 2> T0, Tensor<float, 2, 2> T1, "
                        "Tensor<float, 2, 2> T2, Tensor<float, 2, 2> T4, Tensor<float, 2, 2> T3)"));
}

// Shared tensors: a constant-size one (a row of 32 threads) is a static array; a symbolic-size
// one (a row of i3 threads) a 16-byte aligned slice of dynamic shared memory, whose size the
// launch passes.
TEST(KernelSummary, SharedMemoryStaticAndDynamic) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigConcreteTensor({-1, 32});
  TensorView* u0 = makeContigTensor(2);
  fusion.addInput(t0);
  fusion.addInput(u0);
  TensorView* t1 = set(t0);
  TensorView* u1 = set(u0);
  TensorView* t2 = exp(t1);
  TensorView* u2 = exp(u1);
  fusion.addOutput(t2);
  fusion.addOutput(u2);
  for (TensorView* tv : {t1, u1}) tv->setMemoryType(MemoryType::Shared);
  for (TensorView* tv : {t1, u1, t2, u2}) {
    tv->axis(0)->parallelize(ParallelType::BIDx);
    tv->axis(1)->parallelize(ParallelType::TIDx);
  }
  std::unique_ptr<Kernel> kernel = lower(fusion);
  EXPECT_THAT(
      kernel->summary().toString(),
      HasSubstr("shared memory: 128 static bytes, dynamic ( ceilDiv(( i3 * 4 ), 16) * 16 )"));
  GeneratedKernel code = generateCuda(*kernel, cuda::runtimePrelude());
  EXPECT_THAT(code.kernel_code,
              HasSubstr(R"(  extern __shared__ __align__(16) char mf_dynamic_smem[];
  float* T3 = reinterpret_cast<float*>(mf_dynamic_smem + 0);
  __shared__ alignas(16) float T2[32];)"));
  cuda::CompiledKernel compiled =
      cuda::compileWithNvrtc(code.full_source, code.name, cuda::NvrtcOptions{});
  EXPECT_FALSE(compiled.cubin.empty()) << compiled.log;
}

// The layout op's error flag is the last parameter; its output's used rows come from the
// offsets, fusion inputs 1 and 2.
TEST(KernelSummary, LayoutOpHasErrorFlag) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  buildGolden(fusion, "layout_op_manual");
  std::unique_ptr<Kernel> kernel = lower(fusion);
  const KernelSummary& s = kernel->summary();
  EXPECT_TRUE(s.has_error_flag);
  ASSERT_EQ(s.params.size(), 5u);
  EXPECT_EQ(s.params.back().kind, KernelParameter::Kind::ErrorFlag);
  ASSERT_EQ(s.padded_outputs.size(), 1u);
  EXPECT_EQ(s.padded_outputs[0].output, 0);
  EXPECT_EQ(s.padded_outputs[0].input_offsets, 1);
  EXPECT_EQ(s.padded_outputs[0].output_offsets, 2);
  EXPECT_THAT(s.toString(), HasSubstr("error flag: layout op"));
  EXPECT_THAT(s.describeError(2), HasSubstr("input_offsets are not valid group starts"));
  EXPECT_THAT(generateCuda(*kernel, "").kernel_code, HasSubstr(", int* mf_error)"));
}

// A vectorized set() copy reads and writes its global operands a vector at a time.
TEST(KernelSummary, VectorizedAccesses) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = set(t0);
  fusion.addOutput(t1);
  t1->split(0, 4);
  t1->axis(1)->parallelize(ParallelType::Vectorize);
  std::unique_ptr<Kernel> kernel = lower(fusion);
  const KernelSummary& s = kernel->summary();
  ASSERT_EQ(s.vectorized.size(), 2u);
  EXPECT_EQ(s.vectorized[0].tv->name(), 0);
  EXPECT_EQ(s.vectorized[1].tv->name(), 1);
  EXPECT_EQ(s.vectorized[0].width, 4);
  EXPECT_THAT(s.toString(), HasSubstr("vectorized: T0 by 4\n  vectorized: T1 by 4\n"));
}

// Regression: an output that is also an input was passed twice (T0 twice in the signature,
// an NVRTC error). It is one parameter, the input's.
TEST(KernelSummary, InputThatIsAnOutputIsOneParameter) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = exp(t0);
  fusion.addOutput(t1);
  fusion.addOutput(t0);
  std::unique_ptr<Kernel> kernel = lower(fusion);
  ASSERT_EQ(kernel->summary().params.size(), 2u);
  EXPECT_EQ(kernel->summary().params[1].kind, KernelParameter::Kind::Output);
  EXPECT_EQ(kernel->summary().params[1].index, 0);
  GeneratedKernel code = generateCuda(*kernel, cuda::runtimePrelude());
  EXPECT_THAT(code.kernel_code, HasSubstr("(Tensor<float, 1, 1> T0, Tensor<float, 1, 1> T1)"));
  EXPECT_FALSE(cuda::compileWithNvrtc(code.full_source, code.name, {}).cubin.empty());
}

// Regression: the name hashed only the kernel body, so the Int32 and Int64 variants, which
// differ in the index typedef, shared a name (and their cuda_to_file dumps).
TEST(KernelSummary, KernelNameDependsOnEverythingCompiled) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  buildGolden(fusion, "pointwise_chain");
  GeneratedKernel i64 = generateCuda(*lower(fusion, DataType::Int64), cuda::runtimePrelude());
  GeneratedKernel i32 = generateCuda(*lower(fusion, DataType::Int32), cuda::runtimePrelude());
  GeneratedKernel other_prelude = generateCuda(*lower(fusion, DataType::Int64), "// other\n");
  EXPECT_NE(i64.name, i32.name);
  EXPECT_NE(i64.name, other_prelude.name);
  EXPECT_EQ(i64.name, generateCuda(*lower(fusion), cuda::runtimePrelude()).name);
}

// 4096 threads in x cannot be launched on any device: said at compile time.
TEST(KernelSummary, TooManyThreadsIsUserError) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  fusion.addOutput(t1);
  t1->split(0, 4096);
  t1->axis(1)->parallelize(ParallelType::TIDx);
  EXPECT_THAT(
      [&] { lower(fusion); },
      ThrowsMessage<UserError>(HasSubstr(
          "constant extents launch threadIdx.x = 4096 (extents: 4096), past the limit of 1024")));
}

// 32 x 64 threads: each dimension is fine, the block is not.
TEST(KernelSummary, TooManyThreadsPerBlockIsUserError) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigConcreteTensor({32, 64});
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  fusion.addOutput(t1);
  t1->axis(0)->parallelize(ParallelType::TIDy);
  t1->axis(1)->parallelize(ParallelType::TIDx);
  EXPECT_THAT([&] { lower(fusion); },
              ThrowsMessage<UserError>(HasSubstr(
                  "constant extents launch 2048 threads per block, past the limit of 1024")));
}

// A split by INT64_MAX cannot be indexed with 32-bit indices.
TEST(KernelSummary, HugeSplitWithInt32IsUserError) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  fusion.addOutput(t1);
  t1->split(0, std::numeric_limits<int64_t>::max());
  EXPECT_NO_THROW(lower(fusion, DataType::Int64));
  EXPECT_THAT([&] { lower(fusion, DataType::Int32); },
              ThrowsMessage<UserError>(HasSubstr("iS3{9223372036854775807}]: the constant extent "
                                                 "9223372036854775807 does not fit the kernel's "
                                                 "32-bit indices")));
}

// Int32 forced on a tensor of 2^40 constant elements.
TEST(KernelSummary, HugeConstantTensorWithInt32IsUserError) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigConcreteTensor({int64_t{1} << 20, int64_t{1} << 20});
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  fusion.addOutput(t1);
  EXPECT_THAT([&] { lower(fusion, DataType::Int32); },
              ThrowsMessage<UserError>(
                  HasSubstr("T0_g_float[iS0{1048576}, iS1{1048576}]: more than 2147483647 "
                            "elements do not fit the kernel's 32-bit indices")));
}

// MINIFUSER_DUMP=kernel_summary prints the summary once lowering is done.
TEST(KernelSummary, DumpPrintsSummary) {
  OptionsGuard guard;
  guard.enableDump(DumpOption::KernelSummary);
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  fusion.addOutput(neg(t0));
  ::testing::internal::CaptureStdout();
  lower(fusion);
  std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_THAT(out, HasSubstr("%summary {\n  params:\n    input 0: T0_g_float"));
}

// The block's facts for codegen: each dimension's constant size, the thread count declared as
// __launch_bounds__ (all thread dimensions constant), and the sizes assumed for a reduction
// across threadIdx.x. A symbolic thread extent leaves no bound; a block dimension's
// constant size counts no thread.
TEST(KernelSummary, BlockSizeFacts) {
  {
    // sum over rows of 128 threads, one row per block.
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* t0 = makeContigConcreteTensor({-1, 128});
    fusion.addInput(t0);
    TensorView* t1 = sum(t0, {1});
    fusion.addOutput(t1);
    t1->axis(0)->parallelize(ParallelType::BIDx);
    t1->axis(1)->parallelize(ParallelType::TIDx);
    std::unique_ptr<Kernel> kernel = lower(fusion);
    const KernelSummary& s = kernel->summary();
    ASSERT_EQ(s.parallel_dims.size(), 2u);
    EXPECT_EQ(s.parallel_dims[0].constant_size, 128);
    EXPECT_EQ(s.parallel_dims[1].constant_size, std::nullopt);
    EXPECT_EQ(s.block_threads, 128);
    EXPECT_TRUE(s.assume_block_size);
    EXPECT_THAT(s.toString(), HasSubstr(R"(  launch:
    threadIdx.x = 128
    blockIdx.x = i0
  block threads: 128 (launch bounds)
  block size assumed (block reduction): threadIdx.x = 128
)"));
  }
  {
    // Pointwise on a [4, 96] block of threads and 8 blocks: a bound of 384, no assumption.
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* t0 = makeContigConcreteTensor({8 * 4 * 96});
    fusion.addInput(t0);
    TensorView* t1 = neg(t0);
    fusion.addOutput(t1);
    t1->split(0, 96)->split(0, 4);
    t1->axis(0)->parallelize(ParallelType::BIDx);
    t1->axis(1)->parallelize(ParallelType::TIDy);
    t1->axis(2)->parallelize(ParallelType::TIDx);
    std::unique_ptr<Kernel> kernel = lower(fusion);
    const KernelSummary& s = kernel->summary();
    ASSERT_EQ(s.parallel_dims.size(), 3u);
    EXPECT_EQ(s.parallel_dims[2].type, ParallelType::BIDx);
    EXPECT_EQ(s.parallel_dims[2].constant_size, 8);
    EXPECT_EQ(s.block_threads, 384);
    EXPECT_FALSE(s.assume_block_size);
    EXPECT_THAT(s.toString(), HasSubstr("  block threads: 384 (launch bounds)\n"));
    EXPECT_THAT(s.toString(), Not(HasSubstr("block size assumed")));
    // Blocks per SM are asked for by a tile-form layout op only (LayoutOpTest.TileFormByHand).
    EXPECT_EQ(s.min_blocks_per_sm, std::nullopt);
    EXPECT_THAT(s.toString(), Not(HasSubstr("blocks per SM")));
  }
  {
    // A symbolic thread extent: no bound.
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* t0 = makeContigTensor(1);
    fusion.addInput(t0);
    TensorView* t1 = neg(t0);
    fusion.addOutput(t1);
    t1->axis(0)->parallelize(ParallelType::TIDx);
    std::unique_ptr<Kernel> kernel = lower(fusion);
    const KernelSummary& s = kernel->summary();
    EXPECT_EQ(s.parallel_dims.at(0).constant_size, std::nullopt);
    EXPECT_EQ(s.block_threads, std::nullopt);
    EXPECT_THAT(s.toString(), Not(HasSubstr("block threads")));
  }
}

}  // namespace
}  // namespace mf
