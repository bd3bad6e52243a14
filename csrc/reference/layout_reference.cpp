#include "reference/layout_reference.h"

#include <cmath>
#include <cstring>

#include "ir/block_scaling_factor_layout.h"
#include "ir/exprs.h"
#include "tensor/arguments.h"

namespace mf {
namespace {

std::vector<int64_t> readOffsets(const Tensor& t) {
  std::vector<int64_t> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[i] = asInt(t.value(i));
  return v;
}

// Every run-time precondition of the op (docs/layout_op.md): nvFuser assumes them; we check them
// all, so a bad offset is an error here, never a wrong scatter.
void checkOffsets(const LayoutOperands& op, int64_t m, const std::vector<int64_t>& in_off,
                  const std::vector<int64_t>& out_off) {
  const std::string_view kOp = op.op;
  const std::string in_name = op.input_offsets->toInlineString();
  const std::string out_name = op.output_offsets->toInlineString();
  const int64_t g = static_cast<int64_t>(in_off.size());
  MF_CHECK(in_off.size() == out_off.size(),
           "{}: input_offsets {} has {} entries but output_offsets {} has {}", kOp, in_name,
           in_off.size(), out_name, out_off.size());
  MF_CHECK(g > 0 || m == 0,
           "{}: input_offsets {} is empty (G = 0) but input {} has {} rows; every row must "
           "belong to a group",
           kOp, in_name, op.in->toInlineString(), m);
  if (g == 0) return;
  MF_CHECK(in_off[0] == 0,
           "{}: input_offsets {} must start at 0 (entry 0 is the first row of "
           "group 0), got {}",
           kOp, in_name, in_off[0]);
  for (int64_t e = 1; e < g; ++e) {
    MF_CHECK(in_off[e] >= in_off[e - 1],
             "{}: input_offsets {} must be non-decreasing: entry {} is {} but entry {} is {}", kOp,
             in_name, e, in_off[e], e - 1, in_off[e - 1]);
    MF_CHECK(in_off[e] <= m, "{}: input_offsets {} entry {} is {}, past the {} rows of input {}",
             kOp, in_name, e, in_off[e], m, op.in->toInlineString());
  }
  int64_t expected = 0;
  for (int64_t e = 0; e < g; ++e) {
    if (e > 0) {
      const int64_t rows = in_off[e] - in_off[e - 1];
      expected += blockScalingFactorGeometry(op.layout).groupRows(rows);
      MF_CHECK(out_off[e] == expected,
               "{}: output_offsets {} entry {} (start of group {}) must be {} = {} + "
               "roundup({} rows of group {}, {}), got {}",
               kOp, out_name, e, e, expected, out_off[e - 1], rows, e - 1,
               blockScalingFactorGeometry(op.layout).tile_rows, out_off[e]);
    } else {
      MF_CHECK(out_off[0] == 0,
               "{}: output_offsets {} entry 0 (start of group 0) must be 0, "
               "got {}",
               kOp, out_name, out_off[0]);
    }
  }
}

// Writes `value` (or poison) into every element of `out`'s whole buffer.
void fillPads(Tensor& out, const ReferenceOptions& options) {
  const DataType dtype = out.dtype();
  const int64_t bytes = dataTypeSize(dtype);
  auto* buffer = static_cast<std::byte*>(out.rawData());
  std::byte pattern[8];
  if (options.layout_pad_fill) {
    storeElement(pattern, dtype, *options.layout_pad_fill);
  } else if (isFloatingType(dtype)) {
    storeElement(pattern, dtype, std::nan(""));
  } else {
    std::memset(pattern, 0xAB, sizeof(pattern));
  }
  for (int64_t i = 0; i < out.allocationNumel(); ++i)
    std::memcpy(buffer + i * bytes, pattern, bytes);
}

}  // namespace

LayoutOperands layoutOperands(const PreprocessGroupedMatmulInputSf* op) {
  return {"preprocessGroupedMatmulInputSf", op->in(), op->inputOffsets(), op->outputOffsets(),
          op->layout()};
}

LayoutOperands layoutOperands(const GroupedBlockQuantizationOp* op) {
  return {"groupedBlockQuantize", op->in(), op->inputOffsets(), op->outputOffsets(), op->layout()};
}

void checkLayoutOffsets(const LayoutOperands& op, int64_t m, const Tensor& input_offsets,
                        const Tensor& output_offsets) {
  checkOffsets(op, m, readOffsets(input_offsets), readOffsets(output_offsets));
}

void checkLayoutOffsets(const PreprocessGroupedMatmulInputSf* op, int64_t m,
                        const Tensor& input_offsets, const Tensor& output_offsets) {
  checkLayoutOffsets(layoutOperands(op), m, input_offsets, output_offsets);
}

Tensor evalLayoutOp(const PreprocessGroupedMatmulInputSf* op, const Tensor& in,
                    const Tensor& input_offsets, const Tensor& output_offsets,
                    const ReferenceOptions& options) {
  return scatterToLayout(layoutOperands(op), in, input_offsets, output_offsets, options);
}

Tensor scatterToLayout(const LayoutOperands& op, const Tensor& in, const Tensor& input_offsets,
                       const Tensor& output_offsets, const ReferenceOptions& options) {
  MF_ASSERT(in.dim() == 2 && input_offsets.dim() == 1 && output_offsets.dim() == 1);
  const int64_t m = in.sizes()[0], k = in.sizes()[1];
  const std::vector<int64_t> in_off = readOffsets(input_offsets);
  const std::vector<int64_t> out_off = readOffsets(output_offsets);
  checkOffsets(op, m, in_off, out_off);

  const int64_t g = static_cast<int64_t>(in_off.size());
  const BlockScalingFactorGeometry geometry = blockScalingFactorGeometry(op.layout);
  const int64_t kp = geometry.paddedCols(k);
  Tensor out = Tensor::withAllocation({m, k}, {geometry.paddedRows(m, g), kp}, in.dtype());
  fillPads(out, options);

  const int64_t bytes = dataTypeSize(in.dtype());
  const auto* src = static_cast<const std::byte*>(in.rawData());
  auto* dst = static_cast<std::byte*>(out.rawData());
  const int64_t capacity = out.allocationNumel();
  for (int64_t row = 0; row < m; ++row) {
    // Group search as nvFuser's runtime (docs/layout_op.md, the mapping): the last group whose
    // start is <= row, by a linear scan, so empty groups are skipped.
    int64_t e = g - 1;
    for (int64_t i = 1; i < g; ++i) {
      if (row < in_off[i]) {
        e = i - 1;
        break;
      }
    }
    const int64_t r = row - in_off[e];
    for (int64_t col = 0; col < k; ++col) {
      const int64_t pos = out_off[e] * kp + geometry.swizzledOffset(r, col, kp);
      MF_ASSERT(pos >= 0 && pos < capacity, "layout op writes {} outside [0, {})", pos, capacity);
      const int64_t from = row * in.strides()[0] + col * in.strides()[1];
      std::memcpy(dst + pos * bytes, src + from * bytes, bytes);
    }
  }
  out.setUsedRows(layoutUsedRows(input_offsets, output_offsets, m));
  return out;
}

}  // namespace mf
