//! The caching allocator behind every device tensor: blocks of device memory are kept in
//! size-class free lists when released and lent again, so repeated runs allocate nothing
//! new (nvFuser and PyTorch do the same). All minifuser device work is ordered on one stream
//! (driver_api.h), so a block released while a kernel still reads it is only reused by work
//! enqueued after that kernel.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mf::cuda {

//! A block lent by the caching allocator; move-only, returned to the cache on destruction.
//! Zero bytes lend nothing, need no device and have ptr() == 0.
class DeviceAllocation {
 public:
  DeviceAllocation() = default;
  //! Throws the no-device UserError without a GPU; mf::CudaError if the device is out of
  //! memory even after the cache was released.
  explicit DeviceAllocation(size_t bytes);
  ~DeviceAllocation();
  DeviceAllocation(DeviceAllocation&& other) noexcept;
  DeviceAllocation& operator=(DeviceAllocation&& other) noexcept;
  DeviceAllocation(const DeviceAllocation&) = delete;
  DeviceAllocation& operator=(const DeviceAllocation&) = delete;

  uint64_t ptr() const { return ptr_; }
  //! The bytes asked for (the block may be larger: its size class).
  size_t size() const { return size_; }

 private:
  void release() noexcept;

  uint64_t ptr_ = 0;
  size_t size_ = 0;
  size_t block_bytes_ = 0;
};

//! The size class a request of `bytes` is served from: multiples of 512 bytes below 1 MiB,
//! of 2 MiB above.
size_t allocationSizeClass(size_t bytes);

//! Counters since start (or the last resetAllocatorStats), and the bytes held now.
struct AllocatorStats {
  uint64_t device_allocations = 0;  //!< blocks obtained from cuMemAlloc
  uint64_t reuses = 0;              //!< requests served from a free list
  uint64_t bytes_cached = 0;        //!< bytes in free lists now
  uint64_t bytes_in_use = 0;        //!< bytes lent out now
};

AllocatorStats allocatorStats();
//! Zeroes the counters (not the byte figures).
void resetAllocatorStats();
//! Waits for the stream, then frees every cached block (cuMemFree); lent blocks stay.
void releaseCachedBlocks();

}  // namespace mf::cuda
