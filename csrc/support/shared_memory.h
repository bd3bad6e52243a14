//! Shared-memory sizes that the schedulers and codegen must agree on.
#pragma once

#include <cstdint>

namespace mf {

//! The static shared memory a kernel may declare (more needs dynamic shared memory).
constexpr int64_t kStaticSharedBytes = 48 * 1024;
//! runtime/block_reduction.cuh's scratch (MF_BLOCK_REDUCE_Y_BYTES), and the smaller one
//! codegen defines when the kernel's own static buffers would leave too little room: enough
//! for 1024 threads' 8-byte cells.
constexpr int64_t kBlockReduceScratchBytes = 16 * 1024;
constexpr int64_t kSmallBlockReduceScratchBytes = 8 * 1024;
//! The runtime's other static shared variables (flags, a few words).
constexpr int64_t kRuntimeSharedFlagBytes = 256;

}  // namespace mf
