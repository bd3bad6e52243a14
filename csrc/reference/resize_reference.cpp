#include "reference/resize_reference.h"

#include <cstring>

namespace mf {
namespace {

// Calls body(linear, index) for every index of `sizes` in row-major order.
template <typename Body>
void forEachIndex(const std::vector<int64_t>& sizes, Body&& body) {
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  std::vector<int64_t> idx(sizes.size(), 0);
  for (int64_t i = 0; i < numel; ++i) {
    body(i, idx);
    for (size_t d = sizes.size(); d-- > 0;) {
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
    }
  }
}

const std::byte* elementOf(const Tensor& t, const std::vector<int64_t>& idx) {
  int64_t off = 0;
  for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * t.strides()[d];
  return static_cast<const std::byte*>(t.rawData()) + off * dataTypeSize(t.dtype());
}

}  // namespace

Tensor referenceResize(const Tensor& in, const std::vector<int64_t>& left,
                       const std::vector<int64_t>& right, const ScalarValue& value) {
  MF_ASSERT(left.size() == static_cast<size_t>(in.dim()) && right.size() == left.size(),
            "referenceResize: one width pair per axis");
  std::vector<int64_t> sizes;
  for (size_t d = 0; d < left.size(); ++d) {
    sizes.push_back(in.sizes()[d] + left[d] + right[d]);
    MF_ASSERT(sizes.back() >= 0, "referenceResize: axis {} would have {} elements", d,
              sizes.back());
  }
  const DataType dtype = in.dtype();
  const int64_t bytes = dataTypeSize(dtype);
  Tensor out = Tensor::empty(sizes, dtype);
  auto* dst = static_cast<std::byte*>(out.rawData());
  std::vector<int64_t> src(sizes.size());
  forEachIndex(sizes, [&](int64_t i, const std::vector<int64_t>& idx) {
    bool inside = true;
    for (size_t d = 0; d < idx.size(); ++d) {
      src[d] = idx[d] - left[d];
      inside = inside && src[d] >= 0 && src[d] < in.sizes()[d];
    }
    if (inside)
      std::memcpy(dst + i * bytes, elementOf(in, src), bytes);
    else
      storeElement(dst + i * bytes, dtype, value);
  });
  return out;
}

Tensor referenceCat(const std::vector<const Tensor*>& inputs, const std::vector<int64_t>& offsets,
                    const std::vector<int64_t>& extents, int64_t dim) {
  MF_ASSERT(!inputs.empty() && offsets.size() == inputs.size() && extents.size() == inputs.size(),
            "referenceCat: one offset and extent per input");
  const std::vector<int64_t>& sizes = inputs[0]->sizes();
  const DataType dtype = inputs[0]->dtype();
  const int64_t bytes = dataTypeSize(dtype);
  Tensor out = Tensor::empty(sizes, dtype);
  auto* dst = static_cast<std::byte*>(out.rawData());
  forEachIndex(sizes, [&](int64_t i, const std::vector<int64_t>& idx) {
    const int64_t at = idx[static_cast<size_t>(dim)];
    size_t k = 0;
    while (k + 1 < inputs.size() && !(at >= offsets[k] && at < offsets[k] + extents[k])) ++k;
    std::memcpy(dst + i * bytes, elementOf(*inputs[k], idx), bytes);
  });
  return out;
}

}  // namespace mf
