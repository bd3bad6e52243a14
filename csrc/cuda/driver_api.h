//! Checked wrappers around the CUDA driver entry points, for the .cpp files of csrc/cuda only
//! (everyone else uses DeviceBuffer and LoadedKernel). Each wrapper requires a device, makes
//! device 0's primary context current on the calling thread, and throws mf::CudaError naming
//! the call, the CUDA error and `context` when the driver reports a failure. The handle types
//! are the driver's own, forward-declared so that no CUDA header is needed here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

struct CUmod_st;
struct CUfunc_st;
struct CUevent_st;
struct CUstream_st;

namespace mf::cuda {
struct LaunchDims;
}

namespace mf::cuda::driver {

uint64_t memAlloc(size_t bytes);
void memcpyHtoD(uint64_t dst, const void* src, size_t bytes);
void memcpyDtoH(void* dst, uint64_t src, size_t bytes);
void memsetD8(uint64_t dst, uint8_t value, size_t bytes);

//! The one stream every copy, fill, launch and event of minifuser is ordered on (created on
//! first use; synchronizes with the legacy default stream). The *Async calls enqueue on it;
//! copies from or to pageable host memory are staged by the driver, so `src` may be reused
//! as soon as memcpyHtoDAsync returns.
CUstream_st* stream();
void memcpyHtoDAsync(uint64_t dst, const void* src, size_t bytes);
void memcpyDtoHAsync(void* dst, uint64_t src, size_t bytes);
void memcpyDtoDAsync(uint64_t dst, uint64_t src, size_t bytes);
void memsetD8Async(uint64_t dst, uint8_t value, size_t bytes);
//! Waits for everything enqueued on stream(); reports kernels' execution errors.
void streamSynchronize(std::string_view context);

//! Never throws: destructors call it, possibly at exit after the driver shut down.
void memFree(uint64_t ptr) noexcept;

//! `image` is a CUBIN or NUL-terminated PTX; `context` names the kernel for error messages.
CUmod_st* moduleLoadData(const void* image, std::string_view context);
CUfunc_st* moduleGetFunction(CUmod_st* module, const char* name, std::string_view context);
//! The most threads per block `function` can be launched with (its registers allow).
int functionMaxThreadsPerBlock(CUfunc_st* function);
void moduleUnload(CUmod_st* module) noexcept;

//! Launches on stream() without waiting; `args` points at one pointer per kernel parameter.
void launchKernel(CUfunc_st* function, const LaunchDims& dims, void** args,
                  std::string_view context);

CUevent_st* eventCreate();
void eventRecord(CUevent_st* event);
void eventSynchronize(CUevent_st* event, std::string_view context);
float eventElapsedMs(CUevent_st* start, CUevent_st* end);
void eventDestroy(CUevent_st* event) noexcept;

}  // namespace mf::cuda::driver
