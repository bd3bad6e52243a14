#include "cuda/kernel_cache.h"

#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <mutex>
#include <optional>
#include <ostream>
#include <unordered_map>

#include "support/error.h"
#include "support/hash.h"
#include "support/options.h"

namespace mf::cuda {
namespace {

namespace fs = std::filesystem;

// On disk: a Header, then the payload (the CompiledKernel's fields, length-prefixed). The
// header repeats the key and carries a checksum, so truncated, corrupt or foreign files are
// recognized and ignored. Native byte order: a cache belongs to one machine.
constexpr char kMagic[8] = {'M', 'F', 'K', 'C', 'A', 'C', 'H', 'E'};
constexpr uint32_t kFormatVersion = 1;

struct Header {
  char magic[8];
  uint32_t format_version;
  uint32_t reserved;
  uint64_t key;
  uint64_t payload_size;
  uint64_t payload_checksum;
};

class PayloadWriter {
 public:
  void u64(uint64_t value) { text_.append(reinterpret_cast<const char*>(&value), sizeof(value)); }
  void bytes(std::string_view value) {
    u64(value.size());
    text_.append(value);
  }
  std::string take() { return std::move(text_); }

 private:
  std::string text_;
};

// Every read is bounds-checked; a failed read poisons the reader and yields empty values.
class PayloadReader {
 public:
  explicit PayloadReader(std::string_view text) : text_(text) {}
  uint64_t u64() {
    uint64_t value = 0;
    if (!take(sizeof(value))) return 0;
    std::memcpy(&value, text_.data() + pos_ - sizeof(value), sizeof(value));
    return value;
  }
  std::string_view bytes() {
    uint64_t size = u64();
    if (!take(size)) return {};
    return text_.substr(pos_ - size, size);
  }
  bool finishedCleanly() const { return ok_ && pos_ == text_.size(); }

 private:
  bool take(uint64_t n) {
    ok_ = ok_ && n <= text_.size() - pos_;
    if (ok_) pos_ += n;
    return ok_;
  }
  std::string_view text_;
  size_t pos_ = 0;
  bool ok_ = true;
};

std::string serialize(const CompiledKernel& k) {
  PayloadWriter w;
  w.bytes(k.name);
  w.bytes(k.lowered_name);
  w.bytes(k.ptx);
  w.bytes(std::string_view(k.cubin.data(), k.cubin.size()));
  w.bytes(k.log);
  w.bytes(k.arch);
  w.u64(k.options.size());
  for (const std::string& option : k.options) w.bytes(option);
  uint64_t ms_bits = 0;
  std::memcpy(&ms_bits, &k.compile_ms, sizeof(ms_bits));
  w.u64(ms_bits);
  return w.take();
}

std::optional<CompiledKernel> deserialize(std::string_view payload) {
  PayloadReader r(payload);
  CompiledKernel k;
  k.name = r.bytes();
  k.lowered_name = r.bytes();
  k.ptx = r.bytes();
  std::string_view cubin = r.bytes();
  k.cubin.assign(cubin.begin(), cubin.end());
  k.log = r.bytes();
  k.arch = r.bytes();
  uint64_t num_options = r.u64();
  for (uint64_t i = 0; i < num_options && i < payload.size(); ++i) {
    k.options.emplace_back(r.bytes());
  }
  uint64_t ms_bits = r.u64();
  std::memcpy(&k.compile_ms, &ms_bits, sizeof(ms_bits));
  if (!r.finishedCleanly() || k.options.size() != num_options) return std::nullopt;
  return k;
}

fs::path entryPath(const std::string& dir, uint64_t key) {
  return fs::path(dir) / fmt::format("{:016x}.bin", key);
}

enum class DiskLookup { kMissing, kCorrupt, kHit };

DiskLookup readEntry(const fs::path& path, uint64_t key, const std::string& kernel_name,
                     CompiledKernel& kernel) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return DiskLookup::kMissing;
  // A directory (or a fifo, ...) in an entry's place: reading it would throw or block.
  if (!fs::is_regular_file(path, ec)) return DiskLookup::kCorrupt;
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) return DiskLookup::kCorrupt;
  std::string file;
  try {
    file.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::ios_base::failure&) {
    return DiskLookup::kCorrupt;
  }
  Header header;
  if (file.size() < sizeof(header)) return DiskLookup::kCorrupt;
  std::memcpy(&header, file.data(), sizeof(header));
  std::string_view payload = std::string_view(file).substr(sizeof(header));
  if (std::memcmp(header.magic, kMagic, sizeof(kMagic)) != 0 ||
      header.format_version != kFormatVersion || header.key != key ||
      header.payload_size != payload.size() || header.payload_checksum != hashBytes(payload)) {
    return DiskLookup::kCorrupt;
  }
  std::optional<CompiledKernel> parsed = deserialize(payload);
  // A different name under the same key would be a hash collision: not ours to use.
  if (!parsed || parsed->name != kernel_name) return DiskLookup::kCorrupt;
  kernel = std::move(*parsed);
  return DiskLookup::kHit;
}

// Best effort. Written to a unique temporary file, then renamed over the entry, so readers
// (other threads or processes) see either the old file or the complete new one.
void writeEntry(const std::string& dir, uint64_t key, const CompiledKernel& kernel) noexcept {
  static std::atomic<uint64_t> counter{0};
  try {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return;
    std::string payload = serialize(kernel);
    Header header{};
    std::memcpy(header.magic, kMagic, sizeof(kMagic));
    header.format_version = kFormatVersion;
    header.key = key;
    header.payload_size = payload.size();
    header.payload_checksum = hashBytes(payload);
    fs::path final_path = entryPath(dir, key);
    // rename() cannot replace a directory; a corrupt entry of that kind is removed first.
    if (fs::is_directory(final_path, ec)) fs::remove_all(final_path, ec);
    fs::path temp_path = final_path;
    temp_path += fmt::format(".tmp.{}.{}", static_cast<long>(getpid()), counter++);
    {
      std::ofstream out(temp_path, std::ios::binary | std::ios::trunc);
      out.write(reinterpret_cast<const char*>(&header), sizeof(header));
      out.write(payload.data(), static_cast<std::streamsize>(payload.size()));
      out.close();
      if (!out) {
        fs::remove(temp_path, ec);
        return;
      }
    }
    fs::rename(temp_path, final_path, ec);
    if (ec) fs::remove(temp_path, ec);
  } catch (const std::exception&) {
    // A cache that cannot be written only costs a recompilation next time.
  }
}

struct Cache {
  std::mutex mutex;
  std::unordered_map<uint64_t, CompiledKernel> memory;
  // Kernels being compiled: a request for one waits for that compile instead of starting
  // another (FusionKernelRuntime compiles its groups on several threads, and groups of the
  // same math print the same kernel).
  std::unordered_map<uint64_t, std::shared_future<CompiledKernel>> in_flight;
  CacheStats stats;
};

Cache& cache() {
  static Cache instance;
  return instance;
}

void dumpHit(const CompiledKernel& kernel, const char* where) {
  if (isDumpEnabled(DumpOption::Ptx)) {
    dumpStream() << "// PTX of " << kernel.name << " (" << kernel.arch << ", from the " << where
                 << " kernel cache)\n"
                 << kernel.ptx << "\n";
  }
  if (isDumpEnabled(DumpOption::CompileTiming)) {
    dumpStream() << fmt::format("nvrtc {}: {} cache hit\n", kernel.name, where);
  }
}

}  // namespace

uint64_t kernelCacheKey(const std::string& source, const std::string& kernel_name,
                        const NvrtcOptions& options) {
  uint64_t key = hashBytes(source);
  key = hashCombine(key, hashBytes(kernel_name));
  key = hashCombine(key, hashBytes(nvrtcVersion()));
  key = hashCombine(key, kFormatVersion);
  key = hashCombine(key, static_cast<uint64_t>(options.arch_major));
  key = hashCombine(key, static_cast<uint64_t>(options.arch_minor));
  key = hashCombine(key, options.fmad);
  key = hashCombine(key, options.lineinfo);
  key = hashCombine(key, options.extra.size());
  for (const std::string& option : options.extra) key = hashCombine(key, hashBytes(option));
  return key;
}

CompiledKernel compileCached(const std::string& source, const std::string& kernel_name,
                             const NvrtcOptions& options) {
  return compileCached(source, kernel_name, options, source);
}

CompiledKernel compileCached(const std::string& source, const std::string& kernel_name,
                             const NvrtcOptions& options, const std::string& key_source) {
  const uint64_t key = kernelCacheKey(key_source, kernel_name, options);
  Cache& c = cache();
  // A kernel from memory (the caller holds the lock).
  auto memoryHit = [&](const CompiledKernel& kernel) {
    ++c.stats.memory_hits;
    dumpHit(kernel, "memory");
    CompiledKernel hit = kernel;
    hit.cache_hit = "memory";
    return hit;
  };
  {
    std::lock_guard lock(c.mutex);
    if (auto it = c.memory.find(key); it != c.memory.end()) return memoryHit(it->second);
  }
  const std::string dir = mf::options().cache_dir;
  if (!dir.empty()) {
    CompiledKernel kernel;
    DiskLookup found = readEntry(entryPath(dir, key), key, kernel_name, kernel);
    std::lock_guard lock(c.mutex);
    if (found == DiskLookup::kHit) {
      ++c.stats.disk_hits;
      c.memory.emplace(key, kernel);
      dumpHit(kernel, "disk");
      kernel.cache_hit = "disk";
      return kernel;
    }
    if (found == DiskLookup::kCorrupt) ++c.stats.corrupt_entries;
  }
  // Compiled outside the lock, once: a second request while it compiles waits for it.
  std::promise<CompiledKernel> promise;
  {
    std::unique_lock lock(c.mutex);
    // Added by another thread since the first look.
    if (auto it = c.memory.find(key); it != c.memory.end()) return memoryHit(it->second);
    if (auto it = c.in_flight.find(key); it != c.in_flight.end()) {
      std::shared_future<CompiledKernel> pending = it->second;
      lock.unlock();
      const CompiledKernel compiled = pending.get();  // rethrows the compile's error
      std::lock_guard relock(c.mutex);
      return memoryHit(compiled);
    }
    c.in_flight.emplace(key, promise.get_future().share());
  }
  CompiledKernel kernel;
  try {
    kernel = compileWithNvrtc(source, kernel_name, options);
  } catch (...) {
    promise.set_exception(std::current_exception());
    std::lock_guard lock(c.mutex);
    c.in_flight.erase(key);
    throw;
  }
  {
    std::lock_guard lock(c.mutex);
    ++c.stats.misses;
    c.memory.emplace(key, kernel);
    c.in_flight.erase(key);
  }
  promise.set_value(kernel);
  if (!dir.empty()) writeEntry(dir, key, kernel);
  return kernel;
}

CacheStats cacheStats() {
  std::lock_guard lock(cache().mutex);
  return cache().stats;
}

void resetCacheStats() {
  std::lock_guard lock(cache().mutex);
  cache().stats = {};
}

void clearMemoryCache() {
  std::lock_guard lock(cache().mutex);
  cache().memory.clear();
}

}  // namespace mf::cuda
