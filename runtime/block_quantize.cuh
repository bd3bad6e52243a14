// runtime/block_quantize.cuh: NVFP4 block quantization in kernels (blockQuantize,
// groupedBlockQuantize; docs/numerics.md states the arithmetic, runtime/fp4.cuh holds it). A
// call quantizes W consecutive blocks of 16 values of one row (W = 1 or 4): it loads each block
// (16-byte loads when the values are contiguous and aligned, element loads otherwise), finds
// its amax in registers, rounds the scale to e4m3, and writes the packed codes with 8- or
// 16-byte stores and the scales plainly or at their swizzled positions of the layout op's
// buffer (the four scales of a quad are one 4-byte word there).
//
// The kernel is instruction-bound unless every step is lean (ncu on the H200), so the common
// case runs its own arithmetic, equal bit for bit to the rule's: a block's quotients by one
// reciprocal and one fused correction each (Markstein, runtime/fp4.cuh), the e2m1 code by
// mf_e2m1MagnitudeBits, and 16-bit inputs handled as packed pairs (the amax by 16-bit integer
// maxima of the magnitudes, the eight signs of a code word by four byte permutes). Any block
// outside that case (a NaN or huge amax, a global scale far from 1) takes the exact general
// path, mf_quantizeValues16.

// A value widened for the quantization, which only compares and divides it: exact, a NaN
// keeping its bits (its code is +6 whatever they are).
__device__ inline float mf_quantizeWiden(float v) {
  return v;
}
template <typename T>
__device__ inline float mf_quantizeWiden(T v) {
  return mf_toFloatForArithmetic(v);
}

// A quantized block: its e4m3 scale and its codes (value j at bits 4 * (j % 8) of word j / 8).
struct mf_Nvfp4Block {
  unsigned codes[2];
  mf_fp8e4m3 scale;
};

// The general path. The block of 16 values x (widened), quantized. The amax is the largest |x|
// compared as bits (NaN bits above +inf above every finite magnitude: a NaN in the block gives
// a NaN amax, whose scale is e4m3's NaN whatever its payload, as mf_nvfp4AbsMax's running
// maximum gives). A block that qualifies for the fast quotient (mf_nvfp4Divisor) takes it for
// all 16 values.
__device__ __noinline__ mf_Nvfp4Block mf_quantizeValues16(const float* x, float global_scale) {
  unsigned amax_bits = 0;
#pragma unroll
  for (int j = 0; j < 16; ++j) amax_bits = max(amax_bits, __float_as_uint(x[j]) & 0x7fffffffu);
  const float amax = __uint_as_float(amax_bits);
  const mf_fp8e4m3 s = mf_toFp8e4m3(mf_nvfp4BlockScale(amax, global_scale));
  const mf_Nvfp4Divisor divisor = mf_nvfp4Divisor(mf_toFloat(s), global_scale, amax);
  mf_Nvfp4Block b;
  b.codes[0] = 0;
  b.codes[1] = 0;
#pragma unroll
  for (int j = 0; j < 16; ++j)
    b.codes[j / 8] |= static_cast<unsigned>(mf_nvfp4CodeOf(x[j], divisor)) << (4 * (j % 8));
  b.scale = s;
  return b;
}

// What every block of a call shares: the global scale and its correctly rounded reciprocal,
// and whether the scale lets the common case divide by it with one correction (no quotient
// s / global_scale of an e4m3 scale s in [2^-6, 448] can then leave the normal range).
struct mf_Nvfp4Call {
  float global_scale;
  float global_rcp;
  bool lean;
};

__device__ inline mf_Nvfp4Call mf_nvfp4Call(float global_scale) {
  mf_Nvfp4Call c;
  c.global_scale = global_scale;
  c.global_rcp = 1.0f / global_scale;
  c.lean = global_scale >= 0x1p-64f && global_scale <= 0x1p64f;
  return c;
}

// x / d correctly rounded, given y = RN(1 / d), when nothing under- or overflows (Markstein).
__device__ inline float mf_nvfp4Quotient(float x, float d, float y) {
  const float q0 = x * y;
  return fmaf(fmaf(-q0, d, x), y, q0);
}

// The common case's block constants: the e4m3 scale of amax, the divisor d = s / global_scale
// and y = RN(1 / d); false when the block must take the general path (amax NaN or above
// 2^100, a quotient that could overflow, a global scale far from 1). amax / 6 is rounded as the
// rule's division (Markstein with RN(1/6); an amax below 2^-100 whose quotient is not exact
// gives a product with the global scale far below the clamp's 2^-6 either way). No NaN reaches
// the conversions, and d is a normal float far from both ends of the range, where RN(1 / d) is
// the approximate reciprocal and one Newton step (rcp.rn's own path for such d).
__device__ inline bool mf_nvfp4LeanBlock(float amax, const mf_Nvfp4Call& c, mf_fp8e4m3* s, float* d,
                                         float* y) {
  if (!(c.lean && amax <= 0x1p100f)) return false;
  const float r6 = 0.16666667163372039795f;  // RN(1/6)
  const float sixth = mf_nvfp4Quotient(amax, 6.0f, r6);
  const float clamped = fminf(fmaxf(sixth * c.global_scale, 0.015625f), 448.0f);
  unsigned short pair;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(pair) : "f"(0.0f), "f"(clamped));
  s->bits = static_cast<unsigned char>(pair & 0xffu);
  unsigned halves;
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(halves) : "h"(pair));
  float scale;
  asm("cvt.f32.f16 %0, %1;" : "=f"(scale) : "h"(static_cast<unsigned short>(halves & 0xffffu)));
  *d = mf_nvfp4Quotient(scale, c.global_scale, c.global_rcp);
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(*d));
  *y = fmaf(fmaf(-*d, r, 1.0f), r, r);
  return amax * *y < 1e30f;
}

// The code of x (common case): its quotient's magnitude clamped to 6, as
// mf_e2m1MagnitudeBits's biased bits (0x4b000000 + code); the sign is added by the caller.
__device__ inline unsigned mf_nvfp4LeanCodeBits(float x, float d, float y) {
  return mf_e2m1MagnitudeBits(fminf(fabsf(mf_nvfp4Quotient(x, d, y)), 6.0f));
}

// Sums of biased codes placed at nibbles 0..7 of a word carry this many times 0x4b000000
// (nibble 0 whole, nibble 1 shifted past bit 31; the rest shift out of the word).
constexpr unsigned kMfCodeWordBias = 0x4b000000u + (0x4b000000u << 4);

// The sign bits of eight 16-bit values (pairs p[0..4), value 2i in the low half of p[i]) at
// bit 3 of their nibbles of a code word: the high byte of each value holds its sign at bit 7.
__device__ inline unsigned mf_nvfp4PairSigns(const unsigned* p) {
  const unsigned a = __byte_perm(p[0], p[1], 0x7351);  // p0.b1 p1.b1 p0.b3 p1.b3
  const unsigned b = __byte_perm(p[2], p[3], 0x7351);
  const unsigned even = __byte_perm(a, b, 0x5410);  // value 2i's sign at bit 7 of byte i
  const unsigned odd = __byte_perm(a, b, 0x7632);   // value 2i + 1's sign at bit 7 of byte i
  return ((even >> 4) & 0x08080808u) | (odd & 0x80808080u);
}

// 16-bit values widened exactly to float, from the low or high half of a pair.
template <typename T>
__device__ inline float mf_quantizeWidenHalf(unsigned pair, int high) {
  if constexpr (mf_IsSame<T, mf_bfloat16>::value) {
    return __uint_as_float(high ? pair & 0xffff0000u : pair << 16);
  } else {
    T v;
    v.bits = static_cast<unsigned short>(high ? pair >> 16 : pair & 0xffffu);
    return mf_toFloatForArithmetic(v);
  }
}

// A block of 16 16-bit values (bf16 or half) as 8 pairs: its scale and codes.
template <typename T>
__device__ inline mf_Nvfp4Block mf_quantizePairs16(const unsigned* p, const mf_Nvfp4Call& c) {
  unsigned mag[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) mag[i] = p[i] & 0x7fff7fffu;
  // Magnitudes compare as unsigned 16-bit integers (NaN above infinity above the rest).
  const unsigned m =
      __vimax3_u16x2(__vimax3_u16x2(mag[0], mag[1], mag[2]), __vimax3_u16x2(mag[3], mag[4], mag[5]),
                     __vimax3_u16x2(mag[6], mag[7], mag[7]));
  T amax16;
  amax16.bits = static_cast<unsigned short>(max(m & 0xffffu, m >> 16));
  const float amax = mf_quantizeWiden(amax16);
  mf_Nvfp4Block b;
  float d, y;
  if (!mf_nvfp4LeanBlock(amax, c, &b.scale, &d, &y)) {
    float x[16];
#pragma unroll
    for (int j = 0; j < 16; ++j) x[j] = mf_quantizeWidenHalf<T>(p[j / 2], j % 2);
    return mf_quantizeValues16(x, c.global_scale);
  }
#pragma unroll
  for (int w = 0; w < 2; ++w) {
    unsigned word = 0;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const float x = mf_quantizeWidenHalf<T>(p[4 * w + j / 2], j % 2);
      word += mf_nvfp4LeanCodeBits(x, d, y) << (4 * j);
    }
    b.codes[w] = word - kMfCodeWordBias + mf_nvfp4PairSigns(p + 4 * w);
  }
  return b;
}

// A block of 16 widened values (float inputs, strided or unaligned ones): its scale and codes.
__device__ inline mf_Nvfp4Block mf_quantizeFloats16(const float* x, const mf_Nvfp4Call& c) {
  unsigned amax_bits = 0;
#pragma unroll
  for (int j = 0; j < 16; ++j) amax_bits = max(amax_bits, __float_as_uint(x[j]) & 0x7fffffffu);
  mf_Nvfp4Block b;
  float d, y;
  if (!mf_nvfp4LeanBlock(__uint_as_float(amax_bits), c, &b.scale, &d, &y))
    return mf_quantizeValues16(x, c.global_scale);
#pragma unroll
  for (int w = 0; w < 2; ++w) {
    unsigned word = 0;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const float v = x[8 * w + j];
      word += mf_nvfp4LeanCodeBits(v, d, y) << (4 * j);
      word += (__float_as_uint(v) >> 31) << (4 * j + 3);
    }
    b.codes[w] = word - kMfCodeWordBias;
  }
  return b;
}

// One block read from `in` (values `stride` apart): 16-bit values contiguous and aligned by
// two or four 16-byte loads as pairs, anything else element by element. Each way quantizes in
// its own branch, so that the compiler branches instead of predicating both sets of loads.
template <typename T>
__device__ inline mf_Nvfp4Block mf_quantizeBlock16(const T* in, mf_index_t stride,
                                                   const mf_Nvfp4Call& c) {
  if constexpr (sizeof(T) == 2) {
    if (stride == 1 && reinterpret_cast<unsigned long long>(in) % 16 == 0) {
      const mf_Vector<unsigned, 4> lo = reinterpret_cast<const mf_Vector<unsigned, 4>*>(in)[0];
      const mf_Vector<unsigned, 4> hi = reinterpret_cast<const mf_Vector<unsigned, 4>*>(in)[1];
      const unsigned p[8] = {lo.v[0], lo.v[1], lo.v[2], lo.v[3],
                             hi.v[0], hi.v[1], hi.v[2], hi.v[3]};
      return mf_quantizePairs16<T>(p, c);
    }
  }
  float x[16];
  if (stride == 1 && reinterpret_cast<unsigned long long>(in) % 16 == 0) {
    constexpr int kPerVector = 16 / sizeof(T);
#pragma unroll
    for (int v = 0; v < 16 / kPerVector; ++v) {
      const mf_Vector<T, kPerVector> chunk =
          reinterpret_cast<const mf_Vector<T, kPerVector>*>(in)[v];
#pragma unroll
      for (int j = 0; j < kPerVector; ++j) x[v * kPerVector + j] = mf_quantizeWiden(chunk.v[j]);
    }
    return mf_quantizeFloats16(x, c);
  }
#pragma unroll
  for (int j = 0; j < 16; ++j) x[j] = mf_quantizeWiden(in[j * stride]);
  return mf_quantizeFloats16(x, c);
}

// Stores the codes of W blocks (2 * W words) at q: 16-byte or 8-byte stores when aligned,
// bytes otherwise.
template <int W>
__device__ inline void mf_storeCodes(mf_fp4e2m1x2* q, const unsigned* codes, int blocks) {
  const unsigned long long address = reinterpret_cast<unsigned long long>(q);
  if (blocks == W && W % 2 == 0 && address % 16 == 0) {
#pragma unroll
    for (int i = 0; i < W / 2; ++i) {
      mf_Vector<unsigned, 4> v;
#pragma unroll
      for (int k = 0; k < 4; ++k) v.v[k] = codes[4 * i + k];
      reinterpret_cast<mf_Vector<unsigned, 4>*>(q)[i] = v;
    }
    return;
  }
  if (address % 8 == 0) {
#pragma unroll
    for (int i = 0; i < W; ++i) {
      if (i >= blocks) break;
      mf_Vector<unsigned, 2> v;
      v.v[0] = codes[2 * i];
      v.v[1] = codes[2 * i + 1];
      reinterpret_cast<mf_Vector<unsigned, 2>*>(q)[i] = v;
    }
    return;
  }
#pragma unroll
  for (int i = 0; i < 8 * W; ++i) {
    if (i >= 8 * blocks) break;
    q[i].bits = static_cast<unsigned char>(codes[i / 4] >> (8 * (i % 4)));
  }
}

// W consecutive blocks of one row (those of them below `blocks`): block j reads
// in + 16 * j * in_stride and writes its codes at q + 8 * j and its scale to s[j].
// A warp whose 32 calls quantize 32 consecutive whole quads of contiguous, aligned 16-bit
// values (4 KB of input: one row's stretch, or rows of a multiple of 64 values) moves them
// through shared memory, so that each warp load and store instruction covers 512 contiguous
// bytes (a thread's own 128 bytes are eight 16-byte loads 128 bytes apart from its
// neighbours': twice the L1 sectors, measured 1.20x the floor against 1.11x in the lab). Each
// lane takes its quad's chunks back from rows of 9 chunks (no bank conflicts), quantizes them,
// and the codes go out as two 512-byte rows. False (nothing done) unless every lane of the
// warp is active in a block of THREADS threads along x and the quads qualify.
template <int THREADS, typename T>
__device__ inline bool mf_quantizeQuadsOfWarp(mf_fp8e4m3* s, mf_fp4e2m1x2* q, const T* in,
                                              mf_index_t in_stride, int blocks,
                                              const mf_Nvfp4Call& c) {
  constexpr unsigned kAll = 0xffffffffu;
  if (__activemask() != kAll || blockDim.x != THREADS || blockDim.y != 1 || blockDim.z != 1)
    return false;
  const int lane = threadIdx.x % 32;
  const unsigned long long in_at = reinterpret_cast<unsigned long long>(in);
  const unsigned long long q_at = reinterpret_cast<unsigned long long>(q);
  const unsigned long long in0 = __shfl_sync(kAll, in_at, 0);
  const unsigned long long q0 = __shfl_sync(kAll, q_at, 0);
  const bool mine = blocks == 4 && in_stride == 1 && in_at == in0 + 128ull * lane &&
                    q_at == q0 + 32ull * lane && in0 % 16 == 0 && q0 % 16 == 0;
  if (!__all_sync(kAll, mine)) return false;
  typedef mf_Vector<unsigned, 4> Chunk;
  __shared__ Chunk tiles[THREADS / 32][32 * 9];
  Chunk* tile = tiles[threadIdx.x / 32];
  // The warp's first byte, from this lane's own pointer (so that the compiler knows the
  // loads global and issues all eight before the shared stores).
  const Chunk* src = reinterpret_cast<const Chunk*>(in) - 8 * lane;
  Chunk loaded[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) loaded[i] = src[32 * i + lane];
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int chunk = 32 * i + lane;
    tile[chunk / 8 * 9 + chunk % 8] = loaded[i];
  }
  __syncwarp();
  unsigned p[32];
#pragma unroll
  for (int v = 0; v < 8; ++v) {
    const Chunk chunk = tile[lane * 9 + v];
#pragma unroll
    for (int k = 0; k < 4; ++k) p[4 * v + k] = chunk.v[k];
  }
  __syncwarp();
  unsigned codes[8];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const mf_Nvfp4Block b = mf_quantizePairs16<T>(p + 8 * j, c);
    codes[2 * j] = b.codes[0];
    codes[2 * j + 1] = b.codes[1];
    s[j] = b.scale;
  }
  // A lane's 32 bytes of codes at chunks 2 * lane and 2 * lane + 1, one pad chunk after every
  // eight (so that the writes of a quarter warp fall in distinct banks).
#pragma unroll
  for (int k = 0; k < 2; ++k) {
    Chunk out;
#pragma unroll
    for (int e = 0; e < 4; ++e) out.v[e] = codes[4 * k + e];
    const int chunk = 2 * lane + k;
    tile[chunk + chunk / 8] = out;
  }
  __syncwarp();
  Chunk* dst = reinterpret_cast<Chunk*>(q) - 2 * lane;
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int chunk = 32 * i + lane;
    dst[chunk] = tile[chunk + chunk / 8];
  }
  __syncwarp();
  return true;
}

// All W blocks of 16-bit values contiguous and aligned are loaded before any is quantized, so
// that a thread has all of its bytes in flight at once (through the warp's shared memory when
// THREADS, the block's threads, is given and the warp's quads qualify).
template <int W, int THREADS, typename T>
__device__ inline void mf_quantizeBlocks(mf_fp8e4m3* s, mf_fp4e2m1x2* q, const T* in,
                                         mf_index_t in_stride, float global_scale, int blocks) {
  const mf_Nvfp4Call c = mf_nvfp4Call(global_scale);
  if constexpr (sizeof(T) == 2 && W == 4 && THREADS > 0 && THREADS % 32 == 0) {
    if (mf_quantizeQuadsOfWarp<THREADS, T>(s, q, in, in_stride, blocks, c)) return;
  }
  unsigned codes[2 * W];
  if constexpr (sizeof(T) == 2 && W > 1) {
    if (blocks == W && in_stride == 1 && reinterpret_cast<unsigned long long>(in) % 16 == 0) {
      unsigned p[8 * W];
#pragma unroll
      for (int v = 0; v < 2 * W; ++v) {
        const mf_Vector<unsigned, 4> chunk = reinterpret_cast<const mf_Vector<unsigned, 4>*>(in)[v];
#pragma unroll
        for (int k = 0; k < 4; ++k) p[4 * v + k] = chunk.v[k];
      }
#pragma unroll
      for (int j = 0; j < W; ++j) {
        const mf_Nvfp4Block b = mf_quantizePairs16<T>(p + 8 * j, c);
        codes[2 * j] = b.codes[0];
        codes[2 * j + 1] = b.codes[1];
        s[j] = b.scale;
      }
      mf_storeCodes<W>(q, codes, blocks);
      return;
    }
  }
#pragma unroll
  for (int j = 0; j < W; ++j) {
    if (j < blocks) {
      const mf_Nvfp4Block b = mf_quantizeBlock16(in + 16 * j * in_stride, in_stride, c);
      codes[2 * j] = b.codes[0];
      codes[2 * j + 1] = b.codes[1];
      s[j] = b.scale;
    }
  }
  mf_storeCodes<W>(q, codes, blocks);
}

// W blocks: `in` at the first value of the first (values `in_stride` apart), the scales of
// blocks 0 .. min(W, KB - col0) to scale[0], scale[scale_stride], .. and their codes to q
// (the byte of the first two values). col0: the first block's column of the [.., KB] scales.
// THREADS: the block's threads along x (0: unknown; no shared memory is used).
template <int W, int THREADS, typename T>
__device__ inline void mf_blockQuantize(mf_fp8e4m3* scale, mf_index_t scale_stride, mf_fp4e2m1x2* q,
                                        const T* in, mf_index_t in_stride, float global_scale,
                                        mf_index_t col0, mf_index_t KB) {
  const int blocks = static_cast<int>(min(static_cast<mf_index_t>(W), KB - col0));
  mf_fp8e4m3 s[W];
  mf_quantizeBlocks<W, THREADS>(s, q, in, in_stride, global_scale, blocks);
#pragma unroll
  for (int j = 0; j < W; ++j) {
    if (j < blocks) scale[j * scale_stride] = s[j];
  }
}

// The same, the scales of logical positions (row, col0 .. col0 + W) of the [M, KB] scales
// written into the layout op's padded buffer `scales` of scales_numel entries (checks and
// bounds as mf_preprocessGroupedMatmulInputSf's; four scales of a quad at col0 % 4 == 0 are
// one 4-byte store). The codes are written whatever the offsets hold.
template <int W, int THREADS, typename T, typename OffsetT>
__device__ inline void mf_groupedBlockQuantize(mf_fp8e4m3* scales, mf_index_t scales_numel,
                                               mf_fp4e2m1x2* q, const T* in, mf_index_t in_stride,
                                               float global_scale, const OffsetT* in_off,
                                               const OffsetT* out_off, mf_index_t row,
                                               mf_index_t col0, mf_index_t M, mf_index_t KB,
                                               mf_index_t G, int* error_flag) {
  const int blocks = static_cast<int>(min(static_cast<mf_index_t>(W), KB - col0));
  mf_fp8e4m3 s[W];
  mf_quantizeBlocks<W, THREADS>(s, q, in, in_stride, global_scale, blocks);
  mf_preprocessGroupedMatmulInputSf<mf_fp8e4m3, OffsetT>(scales, scales_numel, s, blocks, row, col0,
                                                         in_off, out_off, M, KB, G, error_flag);
}
