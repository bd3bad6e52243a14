//! NVRTC: CUDA C++ source -> CUBIN (and PTX). The compile step between codegen and launch;
//! see kernel_cache.h for the cached entry point the executor uses.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace mf::cuda {

//! NVRTC rejected a source: a UserError, since the source is the caller's (the executor
//! turns it into an InternalError for the kernels minifuser generates). what() holds the
//! kernel name, NVRTC's result and options, its log and the numbered source.
class NvrtcCompileError : public UserError {
 public:
  NvrtcCompileError(const std::string& message, std::string log)
      : UserError(message), log_(std::move(log)) {}
  //! NVRTC's log alone.
  const std::string& log() const { return log_; }

 private:
  std::string log_;
};

//! How to compile. The architecture is the target GPU's compute capability.
struct NvrtcOptions {
  int arch_major = 9;
  int arch_minor = 0;
  bool fmad = false;
  bool lineinfo = false;
  std::vector<std::string> extra;  //!< appended verbatim to NVRTC's options
};

//! The result of one NVRTC compilation.
struct CompiledKernel {
  std::string name;          //!< the name expression it was compiled for, e.g. "mf::kernel_3"
  std::string lowered_name;  //!< the symbol to look up in the module (mangled unless extern "C")
  std::string ptx;           //!< empty when NVRTC produced none
  std::vector<char> cubin;   //!< empty when the arch is newer than NVRTC knows (PTX is JIT-ed)
  std::string log;           //!< NVRTC's log; warnings, if any
  std::vector<std::string> options;  //!< the options NVRTC was given
  std::string arch;                  //!< "sm_90" (CUBIN) or "compute_90" (PTX only)
  double compile_ms = 0;             //!< time spent in NVRTC (when it was compiled)
  //! Where compileCached found it this time: "memory" or "disk"; empty when NVRTC just
  //! compiled it. Not stored in the cache.
  std::string cache_hit;
};

//! Compiles `source`, in which `kernel_name` names a `__global__` function as a C++ name
//! expression ("mf::kernel_3", or "kernel_3" for a global or extern "C" kernel). Emits
//! CUBIN for the requested arch when this NVRTC supports it, else PTX for the newest
//! supported arch below it. A source NVRTC rejects throws NvrtcCompileError (a UserError)
//! with NVRTC's log and the numbered source; a UserError too if NVRTC knows no arch at or
//! below the requested one. Dumps: ptx, compile_timing.
CompiledKernel compileWithNvrtc(const std::string& source, const std::string& kernel_name,
                                const NvrtcOptions& options);

//! NVRTC's version, e.g. "13.0".
std::string nvrtcVersion();

//! `source` with each line prefixed by its 1-based number: "   12 | <line>".
std::string numberLines(std::string_view source);

}  // namespace mf::cuda
