//! A compiled kernel loaded onto the GPU, and its launch: the last step of the pipeline.
//! Launch configurations are checked against the device's limits before the driver sees
//! them, so a bad configuration is a clear mf::UserError rather than a CUDA error code.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

struct CUmod_st;
struct CUfunc_st;

namespace mf::cuda {

struct CompiledKernel;
struct DeviceInfo;

//! Grid and block sizes and dynamic shared memory (bytes) of one launch.
struct LaunchDims {
  uint32_t grid_x = 1, grid_y = 1, grid_z = 1;
  uint32_t block_x = 1, block_y = 1, block_z = 1;
  uint32_t smem = 0;
};

//! Milliseconds between CUDA events recorded on minifuser's stream before and after `work`
//! (which enqueues device work there), waiting for the end event. Benchmarks time every
//! baseline this way, so host launch cost counts alike.
float timeOnStreamMs(const std::function<void()>& work);

//! "grid (x, y, z) block (x, y, z) smem N", as the launch_params dump prints it.
std::string toString(const LaunchDims& dims);

//! Throws mf::UserError naming `kernel_name` when `dims` has a zero extent or exceeds one of
//! `device`'s limits (threads per block, block and grid dimensions, shared memory).
void checkLaunchDims(const LaunchDims& dims, const DeviceInfo& device,
                     std::string_view kernel_name);

//! A CompiledKernel loaded into device 0's primary context (CUBIN if present, else PTX,
//! which the driver JIT-compiles). Move-only; unloads the module on destruction.
class LoadedKernel {
 public:
  //! Throws the no-device UserError without a GPU, mf::CudaError if the driver rejects it.
  explicit LoadedKernel(const CompiledKernel& kernel);
  ~LoadedKernel();
  LoadedKernel(LoadedKernel&& other) noexcept;
  LoadedKernel& operator=(LoadedKernel&& other) noexcept;
  LoadedKernel(const LoadedKernel&) = delete;
  LoadedKernel& operator=(const LoadedKernel&) = delete;

  //! Checks `dims` (checkLaunchDims and the kernel's own thread limit), launches with
  //! `args` (one pointer per kernel parameter, e.g. KernelArgs::pointers()) and waits for
  //! the kernel. Errors of the launch and of the kernel's execution throw mf::CudaError.
  //! Dump: launch_params.
  void launch(const LaunchDims& dims, std::vector<void*>& args) const;

  //! launch() without waiting: the kernel is enqueued on the stream every copy uses
  //! (cuda/device_memory.h), so later copies see its results; its execution errors surface
  //! at the next synchronize(). `dims_checked`: these dims passed the checks before (the
  //! executor's prepared launch), so only the dump remains.
  void launchAsync(const LaunchDims& dims, std::vector<void*>& args,
                   bool dims_checked = false) const;

  //! The driver call alone (cuLaunchKernel on minifuser's stream), without the limit checks
  //! and the dump: the bare launch benchmarks compare the executor's host cost against.
  void launchUnchecked(const LaunchDims& dims, std::vector<void*>& args) const;

  //! launch() timed with CUDA events; returns the kernel's time in milliseconds.
  float launchTimed(const LaunchDims& dims, std::vector<void*>& args) const;

  const std::string& name() const { return name_; }

 private:
  void checkAndDump(const LaunchDims& dims, bool dims_checked = false) const;

  std::string name_;
  CUmod_st* module_ = nullptr;
  CUfunc_st* function_ = nullptr;
  int max_threads_per_block_ = 0;  // what its register use allows (checkAndDump)
};

}  // namespace mf::cuda
