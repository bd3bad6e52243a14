//! Codegen: kernel IR -> CUDA C++ text, through fmt. Names are stable (T3 for tensors, i7
//! for scalars, kernel_<hash of everything compiled>), so generated kernels diff cleanly. The
//! signature follows kernel.summary().params, which the executor binds.
#pragma once

#include <string>

#include "lower/kernel.h"

namespace mf {

struct GeneratedKernel {
  std::string name;         //!< kernel_<16 hex digits of canonical_source's hash>
  std::string kernel_code;  //!< the __global__ function alone (the cuda_kernel dump)
  std::string full_source;  //!< index typedef + runtime prelude + kernel, as NVRTC compiles it
  //! full_source with the kernel's values renamed in order of appearance (T0, T1, ..., i0,
  //! ...): equal for kernels that differ only in the IR's numbering; the kernel cache's key.
  std::string canonical_source;
};

//! Prints `kernel` as CUDA C++. `prelude` is prepended in full_source (the runtime library).
GeneratedKernel generateCuda(const Kernel& kernel, std::string_view prelude);

//! The CUDA spelling of a dtype in generated code (float, mf_bfloat16, ...).
std::string_view cudaTypeName(DataType t);

}  // namespace mf
