//! Codegen: kernel IR -> CUDA C++ text, through fmt. Names are stable (T3 for tensors, i7
//! for scalars, kernel_<hash of the code>), so generated kernels diff cleanly.
#pragma once

#include <string>
#include <vector>

#include "lower/kernel.h"

namespace mf {

struct KernelParam {
  Val* val;            //!< a TensorView or a scalar of the kernel container
  bool is_error_flag;  //!< the layout op's error-flag pointer (val is null)
};

struct GeneratedKernel {
  std::string name;         //!< kernel_<16 hex digits>
  std::string kernel_code;  //!< the __global__ function alone (the cuda_kernel dump)
  std::string full_source;  //!< index typedef + runtime prelude + kernel, as NVRTC compiles it
  std::vector<KernelParam> params;  //!< in signature order
};

//! The kernel's parameters: fusion inputs, outputs, global intermediates, then the error
//! flag when the kernel has a layout op.
std::vector<KernelParam> kernelParams(const Kernel& kernel);

//! Prints `kernel` as CUDA C++. `prelude` is prepended in full_source (the runtime library).
GeneratedKernel generateCuda(const Kernel& kernel, std::string_view prelude);

//! The CUDA spelling of a dtype in generated code (float, mf_bfloat16, ...).
std::string_view cudaTypeName(DataType t);

}  // namespace mf
