#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cuda/driver.h"
#include "cuda/module.h"

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace mf::cuda {
namespace {

// Limits of an H100/H200-class device, so the checks run without one.
DeviceInfo fakeDevice() {
  DeviceInfo d;
  d.name = "Fake GPU";
  d.major = 9;
  d.max_threads_per_block = 1024;
  d.max_block_dims = {1024, 1024, 64};
  d.max_grid_dims = {2147483647, 65535, 65535};
  d.shared_mem_per_block = 49152;
  return d;
}

TEST(LaunchDims, PrintsAsTheDumpDoes) {
  LaunchDims d{.grid_x = 4, .grid_y = 2, .block_x = 128, .smem = 16};
  EXPECT_EQ(toString(d), "grid (4, 2, 1) block (128, 1, 1) smem 16");
}

TEST(LaunchDims, AcceptsTheLimits) {
  checkLaunchDims({.grid_x = 2147483647, .grid_y = 65535, .block_x = 1024, .smem = 49152},
                  fakeDevice(), "mf::k");
}

TEST(LaunchDims, TooManyThreadsPerBlock) {
  EXPECT_THAT([] { checkLaunchDims({.block_x = 2048}, fakeDevice(), "mf::k"); },
              ThrowsMessage<UserError>(
                  "launch mf::k: block (2048, 1, 1) has 2048 threads; Fake GPU allows at most "
                  "1024 threads per block"));
}

TEST(LaunchDims, BlockDimensionTooLarge) {
  EXPECT_THAT([] { checkLaunchDims({.block_x = 1, .block_z = 128}, fakeDevice(), "mf::k"); },
              ThrowsMessage<UserError>(HasSubstr(
                  "block (1, 1, 128) exceeds Fake GPU's maximum block dimensions (1024, 1024, "
                  "64)")));
}

TEST(LaunchDims, GridDimensionTooLarge) {
  EXPECT_THAT([] { checkLaunchDims({.grid_y = 65536}, fakeDevice(), "mf::k"); },
              ThrowsMessage<UserError>(
                  HasSubstr("grid (1, 65536, 1) exceeds Fake GPU's maximum grid dimensions")));
}

TEST(LaunchDims, EmptyDimension) {
  EXPECT_THAT([] { checkLaunchDims({.grid_x = 0}, fakeDevice(), "mf::k"); },
              ThrowsMessage<UserError>(HasSubstr(
                  "launch mf::k: grid (0, 1, 1) block (1, 1, 1) smem 0 has an empty dimension")));
}

TEST(LaunchDims, TooMuchSharedMemory) {
  EXPECT_THAT([] { checkLaunchDims({.smem = 65536}, fakeDevice(), "mf::k"); },
              ThrowsMessage<UserError>(HasSubstr(
                  "requests 65536 bytes of dynamic shared memory; Fake GPU allows at most 49152")));
}

}  // namespace
}  // namespace mf::cuda
