// The layout op's runtime functions (runtime/layout_op.cuh) compiled for the host, so that
// the kernel interpreter runs the very code a kernel calls: the scatter, gather and tile
// forms, instantiated over the element size (values are moved as bits), the offsets' dtype,
// the vector width and the threads per block.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mf::testing {

//! One call's operands, as the generated code passes them: the padded buffer and its size,
//! the input's base and strides (gather, tile), both offsets' bases, M, K, G and the flag.
struct LayoutCall {
  std::byte* out = nullptr;
  int64_t out_numel = 0;
  const std::byte* in = nullptr;
  int64_t in_stride0 = 0, in_stride1 = 0;
  const void* in_off = nullptr;
  const void* out_off = nullptr;
  int64_t elem_bytes = 1;
  bool offsets64 = false;
  int64_t m = 0, k = 0, g = 0;
  int* error_flag = nullptr;
};

//! mf_preprocessGroupedMatmulInputSf for `width` elements (`values`: their bytes) at (row,
//! col .. col + width).
void runLayoutScatter(const LayoutCall& call, const std::byte* values, int64_t width, int64_t row,
                      int64_t col);
//! mf_layoutOpGather<W> for position p.
void runLayoutGather(const LayoutCall& call, int64_t width, int64_t p);
//! mf_layoutOpTile<N = width, threads> for one block, `positions[i]` the Position of its
//! thread i:
//! every thread's init, then (unless the block writes nothing) every thread's load, then
//! every thread's store, as the barrier between them orders them on the GPU. Throws
//! std::runtime_error when the threads disagree on their slab (a schedule the function does
//! not take).
void runLayoutTileBlock(const LayoutCall& call, int64_t width, int64_t threads,
                        const std::vector<int64_t>& positions);

}  // namespace mf::testing
