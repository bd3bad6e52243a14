//! The device-side runtime (runtime/*.cuh) as one string, embedded at build time by
//! cmake/EmbedFiles.cmake. The executor puts it in front of every generated kernel, after
//! the `mf_index_t` typedef, before handing the source to NVRTC.
#pragma once

#include <string_view>

namespace mf::cuda {

//! The runtime/*.cuh files in the order MF_RUNTIME_FILES (runtime/CMakeLists.txt) lists them
//! (tensor.cuh first), each preceded by a line `// ---- runtime/<file> ----`. Expects
//! `mf_index_t` to be declared.
std::string_view runtimePrelude();

}  // namespace mf::cuda
