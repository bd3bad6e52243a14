// Needs a GPU (CTest label `gpu`); every test skips, printing the reason, without one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "cuda/device_memory.h"
#include "cuda/driver.h"
#include "cuda/kernel_args.h"
#include "cuda/module.h"
#include "cuda/nvrtc.h"
#include "cuda/runtime_sources.h"

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace mf::cuda {
namespace {

constexpr const char* kScaleAddIndex = R"(namespace mf {
__global__ void scale_add_index(const float* in, float* out, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 2.0f + (float)i;
}
}  // namespace mf
)";

class Gpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cudaAvailable()) GTEST_SKIP() << noDeviceReason();
    seed_ = std::random_device{}();
    rng_.seed(seed_);
  }
  NvrtcOptions deviceOptions() const {
    NvrtcOptions options;
    options.arch_major = deviceInfo().major;
    options.arch_minor = deviceInfo().minor;
    return options;
  }
  uint32_t seed_ = 0;
  std::mt19937 rng_;
};

TEST_F(Gpu, DeviceInfoIsPlausible) {
  const DeviceInfo& d = deviceInfo();
  EXPECT_FALSE(d.name.empty());
  EXPECT_GE(d.major, 7);
  EXPECT_GT(d.sm_count, 0);
  EXPECT_GE(d.max_threads_per_block, 1024);
  EXPECT_GE(d.max_grid_dims[0], 65535);
  EXPECT_GE(d.shared_mem_per_block, 48 * 1024);
  EXPECT_TRUE(noDeviceReason().empty());
}

// Random bytes of an odd size survive host -> device -> host unchanged.
TEST_F(Gpu, CopyRoundTrip) {
  SCOPED_TRACE(fmt::format("seed {}", seed_));
  std::vector<uint8_t> host(1'000'003);
  for (uint8_t& b : host) b = static_cast<uint8_t>(rng_());
  DeviceBuffer buffer(host.size());
  EXPECT_NE(buffer.ptr(), 0u);
  buffer.copyFromHost(host.data(), host.size());
  std::vector<uint8_t> back(host.size(), 0);
  buffer.copyToHost(back.data(), back.size());
  EXPECT_EQ(back, host);
}

TEST_F(Gpu, FillSetsEveryByte) {
  DeviceBuffer buffer(4099);
  buffer.fill(0xab);
  std::vector<uint8_t> back(buffer.size(), 0);
  buffer.copyToHost(back.data(), back.size());
  EXPECT_EQ(back, std::vector<uint8_t>(buffer.size(), 0xab));
}

TEST_F(Gpu, CopyLargerThanBufferIsUserError) {
  DeviceBuffer buffer(16);
  std::vector<uint8_t> host(32);
  EXPECT_THAT([&] { buffer.copyFromHost(host.data(), host.size()); },
              ThrowsMessage<UserError>(HasSubstr("32 bytes do not fit a buffer of 16 bytes")));
}

// Runs out[i] = in[i] * 2 + i on fresh random input; the output starts poisoned (NaN).
void runScaleAddIndex(const CompiledKernel& compiled, std::mt19937& rng) {
  const int64_t n = 100'003;  // not a multiple of the block size
  std::uniform_real_distribution<float> dist(-100.f, 100.f);
  std::vector<float> in(n);
  for (float& x : in) x = dist(rng);
  DeviceBuffer d_in(n * sizeof(float));
  DeviceBuffer d_out(n * sizeof(float));
  d_in.copyFromHost(in.data(), d_in.size());
  d_out.fill(0xff);
  KernelArgs args;
  args.addPointer(d_in.ptr());
  args.addPointer(d_out.ptr());
  args.addScalar<int64_t>(n);
  LoadedKernel kernel(compiled);
  LaunchDims dims{.grid_x = static_cast<uint32_t>((n + 255) / 256), .block_x = 256};
  kernel.launch(dims, args.pointers());
  std::vector<float> out(n);
  d_out.copyToHost(out.data(), d_out.size());
  int64_t mismatches = 0;
  for (int64_t i = 0; i < n; ++i) {
    // --fmad=false: the device rounds exactly as this host expression does.
    float expected = in[i] * 2.0f + static_cast<float>(i);
    if (out[i] != expected && mismatches++ < 5) {
      ADD_FAILURE() << "out[" << i << "] = " << out[i] << ", expected " << expected;
    }
  }
  EXPECT_EQ(mismatches, 0);
  EXPECT_GT(kernel.launchTimed(dims, args.pointers()), 0.0f);
}

TEST_F(Gpu, LaunchCubin) {
  SCOPED_TRACE(fmt::format("seed {}", seed_));
  CompiledKernel compiled =
      compileWithNvrtc(kScaleAddIndex, "mf::scale_add_index", deviceOptions());
  runScaleAddIndex(compiled, rng_);
}

// PTX for an older arch is JIT-compiled by the driver at load.
TEST_F(Gpu, LaunchPtx) {
  SCOPED_TRACE(fmt::format("seed {}", seed_));
  CompiledKernel compiled =
      compileWithNvrtc(kScaleAddIndex, "mf::scale_add_index", deviceOptions());
  compiled.cubin.clear();
  runScaleAddIndex(compiled, rng_);
}

// A block larger than the device allows is refused before the driver sees it.
TEST_F(Gpu, OversizedBlockIsUserError) {
  CompiledKernel compiled =
      compileWithNvrtc(kScaleAddIndex, "mf::scale_add_index", deviceOptions());
  LoadedKernel kernel(compiled);
  KernelArgs args;
  args.addPointer(0);
  args.addPointer(0);
  args.addScalar<int64_t>(0);
  EXPECT_THAT([&] { kernel.launch({.block_x = 2048}, args.pointers()); },
              ThrowsMessage<UserError>(HasSubstr(fmt::format(
                  "launch mf::scale_add_index: block (2048, 1, 1) has 2048 threads; {} allows at "
                  "most {} threads per block",
                  deviceInfo().name, deviceInfo().max_threads_per_block))));
}

// Tensor arguments packed by KernelArgs reach the kernel intact at both index widths: a
// transposed (strided) input is copied into a contiguous output.
TEST_F(Gpu, LaunchWithTensorArguments) {
  SCOPED_TRACE(fmt::format("seed {}", seed_));
  const int64_t rows = 37, cols = 53;
  std::vector<float> in(rows * cols);
  for (float& x : in) x = static_cast<float>(rng_() % 1000);
  DeviceBuffer d_in(in.size() * sizeof(float));
  d_in.copyFromHost(in.data(), d_in.size());
  for (bool index32 : {true, false}) {
    SCOPED_TRACE(index32 ? "index32" : "index64");
    std::string source = fmt::format("typedef {} mf_index_t;\n", index32 ? "int" : "long long") +
                         std::string(runtimePrelude()) + R"(namespace mf {
__global__ void copy2d(Tensor<float, 2, 2> in, Tensor<float, 2, 1> out) {
  mf_index_t i = blockIdx.x, j = threadIdx.x;
  if (i < out.size[0] && j < out.size[1])
    out[i * out.stride[0] + j] = in[i * in.stride[0] + j * in.stride[1]];
}
}  // namespace mf
)";
    LoadedKernel kernel(compileWithNvrtc(source, "mf::copy2d", deviceOptions()));
    DeviceBuffer d_out(in.size() * sizeof(float));
    d_out.fill(0xff);
    // The output is the transpose of the input, read through the input's strides.
    std::vector<int64_t> in_sizes = {cols, rows}, in_strides = {1, cols};
    std::vector<int64_t> out_sizes = {cols, rows}, out_strides = {rows};
    KernelArgs args;
    args.addTensor(d_in.ptr(), in_sizes, in_strides, index32);
    args.addTensor(d_out.ptr(), out_sizes, out_strides, index32);
    kernel.launch({.grid_x = static_cast<uint32_t>(cols), .block_x = 64}, args.pointers());
    std::vector<float> out(in.size());
    d_out.copyToHost(out.data(), d_out.size());
    for (int64_t c = 0; c < cols; ++c) {
      for (int64_t r = 0; r < rows; ++r) {
        ASSERT_EQ(out[c * rows + r], in[r * cols + c]) << "at (" << c << ", " << r << ")";
      }
    }
  }
}

}  // namespace
}  // namespace mf::cuda
