// Every MINIFUSER_DUMP option prints what `MINIFUSER_DUMP=help` says it does: one case per
// option in support/options.h (a new option without a case here fails AllOptionsHaveACase),
// except the segmenter's, which print while segmenting (tests/unit/segmenter).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "cuda/driver.h"
#include "minifuser/minifuser.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

std::vector<DumpOption> allDumpOptions() {
#define MF_DUMP_ALL(e, name, desc) DumpOption::e,
  return {MF_DUMP_OPTIONS(MF_DUMP_ALL)};
#undef MF_DUMP_ALL
}

// Printed by SegmentCandidateFinder::segment, not by compiling a kernel: their cases are in
// tests/unit/segmenter/test_segmenter_dumps.cpp.
bool isSegmenterDump(DumpOption opt) {
  return opt == DumpOption::SegmenterLogging || opt == DumpOption::FusionSegments ||
         opt == DumpOption::FusionSegmentsGraph;
}

// Printed by FusionExecutorCache's scheduling step: their cases are in
// tests/unit/executor/test_fusion_executor_cache.cpp (FusionExecutorCache.Dumps),
// pass_fusion_ir's (the fusion passes a scheduler requests) in tests/unit/passes, and
// fusion_ir_concretized's in tests/unit/concretization (ConcretizationCache.DumpShowsBothForms).
bool isSchedulerDump(DumpOption opt) {
  return opt == DumpOption::FusionIrPresched || opt == DumpOption::SchedulerVerbose ||
         opt == DumpOption::SchedulerParams || opt == DumpOption::FusionIrScheduled ||
         opt == DumpOption::FecCache || opt == DumpOption::PassFusionIr ||
         opt == DumpOption::FusionIrConcretized;
}

std::vector<DumpOption> kernelDumpOptions() {
  std::vector<DumpOption> out;
  for (DumpOption opt : allDumpOptions())
    if (!isSegmenterDump(opt) && !isSchedulerDump(opt)) out.push_back(opt);
  return out;
}

// What each option prints for the fusion below, compiled (and run where the option is about
// the launch). {} marks the kernel's name, known only after compiling.
const std::map<DumpOption, std::string>& expectedText() {
  static const std::map<DumpOption, std::string> text = {
      {DumpOption::FusionIr,
       "T1_g_float[iblockIdx.x2{ceilDiv(i0, 128)}, ithreadIdx.x3{128}] = exp(T0)\n"},
      {DumpOption::FusionTransforms, "Split: iS1{i0} by factor 128 -> iblockIdx.x2"},
      {DumpOption::KernelIr,
       "%kernel {\n  LET i6 = ( ( ((mf_index_t)blockIdx.x) * 128 ) + ((mf_index_t)threadIdx.x) )\n"
       "  FOR ((mf_index_t)blockIdx.x) in iblockIdx.x2"},
      {DumpOption::KernelSummary,
       "launch:\n    threadIdx.x = 128\n    blockIdx.x = ceilDiv(i0, 128)\n"},
      {DumpOption::PassIr, "=== after insertPredicates ===\n%kernel {"},
      {DumpOption::PassTiming, "pass insertPredicates "},
      {DumpOption::CudaKernel,
       "extern \"C\" __global__ void __launch_bounds__(128) {}(Tensor<float, 1, 1> T0"},
      {DumpOption::CudaFull, "typedef long long mf_index_t;"},
      {DumpOption::CudaToFile, "{}.cu\n"},
      {DumpOption::Ptx, ".entry {}("},
      {DumpOption::CompileTiming, "compile {}: lower "},
      {DumpOption::LaunchParams, "launch {}: grid (8, 1, 1) block (128, 1, 1)"},
  };
  return text;
}

class DumpOptionPrints : public ::testing::TestWithParam<DumpOption> {};

TEST_P(DumpOptionPrints, Something) {
  DumpOption opt = GetParam();
  OptionsGuard guard;
  guard.enableDump(opt);
  std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / fmt::format("mf_dump_{}", dumpName(opt));
  std::filesystem::create_directories(dir);
  guard.get().dump_dir = dir.string();

  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = exp(t0);
  fusion.addOutput(t1);
  t1->split(0, 128);
  t1->axis(0)->parallelize(ParallelType::BIDx);
  t1->axis(1)->parallelize(ParallelType::TIDx);

  KernelExecutor ke;
  ::testing::internal::CaptureStdout();
  ke.compile(&fusion, {}, {.index_type = DataType::Int64});
  std::string out = ::testing::internal::GetCapturedStdout();
  std::string expected = expectedText().at(opt);
  if (size_t p = expected.find("{}"); p != std::string::npos)
    expected.replace(p, 2, ke.kernelName());

  if (opt == DumpOption::LaunchParams) {
    EXPECT_EQ(out, "") << "launch_params prints at the launch, not at compile";
    std::vector<Tensor> inputs = {Tensor::random({1000}, DataType::Float, 5)};
    ::testing::internal::CaptureStdout();
    if (!cuda::cudaAvailable()) {
      // Documented: without a device run() says so and nothing is launched or printed.
      EXPECT_THAT([&] { ke.run(inputs); },
                  ThrowsMessage<UserError>(HasSubstr("no CUDA device available")));
      EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
      return;
    }
    ke.run(inputs);
    out = ::testing::internal::GetCapturedStdout();
  }
  EXPECT_THAT(out, HasSubstr(expected)) << dumpName(opt);
  if (opt == DumpOption::CudaToFile) {
    std::filesystem::path file = dir / (ke.kernelName() + ".cu");
    EXPECT_TRUE(std::filesystem::exists(file)) << file;
    EXPECT_GT(std::filesystem::file_size(file), ke.kernelCode().size());
  }
  std::filesystem::remove_all(dir);
}

// cuda_to_file into a MINIFUSER_DUMP_DIR that does not exist creates it; one that cannot be
// created warns on stderr and the compile goes on (a dump never aborts a run).
TEST(DumpOptions, CudaToFileCreatesAMissingFolderOrWarns) {
  const std::filesystem::path root = std::filesystem::path(::testing::TempDir()) / "mf_cuda_dir";
  std::filesystem::remove_all(root);
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = exp(t0);
  fusion.addOutput(t1);
  t1->split(0, 128);
  t1->axis(0)->parallelize(ParallelType::BIDx);
  t1->axis(1)->parallelize(ParallelType::TIDx);
  OptionsGuard guard;
  guard.enableDump(DumpOption::CudaToFile);
  guard.get().dump_dir = (root / "new").string();
  KernelExecutor ke;
  ::testing::internal::CaptureStdout();
  ke.compile(&fusion, {}, {.index_type = DataType::Int64});
  ::testing::internal::GetCapturedStdout();
  EXPECT_TRUE(std::filesystem::exists(root / "new" / (ke.kernelName() + ".cu")));

  guard.get().dump_dir = "/proc/mf_cannot_create";
  KernelExecutor ke2;
  ::testing::internal::CaptureStderr();
  EXPECT_NO_THROW(ke2.compile(&fusion, {}, {.index_type = DataType::Int64}));
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              HasSubstr("minifuser: warning: cuda_to_file: cannot write /proc/mf_cannot_create/" +
                        ke2.kernelName() + ".cu (cannot create the folder"));
  EXPECT_TRUE(ke2.isCompiled());
  std::filesystem::remove_all(root);
}

INSTANTIATE_TEST_SUITE_P(Dump, DumpOptionPrints, ::testing::ValuesIn(kernelDumpOptions()),
                         [](const auto& info) { return std::string(dumpName(info.param)); });

// A new option in support/options.h needs its expected text above.
TEST(DumpOptions, AllOptionsHaveACase) {
  for (DumpOption opt : kernelDumpOptions())
    EXPECT_TRUE(expectedText().count(opt)) << dumpName(opt) << " has no test case";
}

}  // namespace
}  // namespace mf
