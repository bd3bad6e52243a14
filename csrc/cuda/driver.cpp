#include "cuda/driver.h"

#include <cuda.h>
#include <dlfcn.h>

#include "cuda/driver_api.h"
#include "cuda/module.h"
#include "support/options.h"

namespace mf::cuda {
namespace {

// The entry points we use, by their exported symbol names (cuda.h #defines the plain names
// to the _v2 ones, so the typed table and dlsym must both use the _v2 spelling).
// clang-format off
#define MF_DRIVER_ENTRY_POINTS(X)                                                             \
  X(cuInit) X(cuDeviceGet) X(cuDeviceGetCount) X(cuDeviceGetAttribute) X(cuDeviceGetName)     \
  X(cuDevicePrimaryCtxRetain) X(cuCtxSetCurrent)                                             \
  X(cuGetErrorName) X(cuGetErrorString)                                                       \
  X(cuMemAlloc_v2) X(cuMemFree_v2) X(cuMemcpyHtoD_v2) X(cuMemcpyDtoH_v2) X(cuMemsetD8_v2)     \
  X(cuMemcpyHtoDAsync_v2) X(cuMemcpyDtoHAsync_v2) X(cuMemcpyDtoDAsync_v2) X(cuMemsetD8Async)   \
  X(cuStreamCreate) X(cuStreamSynchronize)                                                    \
  X(cuModuleLoadData) X(cuModuleGetFunction) X(cuModuleUnload) X(cuFuncGetAttribute)          \
  X(cuLaunchKernel)                                                                           \
  X(cuEventCreate) X(cuEventRecord) X(cuEventSynchronize) X(cuEventElapsedTime_v2)            \
  X(cuEventDestroy_v2)
// clang-format on

struct DriverApi {
#define MF_DRIVER_MEMBER(fn) decltype(&::fn) fn = nullptr;
  MF_DRIVER_ENTRY_POINTS(MF_DRIVER_MEMBER)
#undef MF_DRIVER_MEMBER
};

// What the one-time probe found. `reason` is empty exactly when a device is usable.
struct DriverState {
  DriverApi api;
  std::string reason;
  CUcontext context = nullptr;
  DeviceInfo info;
};

std::string describe(const DriverApi& api, CUresult result) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (api.cuGetErrorName) api.cuGetErrorName(result, &name);
  if (api.cuGetErrorString) api.cuGetErrorString(result, &text);
  return fmt::format("{} ({})", name ? name : fmt::format("CUresult {}", static_cast<int>(result)),
                     text ? text : "no description");
}

// Returns the reason the table is incomplete, or "" when every entry point was found.
std::string loadEntryPoints(void* library, DriverApi& api) {
#define MF_DRIVER_LOAD(fn) api.fn = reinterpret_cast<decltype(api.fn)>(dlsym(library, #fn));
  MF_DRIVER_ENTRY_POINTS(MF_DRIVER_LOAD)
#undef MF_DRIVER_LOAD
  // Drivers before CUDA 12.8 export only the first version, with the same signature.
  if (!api.cuEventElapsedTime_v2) {
    api.cuEventElapsedTime_v2 =
        reinterpret_cast<decltype(api.cuEventElapsedTime_v2)>(dlsym(library, "cuEventElapsedTime"));
  }
#define MF_DRIVER_MISSING(fn) \
  if (!api.fn) return "libcuda.so.1 does not export " #fn " (driver too old?)";
  MF_DRIVER_ENTRY_POINTS(MF_DRIVER_MISSING)
#undef MF_DRIVER_MISSING
  return "";
}

DeviceInfo queryDeviceInfo(const DriverApi& api, CUdevice device) {
  auto attribute = [&](CUdevice_attribute which) {
    int value = 0;
    api.cuDeviceGetAttribute(&value, which, device);
    return value;
  };
  DeviceInfo info;
  char name[256] = {};
  api.cuDeviceGetName(name, sizeof(name) - 1, device);
  info.name = name;
  info.major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info.minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info.sm_count = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info.max_threads_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  info.max_block_dims = {attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X),
                         attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y),
                         attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)};
  info.max_grid_dims = {attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X),
                        attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
                        attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)};
  info.shared_mem_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  return info;
}

DriverState probeDriver() {
  DriverState state;
  // RTLD_LOCAL: the driver's symbols must not satisfy anyone else's references. Never
  // dlclose'd: modules and buffers may outlive any owner we could give it.
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char* error = dlerror();
    state.reason = fmt::format("cannot load libcuda.so.1: {}", error ? error : "unknown error");
    return state;
  }
  state.reason = loadEntryPoints(library, state.api);
  if (!state.reason.empty()) return state;
  const DriverApi& api = state.api;
  if (CUresult r = api.cuInit(0); r != CUDA_SUCCESS) {
    state.reason = "cuInit failed: " + describe(api, r);
    return state;
  }
  int count = 0;
  if (CUresult r = api.cuDeviceGetCount(&count); r != CUDA_SUCCESS || count == 0) {
    state.reason = r != CUDA_SUCCESS ? "cuDeviceGetCount failed: " + describe(api, r)
                                     : std::string("the driver reports 0 devices");
    return state;
  }
  CUdevice device = 0;
  if (CUresult r = api.cuDeviceGet(&device, 0); r != CUDA_SUCCESS) {
    state.reason = "cuDeviceGet(0) failed: " + describe(api, r);
    return state;
  }
  if (CUresult r = api.cuDevicePrimaryCtxRetain(&state.context, device); r != CUDA_SUCCESS) {
    state.reason = "cuDevicePrimaryCtxRetain failed: " + describe(api, r);
    return state;
  }
  state.info = queryDeviceInfo(api, device);
  return state;
}

const DriverState& driverState() {
  static const DriverState state = probeDriver();
  return state;
}

void check(CUresult result, const char* call, std::string_view context = {}) {
  if (result == CUDA_SUCCESS) [[likely]]
    return;
  throw CudaError(fmt::format("minifuser: CUDA driver call {}{} failed: {}", call,
                              context.empty() ? "" : fmt::format(" ({})", context),
                              describe(driverState().api, result)));
}

// The context is current per thread; set it once on each thread that touches the device.
const DriverApi& useDevice() {
  requireDevice();
  const DriverState& state = driverState();
  thread_local bool context_is_current = false;
  if (!context_is_current) {
    check(state.api.cuCtxSetCurrent(state.context), "cuCtxSetCurrent");
    context_is_current = true;
  }
  return state.api;
}

}  // namespace

bool cudaAvailable() {
  return !options().no_device && driverState().reason.empty();
}

std::string noDeviceReason() {
  if (options().no_device) return "MINIFUSER_NO_DEVICE is set";
  return driverState().reason;
}

void requireDevice() {
  MF_CHECK(cudaAvailable(), "minifuser: no CUDA device available ({}); this operation needs a GPU",
           noDeviceReason());
}

const DeviceInfo& deviceInfo() {
  requireDevice();
  return driverState().info;
}

namespace driver {

uint64_t memAlloc(size_t bytes) {
  CUdeviceptr ptr = 0;
  check(useDevice().cuMemAlloc_v2(&ptr, bytes), "cuMemAlloc_v2", fmt::format("{} bytes", bytes));
  return ptr;
}

void memcpyHtoD(uint64_t dst, const void* src, size_t bytes) {
  check(useDevice().cuMemcpyHtoD_v2(dst, src, bytes), "cuMemcpyHtoD_v2");
}

void memcpyDtoH(void* dst, uint64_t src, size_t bytes) {
  check(useDevice().cuMemcpyDtoH_v2(dst, src, bytes), "cuMemcpyDtoH_v2");
}

void memsetD8(uint64_t dst, uint8_t value, size_t bytes) {
  check(useDevice().cuMemsetD8_v2(dst, value, bytes), "cuMemsetD8_v2");
}

namespace {
// StreamGuard's stream for this thread, when one is active.
thread_local bool t_stream_set = false;
thread_local CUstream t_stream = nullptr;
}  // namespace

CUstream_st* stream() {
  const DriverApi& api = useDevice();
  if (t_stream_set) return t_stream;
  // Created once and never destroyed: buffers and launches may use it until exit.
  static CUstream the_stream = [&] {
    CUstream s = nullptr;
    check(api.cuStreamCreate(&s, CU_STREAM_DEFAULT), "cuStreamCreate");
    return s;
  }();
  return the_stream;
}

void memcpyHtoDAsync(uint64_t dst, const void* src, size_t bytes) {
  check(useDevice().cuMemcpyHtoDAsync_v2(dst, src, bytes, stream()), "cuMemcpyHtoDAsync_v2");
}

void memcpyDtoDAsync(uint64_t dst, uint64_t src, size_t bytes) {
  check(useDevice().cuMemcpyDtoDAsync_v2(dst, src, bytes, stream()), "cuMemcpyDtoDAsync_v2");
}

void memcpyDtoHAsync(void* dst, uint64_t src, size_t bytes) {
  check(useDevice().cuMemcpyDtoHAsync_v2(dst, src, bytes, stream()), "cuMemcpyDtoHAsync_v2");
}

void memsetD8Async(uint64_t dst, uint8_t value, size_t bytes) {
  check(useDevice().cuMemsetD8Async(dst, value, bytes, stream()), "cuMemsetD8Async");
}

void streamSynchronize(std::string_view context) {
  check(useDevice().cuStreamSynchronize(stream()), "cuStreamSynchronize", context);
}

void memFree(uint64_t ptr) noexcept {
  const DriverState& state = driverState();
  if (ptr == 0 || !state.reason.empty()) return;
  // Errors are ignored: at exit the driver may already be gone, and a destructor can't throw.
  state.api.cuCtxSetCurrent(state.context);
  state.api.cuMemFree_v2(ptr);
}

CUmod_st* moduleLoadData(const void* image, std::string_view context) {
  CUmodule module = nullptr;
  check(useDevice().cuModuleLoadData(&module, image), "cuModuleLoadData", context);
  return module;
}

CUfunc_st* moduleGetFunction(CUmod_st* module, const char* name, std::string_view context) {
  CUfunction function = nullptr;
  check(useDevice().cuModuleGetFunction(&function, module, name), "cuModuleGetFunction", context);
  return function;
}

int functionMaxThreadsPerBlock(CUfunc_st* function) {
  int value = 0;
  check(useDevice().cuFuncGetAttribute(&value, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function),
        "cuFuncGetAttribute");
  return value;
}

void moduleUnload(CUmod_st* module) noexcept {
  const DriverState& state = driverState();
  if (!module || !state.reason.empty()) return;
  state.api.cuCtxSetCurrent(state.context);
  state.api.cuModuleUnload(module);
}

void launchKernel(CUfunc_st* function, const LaunchDims& d, void** args, std::string_view context) {
  check(useDevice().cuLaunchKernel(function, d.grid_x, d.grid_y, d.grid_z, d.block_x, d.block_y,
                                   d.block_z, d.smem, stream(), args,
                                   /*extra=*/nullptr),
        "cuLaunchKernel", context);
}

CUevent_st* eventCreate() {
  CUevent event = nullptr;
  check(useDevice().cuEventCreate(&event, CU_EVENT_DEFAULT), "cuEventCreate");
  return event;
}

void eventRecord(CUevent_st* event) {
  check(useDevice().cuEventRecord(event, stream()), "cuEventRecord");
}

void eventSynchronize(CUevent_st* event, std::string_view context) {
  check(useDevice().cuEventSynchronize(event), "cuEventSynchronize", context);
}

float eventElapsedMs(CUevent_st* start, CUevent_st* end) {
  float ms = 0;
  check(useDevice().cuEventElapsedTime_v2(&ms, start, end), "cuEventElapsedTime");
  return ms;
}

void eventDestroy(CUevent_st* event) noexcept {
  const DriverState& state = driverState();
  if (event && state.reason.empty()) state.api.cuEventDestroy_v2(event);
}

}  // namespace driver

StreamGuard::StreamGuard(uint64_t stream)
    : had_previous_(driver::t_stream_set), previous_(reinterpret_cast<uint64_t>(driver::t_stream)) {
  driver::t_stream_set = true;
  driver::t_stream = reinterpret_cast<CUstream>(stream);
}

StreamGuard::~StreamGuard() {
  driver::t_stream_set = had_previous_;
  driver::t_stream = reinterpret_cast<CUstream>(previous_);
}

}  // namespace mf::cuda
