#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "cuda/kernel_cache.h"
#include "support/options.h"

namespace mf::cuda {
namespace {

namespace fs = std::filesystem;

constexpr const char* kKernel = R"(namespace mf {
__global__ void cached(float* out) { out[threadIdx.x] = 3.0f; }
}  // namespace mf
)";

// Each test gets an empty cache folder, an empty in-memory cache and zeroed counters.
class KernelCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           fmt::format("mf_kernel_cache_{}_{}",
                       ::testing::UnitTest::GetInstance()->current_test_info()->name(),
                       std::random_device{}());
    fs::create_directories(dir_);
    guard_.get().cache_dir = dir_.string();
    clearMemoryCache();
    resetCacheStats();
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path entry() const {
    return dir_ / fmt::format("{:016x}.bin", kernelCacheKey(kKernel, "mf::cached", {}));
  }
  // Drops the in-memory entries, as a new process would start.
  static CompiledKernel compileInFreshProcess() {
    clearMemoryCache();
    return compileCached(kKernel, "mf::cached", {});
  }

  OptionsGuard guard_;
  fs::path dir_;
};

void expectStats(uint64_t memory_hits, uint64_t disk_hits, uint64_t misses, uint64_t corrupt) {
  CacheStats s = cacheStats();
  EXPECT_EQ(s.memory_hits, memory_hits);
  EXPECT_EQ(s.disk_hits, disk_hits);
  EXPECT_EQ(s.misses, misses);
  EXPECT_EQ(s.corrupt_entries, corrupt);
}

// First compile misses and writes an entry; the second is served from memory.
TEST_F(KernelCache, MissThenMemoryHit) {
  CompiledKernel first = compileCached(kKernel, "mf::cached", {});
  EXPECT_TRUE(fs::exists(entry()));
  CompiledKernel second = compileCached(kKernel, "mf::cached", {});
  expectStats(1, 0, 1, 0);
  EXPECT_EQ(second.cubin, first.cubin);
}

// With the memory cache gone, the entry on disk is read back field by field.
TEST_F(KernelCache, DiskHitInFreshProcess) {
  CompiledKernel compiled = compileCached(kKernel, "mf::cached", {});
  CompiledKernel loaded = compileInFreshProcess();
  expectStats(0, 1, 1, 0);
  EXPECT_EQ(loaded.name, compiled.name);
  EXPECT_EQ(loaded.lowered_name, compiled.lowered_name);
  EXPECT_EQ(loaded.ptx, compiled.ptx);
  EXPECT_EQ(loaded.cubin, compiled.cubin);
  EXPECT_EQ(loaded.log, compiled.log);
  EXPECT_EQ(loaded.options, compiled.options);
  EXPECT_EQ(loaded.arch, compiled.arch);
  EXPECT_EQ(loaded.compile_ms, compiled.compile_ms);
}

// Different options are a different kernel.
TEST_F(KernelCache, OptionsArePartOfTheKey) {
  NvrtcOptions fmad;
  fmad.fmad = true;
  EXPECT_NE(kernelCacheKey(kKernel, "mf::cached", {}), kernelCacheKey(kKernel, "mf::cached", fmad));
  compileCached(kKernel, "mf::cached", {});
  compileCached(kKernel, "mf::cached", fmad);
  expectStats(0, 0, 2, 0);
}

// A truncated entry is counted as corrupt, ignored, and rewritten by the recompilation.
TEST_F(KernelCache, TruncatedEntryIsRebuilt) {
  compileCached(kKernel, "mf::cached", {});
  fs::resize_file(entry(), fs::file_size(entry()) / 2);
  CompiledKernel rebuilt = compileInFreshProcess();
  expectStats(0, 0, 2, 1);
  EXPECT_FALSE(rebuilt.cubin.empty());
  compileInFreshProcess();
  expectStats(0, 1, 2, 1);
}

// A flipped payload byte fails the checksum; the same recovery follows.
TEST_F(KernelCache, FlippedByteIsRebuilt) {
  compileCached(kKernel, "mf::cached", {});
  {
    std::fstream file(entry(), std::ios::in | std::ios::out | std::ios::binary);
    file.seekg(100);
    char byte = 0;
    file.read(&byte, 1);
    file.seekp(100);
    byte = static_cast<char>(byte ^ 0x5a);
    file.write(&byte, 1);
  }
  compileInFreshProcess();
  expectStats(0, 0, 2, 1);
  compileInFreshProcess();
  expectStats(0, 1, 2, 1);
}

// A cache folder that cannot be created never fails a compilation.
TEST_F(KernelCache, UnwritableFolderIsIgnored) {
  guard_.get().cache_dir = "/proc/minifuser_cannot_write_here";
  CompiledKernel k = compileCached(kKernel, "mf::cached", {});
  EXPECT_FALSE(k.cubin.empty());
  compileInFreshProcess();
  expectStats(0, 0, 2, 0);
}

// An empty cache_dir (no HOME) disables the disk cache.
TEST_F(KernelCache, EmptyFolderDisablesDisk) {
  guard_.get().cache_dir = "";
  compileCached(kKernel, "mf::cached", {});
  compileInFreshProcess();
  expectStats(0, 0, 2, 0);
  EXPECT_TRUE(fs::is_empty(dir_));
}

// A directory in an entry's place is a corrupt entry: ignored (no std::ios_base::failure),
// replaced by the recompilation, and read back next time.
TEST_F(KernelCache, DirectoryInPlaceOfEntryIsRebuilt) {
  compileCached(kKernel, "mf::cached", {});
  fs::remove(entry());
  fs::create_directories(entry() / "inside");
  CompiledKernel rebuilt = compileInFreshProcess();
  expectStats(0, 0, 2, 1);
  EXPECT_FALSE(rebuilt.cubin.empty());
  EXPECT_TRUE(fs::is_regular_file(entry()));
  compileInFreshProcess();
  expectStats(0, 1, 2, 1);
}

// Each result says where the cache found it; a fresh compilation says nothing.
TEST_F(KernelCache, ResultSaysWhereItWasFound) {
  EXPECT_EQ(compileCached(kKernel, "mf::cached", {}).cache_hit, "");
  EXPECT_EQ(compileCached(kKernel, "mf::cached", {}).cache_hit, "memory");
  EXPECT_EQ(compileInFreshProcess().cache_hit, "disk");
}

}  // namespace
}  // namespace mf::cuda
