// runtime/layout_op.cuh: the device side of preprocessGroupedMatmulInputSf (the Block128x4
// scale-factor layout; the layout op spec, Part A). Generated code calls
// mf_preprocessGroupedMatmulInputSf with logical (row, col) indices; this function finds the
// group, computes the swizzled position and writes, never outside the output buffer.
//
// Flat formula. Rows are concatenated groups; group e starts at input row in_off[e] and at
// output row out_off[e] of the padded [M + 127*G, Kp] buffer, Kp = ceil(K/4)*4. Element
// (row, col) of group e, with r = row - in_off[e], lands at
//   out_off[e]*Kp + (r/128)*Kp*128 + (col/4)*512 + (r%32)*16 + ((r%128)/32)*4 + col%4
// i.e. each 128-row tile of a group is stored as [Kp/4][32][4][4] = (col/4, r%32, (r%128)/32,
// col%4). Padding (rows past a group's end up to the next multiple of 128, columns K..Kp) is
// never written here; the host zero-fills it when asked to.

// Error bits or-ed into *error_flag; the host reads the flag after the kernel and throws a
// UserError naming each set bit.
enum mf_LayoutError : int {
  // A computed position fell outside [0, out_numel): the element was not written.
  MF_LAYOUT_ERR_OUT_OF_BOUNDS = 1,
  // Input offsets are not a valid list of group starts: in_off[0] != 0, decreasing, negative
  // or past M (elements of an affected row are not written).
  MF_LAYOUT_ERR_BAD_INPUT_OFFSETS = 2,
  // Output offsets are not the input groups rounded up to 128 rows: out_off[0] != 0 or
  // out_off[g] - out_off[g-1] != roundup(in_off[g] - in_off[g-1], 128) (elements of a row
  // whose group would overlap the next group's rows are not written).
  MF_LAYOUT_ERR_BAD_OUTPUT_OFFSETS = 4,
};

__device__ inline void mf_layoutReportError(int* error_flag, int bit) {
  atomicOr(error_flag, bit);
}

__device__ inline mf_int64 mf_roundUp128(mf_int64 x) {
  return (x + 127) / 128 * 128;
}

// The group of `row`: the last e with in_off[e] <= row, by binary search over e in [1, G)
// (e = 0 when none). For non-decreasing offsets this is exactly nvFuser's linear scan ("the
// first i >= 1 with row < in_off[i], minus one, else G-1"), empty groups included.
template <typename OffsetT>
__device__ inline mf_int64 mf_layoutFindGroup(const OffsetT* in_off, mf_int64 row, mf_int64 G) {
  // In the narrower of the two types when both fit 32 bits (G and row are a kernel's indices).
  typedef decltype(in_off[0] + mf_index_t(0)) I;
  I lo = 1;
  I hi = static_cast<I>(G);
  const I r = static_cast<I>(row);
  while (lo < hi) {
    const I mid = lo + (hi - lo) / 2;
    if (in_off[mid] <= r) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo - 1;
}

// Checks the offsets of group g against group g-1 (g = 0: both lists start at 0). Reports,
// never throws or writes.
template <typename OffsetT>
__device__ inline void mf_layoutCheckGroup(const OffsetT* in_off, const OffsetT* out_off,
                                           mf_int64 g, mf_int64 M, int* error_flag) {
  const mf_int64 in_cur = in_off[g];
  const mf_int64 out_cur = out_off[g];
  if (g == 0) {
    if (in_cur != 0) mf_layoutReportError(error_flag, MF_LAYOUT_ERR_BAD_INPUT_OFFSETS);
    if (out_cur != 0) mf_layoutReportError(error_flag, MF_LAYOUT_ERR_BAD_OUTPUT_OFFSETS);
    return;
  }
  const mf_int64 in_prev = in_off[g - 1];
  const mf_int64 out_prev = out_off[g - 1];
  if (!(0 <= in_prev && in_prev <= in_cur && in_cur <= M)) {
    mf_layoutReportError(error_flag, MF_LAYOUT_ERR_BAD_INPUT_OFFSETS);
    return;
  }
  // Ordered so that nothing overflows, whatever the offsets hold.
  if (!(0 <= out_prev && out_prev <= out_cur &&
        out_cur - out_prev == mf_roundUp128(in_cur - in_prev))) {
    mf_layoutReportError(error_flag, MF_LAYOUT_ERR_BAD_OUTPUT_OFFSETS);
  }
}

// Writes value_ptr[0 .. width) to the swizzled positions of logical elements (row, col + i),
// stopping at column K. `out` is the base of the padded buffer of out_numel elements; in_off
// and out_off are the G group starts (see the top of this file). Elements outside [M, K] are
// ignored, so a caller may skip predication. Every offset list is checked by the calls with
// col == 0 (row g checks groups g, g + M, ...), so each inconsistency is reported by some
// thread; a row whose own group is inconsistent is not written; no write leaves the buffer.
template <typename T, typename OffsetT>
__device__ void mf_preprocessGroupedMatmulInputSf(T* out, mf_index_t out_numel, const T* value_ptr,
                                                  int width, mf_index_t row, mf_index_t col,
                                                  const OffsetT* in_off, const OffsetT* out_off,
                                                  mf_index_t M, mf_index_t K, mf_index_t G,
                                                  int* error_flag) {
  if (row < 0 || row >= M || col < 0 || col >= K) return;
  if (G <= 0) {
    mf_layoutReportError(error_flag, MF_LAYOUT_ERR_BAD_INPUT_OFFSETS);
    return;
  }
  if (col == 0) {
    for (mf_int64 g = row; g < G; g += M) mf_layoutCheckGroup(in_off, out_off, g, M, error_flag);
  }

  const mf_int64 e = mf_layoutFindGroup(in_off, row, G);
  const mf_int64 in_start = in_off[e];
  if (in_start < 0 || in_start > row) {
    mf_layoutReportError(error_flag, MF_LAYOUT_ERR_BAD_INPUT_OFFSETS);
    return;
  }
  const mf_int64 r = row - in_start;
  const mf_int64 kp = (static_cast<mf_int64>(K) + 3) / 4 * 4;
  const mf_int64 out_start = out_off[e];
  // A start past the buffer is rejected before out_start * kp is formed, so nothing
  // overflows; when the buffer's size and kp fit 32 bits (always, in a kernel of 32-bit
  // indices) their product is exact in 64 bits and no division is needed.
  const bool narrow = out_numel <= 0x7fffffff && kp <= 0x7fffffff;
  if (out_start < 0 || out_start > out_numel ||
      (narrow ? out_start * kp > out_numel : out_start > out_numel / kp)) {
    mf_layoutReportError(error_flag, MF_LAYOUT_ERR_OUT_OF_BOUNDS);
    return;
  }
  if (e + 1 < G && out_start + mf_roundUp128(r + 1) > static_cast<mf_int64>(out_off[e + 1])) {
    mf_layoutReportError(error_flag, MF_LAYOUT_ERR_BAD_OUTPUT_OFFSETS);
    return;
  }
  // r and col are non-negative here: the tile arithmetic is shifts and masks.
  const mf_int64 row_base =
      out_start * kp + (r >> 7) * kp * 128 + (r & 31) * 16 + ((r >> 5) & 3) * 4;
  // Four values of one 4-byte word (col a multiple of 4, all inside K and the buffer, the
  // address aligned): one store.
  if (width == 4 && (col & 3) == 0 && col + 3 < K) {
    const mf_int64 pos = row_base + (static_cast<mf_int64>(col) >> 2) * 512;
    if (pos >= 0 && pos + 3 < out_numel &&
        reinterpret_cast<unsigned long long>(out + pos) % (4 * sizeof(T)) == 0) {
      mf_Vector<T, 4> word;
      for (int i = 0; i < 4; ++i) word.v[i] = value_ptr[i];
      *reinterpret_cast<mf_Vector<T, 4>*>(out + pos) = word;
      return;
    }
  }
  for (int i = 0; i < width; ++i) {
    const mf_int64 c = static_cast<mf_int64>(col) + i;
    if (c >= K) break;
    const mf_int64 pos = row_base + (c >> 2) * 512 + (c & 3);
    if (pos < 0 || pos >= out_numel) {
      mf_layoutReportError(error_flag, MF_LAYOUT_ERR_OUT_OF_BOUNDS);
      continue;
    }
    out[pos] = value_ptr[i];
  }
}

// Output tile t (rows [128t, 128t + 128) of the padded buffer) and its group e: whether the
// tile is inside the used rows (out_off[G-1] + roundup(m_{G-1}, 128)), and then the group's
// input rows [in_start, in_end) and the group row of the tile's first row. G > 0; e in [0, G).
struct mf_LayoutTileRows {
  bool used;
  mf_int64 in_start, in_end, tile_row;
};

template <typename OffsetT>
__device__ inline mf_LayoutTileRows mf_layoutTileRowsOf(const OffsetT* in_off,
                                                        const OffsetT* out_off, mf_int64 t,
                                                        mf_int64 e, mf_int64 M, mf_int64 G) {
  mf_LayoutTileRows rows = {false, 0, 0, 0};
  const mf_int64 used = static_cast<mf_int64>(out_off[G - 1]) +
                        mf_roundUp128(M - static_cast<mf_int64>(in_off[G - 1]));
  if (t * 128 >= used) return rows;
  rows.used = true;
  rows.in_start = in_off[e];
  rows.in_end = e + 1 < G ? static_cast<mf_int64>(in_off[e + 1]) : M;
  rows.tile_row = t * 128 - static_cast<mf_int64>(out_off[e]);
  return rows;
}

// The group of output tile t: the last e with out_off[e] <= 128t (binary search; groups
// start at multiples of 128 rows), 0 when none.
template <typename OffsetT>
__device__ inline mf_LayoutTileRows mf_layoutTileRows(const OffsetT* in_off, const OffsetT* out_off,
                                                      mf_int64 t, mf_int64 M, mf_int64 G) {
  mf_int64 lo = 1, hi = G;
  while (lo < hi) {
    const mf_int64 mid = lo + (hi - lo) / 2;
    if (static_cast<mf_int64>(out_off[mid]) <= t * 128) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return mf_layoutTileRowsOf(in_off, out_off, t, lo - 1, M, G);
}

// The gather form of the same op, for schedules whose loop domain is derived from the
// output's padded allocation domain: the thread owning flat output positions
// [p, p + W) (p a multiple of W, W dividing 16) computes where each comes from and writes
// them with one vector store. Inverting the flat formula above: with tile = 128 * Kp,
//   T = p / tile (128-row output tile), q = p % tile, col = (q / 512) * 4 + q % 4,
//   R = T * 128 + ((q % 16) / 4) * 32 + (q % 512) / 16   (padded output row).
// Groups start at multiples of 128 output rows, so the whole vector lies in one group e,
// the last with out_off[e] <= T * 128 (binary search). Row r = R - out_off[e] of the group is
// input row in_off[e] + r when r < m_e and col < K; every other position is padding and
// gets 0. Tiles at or past the used rows (out_off[G-1] + roundup(m_{G-1}, 128)) are not
// written. Reads are bounded to [0, M) x [0, K) whatever the offsets hold; threads whose
// p / W is a group index check that group's offsets (see mf_layoutCheckGroup).
template <typename T, typename OffsetT, int W>
__device__ void mf_layoutOpGather(T* out, mf_index_t out_numel, mf_index_t p, const T* in,
                                  mf_index_t in_stride0, mf_index_t in_stride1,
                                  const OffsetT* in_off, const OffsetT* out_off, mf_index_t M,
                                  mf_index_t K, mf_index_t G, int* error_flag) {
  if (p < 0 || p >= out_numel) return;
  if (G <= 0) {
    if (M > 0) mf_layoutReportError(error_flag, MF_LAYOUT_ERR_BAD_INPUT_OFFSETS);
    return;
  }
  if (p / W < G) mf_layoutCheckGroup(in_off, out_off, p / W, M, error_flag);

  const mf_int64 kp = (static_cast<mf_int64>(K) + 3) / 4 * 4;
  const mf_int64 tile = 128 * kp;
  const mf_int64 t = p / tile;
  const mf_int64 q = p % tile;
  const mf_LayoutTileRows rows = mf_layoutTileRows(in_off, out_off, t, M, G);
  if (!rows.used) return;
  const mf_int64 in_start = rows.in_start;
  const mf_int64 in_end = rows.in_end;
  const mf_int64 tile_row = rows.tile_row;

  // The vector lies in one 16-element chunk of the tile: fixed column tile (q / 512) and
  // row b = (q % 512) / 16; element w of the chunk is row a = w / 4 (of 4, 32 rows apart) and
  // column w % 4. Per-element math is therefore small and 32-bit.
  const int w0 = static_cast<int>(q % 16);
  const mf_int64 col0 = (q / 512) * 4;
  const mf_int64 row_b = tile_row + (q % 512) / 16;
  // Four consecutive columns of a row are one aligned vector load when the input is
  // row-major with rows of a multiple of 4 elements and all four columns exist.
  const bool whole_quads = W % 4 == 0 && in_stride1 == 1 && in_stride0 % 4 == 0 && col0 + 4 <= K &&
                           reinterpret_cast<unsigned long long>(in) % (4 * sizeof(T)) == 0;
  mf_Vector<T, W> v;
  if (whole_quads) {
    for (int i = 0; i < W / 4; ++i) {
      const mf_int64 src = in_start + row_b + (w0 / 4 + i) * 32;
      mf_Vector<T, 4> quad;
      for (int c = 0; c < 4; ++c) quad.v[c] = T();
      if (src >= 0 && src < in_end && src < M) {
        quad = *reinterpret_cast<const mf_Vector<T, 4>*>(in + src * in_stride0 + col0);
      }
      for (int c = 0; c < 4; ++c) v.v[i * 4 + c] = quad.v[c];
    }
  } else {
    for (int w = 0; w < W; ++w) {
      const int e16 = w0 + w;
      const mf_int64 col = col0 + e16 % 4;
      const mf_int64 src = in_start + row_b + (e16 / 4) * 32;
      T value;
      value = T();
      if (src >= 0 && src < in_end && src < M && col < K) {
        value = in[src * in_stride0 + col * in_stride1];
      }
      v.v[w] = value;
    }
  }
  if (p + W <= out_numel) {
    *reinterpret_cast<mf_Vector<T, W>*>(out + p) = v;
  } else {
    for (int w = 0; p + w < out_numel; ++w) out[p + w] = v.v[w];
  }
}

// The tile form. A block of `threads` threads owns a slab of threads * per_thread
// consecutive positions of the padded buffer (thread i the per_thread positions from its own
// p, as the loops [blocks, threads, per_thread] give them), moved as U = per_thread / V
// vectors of V elements (16 bytes, or fewer) per thread. A slab is C = threads * per_thread /
// 512 column quads of one 128-row tile, stored [C][32][4][4] (the flat formula), when C
// divides Kp / 4. The block
//  1. finds the tile's group in one round of loads: thread i loads group i's offsets and
//     votes for out_off[i] <= 128t, and the number of votes less one (__syncthreads_count) is
//     the last group starting at or before the tile, as a binary search would give it (groups
//     start at multiples of 128 output rows); the two threads that loaded the group's
//     offsets pass them on in shared memory, so no load waits for the votes (2% faster at
//     G = 32 on the H200 than loading them after the votes; a ballot per warp with shuffles
//     was no faster). When G > threads: more rounds of votes, then loads of the group's
//     offsets;
//  2. loads the tile's 128 rows x 4C columns of the input with V-element loads (all U issued
//     before the first is used), writes them to shared memory in the output's order,
//     synchronizes, and writes the slab, which is contiguous, with V-element loads from shared
//     memory and V-element stores.
// Rows past the group's end and columns past K are written as 0, as in the gather form; tiles
// at or past the used rows are not written. The block's loads are the 4C / V vectors of each
// of the 128 rows. With P = 2 lanes per row when a row has an even number of vectors (else
// 1) and x = (j / P) % 128, load j (= u * threads + role) is vector P * (j / (128 P)) + j % P
// of row 32 (x % 4) + x / 4. So a warp's load covers 32 / P rows, taken in fours 32 rows
// apart (0, 32, 64, 96, 1, 33, ...), and P adjacent vectors of each (whole 32-byte sectors
// for 16-byte vectors and P = 2: 2-3% faster than P = 1 on the H200); their quads are
// consecutive chunks of the output, so each shared store of a warp falls in distinct banks
// but for the P lanes of a row, and each shared load of the store phase is 32 consecutive
// vectors. Once the group is known, the tile's rows that exist (row_lo .. row_hi) and the
// slab's columns that exist (col_room) are block-wide 32-bit bounds, and the block's values
// are of the index type I (the generated code's mf_index_t), so that a thread's work is
// 32-bit when the kernel's indices are; only the final addresses are 64-bit. (36% fewer
// instructions than 64-bit values throughout, 4% faster at G = 32.)
//
// The phases are separate functions of values the whole block computes alike, so that the
// host kernel interpreter runs this same code (tests/random/layout_runtime_host.cpp: each
// phase for every thread of a block, then the next; it takes the group's offsets with
// locate, the device from the votes' loads, both through place; it fetches with fetch, the
// device with fetchWhole or, out of line, fetchElements, the two fetch chooses between);
// mf_layoutOpTile below is the device entry point with the barriers between them. When C
// does not divide Kp / 4 (a slab would straddle two tiles), every thread runs the gather form
// for its own positions instead, so any K is right.
// The integers of a tile's rows (mf_LayoutTile::place): 32-bit when narrow.
template <bool Narrow>
struct mf_LayoutRowInt {
  typedef mf_int64 S;
  typedef unsigned long long U;
};
template <>
struct mf_LayoutRowInt<true> {
  typedef int S;
  typedef unsigned int U;
};

// I: the type of the block's positions, sizes and strides (the device's mf_index_t; the
// host interpreter's int64).
template <typename T, typename OffsetT, int V, typename I = mf_int64>
struct mf_LayoutTile {
  static_assert(V * sizeof(T) % 4 == 0, "a tile-form vector is whole 32-bit words");
  // A vector is VW 32-bit words, moved to shared memory in pieces of PW words (a column quad,
  // or the whole vector when it is less than a quad).
  static constexpr int kVectorWords = V * static_cast<int>(sizeof(T)) / 4;
  static constexpr int kPiece = V < 4 ? V : 4;
  static constexpr int kPieceWords = kPiece * static_cast<int>(sizeof(T)) / 4;
  typedef mf_Vector<unsigned int, kVectorWords> Words;
  union Elements {
    mf_Vector<T, V> e;
    Words w;
  };

  int threads;     // of the block
  int per_thread;  // positions of a thread, U * V
  int quads;       // C
  int lanes;       // P, lanes per row of a warp's load
  I slab;          // threads * per_thread = 512 C

  I slab_start;  // the slab's first position in the buffer
  I tile;        // its 128-row tile
  I col_begin;   // its first input column
  int col_room;  // the slab's columns before K: min(K - col_begin, 4C)
  // Tile rows [row_lo, row_hi) are input rows row_begin + row in [0, min(group end, M)); the
  // others are padding. row_begin (the input row of the tile's first row, in_start + tile
  // row) is kept only when some row is (then it is in (-128, M)), else 0.
  I row_begin;
  int row_lo, row_hi;
  bool active;  // false: nothing to write (past the used rows, or no groups)

  __device__ mf_LayoutTile(int threads_, int per_thread_)
      : threads(threads_),
        per_thread(per_thread_),
        quads(threads_ * per_thread_ / 512),
        lanes(threads_ * per_thread_ / 512 * 4 / V % 2 == 0 ? 2 : 1),
        slab(static_cast<I>(threads_) * per_thread_),
        active(false) {}

  // Bytes of shared memory the block needs: its slab.
  __device__ static constexpr int sharedBytes(int threads, int per_thread) {
    return threads * per_thread * static_cast<int>(sizeof(T));
  }

  __device__ bool fits(I K) const {
    const I kp = (K + 3) / 4 * 4;
    return (kp / 4) % quads == 0;
  }

  // The thread's role in the block from its position p (the loops' [blocks, threads, N]).
  __device__ int role(I p) const { return static_cast<int>((p % slab) / per_thread); }

  // The block's slab and tile from one of its positions `p`; every thread of the block gets
  // the same values. Threads whose p / per_thread is a group index check that group's
  // offsets. Returns the rounds of votes (0: no groups, nothing to do).
  __device__ int begin(I p, const OffsetT* in_off, const OffsetT* out_off, I M, I K, I G,
                       int* error_flag) {
    active = false;
    if (G <= 0) {
      if (M > 0 && p == 0) mf_layoutReportError(error_flag, MF_LAYOUT_ERR_BAD_INPUT_OFFSETS);
      return 0;
    }
    if (p >= 0 && p / per_thread < G)
      mf_layoutCheckGroup(in_off, out_off, p / per_thread, M, error_flag);
    const I s = p / slab;
    // Slabs per tile, and the slab's place in its tile (32-bit division when it fits).
    const I per_tile = (K + 3) / 4 / quads;
    I in_tile;
    if (sizeof(I) == 4 || (s < 0x7fffffff && per_tile < 0x7fffffff)) {
      const unsigned int s32 = static_cast<unsigned int>(s);
      const unsigned int t32 = s32 / static_cast<unsigned int>(per_tile);
      tile = t32;
      in_tile = s32 - t32 * static_cast<unsigned int>(per_tile);
    } else {
      tile = s / per_tile;
      in_tile = s % per_tile;
    }
    slab_start = s * slab;
    col_begin = in_tile * quads * 4;
    // col_begin <= Kp - 4C, so K - col_begin > 4C - 4 >= 0.
    const I cols = K - col_begin;
    col_room = cols < quads * 4 ? static_cast<int>(cols) : quads * 4;
    return static_cast<int>(G / threads + (G % threads != 0));
  }

  // Round `r` of the votes: whether group r * threads + role starts at or before the tile
  // (tile * 128 is at most the padded rows, so it fits I).
  __device__ bool vote(int role, int r, const OffsetT* out_off, I G) const {
    const mf_int64 i = static_cast<mf_int64>(r) * threads + role;
    return i < G && out_off[i] <= tile * 128;
  }

  // The tile's group from the number of votes: the last group with out_off[e] <= 128t (0
  // when none, G - 1 when more: only for offsets the checks reject).
  __device__ static int groupOf(int votes, I G) {
    int e = votes - 1;
    if (e < 0) e = 0;
    if (e >= G) e = static_cast<int>(G - 1);
    return e;
  }

  // The integers of a tile's rows: 32-bit when the offsets and the index type are.
  typedef typename mf_LayoutRowInt<sizeof(OffsetT) <= 4 && sizeof(I) <= 4>::S RowInt;
  typedef typename mf_LayoutRowInt<sizeof(OffsetT) <= 4 && sizeof(I) <= 4>::U RowUInt;

  // From the tile's group e: in_start = in_off[e], out_start = out_off[e], in_next =
  // in_off[e + 1] (M when e = G - 1), and the last group's in_off[G-1] and out_off[G-1], the
  // tile's rows and whether there is anything to do (mf_layoutTileRowsOf's values).
  __device__ void place(RowInt in_start, RowInt out_start, RowInt in_next, mf_int64 last_in,
                        mf_int64 last_out, I M) {
    // The used rows, out_off[G-1] + roundup(M - in_off[G-1], 128), wrapping (the same for
    // valid offsets, defined for any).
    typedef unsigned long long U64;
    const U64 last_rows = static_cast<U64>(static_cast<mf_int64>(M)) - static_cast<U64>(last_in);
    const mf_int64 used =
        static_cast<mf_int64>(static_cast<U64>(last_out) + ((last_rows + 127) & ~U64(127)));
    if (static_cast<mf_int64>(tile) * 128 >= used) return;
    // Wrapping too, whatever the offsets hold: the bounds below are of this value, so a row
    // read is begin + row in [0, row_end) exactly.
    const RowInt begin =
        static_cast<RowInt>(static_cast<RowUInt>(in_start) + static_cast<RowUInt>(tile * 128) -
                            static_cast<RowUInt>(out_start));
    const RowInt row_end = in_next < M ? in_next : static_cast<RowInt>(M);
    const RowUInt below = RowUInt(0) - static_cast<RowUInt>(begin);  // -begin when negative
    row_lo = begin >= 0 ? 0 : below < 128 ? static_cast<int>(below) : 128;
    const RowUInt span = static_cast<RowUInt>(row_end) - static_cast<RowUInt>(begin);
    row_hi = row_end <= begin ? 0 : span < 128 ? static_cast<int>(span) : 128;
    row_begin = row_lo < row_hi ? static_cast<I>(begin) : 0;
    active = true;
  }

  // From the number of votes: the tile's group, its rows, and whether there is anything to do.
  __device__ void locate(int votes, const OffsetT* in_off, const OffsetT* out_off, I M, I G) {
    const int e = groupOf(votes, G);
    place(in_off[e], out_off[e],
          e + 1 < G ? static_cast<RowInt>(in_off[e + 1]) : static_cast<RowInt>(M), in_off[G - 1],
          out_off[G - 1], M);
  }

  // The tile row and the row's vector of load j (see the top), and x (unsigned: j >= 0, and
  // the divisions are shifts).
  __device__ void loadPlace(int j, unsigned int& x, int& row, int& vector) const {
    const unsigned int uj = static_cast<unsigned int>(j);
    const unsigned int ul = static_cast<unsigned int>(lanes);
    x = uj / ul % 128;
    row = static_cast<int>(32 * (x % 4) + x / 4);
    vector = static_cast<int>(ul * (uj / (128 * ul)) + uj % ul);
  }

  // Thread `role`'s U vectors, into registers.
  template <int U>
  struct Fetched {
    Words v[U];
  };

  // Whether the block loads whole vectors: the rows allow them and the slab has no columns
  // past K (the same for the whole block); else it loads element by element.
  __device__ bool wholeVectors(const T* in, I stride0, I stride1) const {
    return stride1 == 1 && stride0 % V == 0 &&
           reinterpret_cast<unsigned long long>(in) % (V * sizeof(T)) == 0 && col_room == quads * 4;
  }

  // (The slab's columns before K are col_room.)
  template <int U>
  __device__ Fetched<U> fetch(int role, const T* in, I stride0, I stride1, I /*K*/) const {
    return wholeVectors(in, stride0, stride1) ? fetchWhole<U>(role, in, stride0)
                                              : fetchElements<U>(role, in, stride0, stride1);
  }

  template <int U>
  __device__ Fetched<U> fetchWhole(int role, const T* in, I stride0) const {
    Fetched<U> f;
    // The element offset of the slab's first column in the tile's row 0 (row_begin is in
    // (-128, M) when a row is read).
    const mf_int64 row0 = static_cast<mf_int64>(row_begin) * stride0 + col_begin;
    for (int u = 0; u < U; ++u) {
      unsigned int x;
      int row, vector;
      loadPlace(u * threads + role, x, row, vector);
      f.v[u] = Words();
      if (row >= row_lo && row < row_hi)
        f.v[u] = *reinterpret_cast<const Words*>(
            in + (row0 + static_cast<mf_int64>(row) * stride0 + vector * V));
    }
    return f;
  }

  template <int U>
  __device__ Fetched<U> fetchElements(int role, const T* in, I stride0, I stride1) const {
    Fetched<U> f;
    const mf_int64 row0 = static_cast<mf_int64>(row_begin) * stride0;
    for (int u = 0; u < U; ++u) {
      unsigned int x;
      int row, vector;
      loadPlace(u * threads + role, x, row, vector);
      const mf_int64 src = row0 + static_cast<mf_int64>(row) * stride0;
      const bool row_ok = row >= row_lo && row < row_hi;
      Elements elements;
      for (int w = 0; w < V; ++w) {
        const int c = vector * V + w;  // the element's column in the slab
        elements.e.v[w] = T();
        if (row_ok && c < col_room)
          elements.e.v[w] = in[src + static_cast<mf_int64>(col_begin + c) * stride1];
      }
      f.v[u] = elements.w;
    }
    return f;
  }

  // Writes the fetched vectors to `smem` (sharedBytes) in the output's order: the element of
  // tile row `row` and slab column c at ((c / 4 * 32 + row % 32) * 4 + row / 32) * 4 + c % 4,
  // which for row = 32 (x % 4) + x / 4 (loadPlace) is (c / 4) * 512 + 4 x + c % 4.
  template <int U>
  __device__ void stage(int role, const Fetched<U>& f, T* smem) const {
    for (int u = 0; u < U; ++u) {
      unsigned int x;
      int row, vector;
      loadPlace(u * threads + role, x, row, vector);
      for (int k = 0; k < V / kPiece; ++k) {
        const unsigned int c = static_cast<unsigned int>(vector * V + k * kPiece);
        const unsigned int at = c / 4 * 512 + 4 * x + c % 4;
        mf_Vector<unsigned int, kPieceWords> piece;
        for (int w = 0; w < kPieceWords; ++w) piece.v[w] = f.v[u].v[k * kPieceWords + w];
        *reinterpret_cast<mf_Vector<unsigned int, kPieceWords>*>(smem + at) = piece;
      }
    }
  }

  // Thread `role` writes its U vectors: store j = u * threads + role is slab positions
  // [j * V, j * V + V), read from shared memory as one vector; positions at or past out_numel
  // (room, 32-bit) are not written.
  template <int U>
  __device__ void store(int role, const T* smem, T* out, I out_numel) const {
    const I left = out_numel - slab_start;
    const int room = slab_start < 0 || left <= 0 ? 0
                     : left < slab               ? static_cast<int>(left)
                                                 : static_cast<int>(slab);
    for (int u = 0; u < U; ++u) {
      const int e0 = (u * threads + role) * V;
      const Words v = *reinterpret_cast<const Words*>(smem + e0);
      if (e0 + V <= room) {
        *reinterpret_cast<Words*>(out + (slab_start + e0)) = v;
      } else {
        Elements x;
        x.w = v;
        for (int w = 0; w < V; ++w)
          if (e0 + w < room) out[slab_start + e0 + w] = x.e.v[w];
      }
    }
  }
};

// The vector of the tile form for N elements per thread: 16 bytes, or N when smaller.
template <typename T, int N>
struct mf_LayoutTileVector {
  static constexpr int kBytes16 = 16 / static_cast<int>(sizeof(T)) > 0
                                      ? 16 / static_cast<int>(sizeof(T))
                                      : 1;
  static constexpr int value = N < kBytes16 ? N : kBytes16;
};

#ifdef __CUDACC__
// Whole vectors of the gather form (it takes at most 16 bytes), for the thread's N elements:
// the tile form when slabs would straddle tiles (out of line: a rare path, kept from the
// common path's registers).
template <typename T, typename OffsetT, int N, int V>
__noinline__ __device__ void mf_layoutTileGather(T* out, mf_index_t out_numel, mf_index_t p,
                                                 const T* in, mf_index_t in_stride0,
                                                 mf_index_t in_stride1, const OffsetT* in_off,
                                                 const OffsetT* out_off, mf_index_t M, mf_index_t K,
                                                 mf_index_t G, int* error_flag) {
  for (int i = 0; i < N / V; ++i)
    mf_layoutOpGather<T, OffsetT, V>(out, out_numel, p + i * V, in, in_stride0, in_stride1, in_off,
                                     out_off, M, K, G, error_flag);
}

// The rest of the tile form when the block loads element by element (out of line: a rare
// path, kept from the common path's registers; the tile passes by value, whole-block
// uniform, so every thread takes this path or none).
template <typename T, typename OffsetT, int V, int U>
__noinline__ __device__ void mf_layoutTileElements(
    const mf_LayoutTile<T, OffsetT, V, mf_index_t> tile, int role, const T* in,
    mf_index_t in_stride0, mf_index_t in_stride1, T* shared, T* out, mf_index_t out_numel) {
  tile.template stage<U>(role, tile.template fetchElements<U>(role, in, in_stride0, in_stride1),
                         shared);
  __syncthreads();
  tile.template store<U>(role, shared, out, out_numel);
}

// The tile form's device entry point: every thread of the block calls it (it synchronizes
// the block), with its own position p, never under a guard.
template <typename T, typename OffsetT, int N, int THREADS>
__device__ void mf_layoutOpTile(T* out, mf_index_t out_numel, mf_index_t p, const T* in,
                                mf_index_t in_stride0, mf_index_t in_stride1, const OffsetT* in_off,
                                const OffsetT* out_off, mf_index_t M, mf_index_t K, mf_index_t G,
                                int* error_flag) {
  constexpr int V = mf_LayoutTileVector<T, N>::value;
  typedef mf_LayoutTile<T, OffsetT, V, mf_index_t> Tile;
  __shared__ typename Tile::Words
      smem[Tile::sharedBytes(THREADS, N) / static_cast<int>(sizeof(typename Tile::Words))];
  Tile tile(THREADS, N);
  if (!tile.fits(K)) {
    mf_layoutTileGather<T, OffsetT, N, V>(out, out_numel, p, in, in_stride0, in_stride1, in_off,
                                          out_off, M, K, G, error_flag);
    return;
  }
  const int vote_rounds = tile.begin(p, in_off, out_off, M, K, G, error_flag);
  if (vote_rounds == 0) return;  // the same for the whole block
  const int role = tile.role(p);
  const mf_int64 last_in = in_off[G - 1];
  const mf_int64 last_out = out_off[G - 1];
  if (vote_rounds == 1) {
    // One round: thread `role` loads group role's offsets and votes; threads e and e + 1 pass
    // theirs on (exactly one thread writes each slot; e + 1 only when it is a group).
    __shared__ OffsetT offsets[3];  // in_off[e], out_off[e], in_off[e + 1]
    const bool mine = role < G;
    OffsetT my_in = 0, my_out = 0;
    if (mine) {
      my_in = in_off[role];
      my_out = out_off[role];
    }
    const int votes = __syncthreads_count(mine && my_out <= tile.tile * 128);
    const int e = Tile::groupOf(votes, G);
    if (role == e) {
      offsets[0] = my_in;
      offsets[1] = my_out;
    }
    if (mine && role == e + 1) offsets[2] = my_in;
    __syncthreads();
    typedef typename Tile::RowInt RowInt;
    tile.place(offsets[0], offsets[1],
               e + 1 < G ? static_cast<RowInt>(offsets[2]) : static_cast<RowInt>(M), last_in,
               last_out, M);
  } else {
    int votes = 0;
    for (int r = 0; r < vote_rounds; ++r)
      votes += __syncthreads_count(tile.vote(role, r, out_off, G));
    tile.locate(votes, in_off, out_off, M, G);
  }
  if (!tile.active) return;  // the same for the whole block
  T* shared = reinterpret_cast<T*>(smem);
  if (!tile.wholeVectors(in, in_stride0, in_stride1)) {
    mf_layoutTileElements<T, OffsetT, V, N / V>(tile, role, in, in_stride0, in_stride1, shared, out,
                                                out_numel);
    return;
  }
  const typename Tile::template Fetched<N / V> f =
      tile.template fetchWhole<N / V>(role, in, in_stride0);
  tile.template stage<N / V>(role, f, shared);
  __syncthreads();
  tile.template store<N / V>(role, shared, out, out_numel);
}
#endif
