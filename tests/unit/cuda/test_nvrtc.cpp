#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cuda/kernel_cache.h"
#include "cuda/nvrtc.h"
#include "cuda/runtime_sources.h"
#include "support/error.h"

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using ::testing::ThrowsMessage;

namespace mf::cuda {
namespace {

constexpr const char* kScaleKernel = R"(namespace mf {
__global__ void scale(const float* in, float* out, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 2.0f;
}
}  // namespace mf
)";

// sm_90 is supported by this NVRTC: we get SASS and PTX and the mangled name of mf::scale.
TEST(Nvrtc, CompilesToCubinForSupportedArch) {
  CompiledKernel k = compileWithNvrtc(kScaleKernel, "mf::scale", NvrtcOptions{});
  EXPECT_EQ(k.name, "mf::scale");
  EXPECT_EQ(k.lowered_name, "_ZN2mf5scaleEPKfPfx");
  EXPECT_EQ(k.arch, "sm_90");
  EXPECT_FALSE(k.cubin.empty());
  EXPECT_THAT(k.ptx, HasSubstr(".entry _ZN2mf5scaleEPKfPfx"));
  EXPECT_THAT(k.options, ::testing::Contains("--gpu-architecture=sm_90"));
  EXPECT_THAT(k.options, ::testing::Contains("--fmad=false"));
  EXPECT_THAT(k.options, ::testing::Contains("-DNDEBUG"));
  EXPECT_GT(k.compile_ms, 0);
}

// An extern "C" kernel's name expression is its plain name, and so is its symbol.
TEST(Nvrtc, ResolvesExternCKernel) {
  CompiledKernel k = compileWithNvrtc(
      "extern \"C\" __global__ void plain(float* out) { out[0] = 1.0f; }\n", "plain", {});
  EXPECT_EQ(k.lowered_name, "plain");
}

// An arch newer than NVRTC knows falls back to PTX of the newest known arch below it.
TEST(Nvrtc, NewerArchFallsBackToPtx) {
  NvrtcOptions options;
  options.arch_major = 9;
  options.arch_minor = 9;
  CompiledKernel k = compileWithNvrtc(kScaleKernel, "mf::scale", options);
  EXPECT_EQ(k.arch, "compute_90");
  EXPECT_TRUE(k.cubin.empty());
  EXPECT_THAT(k.ptx, HasSubstr(".entry"));
}

// An arch older than every arch NVRTC supports is the caller's problem, reported as such.
TEST(Nvrtc, TooOldArchIsUserError) {
  NvrtcOptions options;
  options.arch_major = 3;
  options.arch_minor = 5;
  EXPECT_THAT(
      [&] { compileWithNvrtc(kScaleKernel, "mf::scale", options); },
      ThrowsMessage<UserError>(AllOf(HasSubstr("supports no GPU architecture at or below sm_35"),
                                     HasSubstr("oldest it supports: sm_"))));
}

// Options reach NVRTC: -lineinfo and extra ones are appended after the base options.
TEST(Nvrtc, PassesExtraOptions) {
  NvrtcOptions options;
  options.fmad = true;
  options.lineinfo = true;
  options.extra = {"-DMF_SCALE_EXTRA=1"};
  CompiledKernel k = compileWithNvrtc(
      "#if MF_SCALE_EXTRA != 1\n#error extra option missing\n#endif\n" + std::string(kScaleKernel),
      "mf::scale", options);
  EXPECT_THAT(k.options, ::testing::Contains("--fmad=true"));
  EXPECT_EQ(k.options.back(), "-DMF_SCALE_EXTRA=1");
  EXPECT_THAT(k.options, ::testing::Contains("-lineinfo"));
}

// A source NVRTC rejects is the caller's mistake (a UserError), through compileWithNvrtc
// and compileCached alike: the error carries NVRTC's log and the numbered source, and the
// failure is not cached. (KernelExecutor turns it into an InternalError: its source is
// generated, so a rejection there is a minifuser bug.)
TEST(Nvrtc, UserSourceSyntaxErrorIsUserErrorWithLogAndSource) {
  std::string source =
      "namespace mf {\n"
      "__global__ void broken(float* out) {\n"
      "  out[0] = 1.0f\n"
      "}\n"
      "}\n";
  auto message = AllOf(HasSubstr("compileWithNvrtc: NVRTC failed to compile kernel mf::broken"),
                       HasSubstr("broken.cu(4): error: expected a \";\""),
                       HasSubstr("    3 |   out[0] = 1.0f\n"),
                       HasSubstr("--gpu-architecture=sm_90"), Not(HasSubstr("bug in minifuser")));
  EXPECT_THAT([&] { compileWithNvrtc(source, "mf::broken", {}); },
              ThrowsMessage<UserError>(message));
  for (int attempt = 0; attempt < 2; ++attempt)
    EXPECT_THAT([&] { compileCached(source, "mf::broken", {}); },
                ThrowsMessage<UserError>(message));
  try {
    compileCached(source, "mf::broken", {});
    ADD_FAILURE() << "compileCached accepted a broken source";
  } catch (const NvrtcCompileError& e) {
    EXPECT_THAT(e.log(), HasSubstr("error: expected a \";\""));
  }
}

TEST(Nvrtc, NumberLines) {
  EXPECT_EQ(numberLines("a\n\nb"), "    1 | a\n    2 | \n    3 | b\n");
  EXPECT_EQ(numberLines(""), "");
}

TEST(Nvrtc, VersionLooksLikeMajorMinor) {
  EXPECT_THAT(nvrtcVersion(), ::testing::MatchesRegex("[0-9]+\\.[0-9]+"));
}

// The embedded runtime holds the four files in order, each after its marker line.
TEST(RuntimePrelude, ConcatenatesRuntimeFilesInOrder) {
  std::string_view prelude = runtimePrelude();
  EXPECT_THAT(std::string(prelude), StartsWith("// ---- runtime/tensor.cuh ----\n"));
  size_t tensor = prelude.find("// ---- runtime/tensor.cuh ----\n");
  size_t numerics = prelude.find("\n// ---- runtime/numerics.cuh ----\n");
  size_t helpers = prelude.find("\n// ---- runtime/helpers.cuh ----\n");
  size_t layout = prelude.find("\n// ---- runtime/layout_op.cuh ----\n");
  ASSERT_NE(layout, std::string_view::npos);
  EXPECT_LT(tensor, numerics);
  EXPECT_LT(numerics, helpers);
  EXPECT_LT(helpers, layout);
}

// What the executor hands NVRTC: the index typedef, the runtime prelude, then the kernel.
TEST(RuntimePrelude, CompilesWithTrivialKernel) {
  std::string source = "typedef long long mf_index_t;\n" + std::string(runtimePrelude()) +
                       "namespace mf {\n"
                       "__global__ void trivial(float* out) { out[threadIdx.x] = 0.0f; }\n"
                       "}  // namespace mf\n";
  CompiledKernel k = compileWithNvrtc(source, "mf::trivial", {});
  EXPECT_FALSE(k.cubin.empty());
}

}  // namespace
}  // namespace mf::cuda
