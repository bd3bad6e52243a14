//! The kernel cache in front of NVRTC: the executor compiles every kernel through
//! compileCached. Entries live in memory for the process and on disk under
//! MINIFUSER_CACHE_DIR (options().cache_dir), keyed by the source, kernel name, options and
//! NVRTC version. The disk cache is best effort: a missing, unwritable or corrupt cache
//! never fails a compilation.
#pragma once

#include <cstdint>
#include <string>

#include "cuda/nvrtc.h"

namespace mf::cuda {

//! compileWithNvrtc, memoized (a source NVRTC rejects is the same NvrtcCompileError, a
//! UserError with NVRTC's log, and is not cached). Returns the cached kernel (including its
//! original compile_ms, and cache_hit saying where it was found) on a hit. A corrupt disk entry is
//! counted, ignored and overwritten. A kernel asked for while another thread compiles it waits
//! for that compilation (one NVRTC run per key). `key_source`: what the key hashes in place of
//! `source` (codegen's canonical_source: kernels equal up to their values' names share it).
CompiledKernel compileCached(const std::string& source, const std::string& kernel_name,
                             const NvrtcOptions& options, const std::string& key_source);
CompiledKernel compileCached(const std::string& source, const std::string& kernel_name,
                             const NvrtcOptions& options);

//! The cache key of a compilation: its entry on disk is "<16 hex digits of key>.bin".
uint64_t kernelCacheKey(const std::string& source, const std::string& kernel_name,
                        const NvrtcOptions& options);

//! Process-wide counters since start (or the last resetCacheStats).
struct CacheStats {
  uint64_t memory_hits = 0;
  uint64_t disk_hits = 0;
  uint64_t misses = 0;           //!< compilations by NVRTC
  uint64_t corrupt_entries = 0;  //!< disk entries found unreadable, ignored and rewritten
};

CacheStats cacheStats();
void resetCacheStats();

//! Forgets the in-memory entries, so the next lookups behave as in a fresh process. For tests.
void clearMemoryCache();

}  // namespace mf::cuda
