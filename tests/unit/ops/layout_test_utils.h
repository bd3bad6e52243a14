// Checks of a layout op's padded output for the tests (docs/layout_op.md): every logical
// element at its swizzled position, found group by group from the offsets (not by the
// per-element search the runtime and the reference use), and the pads of the used rows.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "tensor/tensor.h"

namespace mf::testing {

//! Rows per group -> {input offsets, output offsets}: each group's start, and its start in
//! the padded output (groups rounded up to 128 rows).
inline std::pair<std::vector<int64_t>, std::vector<int64_t>> layoutOffsets(
    const std::vector<int64_t>& rows) {
  std::vector<int64_t> in_off, out_off;
  int64_t in = 0, out = 0;
  for (int64_t r : rows) {
    in_off.push_back(in);
    out_off.push_back(out);
    in += r;
    out += (r + 127) / 128 * 128;
  }
  return {in_off, out_off};
}

//! Offsets as a 1-D tensor of `dtype` (Int32 or Int64).
inline Tensor layoutOffsetTensor(const std::vector<int64_t>& v, DataType dtype) {
  if (dtype == DataType::Int64)
    return Tensor::fromVector<int64_t>(v, {static_cast<int64_t>(v.size())});
  return Tensor::fromVector<int32_t>(std::vector<int32_t>(v.begin(), v.end()),
                                     {static_cast<int64_t>(v.size())});
}

//! Element (row, col) of `in` [M, K] at out_off[g]*Kp + (r/128)*Kp*128 + (col/4)*512 +
//! (r%32)*16 + ((r%128)/32)*4 + col%4 of `out` for every group g (r = row - in_off[g]), bit
//! for bit as doubles; with `pads_zero`, every other position of the used rows is 0 (the
//! gather and tile forms write the pads). Returns after the first 5 failures.
inline void expectGroupedLayout(const Tensor& out, const Tensor& in,
                                const std::vector<int64_t>& in_off,
                                const std::vector<int64_t>& out_off, bool pads_zero) {
  const int64_t m = in.sizes()[0], k = in.sizes()[1], kp = (k + 3) / 4 * 4;
  const int64_t g = static_cast<int64_t>(in_off.size());
  ASSERT_EQ(out.sizes(), in.sizes());
  ASSERT_EQ(out.allocationSizes(), (std::vector<int64_t>{m + 127 * g, kp}));
  const int64_t used = g == 0 ? 0 : out_off[g - 1] + (m - in_off[g - 1] + 127) / 128 * 128;
  ASSERT_EQ(out.usedRows(), used);
  std::vector<bool> logical(static_cast<size_t>(used * kp), false);
  int failures = 0;
  auto same = [](double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); };
  for (int64_t e = 0; e < g; ++e) {
    const int64_t rows = (e + 1 < g ? in_off[e + 1] : m) - in_off[e];
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t col = 0; col < k; ++col) {
        const int64_t pos = out_off[e] * kp + (r / 128) * kp * 128 + (col / 4) * 512 +
                            (r % 32) * 16 + ((r % 128) / 32) * 4 + col % 4;
        logical[static_cast<size_t>(pos)] = true;
        const double want = in.at({in_off[e] + r, col}), got = out.allocationItem(pos);
        if (!same(got, want) && failures++ < 5)
          ADD_FAILURE() << "group " << e << " row " << r << " col " << col << " (position " << pos
                        << "): got " << got << ", input " << want;
      }
  }
  if (!pads_zero) return;
  for (int64_t p = 0; p < used * kp; ++p)
    if (!logical[static_cast<size_t>(p)] && out.allocationItem(p) != 0.0 && failures++ < 5)
      ADD_FAILURE() << "pad at position " << p << " of the used rows is " << out.allocationItem(p)
                    << ", not 0";
}

}  // namespace mf::testing
