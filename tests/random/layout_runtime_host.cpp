#include "random/layout_runtime_host.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace mf::testing {
namespace host_runtime {

// What the runtime prelude gives the layout op's functions on the device (tensor.cuh's
// typedefs, the generated code's mf_index_t, CUDA's qualifiers and atomicOr).
#define __device__
#define __align__(n) alignas(n)
typedef long long mf_int64;
typedef long long mf_index_t;
inline int atomicOr(int* address, int value) {
  const int old = *address;
  *address = old | value;
  return old;
}
#include "../../runtime/vector.cuh"  // NOLINT(build/include)
// (after vector.cuh, which it uses)
#include "../../runtime/layout_op.cuh"  // NOLINT(build/include)
#undef __device__
#undef __align__

}  // namespace host_runtime

namespace {

using host_runtime::mf_LayoutTile;

// Bit-for-bit element types of each size.
template <int Bytes>
struct Bits;
template <>
struct Bits<1> {
  using type = uint8_t;
};
template <>
struct Bits<2> {
  using type = uint16_t;
};
template <>
struct Bits<4> {
  using type = uint32_t;
};
template <>
struct Bits<8> {
  using type = uint64_t;
};

// Calls f.template operator()<T, OffsetT>() for the call's element size and offsets' dtype.
template <typename F>
void withTypes(const LayoutCall& call, F&& f) {
  auto with_offset = [&]<typename T>() {
    if (call.offsets64) {
      f.template operator()<T, int64_t>();
    } else {
      f.template operator()<T, int32_t>();
    }
  };
  switch (call.elem_bytes) {
    case 1:
      return with_offset.template operator()<Bits<1>::type>();
    case 2:
      return with_offset.template operator()<Bits<2>::type>();
    case 4:
      return with_offset.template operator()<Bits<4>::type>();
    case 8:
      return with_offset.template operator()<Bits<8>::type>();
  }
  throw std::runtime_error(fmt::format("layout op on {}-byte elements", call.elem_bytes));
}

// Calls f.template operator()<W>() for W in 1, 2, 4, 8, 16.
template <typename F>
void withWidth(int64_t width, F&& f) {
  switch (width) {
    case 1:
      return f.template operator()<1>();
    case 2:
      return f.template operator()<2>();
    case 4:
      return f.template operator()<4>();
    case 8:
      return f.template operator()<8>();
    case 16:
      return f.template operator()<16>();
  }
  throw std::runtime_error(fmt::format("layout op vector width {}", width));
}

template <typename T, typename OffsetT, int W>
void gatherOne(const LayoutCall& c, int64_t p) {
  host_runtime::mf_layoutOpGather<T, OffsetT, W>(
      reinterpret_cast<T*>(c.out), c.out_numel, p, reinterpret_cast<const T*>(c.in), c.in_stride0,
      c.in_stride1, static_cast<const OffsetT*>(c.in_off), static_cast<const OffsetT*>(c.out_off),
      c.m, c.k, c.g, c.error_flag);
}

// Calls f.template operator()<U>() for U in 1 .. 8.
template <typename F>
void withLoads(int64_t u, F&& f) {
  switch (u) {
    case 1:
      return f.template operator()<1>();
    case 2:
      return f.template operator()<2>();
    case 3:
      return f.template operator()<3>();
    case 4:
      return f.template operator()<4>();
    case 5:
      return f.template operator()<5>();
    case 6:
      return f.template operator()<6>();
    case 7:
      return f.template operator()<7>();
    case 8:
      return f.template operator()<8>();
  }
  throw std::runtime_error(fmt::format("tile form of {} vectors per thread", u));
}

template <typename T, typename OffsetT, int V>
void tileBlock(const LayoutCall& c, int64_t per_thread, int64_t threads,
               const std::vector<int64_t>& positions) {
  using Tile = mf_LayoutTile<T, OffsetT, V>;
  if (threads % 128 != 0 || threads * per_thread % 512 != 0 || per_thread % V != 0)
    throw std::runtime_error(
        fmt::format("a tile-form block of {} threads x {} elements", threads, per_thread));
  if (static_cast<int64_t>(positions.size()) != threads)
    throw std::runtime_error(
        fmt::format("a tile-form block of {} threads, not {}", positions.size(), threads));
  const Tile shape(static_cast<int>(threads), static_cast<int>(per_thread));
  if (!shape.fits(c.k)) {
    for (int64_t p : positions)
      for (int64_t i = 0; i < per_thread / V; ++i) gatherOne<T, OffsetT, V>(c, p + i * V);
    return;
  }
  const auto* in_off = static_cast<const OffsetT*>(c.in_off);
  const auto* out_off = static_cast<const OffsetT*>(c.out_off);
  // Each phase for every thread, then the next (mf_layoutOpTile's barriers).
  std::vector<Tile> tiles(positions.size(), shape);
  std::vector<int> vote_rounds(positions.size());
  std::vector<int> roles(positions.size());
  std::vector<bool> taken(positions.size(), false);
  for (size_t i = 0; i < positions.size(); ++i) {
    vote_rounds[i] = tiles[i].begin(positions[i], in_off, out_off, c.m, c.k, c.g, c.error_flag);
    roles[i] = shape.role(positions[i]);
    if (taken[static_cast<size_t>(roles[i])])
      throw std::runtime_error("tile-form block: two threads share a role");
    taken[static_cast<size_t>(roles[i])] = true;
  }
  for (size_t i = 1; i < tiles.size(); ++i)
    if (vote_rounds[i] != vote_rounds[0] ||
        (vote_rounds[0] > 0 && tiles[i].slab_start != tiles[0].slab_start))
      throw std::runtime_error(fmt::format(
          "tile-form block: thread {} (position {}) and thread 0 (position {}) are not in one "
          "slab of {} positions",
          i, positions[i], positions[0], shape.slab));
  if (vote_rounds[0] == 0) return;
  int votes = 0;  // __syncthreads_count, round by round
  for (int r = 0; r < vote_rounds[0]; ++r)
    for (size_t i = 0; i < tiles.size(); ++i) votes += tiles[i].vote(roles[i], r, out_off, c.g);
  for (Tile& tile : tiles) tile.locate(votes, in_off, out_off, c.m, c.g);
  if (!tiles[0].active) return;  // the same for every thread: it depends on votes only
  std::vector<typename Tile::Words> smem(
      static_cast<size_t>(
          Tile::sharedBytes(static_cast<int>(threads), static_cast<int>(per_thread))) /
      sizeof(typename Tile::Words));
  T* shared = reinterpret_cast<T*>(smem.data());
  withLoads(per_thread / V, [&]<int U>() {
    for (size_t i = 0; i < tiles.size(); ++i)
      tiles[i].template stage<U>(
          roles[i],
          tiles[i].template fetch<U>(roles[i], reinterpret_cast<const T*>(c.in), c.in_stride0,
                                     c.in_stride1, c.k),
          shared);
    for (size_t i = 0; i < tiles.size(); ++i)
      tiles[i].template store<U>(roles[i], shared, reinterpret_cast<T*>(c.out), c.out_numel);
  });
}

}  // namespace

void runLayoutScatter(const LayoutCall& c, const std::byte* values, int64_t width, int64_t row,
                      int64_t col) {
  withTypes(c, [&]<typename T, typename OffsetT>() {
    host_runtime::mf_preprocessGroupedMatmulInputSf<T, OffsetT>(
        reinterpret_cast<T*>(c.out), c.out_numel, reinterpret_cast<const T*>(values),
        static_cast<int>(width), row, col, static_cast<const OffsetT*>(c.in_off),
        static_cast<const OffsetT*>(c.out_off), c.m, c.k, c.g, c.error_flag);
  });
}

void runLayoutGather(const LayoutCall& c, int64_t width, int64_t p) {
  withTypes(c, [&]<typename T, typename OffsetT>() {
    withWidth(width, [&]<int W>() { gatherOne<T, OffsetT, W>(c, p); });
  });
}

void runLayoutTileBlock(const LayoutCall& c, int64_t width, int64_t threads,
                        const std::vector<int64_t>& positions) {
  withTypes(c, [&]<typename T, typename OffsetT>() {
    // The vector: 16 bytes, or the thread's elements when fewer (mf_LayoutTileVector).
    const int64_t v = std::min<int64_t>(width, std::max<int64_t>(16 / c.elem_bytes, 1));
    withWidth(v, [&]<int V>() {
      // A vector is whole 32-bit words: N >= 4 (checkLayoutTile), so V * size >= 4 bytes.
      if constexpr (V * sizeof(T) % 4 == 0) {
        tileBlock<T, OffsetT, V>(c, width, threads, positions);
      } else {
        throw std::runtime_error(fmt::format("a tile-form vector of {} x {} bytes", V, sizeof(T)));
      }
    });
  });
}

}  // namespace mf::testing
