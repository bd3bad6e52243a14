#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cuda/device_memory.h"
#include "cuda/driver.h"
#include "cuda/module.h"
#include "cuda/nvrtc.h"
#include "support/options.h"

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace mf::cuda {
namespace {

// Without libcuda (CPU CI) the driver is reported missing, with a reason, and no crash.
TEST(NoDevice, DriverMissingIsReported) {
  if (cudaAvailable()) GTEST_SKIP() << "a device is present";
  EXPECT_FALSE(noDeviceReason().empty());
  EXPECT_THAT(
      [] { DeviceBuffer buffer(64); },
      ThrowsMessage<UserError>(HasSubstr("minifuser: no CUDA device available (" +
                                         noDeviceReason() + "); this operation needs a GPU")));
  EXPECT_THAT([] { deviceInfo(); },
              ThrowsMessage<UserError>(HasSubstr("no CUDA device available")));
}

// MINIFUSER_NO_DEVICE hides a present GPU; this runs the same on every machine.
TEST(NoDevice, OptionHidesTheDevice) {
  OptionsGuard guard;
  guard.get().no_device = true;
  EXPECT_FALSE(cudaAvailable());
  EXPECT_EQ(noDeviceReason(), "MINIFUSER_NO_DEVICE is set");
  const std::string pinned =
      "minifuser: no CUDA device available (MINIFUSER_NO_DEVICE is set); this operation needs "
      "a GPU";
  EXPECT_THAT([] { DeviceBuffer buffer(64); }, ThrowsMessage<UserError>(pinned));
  EXPECT_THAT([] { requireDevice(); }, ThrowsMessage<UserError>(pinned));
  CompiledKernel kernel =
      compileWithNvrtc("extern \"C\" __global__ void nop() {}\n", "nop", NvrtcOptions{});
  EXPECT_THAT([&] { LoadedKernel loaded(kernel); }, ThrowsMessage<UserError>(pinned));
}

// A zero-byte buffer allocates nothing, so it needs no device.
TEST(NoDevice, ZeroByteBufferNeedsNoDevice) {
  OptionsGuard guard;
  guard.get().no_device = true;
  DeviceBuffer empty(0);
  EXPECT_EQ(empty.ptr(), 0u);
  EXPECT_EQ(empty.size(), 0u);
  empty.fill(0);
  empty.copyFromHost(nullptr, 0);
  DeviceBuffer moved = std::move(empty);
  EXPECT_EQ(moved.ptr(), 0u);
}

}  // namespace
}  // namespace mf::cuda
