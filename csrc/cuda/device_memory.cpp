#include "cuda/device_memory.h"

#include <utility>

#include "cuda/driver_api.h"
#include "support/error.h"

namespace mf::cuda {

DeviceBuffer::DeviceBuffer(size_t bytes) : size_(bytes) {
  if (bytes > 0) ptr_ = driver::memAlloc(bytes);
}

DeviceBuffer::~DeviceBuffer() {
  driver::memFree(ptr_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, 0)), size_(std::exchange(other.size_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    driver::memFree(ptr_);
    ptr_ = std::exchange(other.ptr_, 0);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void DeviceBuffer::copyFromHost(const void* src, size_t bytes) {
  MF_CHECK(bytes <= size_, "DeviceBuffer::copyFromHost: {} bytes do not fit a buffer of {} bytes",
           bytes, size_);
  if (bytes > 0) driver::memcpyHtoD(ptr_, src, bytes);
}

void DeviceBuffer::copyToHost(void* dst, size_t bytes) const {
  MF_CHECK(bytes <= size_, "DeviceBuffer::copyToHost: asked for {} bytes of a buffer of {} bytes",
           bytes, size_);
  if (bytes > 0) driver::memcpyDtoH(dst, ptr_, bytes);
}

void DeviceBuffer::fill(uint8_t byte) {
  if (size_ > 0) driver::memsetD8(ptr_, byte, size_);
}

void copyToDeviceAsync(uint64_t dst, const void* src, size_t bytes) {
  if (bytes > 0) driver::memcpyHtoDAsync(dst, src, bytes);
}

void copyToHostAsync(void* dst, uint64_t src, size_t bytes) {
  if (bytes > 0) driver::memcpyDtoHAsync(dst, src, bytes);
}

void copyOnDeviceAsync(uint64_t dst, uint64_t src, size_t bytes) {
  if (bytes > 0) driver::memcpyDtoDAsync(dst, src, bytes);
}

void fillAsync(uint64_t dst, uint8_t byte, size_t bytes) {
  if (bytes > 0) driver::memsetD8Async(dst, byte, bytes);
}

void synchronize(std::string_view context) {
  driver::streamSynchronize(context);
}

}  // namespace mf::cuda
