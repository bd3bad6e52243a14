#include "cuda/kernel_args.h"

#include <cstring>
#include <limits>

#include "support/error.h"

namespace mf::cuda {

void KernelArgs::add(const void* data, size_t bytes) {
  Argument& arg = arguments_.emplace_back();
  arg.words.resize((bytes + 7) / 8, 0);
  arg.bytes = bytes;
  std::memcpy(arg.words.data(), data, bytes);
  // The words' heap buffer does not move when arguments_ reallocates, so earlier pointers
  // stay valid; pointers_ just gains one entry.
  pointers_.push_back(arg.words.data());
}

void KernelArgs::set(size_t i, const void* data, size_t bytes) {
  MF_ASSERT(i < arguments_.size() && bytes <= arguments_[i].bytes,
            "setting {} bytes of argument {} of {}", bytes, i, arguments_.size());
  std::memcpy(arguments_[i].words.data(), data, bytes);
}

void KernelArgs::addTensor(uint64_t data_ptr, std::span<const int64_t> sizes,
                           std::span<const int64_t> strides, bool index32) {
  const size_t width = index32 ? 4 : 8;
  const size_t bytes = sizeof(uint64_t) + (sizes.size() + strides.size()) * width;
  std::vector<std::byte> packed((bytes + 7) / 8 * 8, std::byte{0});
  std::memcpy(packed.data(), &data_ptr, sizeof(data_ptr));
  size_t offset = sizeof(data_ptr);
  auto put = [&](int64_t value) {
    if (index32) {
      // The executor chose 32-bit indexing for this kernel; a value that does not fit means
      // that choice was wrong.
      MF_ASSERT(value >= std::numeric_limits<int32_t>::min() &&
                    value <= std::numeric_limits<int32_t>::max(),
                "tensor argument extent or stride {} does not fit 32-bit indexing", value);
      int32_t narrow = static_cast<int32_t>(value);
      std::memcpy(packed.data() + offset, &narrow, sizeof(narrow));
    } else {
      std::memcpy(packed.data() + offset, &value, sizeof(value));
    }
    offset += width;
  };
  for (int64_t size : sizes) put(size);
  for (int64_t stride : strides) put(stride);
  add(packed.data(), packed.size());
}

std::span<const std::byte> KernelArgs::bytes(size_t i) const {
  MF_ASSERT(i < arguments_.size(), "argument {} of {}", i, arguments_.size());
  const Argument& arg = arguments_[i];
  return {reinterpret_cast<const std::byte*>(arg.words.data()), arg.bytes};
}

}  // namespace mf::cuda
