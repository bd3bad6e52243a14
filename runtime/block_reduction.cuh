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

// Every thread of a row of blockDim.x threads (one row per (threadIdx.y, threadIdx.z);
// blockDim.x a multiple of 32, which validateSchedule requires) gets op over the row's values:
// warp shuffles, then one shared-memory slot per warp that every thread of the row reads
// (an all-reduce: no broadcast afterwards). A block holds at most 32 warps, hence 32 slots;
// consecutive slots are consecutive words, so the writes and the broadcast reads are free of
// bank conflicts. The first barrier orders this call's writes after the reads of a previous
// call (write-after-read), the second its reads after the writes (read-after-write). Every
// thread of the block must call it (threads without data pass the identity `init`).
template <typename T, typename Op>
__device__ inline T mf_blockAllReduceX(T x, Op op, T init) {
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
// gets op over the column's values: the block writes one slot per thread, laid out as the
// linear thread index, so a warp's 32 writes and each of its reads are consecutive words (no
// bank conflicts); then each thread combines its column's blockDim.y slots in threadIdx.y
// order (an all-reduce: no broadcast afterwards). Barriers as in mf_blockAllReduceX. A block
// holds at most 1024 threads, hence 1024 slots. Every thread of the block must call it.
template <typename T, typename Op>
__device__ inline T mf_blockAllReduceY(T x, Op op, T init) {
  __shared__ T slots[1024];
  const unsigned column = threadIdx.z * blockDim.y * blockDim.x + threadIdx.x;
  __syncthreads();
  slots[column + threadIdx.y * blockDim.x] = x;
  __syncthreads();
  T result = init;
  for (unsigned y = 0; y < blockDim.y; ++y) result = op(result, slots[column + y * blockDim.x]);
  return result;
}

// A reduction across the blocks of a grid column (blockIdx.y), after each block reduced its
// part (`x`: every thread's all-reduced value). Every thread of every block writes x to its
// slot of `work` (gridDim.x * gridDim.y * threads slots, laid out [blockIdx.x][blockIdx.y]
// [thread]: a block's writes are coalesced), fences, and thread 0 counts the block in
// semaphores[blockIdx.x]. The last block to arrive combines the column's slots in blockIdx.y
// order (deterministic: no float atomics), resets the semaphore to 0 for the next launch, and
// returns true with the result in every thread; the other blocks return false. Every thread
// of the block must call it; gridDim.z must be 1.
template <typename T, typename Op>
__device__ inline bool mf_gridAllReduceY(T x, Op op, T init, T* work, unsigned* semaphores,
                                         T& result) {
  __shared__ bool last;
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned tid = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  T* column = work + static_cast<size_t>(blockIdx.x) * gridDim.y * threads + tid;
  column[static_cast<size_t>(blockIdx.y) * threads] = x;
  // Release: this thread's write is visible device-wide before the block is counted.
  __threadfence();
  __syncthreads();
  if (tid == 0) last = atomicAdd(&semaphores[blockIdx.x], 1u) == gridDim.y - 1;
  __syncthreads();
  if (!last) return false;
  // Acquire: the other blocks' writes, read past L1 (volatile).
  __threadfence();
  const volatile T* slots = column;
  result = init;
  for (unsigned y = 0; y < gridDim.y; ++y)
    result = op(result, slots[static_cast<size_t>(y) * threads]);
  if (tid == 0) semaphores[blockIdx.x] = 0;
  return true;
}
