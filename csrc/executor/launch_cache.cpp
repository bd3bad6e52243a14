#include "executor/launch_cache.h"

#include <algorithm>

#include "support/hash.h"

namespace mf {
namespace {

uint64_t hashKey(std::span<const int64_t> key) {
  uint64_t h = key.size();
  for (int64_t x : key) h = hashCombine(h, static_cast<uint64_t>(x));
  return h;
}

// 0 when the alignment does not matter; otherwise `vector_bytes` when aligned, else the
// largest power of two dividing the address (a misaligned input fails the checks, so it
// never reaches the cache; distinct classes only keep keys honest).
int64_t alignmentClass(const Tensor& t, int64_t vector_bytes) {
  return vector_bytes == 0 ? 0 : t.dataAlignment(vector_bytes);
}

}  // namespace

void launchSignature(const std::vector<Tensor>& inputs, std::span<const SignatureInput> rules,
                     std::vector<int64_t>& key) {
  key.clear();
  key.push_back(static_cast<int64_t>(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    const SignatureInput rule = i < rules.size() ? rules[i] : SignatureInput{};
    key.push_back(static_cast<int64_t>(t.dtype()) | int64_t{t.isCuda()} << 8);
    key.push_back(t.dim());
    key.insert(key.end(), t.sizes().begin(), t.sizes().end());
    key.insert(key.end(), t.strides().begin(), t.strides().end());
    key.push_back(alignmentClass(t, rule.vector_bytes));
    // A float or bool scalar is no extent: its value is rewritten into the arguments by
    // every run instead.
    if (rule.scalar && t.dim() == 0 && isIntegralType(t.dtype()))
      key.push_back(asInt(t.scalarValue()));
  }
}

PreparedLaunch* LaunchCache::find(std::span<const int64_t> key) {
  if (entries_.empty()) return nullptr;
  const uint64_t h = hashKey(key);
  auto matches = [&](const Entry& e) {
    return e.hash == h && std::equal(e.key.begin(), e.key.end(), key.begin(), key.end());
  };
  if (!matches(*entries_[most_recent_])) {
    auto it =
        std::find_if(entries_.begin(), entries_.end(), [&](const auto& e) { return matches(*e); });
    if (it == entries_.end()) return nullptr;
    most_recent_ = static_cast<size_t>(it - entries_.begin());
  }
  return &mostRecent();
}

PreparedLaunch& LaunchCache::mostRecent() {
  Entry& e = *entries_[most_recent_];
  e.last_use = ++clock_;
  ++hits_;
  return e.launch;
}

PreparedLaunch& LaunchCache::insert(std::span<const int64_t> key, PreparedLaunch launch) {
  auto entry = std::make_unique<Entry>(
      Entry{{key.begin(), key.end()}, hashKey(key), ++clock_, std::move(launch)});
  if (entries_.size() < kCapacity) {
    most_recent_ = entries_.size();
    entries_.push_back(std::move(entry));
  } else {
    auto lru = std::min_element(entries_.begin(), entries_.end(), [](const auto& a, const auto& b) {
      return a->last_use < b->last_use;
    });
    most_recent_ = static_cast<size_t>(lru - entries_.begin());
    *lru = std::move(entry);
  }
  return entries_[most_recent_]->launch;
}

void LaunchCache::clear() {
  entries_.clear();
  most_recent_ = 0;
  hits_ = 0;
}

}  // namespace mf
