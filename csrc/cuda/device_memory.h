//! Device memory: an owning, move-only buffer on device 0 (for the GPU tests of cuda/;
//! tensors use the caching allocator), and the stream-ordered copies and fills that device
//! tensors and the executor use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mf::cuda {

//! `bytes` of device memory, freed on destruction. A zero-byte buffer allocates nothing,
//! needs no device and has ptr() == 0. Allocating without a device throws mf::UserError
//! ("minifuser: no CUDA device available ..."); a failing driver call throws mf::CudaError.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  //! The device address (a CUdeviceptr), as kernel arguments take it.
  uint64_t ptr() const { return ptr_; }
  size_t size() const { return size_; }

  //! Copies `bytes` (at most size()) from host memory to the start of the buffer.
  void copyFromHost(const void* src, size_t bytes);
  //! Copies the first `bytes` (at most size()) of the buffer to host memory.
  void copyToHost(void* dst, size_t bytes) const;
  //! Sets every byte of the buffer to `byte` (e.g. 0xFF to poison outputs in tests).
  void fill(uint8_t byte);

 private:
  uint64_t ptr_ = 0;
  size_t size_ = 0;
};

//! Enqueue on minifuser's one stream, in order with every launch (no waiting). A host
//! source may be reused as soon as copyToDeviceAsync returns (the driver stages it); a
//! host destination of copyToHostAsync holds the data after synchronize().
void copyToDeviceAsync(uint64_t dst, const void* src, size_t bytes);
void copyToHostAsync(void* dst, uint64_t src, size_t bytes);
//! Device to device (the benchmarks' copy baseline).
void copyOnDeviceAsync(uint64_t dst, uint64_t src, size_t bytes);
void fillAsync(uint64_t dst, uint8_t byte, size_t bytes);
//! Waits for everything enqueued; a kernel's execution error throws mf::CudaError naming
//! `context`.
void synchronize(std::string_view context);

}  // namespace mf::cuda
