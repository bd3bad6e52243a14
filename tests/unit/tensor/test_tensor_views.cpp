// mf::Tensor on the host: strided views with storage offsets (sharing storage, bounds
// checked), element-count overflow, and the device entry points without a device.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cuda/caching_allocator.h"
#include "support/options.h"
#include "tensor/tensor.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

std::vector<double> values(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.item(i));
  return v;
}

// A transposed view reads the storage column by column and shares it with its base.
TEST(TensorViews, TransposeSharesStorage) {
  Tensor base = Tensor::random({2, 3}, DataType::Float, 7);
  Tensor t = base.asStrided({3, 2}, {1, 3}, 0);
  EXPECT_FALSE(t.isContiguous());
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{1, 3}));
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 2; ++j) EXPECT_EQ(t.at({i, j}), base.at({j, i}));
  base.data<float>()[1] = 42.0f;  // base (0, 1) is view (1, 0)
  EXPECT_EQ(t.at({1, 0}), 42.0);
}

// Stride 0 repeats an element (an overlapping view); the offset moves the first element.
TEST(TensorViews, OverlappingAndOffsetViews) {
  Tensor base = Tensor::random({10}, DataType::Int64, 3);
  Tensor repeated = base.asStrided({4, 3}, {0, 1}, 5);
  EXPECT_EQ(repeated.storageOffset(), 5);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(repeated.at({i, j}), base.item(5 + j));
  EXPECT_EQ(repeated.data<int64_t>(), base.data<int64_t>() + 5);
  // A misaligned view (offset 1 of a vector of 4) is expressible.
  Tensor misaligned = base.asStrided({8}, {1}, 1);
  EXPECT_TRUE(misaligned.isContiguous());
  const std::vector<double> all = values(base);
  EXPECT_EQ(values(misaligned), std::vector<double>(all.begin() + 1, all.end() - 1));
  EXPECT_THAT(misaligned.toString(), HasSubstr("int64[8] allocation [9] offset 1 {"));
}

// A view of a view takes its offset in the storage, not in the outer view.
TEST(TensorViews, OffsetIsIntoTheStorage) {
  Tensor base = Tensor::arange({12}, DataType::Float);
  Tensor outer = base.asStrided({6}, {1}, 6);
  Tensor inner = outer.asStrided({2}, {2}, 1);
  EXPECT_EQ(values(inner), (std::vector<double>{1, 3}));
}

TEST(TensorViews, ViewPastTheStorageIsUserError) {
  Tensor base = Tensor::empty({2, 3}, DataType::Float);
  EXPECT_THAT(
      [&] {
        base.asStrided({2, 3}, {3, 1}, 1);
      },
      ThrowsMessage<UserError>(HasSubstr(
          "Tensor::asStrided: a view of sizes [2, 3], strides [3, 1] and storage offset 1 "
          "reaches element 6 of a storage of 6 elements")));
  EXPECT_THAT([&] { base.asStrided({2}, {-1}, 1); },
              ThrowsMessage<UserError>(
                  HasSubstr("Tensor::asStrided: stride -1 of axis 0 in [-1] is negative")));
  EXPECT_THAT(
      [&] {
        base.asStrided({2, 2}, {1}, 0);
      },
      ThrowsMessage<UserError>(HasSubstr("Tensor::asStrided: 2 sizes [2, 2] but 1 strides [1]")));
  EXPECT_THAT([&] { base.asStrided({2}, {1}, -1); },
              ThrowsMessage<UserError>(HasSubstr("storage offset -1")));
  // An empty view may sit at the end.
  EXPECT_EQ(base.asStrided({0}, {1}, 6).numel(), 0);
}

// Sizes whose element count overflows int64 are rejected when the tensor is made, naming
// the sizes (they used to wrap to 0 or a negative count).
TEST(TensorOverflow, ElementCountOverflowIsUserError) {
  const int64_t big = int64_t{1} << 40;
  EXPECT_THAT(
      [&] {
        Tensor::empty({big, big}, DataType::Float);
      },
      ThrowsMessage<UserError>(HasSubstr(
          "Tensor: sizes [1099511627776, 1099511627776] hold more than 2^63-1 elements")));
  EXPECT_THAT(
      [&] {
        Tensor::empty({3, int64_t{1} << 62}, DataType::Float);
      },
      ThrowsMessage<UserError>(
          HasSubstr("Tensor: sizes [3, 4611686018427387904] hold more than 2^63-1 elements")));
  EXPECT_THAT([&] { Tensor::empty({int64_t{1} << 62}, DataType::Float); },
              ThrowsMessage<UserError>(HasSubstr(
                  "Tensor: sizes [4611686018427387904] of float need more than 2^63-1 bytes")));
  Tensor one = Tensor::empty({1}, DataType::Float);
  EXPECT_THAT(
      [&] {
        one.asStrided({big, big}, {0, 0}, 0);
      },
      ThrowsMessage<UserError>(HasSubstr("Tensor::asStrided: sizes [1099511627776, "
                                         "1099511627776] hold more than 2^63-1 elements")));
  EXPECT_THAT(
      [&] {
        Tensor::emptyStrided({4, 2}, {int64_t{1} << 62, 1}, 8, DataType::Float);
      },
      ThrowsMessage<UserError>(HasSubstr("spans more than 2^63-1 elements")));
  // A large but representable overlapping view is fine: no storage behind it.
  EXPECT_EQ(one.asStrided({big, 2}, {0, 0}, 0).numel(), 2 * big);
}

// Without a device, every entry point to device storage says so.
TEST(TensorNoDevice, DeviceEntryPointsSayNoDevice) {
  OptionsGuard guard;
  guard.get().no_device = true;
  const auto no_device = ThrowsMessage<UserError>(
      HasSubstr("minifuser: no CUDA device available (MINIFUSER_NO_DEVICE is set)"));
  Tensor host = Tensor::random({4}, DataType::Float, 1);
  EXPECT_THAT([&] { host.toDevice(); }, no_device);
  EXPECT_THAT([&] { Tensor::emptyDevice({4}, DataType::Float); }, no_device);
  EXPECT_THAT([&] { Tensor::emptyDevice({0}, DataType::Float); }, no_device);
  int64_t fake = 0;
  EXPECT_THAT([&] { Tensor::fromDevicePointer(&fake, {1}, {1}, DataType::Int64); }, no_device);
  // Host tensors need no device: toHost is the tensor itself, sharing storage.
  EXPECT_FALSE(host.isCuda());
  EXPECT_EQ(host.device(), Device::Host);
  EXPECT_EQ(host.toHost().rawData(), host.rawData());
  EXPECT_EQ(host.dataPtr(), host.rawData());
  EXPECT_THAT([&] { host.devicePtr(); },
              ThrowsMessage<UserError>(HasSubstr(
                  "Tensor::devicePtr: the float[4] tensor is on the host; call toDevice()")));
}

// fromDevicePointer checks what it can without touching the memory, before the device.
TEST(TensorNoDevice, FromDevicePointerChecksItsArguments) {
  EXPECT_THAT(
      [] { Tensor::fromDevicePointer(nullptr, {2}, {1}, DataType::Float); },
      ThrowsMessage<UserError>(HasSubstr("Tensor::fromDevicePointer: the pointer is null")));
  EXPECT_THAT(
      [] { Tensor::fromDevicePointer(reinterpret_cast<void*>(0x1002), {2}, {1}, DataType::Float); },
      ThrowsMessage<UserError>(HasSubstr(
          "Tensor::fromDevicePointer: pointer 0x1002 is not aligned to float (4 bytes)")));
  EXPECT_THAT(
      [] {
        Tensor::fromDevicePointer(reinterpret_cast<void*>(0x1000), {2, 2}, {1}, DataType::Float);
      },
      ThrowsMessage<UserError>(HasSubstr("2 sizes [2, 2] but 1 strides [1]")));
}

// Requests are served from size classes (exact-class free lists): 512-byte steps below
// 1 MiB, 2 MiB steps above. A zero-byte block needs no device.
TEST(CachingAllocator, SizeClassesAndEmptyBlocks) {
  EXPECT_EQ(cuda::allocationSizeClass(1), 512u);
  EXPECT_EQ(cuda::allocationSizeClass(512), 512u);
  EXPECT_EQ(cuda::allocationSizeClass(513), 1024u);
  EXPECT_EQ(cuda::allocationSizeClass((size_t{1} << 20) - 1), size_t{1} << 20);
  EXPECT_EQ(cuda::allocationSizeClass((size_t{1} << 20) + 1), size_t{2} << 20);
  EXPECT_EQ(cuda::allocationSizeClass((size_t{5} << 20)), size_t{6} << 20);
  OptionsGuard guard;
  guard.get().no_device = true;
  cuda::DeviceAllocation empty(0);
  EXPECT_EQ(empty.ptr(), 0u);
  EXPECT_THAT([] { cuda::DeviceAllocation block(4); },
              ThrowsMessage<UserError>(HasSubstr("no CUDA device available")));
}

// asStrided names a negative offset instead of a reach (it used to say "reaches element 0").
TEST(TensorViews, NegativeStorageOffsetIsNamed) {
  const Tensor t = Tensor::random({16}, DataType::Float, 3);
  EXPECT_THAT([&] { t.asStrided({2}, {1}, -3); },
              ThrowsMessage<UserError>(HasSubstr(
                  "Tensor::asStrided: the storage offset -3 is negative; a view's first element "
                  "is element 0 or a later one of the storage")));
}

}  // namespace
}  // namespace mf
