#include "cuda/module.h"

#include <array>
#include <ostream>
#include <utility>

#include "cuda/driver.h"
#include "cuda/driver_api.h"
#include "cuda/nvrtc.h"
#include "support/options.h"

namespace mf::cuda {
namespace {

std::string blockString(const LaunchDims& d) {
  return fmt::format("block ({}, {}, {})", d.block_x, d.block_y, d.block_z);
}

std::string gridString(const LaunchDims& d) {
  return fmt::format("grid ({}, {}, {})", d.grid_x, d.grid_y, d.grid_z);
}

// Destroys the events of a timed launch on every path out of it.
struct EventPair {
  CUevent_st* start = driver::eventCreate();
  CUevent_st* end = driver::eventCreate();
  ~EventPair() {
    driver::eventDestroy(start);
    driver::eventDestroy(end);
  }
};

}  // namespace

float timeOnStreamMs(const std::function<void()>& work) {
  requireDevice();
  EventPair events;
  driver::eventRecord(events.start);
  work();
  driver::eventRecord(events.end);
  driver::eventSynchronize(events.end, "after a timed region");
  return driver::eventElapsedMs(events.start, events.end);
}

std::string toString(const LaunchDims& d) {
  return fmt::format("{} {} smem {}", gridString(d), blockString(d), d.smem);
}

void checkLaunchDims(const LaunchDims& d, const DeviceInfo& device, std::string_view kernel_name) {
  const std::array<int64_t, 3> block = {d.block_x, d.block_y, d.block_z};
  const std::array<int64_t, 3> grid = {d.grid_x, d.grid_y, d.grid_z};
  MF_CHECK(block[0] * block[1] * block[2] > 0 && grid[0] * grid[1] * grid[2] > 0,
           "launch {}: {} has an empty dimension; every grid and block extent must be >= 1",
           kernel_name, toString(d));
  int64_t threads = block[0] * block[1] * block[2];
  MF_CHECK(threads <= device.max_threads_per_block,
           "launch {}: {} has {} threads; {} allows at most {} threads per block", kernel_name,
           blockString(d), threads, device.name, device.max_threads_per_block);
  for (size_t i = 0; i < 3; ++i) {
    MF_CHECK(block[i] <= device.max_block_dims[i],
             "launch {}: {} exceeds {}'s maximum block dimensions ({}, {}, {})", kernel_name,
             blockString(d), device.name, device.max_block_dims[0], device.max_block_dims[1],
             device.max_block_dims[2]);
    MF_CHECK(grid[i] <= device.max_grid_dims[i],
             "launch {}: {} exceeds {}'s maximum grid dimensions ({}, {}, {})", kernel_name,
             gridString(d), device.name, device.max_grid_dims[0], device.max_grid_dims[1],
             device.max_grid_dims[2]);
  }
  MF_CHECK(d.smem <= static_cast<uint32_t>(device.shared_mem_per_block),
           "launch {}: requests {} bytes of dynamic shared memory; {} allows at most {} per block",
           kernel_name, d.smem, device.name, device.shared_mem_per_block);
}

LoadedKernel::LoadedKernel(const CompiledKernel& kernel) : name_(kernel.name) {
  MF_ASSERT(!kernel.cubin.empty() || !kernel.ptx.empty(), "kernel {} has neither CUBIN nor PTX",
            kernel.name);
  std::string context = "loading kernel " + name_;
  const void* image = kernel.cubin.empty() ? static_cast<const void*>(kernel.ptx.c_str())
                                           : static_cast<const void*>(kernel.cubin.data());
  module_ = driver::moduleLoadData(image, context);
  try {
    function_ = driver::moduleGetFunction(module_, kernel.lowered_name.c_str(), context);
    max_threads_per_block_ = driver::functionMaxThreadsPerBlock(function_);
  } catch (...) {
    driver::moduleUnload(module_);
    throw;
  }
}

LoadedKernel::~LoadedKernel() {
  driver::moduleUnload(module_);
}

LoadedKernel::LoadedKernel(LoadedKernel&& other) noexcept
    : name_(std::move(other.name_)),
      module_(std::exchange(other.module_, nullptr)),
      function_(std::exchange(other.function_, nullptr)),
      max_threads_per_block_(other.max_threads_per_block_) {}

LoadedKernel& LoadedKernel::operator=(LoadedKernel&& other) noexcept {
  if (this != &other) {
    driver::moduleUnload(module_);
    name_ = std::move(other.name_);
    module_ = std::exchange(other.module_, nullptr);
    function_ = std::exchange(other.function_, nullptr);
    max_threads_per_block_ = other.max_threads_per_block_;
  }
  return *this;
}

void LoadedKernel::checkAndDump(const LaunchDims& dims, bool dims_checked) const {
  MF_ASSERT(function_, "launch of a moved-from kernel {}", name_);
  if (isDumpEnabled(DumpOption::LaunchParams)) {
    dumpStream() << "launch " << name_ << ": " << toString(dims) << "\n";
  }
  if (dims_checked) return;
  checkLaunchDims(dims, deviceInfo(), name_);
  int64_t threads = int64_t{dims.block_x} * dims.block_y * dims.block_z;
  MF_CHECK(threads <= max_threads_per_block_,
           "launch {}: {} has {} threads; this kernel's register use allows at most {}", name_,
           toString(dims), threads, max_threads_per_block_);
}

void LoadedKernel::launchAsync(const LaunchDims& dims, std::vector<void*>& args,
                               bool dims_checked) const {
  checkAndDump(dims, dims_checked);
  // The kernel's name as the context: no string is built on the hot path.
  driver::launchKernel(function_, dims, args.data(), name_);
}

void LoadedKernel::launchUnchecked(const LaunchDims& dims, std::vector<void*>& args) const {
  driver::launchKernel(function_, dims, args.data(), name_);
}

void LoadedKernel::launch(const LaunchDims& dims, std::vector<void*>& args) const {
  launchAsync(dims, args);
  // Execution errors (an illegal address, a trap) surface only when we wait for the kernel.
  driver::streamSynchronize("after launching " + name_);
}

float LoadedKernel::launchTimed(const LaunchDims& dims, std::vector<void*>& args) const {
  checkAndDump(dims);
  std::string context = "launching " + name_;
  EventPair events;
  driver::eventRecord(events.start);
  driver::launchKernel(function_, dims, args.data(), context);
  driver::eventRecord(events.end);
  // Waiting for the end event also reports the kernel's execution errors.
  driver::eventSynchronize(events.end, "after " + context);
  return driver::eventElapsedMs(events.start, events.end);
}

}  // namespace mf::cuda
