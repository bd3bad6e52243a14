// KernelExecutor on the CPU: input checks happen before any device work, so their errors
// are testable without a GPU; without a device, run() says so clearly.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "cuda/driver.h"
#include "cuda/kernel_cache.h"
#include "minifuser/minifuser.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// A vectorized input whose inner extent is not a multiple of the width is a clear error.
TEST(VectorizedInput, MisalignedInnerExtentIsUserError) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = set(t0);
  TensorView* t2 = set(t1);
  fusion.addOutput(t2);
  for (TensorView* tv : {t1, t2}) {
    tv->merge(0)->split(0, 4)->split(0, 128);
    tv->axis(0)->parallelize(ParallelType::BIDx);
    tv->axis(1)->parallelize(ParallelType::TIDx);
  }
  t1->axis(2)->parallelize(ParallelType::Vectorize);
  inlineMost();
  std::vector<Tensor> inputs = {Tensor::random({5, 7}, DataType::Float, 3)};
  KernelExecutor ke;
  ke.compile(&fusion, inputs);
  EXPECT_THAT([&] { ke.run(inputs); },
              ThrowsMessage<UserError>(HasSubstr(
                  "vectorized access of T0_g_float[iS0{i0}, iS1{i1}] by 4 elements needs an "
                  "innermost dense run of the axes its vectors run along (logical positions "
                  "[0, 1], innermost last) holding a multiple of 4 elements")));
  // The vector runs along the merged axes: [4, 7] holds 28 elements, a multiple of 4, so
  // the check passes although 7 is not (here the run then stops for want of a device).
  std::vector<Tensor> merged = {Tensor::random({4, 7}, DataType::Float, 4)};
  if (!cuda::cudaAvailable()) {
    EXPECT_THAT([&] { ke.run(merged); },
                ThrowsMessage<UserError>(HasSubstr("no CUDA device available")));
  }
}

// Input count, dtype, rank and declared contiguity are checked with clear messages.
TEST(KernelExecutorInputs, BadInputsAreUserErrors) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  fusion.addOutput(t1);
  t1->axis(0)->parallelize(ParallelType::BIDx);
  t1->axis(1)->parallelize(ParallelType::TIDx);
  KernelExecutor ke;
  ke.compile(&fusion);
  EXPECT_THAT([&] { ke.run({}); },
              ThrowsMessage<UserError>(HasSubstr("KernelExecutor: expected 1 inputs (T0), got 0")));
  EXPECT_THAT(
      [&] {
        ke.run({Tensor::random({2, 3}, DataType::Double, 1)});
      },
      ThrowsMessage<UserError>(HasSubstr("expected dtype float, got double")));
  EXPECT_THAT(
      [&] { ke.run({Tensor::random({6}, DataType::Float, 1)}); },
      ThrowsMessage<UserError>(HasSubstr("KernelExecutor: input 0 T0_g_float[iS0{i0}, iS1{i1}]: "
                                         "expected rank 2, got a tensor of rank 1")));
  Tensor transposed = Tensor::emptyStrided({3, 2}, {1, 3}, 6, DataType::Float);
  EXPECT_THAT([&] { ke.run({transposed}); },
              ThrowsMessage<UserError>(
                  HasSubstr("is declared contiguous, so its stride must be 1, got 3")));
}

// Without a device, run() throws the no-device error; compile() still produced the kernel.
TEST(KernelExecutorNoDevice, RunSaysNoDevice) {
  if (cuda::cudaAvailable()) GTEST_SKIP() << "a device is present";
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = exp(t0);
  fusion.addOutput(t1);
  t1->split(0, 32);
  t1->axis(1)->parallelize(ParallelType::TIDx);
  KernelExecutor ke;
  ke.compile(&fusion);
  EXPECT_THAT(ke.kernelCode(), HasSubstr("mf_exp("));
  EXPECT_FALSE(ke.ptx().empty());
  EXPECT_THAT([&] { ke.run({Tensor::random({5}, DataType::Float, 1)}); },
              ThrowsMessage<UserError>(HasSubstr("no CUDA device available")));
}

// MINIFUSER_DUMP=cuda_kernel prints the generated kernel when compiling.
TEST(KernelExecutorDumps, CudaKernelDumpPrintsKernel) {
  OptionsGuard guard;
  guard.enableDump(DumpOption::CudaKernel);
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = relu(t0);
  fusion.addOutput(t1);
  KernelExecutor ke;
  ::testing::internal::CaptureStdout();
  ke.compile(&fusion);
  std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_THAT(out, HasSubstr("__global__ void " + ke.kernelName()));
}

// Int32 forced on a tensor of 2^40 elements (a stride-0 view of one element, so nothing is
// allocated) is rejected when compiling, naming the option.
TEST(KernelExecutorInputs, ForcedInt32OnHugeInputIsUserError) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(1);
  fusion.addInput(t0);
  fusion.addOutput(neg(t0));
  std::vector<Tensor> inputs = {Tensor::emptyStrided({int64_t{1} << 40}, {0}, 1, DataType::Float)};
  KernelExecutor ke;
  EXPECT_THAT([&] { ke.compile(&fusion, inputs, {.index_type = DataType::Int32}); },
              ThrowsMessage<UserError>(HasSubstr(
                  "CompileOptions::index_type is Int32 but these inputs need 64-bit indices")));
  ke.compile(&fusion, inputs, {.index_type = DataType::Int64});
  EXPECT_EQ(ke.kernel().indexType(), DataType::Int64);
}

// compile_timing reports NVRTC's time only when NVRTC ran; a cached kernel says where the
// cache found it (its stored compile time belongs to another compile).
TEST(KernelExecutorDumps, CompileTimingReportsCacheHits) {
  namespace fs = std::filesystem;
  OptionsGuard guard;
  guard.enableDump(DumpOption::CompileTiming);
  const fs::path dir =
      fs::temp_directory_path() / fmt::format("mf_compile_timing_{}", std::random_device{}());
  guard.get().cache_dir = dir.string();
  cuda::clearMemoryCache();
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  fusion.addOutput(sin(t0));
  auto compileAndDump = [&] {
    ::testing::internal::CaptureStdout();
    KernelExecutor().compile(&fusion);
    return ::testing::internal::GetCapturedStdout();
  };
  EXPECT_THAT(compileAndDump(), ::testing::ContainsRegex("codegen [0-9.]+ ms, nvrtc [0-9.]+ ms"));
  EXPECT_THAT(compileAndDump(), HasSubstr("ms, nvrtc: memory cache hit\n"));
  cuda::clearMemoryCache();
  const std::string disk = compileAndDump();
  EXPECT_THAT(disk, HasSubstr("ms, nvrtc: disk cache hit\n"));
  EXPECT_THAT(disk, Not(::testing::ContainsRegex("nvrtc [0-9.]+ ms")));
  std::error_code ec;
  fs::remove_all(dir, ec);
}

// compile() names a tensor never added as an input (lowering used to fail on its extent),
// and refuses a fusion without outputs.
TEST(KernelExecutorInputs, CompileNamesAMissingInputAndNoOutputs) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(1);
  TensorView* forgotten = makeSymbolicTensor(1);
  fusion.addInput(t0);
  KernelExecutor ke;
  EXPECT_THAT([&] { ke.compile(&fusion); },
              ThrowsMessage<UserError>(
                  HasSubstr("KernelExecutor::compile: the fusion has no outputs, so a run computes "
                            "nothing; add one with fusion.addOutput(tv)")));
  fusion.addOutput(add(t0, forgotten));
  EXPECT_THAT([&] { ke.compile(&fusion); },
              ThrowsMessage<UserError>(HasSubstr(
                  "KernelExecutor::compile: T1_l_float[iS1{i1}] is neither a fusion input nor "
                  "computed by an expr; add it with fusion.addInput(T1)")));
}

// add of [2, 3] and [2, 4]: the executor names itself before the operands' disagreement, as
// every entry point does.
TEST(KernelExecutorInputs, OperandsThatDisagree) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  TensorView* t1 = makeContigTensor(2);
  fusion.addInput(t0);
  fusion.addInput(t1);
  fusion.addOutput(add(t0, t1));
  EXPECT_THAT(
      [&] {
        chooseIndexType(fusion, {Tensor::random({2, 3}, DataType::Float, 1),
                                 Tensor::random({2, 4}, DataType::Float, 2)});
      },
      ThrowsMessage<UserError>(
          HasSubstr("KernelExecutor: `T2_g_float[iS4{i0}, iS5{i1}] = T0 + T1`: operands T0 and T1 "
                    "disagree on axis 1: 3 vs 4")));
}

}  // namespace
}  // namespace mf
