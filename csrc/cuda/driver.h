//! The CUDA driver, loaded at run time with dlopen("libcuda.so.1"), never linked: minifuser
//! builds, compiles kernels with NVRTC and runs its CPU tests on machines without a GPU.
//! Everything that allocates or launches goes through device 0's primary context.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "support/error.h"

namespace mf {

//! A failed CUDA driver call: out of memory, an illegal address, a launch the device rejects.
//! A device-side failure, not a minifuser bug; the message names the call and the CUDA error.
class CudaError : public UserError {
 public:
  using UserError::UserError;
};

}  // namespace mf

namespace mf::cuda {

//! True when libcuda.so.1 loads, cuInit succeeds, there is at least one device and
//! MINIFUSER_NO_DEVICE is not set. Never throws; the driver is probed once per process.
bool cudaAvailable();

//! Why cudaAvailable() is false (e.g. "cannot load libcuda.so.1: ..."); empty when it is true.
std::string noDeviceReason();

//! Throws mf::UserError "minifuser: no CUDA device available (<reason>); this operation needs
//! a GPU" unless cudaAvailable(). Called by everything that allocates, copies or launches.
void requireDevice();

//! The limits and identity of device 0.
struct DeviceInfo {
  std::string name;  //!< e.g. "NVIDIA H200"
  int major = 0;     //!< compute capability
  int minor = 0;
  int sm_count = 0;
  int max_threads_per_block = 0;
  std::array<int, 3> max_block_dims = {0, 0, 0};
  std::array<int, 3> max_grid_dims = {0, 0, 0};
  int shared_mem_per_block = 0;  //!< bytes, without opt-in
};

//! Device 0's DeviceInfo. Throws like requireDevice() without a device.
const DeviceInfo& deviceInfo();

//! RAII: minifuser's copies, fills, launches and events on this thread go on `stream` (a
//! CUstream: a framework's current stream, e.g. PyTorch's; 0 is the legacy default stream)
//! instead of minifuser's own for the guard's scope. The caching allocator reuses a block
//! freed by work on another stream only in that stream's order, so keep one stream per
//! process, or synchronize before switching (as with PyTorch's own allocator).
class StreamGuard {
 public:
  explicit StreamGuard(uint64_t stream);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  bool had_previous_;
  uint64_t previous_;
};

}  // namespace mf::cuda
