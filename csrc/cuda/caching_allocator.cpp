#include "cuda/caching_allocator.h"

#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cuda/driver.h"
#include "cuda/driver_api.h"

namespace mf::cuda {
namespace {

constexpr size_t kSmallLimit = size_t{1} << 20;
constexpr size_t kSmallQuantum = 512;
constexpr size_t kLargeQuantum = size_t{2} << 20;

struct Cache {
  std::mutex mutex;
  std::unordered_map<size_t, std::vector<uint64_t>> free_blocks;  // size class -> blocks
  AllocatorStats stats;
};

// Never destroyed: tensors in static storage may return blocks during exit; the process's
// end frees device memory anyway.
Cache& cache() {
  static Cache* instance = new Cache;
  return *instance;
}

// Frees the cached blocks; the caller holds the mutex and has synchronized the stream.
void freeCachedLocked(Cache& c) {
  for (auto& [bytes, blocks] : c.free_blocks)
    for (uint64_t ptr : blocks) driver::memFree(ptr);
  c.free_blocks.clear();
  c.stats.bytes_cached = 0;
}

}  // namespace

size_t allocationSizeClass(size_t bytes) {
  const size_t quantum = bytes < kSmallLimit ? kSmallQuantum : kLargeQuantum;
  return (bytes + quantum - 1) / quantum * quantum;
}

DeviceAllocation::DeviceAllocation(size_t bytes) : size_(bytes) {
  if (bytes == 0) return;
  requireDevice();
  block_bytes_ = allocationSizeClass(bytes);
  Cache& c = cache();
  std::lock_guard lock(c.mutex);
  if (auto it = c.free_blocks.find(block_bytes_);
      it != c.free_blocks.end() && !it->second.empty()) {
    ptr_ = it->second.back();
    it->second.pop_back();
    ++c.stats.reuses;
    c.stats.bytes_cached -= block_bytes_;
  } else {
    try {
      ptr_ = driver::memAlloc(block_bytes_);
    } catch (const CudaError&) {
      // Out of memory, perhaps only because the cache holds it: give it back and retry once.
      driver::streamSynchronize("releasing cached blocks");
      freeCachedLocked(c);
      ptr_ = driver::memAlloc(block_bytes_);
    }
    ++c.stats.device_allocations;
  }
  c.stats.bytes_in_use += block_bytes_;
}

DeviceAllocation::~DeviceAllocation() {
  release();
}

DeviceAllocation::DeviceAllocation(DeviceAllocation&& other) noexcept
    : ptr_(std::exchange(other.ptr_, 0)),
      size_(std::exchange(other.size_, 0)),
      block_bytes_(std::exchange(other.block_bytes_, 0)) {}

DeviceAllocation& DeviceAllocation::operator=(DeviceAllocation&& other) noexcept {
  if (this != &other) {
    release();
    ptr_ = std::exchange(other.ptr_, 0);
    size_ = std::exchange(other.size_, 0);
    block_bytes_ = std::exchange(other.block_bytes_, 0);
  }
  return *this;
}

void DeviceAllocation::release() noexcept {
  if (ptr_ == 0) return;
  Cache& c = cache();
  std::lock_guard lock(c.mutex);
  try {
    c.free_blocks[block_bytes_].push_back(ptr_);
    c.stats.bytes_cached += block_bytes_;
  } catch (...) {
    driver::memFree(ptr_);  // no room to remember it: give it back to the driver
  }
  c.stats.bytes_in_use -= block_bytes_;
  ptr_ = 0;
}

AllocatorStats allocatorStats() {
  std::lock_guard lock(cache().mutex);
  return cache().stats;
}

void resetAllocatorStats() {
  Cache& c = cache();
  std::lock_guard lock(c.mutex);
  c.stats.device_allocations = 0;
  c.stats.reuses = 0;
}

void releaseCachedBlocks() {
  Cache& c = cache();
  std::lock_guard lock(c.mutex);
  if (c.free_blocks.empty()) return;
  // A cached block may still be read by enqueued work; cuMemFree must not race with it.
  driver::streamSynchronize("releasing cached blocks");
  freeCachedLocked(c);
}

}  // namespace mf::cuda
