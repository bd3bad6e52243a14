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
  mf_int64 lo = 1;
  mf_int64 hi = G;
  while (lo < hi) {
    const mf_int64 mid = lo + (hi - lo) / 2;
    if (static_cast<mf_int64>(in_off[mid]) <= row) {
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
  // Rejecting a start past the buffer first keeps out_start * kp from overflowing.
  if (out_start < 0 || out_start > out_numel / kp) {
    mf_layoutReportError(error_flag, MF_LAYOUT_ERR_OUT_OF_BOUNDS);
    return;
  }
  if (e + 1 < G && out_start + mf_roundUp128(r + 1) > static_cast<mf_int64>(out_off[e + 1])) {
    mf_layoutReportError(error_flag, MF_LAYOUT_ERR_BAD_OUTPUT_OFFSETS);
    return;
  }
  const mf_int64 row_base =
      out_start * kp + (r / 128) * kp * 128 + (r % 32) * 16 + ((r % 128) / 32) * 4;
  for (int i = 0; i < width; ++i) {
    const mf_int64 c = static_cast<mf_int64>(col) + i;
    if (c >= K) break;
    const mf_int64 pos = row_base + (c / 4) * 512 + c % 4;
    if (pos < 0 || pos >= out_numel) {
      mf_layoutReportError(error_flag, MF_LAYOUT_ERR_OUT_OF_BOUNDS);
      continue;
    }
    out[pos] = value_ptr[i];
  }
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
  const mf_int64 last_start = out_off[G - 1];
  const mf_int64 used = last_start + mf_roundUp128(static_cast<mf_int64>(M) - in_off[G - 1]);
  if (t * 128 >= used) return;

  // The group of output tile t: the last e with out_off[e] <= t * 128.
  mf_int64 lo = 1, hi = G;
  while (lo < hi) {
    const mf_int64 mid = lo + (hi - lo) / 2;
    if (static_cast<mf_int64>(out_off[mid]) <= t * 128) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  const mf_int64 e = lo - 1;
  const mf_int64 in_start = in_off[e];
  const mf_int64 in_end = e + 1 < G ? static_cast<mf_int64>(in_off[e + 1]) : M;
  const mf_int64 tile_row = t * 128 - static_cast<mf_int64>(out_off[e]);

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
