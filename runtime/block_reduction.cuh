// runtime/block_reduction.cuh: reductions across the threads of a block (lowering emits
// mf_blockAllReduceX for a ReductionOp whose reduction axis is bound to threadIdx.x and
// mf_blockAllReduceY for one bound to threadIdx.y; see docs/reductions.md). Part of the prelude, after helpers.cuh.

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
