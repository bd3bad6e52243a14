#include "cuda/nvrtc.h"

#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <ostream>

#include "support/error.h"
#include "support/options.h"

namespace mf::cuda {
namespace {

// A failing NVRTC API call (as opposed to a failing compilation) means we misused NVRTC.
void checkNvrtc(nvrtcResult result, const char* call) {
  MF_ASSERT(result == NVRTC_SUCCESS, "{} failed: {}", call, nvrtcGetErrorString(result));
}

// Owns an nvrtcProgram for the duration of one compilation.
class Program {
 public:
  Program(const std::string& source, const std::string& file_name) {
    checkNvrtc(
        nvrtcCreateProgram(&program_, source.c_str(), file_name.c_str(), 0, nullptr, nullptr),
        "nvrtcCreateProgram");
  }
  ~Program() { nvrtcDestroyProgram(&program_); }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  nvrtcProgram get() const { return program_; }

 private:
  nvrtcProgram program_ = nullptr;
};

const std::vector<int>& supportedArchs() {
  static const std::vector<int> archs = [] {
    int count = 0;
    checkNvrtc(nvrtcGetNumSupportedArchs(&count), "nvrtcGetNumSupportedArchs");
    std::vector<int> result(count);
    checkNvrtc(nvrtcGetSupportedArchs(result.data()), "nvrtcGetSupportedArchs");
    std::sort(result.begin(), result.end());
    return result;
  }();
  return archs;
}

// SASS when NVRTC knows the exact arch. Otherwise PTX for the newest arch it knows below the
// requested one: the driver JIT-compiles that for the GPU at module load.
std::string targetArch(const NvrtcOptions& options) {
  int requested = options.arch_major * 10 + options.arch_minor;
  const std::vector<int>& archs = supportedArchs();
  MF_ASSERT(!archs.empty());
  if (std::find(archs.begin(), archs.end(), requested) != archs.end()) {
    return fmt::format("sm_{}", requested);
  }
  auto newest_below = std::upper_bound(archs.begin(), archs.end(), requested);
  MF_CHECK(newest_below != archs.begin(),
           "compileWithNvrtc: NVRTC {} supports no GPU architecture at or below sm_{} (oldest "
           "it supports: sm_{}); use a CUDA toolkit that still supports this GPU",
           nvrtcVersion(), requested, archs.front());
  return fmt::format("compute_{}", *(newest_below - 1));
}

std::vector<std::string> compileOptions(const NvrtcOptions& options, const std::string& arch) {
  std::vector<std::string> result = {"--std=c++17", "-default-device",
                                     options.fmad ? "--fmad=true" : "--fmad=false",
                                     "--gpu-architecture=" + arch, "-DNDEBUG"};
  if (options.lineinfo) result.push_back("-lineinfo");
  result.insert(result.end(), options.extra.begin(), options.extra.end());
  return result;
}

// NVRTC's sizes count the terminating NUL; the strings we return do not.
std::string programLog(nvrtcProgram program) {
  size_t size = 0;
  checkNvrtc(nvrtcGetProgramLogSize(program, &size), "nvrtcGetProgramLogSize");
  std::string log(size, '\0');
  checkNvrtc(nvrtcGetProgramLog(program, log.data()), "nvrtcGetProgramLog");
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

// PTX is a by-product of every compilation; treat its absence as "not available".
std::string programPtx(nvrtcProgram program) {
  size_t size = 0;
  if (nvrtcGetPTXSize(program, &size) != NVRTC_SUCCESS || size <= 1) return {};
  std::string ptx(size, '\0');
  if (nvrtcGetPTX(program, ptx.data()) != NVRTC_SUCCESS) return {};
  ptx.resize(size - 1);
  return ptx;
}

std::vector<char> programCubin(nvrtcProgram program) {
  size_t size = 0;
  checkNvrtc(nvrtcGetCUBINSize(program, &size), "nvrtcGetCUBINSize");
  std::vector<char> cubin(size);
  if (size > 0) checkNvrtc(nvrtcGetCUBIN(program, cubin.data()), "nvrtcGetCUBIN");
  return cubin;
}

std::string joined(const std::vector<std::string>& items) {
  std::string result;
  for (const std::string& item : items) result += (result.empty() ? "" : " ") + item;
  return result;
}

[[noreturn]] void throwCompileFailure(const std::string& source, const std::string& kernel_name,
                                      const std::vector<std::string>& options, nvrtcResult result,
                                      const std::string& log) {
  throw NvrtcCompileError(
      fmt::format("compileWithNvrtc: NVRTC failed to compile kernel {} ({}) with options {}\n"
                  "NVRTC log:\n{}\nSource:\n{}",
                  kernel_name, nvrtcGetErrorString(result), joined(options), log,
                  numberLines(source)),
      log);
}

}  // namespace

std::string numberLines(std::string_view source) {
  std::string result;
  size_t line = 1;
  size_t pos = 0;
  while (pos < source.size()) {
    size_t end = source.find('\n', pos);
    if (end == std::string_view::npos) end = source.size();
    result += fmt::format("{:>5} | {}\n", line++, source.substr(pos, end - pos));
    pos = end + 1;
  }
  return result;
}

std::string nvrtcVersion() {
  static const std::string version = [] {
    int major = 0;
    int minor = 0;
    checkNvrtc(::nvrtcVersion(&major, &minor), "nvrtcVersion");
    return fmt::format("{}.{}", major, minor);
  }();
  return version;
}

CompiledKernel compileWithNvrtc(const std::string& source, const std::string& kernel_name,
                                const NvrtcOptions& options) {
  auto start = std::chrono::steady_clock::now();
  CompiledKernel kernel;
  kernel.name = kernel_name;
  kernel.arch = targetArch(options);
  kernel.options = compileOptions(options, kernel.arch);

  // The file name shows up in NVRTC's diagnostics: "kernel_3.cu(12): error: ...".
  std::string short_name = kernel_name.substr(kernel_name.rfind(':') + 1);
  Program program(source, short_name + ".cu");
  checkNvrtc(nvrtcAddNameExpression(program.get(), kernel_name.c_str()), "nvrtcAddNameExpression");
  std::vector<const char*> argv;
  for (const std::string& option : kernel.options) argv.push_back(option.c_str());
  nvrtcResult result =
      nvrtcCompileProgram(program.get(), static_cast<int>(argv.size()), argv.data());
  kernel.log = programLog(program.get());
  if (result != NVRTC_SUCCESS) {
    throwCompileFailure(source, kernel_name, kernel.options, result, kernel.log);
  }

  const char* lowered = nullptr;
  checkNvrtc(nvrtcGetLoweredName(program.get(), kernel_name.c_str(), &lowered),
             "nvrtcGetLoweredName");
  kernel.lowered_name = lowered;
  kernel.ptx = programPtx(program.get());
  if (kernel.arch.starts_with("sm_")) kernel.cubin = programCubin(program.get());
  kernel.compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

  if (isDumpEnabled(DumpOption::Ptx)) {
    dumpStream() << "// PTX of " << kernel_name << " (" << kernel.arch << ")\n"
                 << kernel.ptx << "\n";
  }
  if (isDumpEnabled(DumpOption::CompileTiming)) {
    dumpStream() << fmt::format("nvrtc {}: {:.1f} ms\n", kernel_name, kernel.compile_ms);
  }
  return kernel;
}

}  // namespace mf::cuda
