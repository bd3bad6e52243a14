// runtime/block_reduction.cuh: reductions across the threads of a block (lowering emits
// mf_blockAllReduceX for a ReductionOp whose reduction axis is bound to threadIdx.x and
// mf_blockAllReduceY for one bound to threadIdx.y; see docs/reductions.md). Part of the prelude,
// after helpers.cuh.

// One xor-shuffle step for the accumulator types (narrow floats accumulate in float).
template <typename T>
__device__ inline T mf_shflXor(T x, int lane_mask) {
  return __shfl_xor_sync(0xffffffffu, x, lane_mask);
}
__device__ inline bool mf_shflXor(bool x, int lane_mask) {
  return __shfl_xor_sync(0xffffffffu, static_cast<int>(x), lane_mask) != 0;
}

// Every lane of a full warp gets op over the warp's 32 values (butterfly: 5 xor steps).
template <typename T, typename Op>
__device__ inline T mf_warpAllReduce(T x, Op op) {
  for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2) x = op(x, mf_shflXor(x, lane_mask));
  return x;
}

// The shared scratch of every mf_blockAllReduceY (and mf_blockTreeAllReduceX) of the kernel: one
// static buffer, whatever the element type, group size or call site (a static array inside the
// templated function would be one per instantiation, and each lambda is a type of its own: a kernel
// with a few reductions would run past the 48 KiB of static shared memory). Sharing is safe: each
// call's first barrier orders its writes after the previous call's reads.
#ifndef MF_BLOCK_REDUCE_Y_BYTES
#define MF_BLOCK_REDUCE_Y_BYTES 16384
#endif
__device__ inline char* mf_blockReduceScratchY() {
  __shared__ alignas(16) char scratch[MF_BLOCK_REDUCE_Y_BYTES];
  return scratch;
}

// mf_blockAllReduceX of rows that are not whole warps (a symbolic or odd threadIdx.x extent):
// one slot per thread in the shared scratch, laid out by linear thread index, and a tree over
// each row's slots (the tail past the largest power of two below blockDim.x folded in first;
// every step's reads are above its writes); every thread reads its row's first slot.
// Deterministic: the tree is fixed by blockDim.x. Barriers as in mf_blockAllReduceX.
template <typename T, typename Op>
__device__ inline T mf_blockTreeAllReduceX(T x, Op op) {
  T* slots = reinterpret_cast<T*>(mf_blockReduceScratchY()) +
             (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x;
  __syncthreads();
  slots[threadIdx.x] = x;
  __syncthreads();
  unsigned half = 1;
  while (half * 2 < blockDim.x) half *= 2;
  for (unsigned n = blockDim.x; n > 1; n = half, half /= 2) {
    if (threadIdx.x < n - half)
      slots[threadIdx.x] = op(slots[threadIdx.x], slots[threadIdx.x + half]);
    __syncthreads();
  }
  return slots[0];
}

// Every thread of a row of blockDim.x threads (one row per (threadIdx.y, threadIdx.z)) gets op
// over the row's values. Whole warps (blockDim.x a multiple of 32): warp shuffles, then one
// shared-memory slot per warp that every thread of the row reads (an all-reduce: no broadcast
// afterwards). A block holds at most 32 warps, hence 32 slots; consecutive slots are consecutive
// words, so the writes and the broadcast reads are free of bank conflicts. The first barrier orders
// this call's writes after the reads of a previous call (write-after-read), the second its reads
// after the writes (read-after-write). Every thread of the block must call it (threads without data
// pass the identity `init`).
template <typename T, typename Op>
__device__ inline T mf_blockAllReduceX(T x, Op op, T init) {
  if (blockDim.x % 32 != 0) return mf_blockTreeAllReduceX(x, op);
  __shared__ T slots[32];
  x = mf_warpAllReduce(x, op);
  const unsigned warps = blockDim.x / 32;
  const unsigned row = (threadIdx.z * blockDim.y + threadIdx.y) * warps;
  __syncthreads();
  if (threadIdx.x % 32 == 0) slots[row + threadIdx.x / 32] = x;
  __syncthreads();
  T result = init;
  for (unsigned w = 0; w < warps; ++w) result = op(result, slots[row + w]);
  return result;
}

// Every thread of a column of blockDim.y threads (one column per (threadIdx.x, threadIdx.z))
// gets op over the column's values, for each of its N values x[0..N) in place (a grouped
// reduction: N iteration elements per thread, e.g. the vector of an outer reduction, for
// one pair of barriers per round). A round takes as many values as the scratch holds for
// the block (at least 2: 1024 threads of 8 bytes), so one round for 512 threads of 8 floats.
// The block writes one slot per thread and value, laid out [value][linear thread index], so
// a warp's 32 writes and each of its reads are consecutive words (no bank conflicts); then
// each thread combines its column's blockDim.y slots in threadIdx.y order (an all-reduce: no
// broadcast afterwards). Barriers as in mf_blockAllReduceX. The value loops are unrolled so
// that x stays in registers. Every thread of the block must call it.
template <typename T, int N, typename Op>
__device__ inline void mf_blockAllReduceY(T (&x)[N], Op op, T init) {
  T* slots = reinterpret_cast<T*>(mf_blockReduceScratchY());
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned per_round = MF_BLOCK_REDUCE_Y_BYTES / sizeof(T) / threads;
  const unsigned column = threadIdx.z * blockDim.y * blockDim.x + threadIdx.x;
  const unsigned tid = column + threadIdx.y * blockDim.x;
  for (unsigned base = 0; base < N; base += per_round) {
    __syncthreads();
#pragma unroll
    for (unsigned v = 0; v < N; ++v)
      if (v >= base && v - base < per_round) slots[(v - base) * threads + tid] = x[v];
    __syncthreads();
#pragma unroll
    for (unsigned v = 0; v < N; ++v) {
      if (v < base || v - base >= per_round) continue;
      T result = init;
      for (unsigned y = 0; y < blockDim.y; ++y)
        result = op(result, slots[(v - base) * threads + column + y * blockDim.x]);
      x[v] = result;
    }
  }
}

// One value per thread: mf_blockAllReduceY of a group of one.
template <typename T, typename Op>
__device__ inline T mf_blockAllReduceY(T x, Op op, T init) {
  T group[1] = {x};
  mf_blockAllReduceY<T, 1>(group, op, init);
  return group[0];
}

// The grid seen as columns of blocks along the dimension a grid reduction reduces across
// (D = 0: blockIdx.x, D = 1: blockIdx.y): the block's row (its index along D), the rows of a
// column, the block's column (the other two indices, linearized) and the number of columns.
struct mf_GridColumn {
  unsigned row, rows, column, columns;
};
template <int D>
__device__ inline mf_GridColumn mf_gridColumn() {
  if (D == 0)
    return {blockIdx.x, gridDim.x, blockIdx.z * gridDim.y + blockIdx.y, gridDim.y * gridDim.z};
  return {blockIdx.y, gridDim.y, blockIdx.z * gridDim.x + blockIdx.x, gridDim.x * gridDim.z};
}

// A reduction across the blocks of a grid column (mf_gridColumn<D>), after each block reduced
// its part (`x`: every thread's N all-reduced values, reduced in place). Every thread of every
// block writes x to its slots of `work` (columns * rows * N * threads slots, laid out
// [column][row][value][thread]: a block's writes are coalesced), fences, and thread 0 counts
// the block in semaphores[column]. The last block to arrive combines the column's slots in
// row order (deterministic: no float atomics), resets the semaphore to 0 for the next launch,
// and returns true with the results in every thread's x; the other blocks return false. One
// call per kernel (the others' blocks have returned), hence the N values of a group in one
// call. Every thread of the block must call it.
template <int D, typename T, int N, typename Op>
__device__ inline bool mf_gridAllReduceAlong(T (&x)[N], Op op, T init, T* work,
                                             unsigned* semaphores) {
  __shared__ bool last;
  const mf_GridColumn g = mf_gridColumn<D>();
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned tid = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  const size_t block_slots = static_cast<size_t>(N) * threads;
  T* column = work + static_cast<size_t>(g.column) * g.rows * block_slots + tid;
#pragma unroll
  for (int v = 0; v < N; ++v)
    column[static_cast<size_t>(g.row) * block_slots + static_cast<size_t>(v) * threads] = x[v];
  // Release: this thread's writes are visible device-wide before the block is counted.
  __threadfence();
  __syncthreads();
  if (tid == 0) last = atomicAdd(&semaphores[g.column], 1u) == g.rows - 1;
  __syncthreads();
  if (!last) return false;
  // Acquire: the other blocks' writes, read past L1 (volatile).
  __threadfence();
  const volatile T* slots = column;
#pragma unroll
  for (int v = 0; v < N; ++v) {
    T result = init;
    for (unsigned y = 0; y < g.rows; ++y)
      result = op(result,
                  slots[static_cast<size_t>(y) * block_slots + static_cast<size_t>(v) * threads]);
    x[v] = result;
  }
  if (tid == 0) semaphores[g.column] = 0;
  return true;
}

// One value per thread: a group of one, the result in `result`.
template <int D, typename T, typename Op>
__device__ inline bool mf_gridAllReduceAlong(T x, Op op, T init, T* work, unsigned* semaphores,
                                             T& result) {
  T group[1] = {x};
  const bool finished = mf_gridAllReduceAlong<D, T, 1>(group, op, init, work, semaphores);
  result = group[0];
  return finished;
}

// Grid reductions finished in place (lowering's gridReductionsFinishInPlace: several per
// kernel, every block goes on) combine the blocks of a grid column in a two-level tree, so
// that no block reads more than about 2 * sqrt(rows) blocks' values: the blocks of each group
// of MF_GRID_GROUP consecutive rows write their values, the last of the group to arrive
// combines the group's in row order and writes the group's partial to a row after the blocks'
// rows, and the last group to finish combines the groups' partials in group order
// (deterministic: a fixed tree, no float atomics). Call `call` (0, 1, ...) of a kernel takes
// its part of the work buffer after the previous calls' `slots_before` values per thread: each
// call has, per column, mf_gridTreeRows(rows) rows of N * threads slots, and
// mf_gridTreeSemaphores(rows) semaphores (zero before the launch; reset by the last blocks).
// Returns true in the block that finished the column, with the results in x.
#define MF_GRID_GROUP 16u
__device__ inline unsigned mf_gridTreeGroups(unsigned rows) {
  return (rows + MF_GRID_GROUP - 1) / MF_GRID_GROUP;
}
__device__ inline unsigned mf_gridTreeRows(unsigned rows) {
  return rows + mf_gridTreeGroups(rows);
}
__device__ inline unsigned mf_gridTreeSemaphores(unsigned rows) {
  return mf_gridTreeGroups(rows) + 1;
}

// The block's values x to `row` of its column, then counted in `semaphore` out of `arrivals`:
// true in the last block to arrive (after an acquire fence).
template <typename T, int N>
__device__ inline bool mf_gridTreeArrive(const T (&x)[N], T* column, size_t block_slots,
                                         unsigned row, unsigned* semaphore, unsigned arrivals) {
  __shared__ bool last;
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
#pragma unroll
  for (int v = 0; v < N; ++v)
    column[static_cast<size_t>(row) * block_slots + static_cast<size_t>(v) * threads] = x[v];
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    last = atomicAdd(semaphore, 1u) == arrivals - 1;
    if (last) *semaphore = 0;  // every block of this level has counted: ready for the next launch
  }
  __syncthreads();
  if (!last) return false;
  __threadfence();
  return true;
}

// x = op over rows [first, first + count) of the column, in row order; the rows' loads of
// the N values are independent, so they are in flight together. Volatile: written by other
// blocks, read past L1.
template <typename T, int N, typename Op>
__device__ inline void mf_gridTreeCombine(T (&x)[N], Op op, T init, const T* column,
                                          size_t block_slots, unsigned first, unsigned count) {
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  const volatile T* slots = column;
#pragma unroll
  for (int v = 0; v < N; ++v) x[v] = init;
  for (unsigned r = first; r < first + count; ++r) {
#pragma unroll
    for (int v = 0; v < N; ++v)
      x[v] =
          op(x[v], slots[static_cast<size_t>(r) * block_slots + static_cast<size_t>(v) * threads]);
  }
}

template <int D, typename T, int N, typename Op>
__device__ inline bool mf_gridReduceInPlaceAlong(T (&x)[N], Op op, T init, T* work,
                                                 unsigned* semaphores, unsigned slots_before,
                                                 unsigned call) {
  const mf_GridColumn g = mf_gridColumn<D>();
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned tid = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  const size_t block_slots = static_cast<size_t>(N) * threads;
  const size_t rows = mf_gridTreeRows(g.rows);
  T* column = work + static_cast<size_t>(slots_before) * g.columns * rows * threads +
              static_cast<size_t>(g.column) * rows * block_slots + tid;
  unsigned* sems = semaphores + (static_cast<size_t>(call) * g.columns + g.column) *
                                    mf_gridTreeSemaphores(g.rows);
  const unsigned groups = mf_gridTreeGroups(g.rows);
  const unsigned group = g.row / MF_GRID_GROUP;
  const unsigned first = group * MF_GRID_GROUP;
  const unsigned members = min(MF_GRID_GROUP, g.rows - first);
  if (!mf_gridTreeArrive(x, column, block_slots, g.row, &sems[group], members)) return false;
  mf_gridTreeCombine(x, op, init, column, block_slots, first, members);
  if (!mf_gridTreeArrive(x, column, block_slots, g.rows + group, &sems[groups], groups))
    return false;
  mf_gridTreeCombine(x, op, init, column, block_slots, g.rows, groups);
  return true;
}

// One value per thread: a group of one, the result in `result`.
template <int D, typename T, typename Op>
__device__ inline bool mf_gridReduceInPlaceAlong(T x, Op op, T init, T* work, unsigned* semaphores,
                                                 unsigned slots_before, unsigned call, T& result) {
  T group[1] = {x};
  const bool finished =
      mf_gridReduceInPlaceAlong<D, T, 1>(group, op, init, work, semaphores, slots_before, call);
  result = group[0];
  return finished;
}

// The names lowering emits: across blockIdx.x (X) or blockIdx.y (Y), one value (<T>) or a
// group (<T, N>).
#define MF_GRID_REDUCE_NAMES(NAME, ALONG, D)             \
  template <typename T, int N, typename... Args>         \
  __device__ inline bool NAME(T(&x)[N], Args... args) {  \
    return ALONG<D, T, N>(x, args...);                   \
  }                                                      \
  template <typename T, typename... Args>                \
  __device__ inline bool NAME(T x, Args&&... args) {     \
    return ALONG<D, T>(x, static_cast<Args&&>(args)...); \
  }
MF_GRID_REDUCE_NAMES(mf_gridAllReduceX, mf_gridAllReduceAlong, 0)
MF_GRID_REDUCE_NAMES(mf_gridAllReduceY, mf_gridAllReduceAlong, 1)
MF_GRID_REDUCE_NAMES(mf_gridReduceInPlaceX, mf_gridReduceInPlaceAlong, 0)
MF_GRID_REDUCE_NAMES(mf_gridReduceInPlaceY, mf_gridReduceInPlaceAlong, 1)
#undef MF_GRID_REDUCE_NAMES

// Grouped reductions (lowering's groupReductionCalls, nvFuser's groupReductions): several
// reductions, possibly of different ops and types, each of N values per thread, reduced in one
// call with one barrier sequence. A member is a thread's N values (reduced in place), its op
// and its identity.
template <typename T>
struct mf_TypeIdentity {
  using type = T;
};
template <typename T, int N, typename Op>
struct mf_ReduceMember {
  static constexpr int kValues = N;
  T* x;
  Op op;
  T init;
  // Slot `slot` of a scratch of 8-byte cells, `cells` per slot: this member's type in each.
  __device__ T* cells(char* scratch, unsigned slot, unsigned cells) const {
    return reinterpret_cast<T*>(scratch + static_cast<size_t>(slot) * cells * 8);
  }
};
template <typename T, int N, typename Op>
__device__ inline mf_ReduceMember<T, N, Op> mf_reduceMember(
    T (&x)[N], Op op, typename mf_TypeIdentity<T>::type init) {
  return {x, op, init};
}

// f(member, v, slot) for each value v of each member, slots numbered across the members.
template <typename F, typename M>
__device__ inline void mf_forMemberValues(F& f, M& m, unsigned& slot) {
#pragma unroll
  for (int v = 0; v < M::kValues; ++v) f(m, v, slot + v);
  slot += M::kValues;
}
template <typename F, typename... M>
__device__ inline void mf_forEachValue(F f, M&... m) {
  unsigned slot = 0;
  (mf_forMemberValues(f, m, slot), ...);
}

// Every thread gets, for each value of each member, op over the values of the threads that
// differ only in threadIdx.x (D = 0) or threadIdx.y (D = 1). Whole warps along x: warp
// shuffles, then one cell per warp and value; otherwise one cell per thread and value, folded
// by a tree over the row (x) or in threadIdx.y order (y), as the single-value functions. The
// cells are 8 bytes (any accumulator type), laid out [value][cell] in the shared scratch; a
// round takes as many values as it holds. Barriers as in mf_blockAllReduceX, one pair (and
// the tree's) per round for all members. Every thread of the block must call it.
template <int D, typename... M>
__device__ inline void mf_blockAllReduceTupleAlong(M... m) {
  char* scratch = mf_blockReduceScratchY();
  const unsigned tid = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  const bool warps = D == 0 && blockDim.x % 32 == 0;
  if (warps)
    mf_forEachValue([&](auto& mb, int v, unsigned) { mb.x[v] = mf_warpAllReduce(mb.x[v], mb.op); },
                    m...);
  // A block holds at most 32 warps: cell tid / 32 is the warp's (rows of whole warps).
  const unsigned cells = warps ? 32 : blockDim.x * blockDim.y * blockDim.z;
  const unsigned cell = warps ? tid / 32 : tid;
  const bool writer = !warps || threadIdx.x % 32 == 0;
  const unsigned per_round = MF_BLOCK_REDUCE_Y_BYTES / 8 / cells;
  const unsigned slots = (0 + ... + M::kValues);
  // The cells this thread folds: its row's warps or threads (x), its column's threads (y).
  const unsigned first = warps    ? cell - threadIdx.x / 32
                         : D == 0 ? tid - threadIdx.x
                                  : tid - threadIdx.y * blockDim.x;
  const unsigned count = warps ? blockDim.x / 32 : D == 0 ? blockDim.x : blockDim.y;
  const unsigned stride = D == 0 ? 1 : blockDim.x;
  for (unsigned base = 0; base < slots; base += per_round) {
    auto inRound = [&](unsigned s) { return s >= base && s - base < per_round; };
    __syncthreads();
    mf_forEachValue(
        [&](auto& mb, int v, unsigned s) {
          if (writer && inRound(s)) mb.cells(scratch, s - base, cells)[cell] = mb.x[v];
        },
        m...);
    __syncthreads();
    if (D == 0 && !warps) {
      unsigned half = 1;
      while (half * 2 < blockDim.x) half *= 2;
      for (unsigned n = blockDim.x; n > 1; n = half, half /= 2) {
        if (threadIdx.x < n - half)
          mf_forEachValue(
              [&](auto& mb, int, unsigned s) {
                if (!inRound(s)) return;
                auto* c = mb.cells(scratch, s - base, cells);
                c[tid] = mb.op(c[tid], c[tid + half]);
              },
              m...);
        __syncthreads();
      }
      mf_forEachValue(
          [&](auto& mb, int v, unsigned s) {
            if (inRound(s)) mb.x[v] = mb.cells(scratch, s - base, cells)[first];
          },
          m...);
    } else {
      mf_forEachValue(
          [&](auto& mb, int v, unsigned s) {
            if (!inRound(s)) return;
            const auto* c = mb.cells(scratch, s - base, cells);
            auto result = mb.init;
            for (unsigned k = 0; k < count; ++k) result = mb.op(result, c[first + k * stride]);
            mb.x[v] = result;
          },
          m...);
    }
  }
}
template <typename... M>
__device__ inline void mf_blockAllReduceTupleX(M... m) {
  mf_blockAllReduceTupleAlong<0>(m...);
}
template <typename... M>
__device__ inline void mf_blockAllReduceTupleY(M... m) {
  mf_blockAllReduceTupleAlong<1>(m...);
}

// The grid reduction of a group (the returning form of mf_gridAllReduceAlong, after
// mf_blockAllReduceTuple): every thread writes each value of each member to its cell of `work`
// (cells of W, the widest member type; laid out [column][row][value][thread]), the last block
// of the column combines the column's cells in row order per value with the member's op, and
// returns true with the results in every thread's values; the other blocks return false.
template <int D, typename W, typename... M>
__device__ inline bool mf_gridAllReduceTupleAlong(W* work, unsigned* semaphores, M... m) {
  __shared__ bool last;
  const mf_GridColumn g = mf_gridColumn<D>();
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned tid = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  const size_t block_slots = static_cast<size_t>((0 + ... + M::kValues)) * threads;
  W* column = work + static_cast<size_t>(g.column) * g.rows * block_slots + tid;
  mf_forEachValue(
      [&](auto& mb, int v, unsigned s) {
        W* cell =
            &column[static_cast<size_t>(g.row) * block_slots + static_cast<size_t>(s) * threads];
        *reinterpret_cast<decltype(mb.init)*>(cell) = mb.x[v];
      },
      m...);
  __threadfence();
  __syncthreads();
  if (tid == 0) last = atomicAdd(&semaphores[g.column], 1u) == g.rows - 1;
  __syncthreads();
  if (!last) return false;
  __threadfence();
  mf_forEachValue(
      [&](auto& mb, int v, unsigned s) {
        auto result = mb.init;
        for (unsigned y = 0; y < g.rows; ++y) {
          const W* cell =
              &column[static_cast<size_t>(y) * block_slots + static_cast<size_t>(s) * threads];
          result = mb.op(result, *reinterpret_cast<const volatile decltype(mb.init)*>(cell));
        }
        mb.x[v] = result;
      },
      m...);
  if (tid == 0) semaphores[g.column] = 0;
  return true;
}
template <typename W, typename... M>
__device__ inline bool mf_gridAllReduceTupleX(W* work, unsigned* semaphores, M... m) {
  return mf_gridAllReduceTupleAlong<0>(work, semaphores, m...);
}
template <typename W, typename... M>
__device__ inline bool mf_gridAllReduceTupleY(W* work, unsigned* semaphores, M... m) {
  return mf_gridAllReduceTupleAlong<1>(work, semaphores, m...);
}
