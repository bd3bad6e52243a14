#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "cuda/kernel_args.h"
#include "cuda/nvrtc.h"
#include "cuda/runtime_sources.h"
#include "support/error.h"

namespace mf::cuda {
namespace {

// The bytes of argument `i` as little-endian integers of `width` bytes each.
std::vector<int64_t> words(const KernelArgs& args, size_t i, size_t width) {
  std::span<const std::byte> bytes = args.bytes(i);
  std::vector<int64_t> result;
  for (size_t offset = 0; offset + width <= bytes.size(); offset += width) {
    if (width == 4) {
      int32_t value;
      std::memcpy(&value, bytes.data() + offset, 4);
      result.push_back(value);
    } else {
      int64_t value;
      std::memcpy(&value, bytes.data() + offset, 8);
      result.push_back(value);
    }
  }
  return result;
}

constexpr uint64_t kPtr = 0x7f00'1234'5678'9ab0ull;
const std::vector<int64_t> kSizes = {3, 5};
const std::vector<int64_t> kStrides = {5, 1};

// Tensor<T, 2, 2> with int64 indices: pointer, sizes, strides, 8 bytes each.
TEST(KernelArgs, TensorIndex64) {
  KernelArgs args;
  args.addTensor(kPtr, kSizes, kStrides, /*index32=*/false);
  ASSERT_EQ(args.bytes(0).size(), 40u);
  EXPECT_EQ(words(args, 0, 8), (std::vector<int64_t>{int64_t(kPtr), 3, 5, 5, 1}));
}

// Tensor<T, 2, 2> with int32 indices: 8-byte pointer, then four 4-byte values.
TEST(KernelArgs, TensorIndex32) {
  KernelArgs args;
  args.addTensor(kPtr, kSizes, kStrides, /*index32=*/true);
  ASSERT_EQ(args.bytes(0).size(), 24u);
  uint64_t ptr;
  std::memcpy(&ptr, args.bytes(0).data(), 8);
  EXPECT_EQ(ptr, kPtr);
  EXPECT_EQ(words(args, 0, 4),
            (std::vector<int64_t>{int32_t(kPtr), int32_t(kPtr >> 32), 3, 5, 5, 1}));
}

// An odd count of 32-bit values is padded to the struct's 8-byte alignment with zeros.
TEST(KernelArgs, TensorIndex32PadsToEightBytes) {
  KernelArgs args;
  std::vector<int64_t> sizes = {7};
  args.addTensor(kPtr, sizes, {}, /*index32=*/true);  // Tensor<T, 1, 0>
  ASSERT_EQ(args.bytes(0).size(), 16u);
  EXPECT_EQ(words(args, 0, 4)[2], 7);
  EXPECT_EQ(words(args, 0, 4)[3], 0);
}

// A 0-dim tensor is just its pointer; N = 0 with A > 0 puts strides right after it.
TEST(KernelArgs, ZeroDimTensors) {
  KernelArgs args;
  args.addTensor(kPtr, {}, {}, /*index32=*/false);
  std::vector<int64_t> strides = {4};
  args.addTensor(kPtr, {}, strides, /*index32=*/false);
  EXPECT_EQ(args.bytes(0).size(), 8u);
  EXPECT_EQ(words(args, 1, 8), (std::vector<int64_t>{int64_t(kPtr), 4}));
}

// Scalars keep their own size; pointers() lists one 8-byte-aligned pointer per argument.
TEST(KernelArgs, ScalarsAndPointers) {
  KernelArgs args;
  args.addScalar<float>(1.5f);
  args.addScalar<int64_t>(-3);
  args.addPointer(kPtr);
  ASSERT_EQ(args.size(), 3u);
  ASSERT_EQ(args.pointers().size(), 3u);
  EXPECT_EQ(args.bytes(0).size(), 4u);
  float f;
  std::memcpy(&f, args.pointers()[0], 4);
  EXPECT_EQ(f, 1.5f);
  EXPECT_EQ(*static_cast<int64_t*>(args.pointers()[1]), -3);
  EXPECT_EQ(*static_cast<uint64_t*>(args.pointers()[2]), kPtr);
  for (void* p : args.pointers()) EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 8, 0u);
}

// Earlier pointers stay valid as more arguments are added.
TEST(KernelArgs, PointersStayValid) {
  KernelArgs args;
  args.addScalar<int32_t>(42);
  void* first = args.pointers()[0];
  for (int i = 0; i < 100; ++i) args.addScalar<int32_t>(i);
  EXPECT_EQ(args.pointers()[0], first);
  EXPECT_EQ(*static_cast<int32_t*>(first), 42);
}

// 32-bit indexing of a value that does not fit means the executor chose the index type wrong.
TEST(KernelArgs, Index32OverflowIsInternalError) {
  KernelArgs args;
  std::vector<int64_t> sizes = {int64_t{1} << 31};
  EXPECT_THAT([&] { args.addTensor(kPtr, sizes, {}, /*index32=*/true); },
              ::testing::ThrowsMessage<InternalError>(
                  ::testing::HasSubstr("2147483648 does not fit 32-bit indexing")));
}

// The device struct of runtime/tensor.cuh has the size and alignment of what the packer
// writes, for both index widths: NVRTC checks static_asserts generated from the packed bytes.
// (NVRTC has no offsetof; with a pointer first and arrays of one type after it, size and
// alignment pin the layout.)
TEST(KernelArgs, MatchesDeviceTensorLayout) {
  for (bool index32 : {true, false}) {
    SCOPED_TRACE(index32 ? "index32" : "index64");
    std::string checks;
    for (int n = 0; n <= 3; ++n) {
      for (int a = 0; a <= 3; ++a) {
        KernelArgs args;
        args.addTensor(kPtr, std::vector<int64_t>(n, 1), std::vector<int64_t>(a, 1), index32);
        checks += fmt::format(
            "static_assert(sizeof(Tensor<float, {0}, {1}>) == {2} && "
            "alignof(Tensor<float, {0}, {1}>) == 8, \"Tensor<float, {0}, {1}>\");\n",
            n, a, args.bytes(0).size());
      }
    }
    std::string source = fmt::format("typedef {} mf_index_t;\n", index32 ? "int" : "long long") +
                         std::string(runtimePrelude()) + checks +
                         "__global__ void layout_probe() {}\n";
    EXPECT_NO_THROW(compileWithNvrtc(source, "layout_probe", {}));
  }
}

// setPointer and setScalar rewrite an argument in place (a cached launch's per-run patch):
// the tensor's sizes and strides and every pointer stay as they were; moving keeps them.
TEST(KernelArgs, PatchInPlace) {
  KernelArgs args;
  args.addTensor(kPtr, kSizes, kStrides, /*index32=*/true);
  args.addScalar<float>(1.5f);
  args.addPointer(0);
  const std::vector<void*> before = args.pointers();
  args.setPointer(0, kPtr + 64);
  args.setScalar<float>(1, -2.25f);
  args.setPointer(2, kPtr + 128);
  KernelArgs moved = std::move(args);
  EXPECT_EQ(moved.pointers(), before);
  uint64_t ptr;
  std::memcpy(&ptr, moved.pointers()[0], 8);
  EXPECT_EQ(ptr, kPtr + 64);
  const std::vector<int64_t> w = words(moved, 0, 4);  // the pointer's two halves, then 4 ints
  EXPECT_EQ(std::vector<int64_t>(w.begin() + 2, w.end()), (std::vector<int64_t>{3, 5, 5, 1}));
  float f;
  std::memcpy(&f, moved.pointers()[1], 4);
  EXPECT_EQ(f, -2.25f);
  EXPECT_EQ(*static_cast<uint64_t*>(moved.pointers()[2]), kPtr + 128);
}

}  // namespace
}  // namespace mf::cuda
