//! Small hashing helpers: FNV-1a over bytes and a combiner. Used for kernel names and
//! cache keys, so the values must be stable across runs and machines.
#pragma once

#include <cstdint>
#include <string_view>

namespace mf {

constexpr uint64_t kFnvOffset = 14695981039346656037ull;

//! FNV-1a 64-bit hash of `bytes`, continuing from `seed`.
constexpr uint64_t hashBytes(std::string_view bytes, uint64_t seed = kFnvOffset) {
  uint64_t h = seed;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

//! Mixes `value` into `seed` (boost-style combine on 64 bits).
constexpr uint64_t hashCombine(uint64_t seed, uint64_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ull + (seed << 12) + (seed >> 4));
}

}  // namespace mf
