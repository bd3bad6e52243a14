#include "reference/shape_reference.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>

#include "support/error.h"

namespace mf {
namespace {

constexpr std::string_view kWho = "ReferenceEvaluator";

// A contiguous tensor of `sizes` whose element at multi-index j is in's element at
// sum(j[d] * strides[d]) (element strides, relative to in's first element).
Tensor gather(const Tensor& in, const std::vector<int64_t>& sizes,
              const std::vector<int64_t>& strides) {
  Tensor out = Tensor::empty(sizes, in.dtype());
  const int64_t bytes = dataTypeSize(in.dtype());
  const auto* src = static_cast<const std::byte*>(in.rawData());
  auto* dst = static_cast<std::byte*>(out.rawData());
  const size_t rank = sizes.size();
  const int64_t numel = out.numel();
  std::vector<int64_t> idx(rank, 0);
  int64_t off = 0;
  for (int64_t i = 0; i < numel; ++i) {
    std::memcpy(dst + i * bytes, src + off * bytes, bytes);
    for (size_t d = rank; d-- > 0;) {
      off += strides[d];
      if (++idx[d] < sizes[d]) break;
      off -= strides[d] * sizes[d];
      idx[d] = 0;
    }
  }
  return out;
}

}  // namespace

Tensor referenceReshape(const Tensor& in, const std::vector<int64_t>& out_sizes,
                        std::string_view what) {
  int64_t numel = 1;
  for (int64_t s : out_sizes) numel *= s;
  MF_CHECK(numel == in.numel(),
           "Total element counts across view operation must match: {}: the input [{}] has {} "
           "elements, the output [{}] has {}",
           what, fmt::join(in.sizes(), ", "), in.numel(), fmt::join(out_sizes, ", "), numel);
  Tensor contiguous = gather(in, in.sizes(), in.strides());
  Tensor out = Tensor::empty(out_sizes, in.dtype());
  if (numel > 0) std::memcpy(out.rawData(), contiguous.rawData(), numel * dataTypeSize(in.dtype()));
  return out;
}

Tensor referenceSqueeze(const Tensor& in, const std::vector<bool>& squeeze, std::string_view what) {
  MF_ASSERT(static_cast<int64_t>(squeeze.size()) == in.dim(), "{}: flags vs rank", what);
  std::vector<int64_t> sizes, strides;
  for (size_t d = 0; d < squeeze.size(); ++d) {
    if (!squeeze[d]) {
      sizes.push_back(in.sizes()[d]);
      strides.push_back(in.strides()[d]);
      continue;
    }
    MF_CHECK(in.sizes()[d] == 1,
             "{}: {}: axis {} of the input [{}] has size {}; only size-1 axes can be squeezed",
             kWho, what, d, fmt::join(in.sizes(), ", "), in.sizes()[d]);
  }
  return gather(in, sizes, strides);
}

Tensor referencePermute(const Tensor& in, const std::vector<int64_t>& new2old) {
  std::vector<int64_t> sizes, strides;
  for (int64_t k : new2old) {
    sizes.push_back(in.sizes()[k]);
    strides.push_back(in.strides()[k]);
  }
  return gather(in, sizes, strides);
}

Tensor referenceExpand(const Tensor& in, const std::vector<int64_t>& sizes,
                       const std::vector<bool>& expandable, std::string_view what) {
  MF_ASSERT(static_cast<int64_t>(sizes.size()) == in.dim(), "{}: sizes vs rank", what);
  std::vector<int64_t> out_sizes, strides;
  for (size_t d = 0; d < sizes.size(); ++d) {
    const int64_t s = sizes[d], have = in.sizes()[d];
    MF_CHECK(s >= -1, "{}: {}: size {} of axis {} is negative", kWho, what, s, d);
    if (s == -1 || s == have) {
      out_sizes.push_back(have);
      strides.push_back(in.strides()[d]);
      continue;
    }
    MF_CHECK(expandable[d] && have == 1,
             "{}: {}: axis {} of the input [{}] has size {} and is not a Broadcast axis; it "
             "cannot be expanded to {}",
             kWho, what, d, fmt::join(in.sizes(), ", "), have, s);
    out_sizes.push_back(s);
    strides.push_back(0);
  }
  return gather(in, out_sizes, strides);
}

}  // namespace mf
