#include "reference/reduction_reference.h"

#include <cmath>

#include "support/scalar_math.h"

namespace mf {
namespace {

// An exact floating sum: a list of non-overlapping doubles whose exact sum is the exact sum
// of everything added (Shewchuk, "Adaptive precision floating-point arithmetic", 1997).
// Non-finite terms are summed apart, so inf - inf gives NaN in any order, as IEEE does.
class ExactSum {
 public:
  void add(double x) {
    if (!std::isfinite(x)) {
      special_ += x;
      has_special_ = true;
      return;
    }
    size_t used = 0;
    for (double p : partials_) {
      if (std::fabs(x) < std::fabs(p)) std::swap(x, p);
      const double hi = x + p;
      const double lo = p - (hi - x);
      if (lo != 0) partials_[used++] = lo;
      x = hi;
    }
    partials_.resize(used);
    partials_.push_back(x);
  }

  //! The exact sum rounded to the nearest double.
  double value() const {
    if (has_special_) return special_;
    if (partials_.empty()) return 0.0;
    // Add from the largest partial down, stopping when a rounding is inexact; the correction
    // of the half-way case follows math.fsum.
    size_t n = partials_.size();
    double hi = partials_[--n], lo = 0;
    while (n > 0) {
      const double x = hi, y = partials_[--n];
      hi = x + y;
      lo = y - (hi - x);
      if (lo != 0) break;
    }
    if (n > 0 && ((lo < 0 && partials_[n - 1] < 0) || (lo > 0 && partials_[n - 1] > 0))) {
      const double y = lo * 2, x = hi + y;
      if (y == x - hi) hi = x;
    }
    return hi;
  }

 private:
  std::vector<double> partials_;
  double special_ = 0;
  bool has_special_ = false;
};

// One output element's accumulator, for every op and category of dtype.
struct Accumulator {
  ExactSum sum;
  double real = 0;
  uint64_t bits = 0;  // integers and bools, wrapping as two's complement
};

}  // namespace

Tensor referenceReduction(BinaryOpType op, const Tensor& in, const std::vector<bool>& reduced,
                          DataType dtype, const ScalarValue& init) {
  MF_ASSERT(static_cast<int64_t>(reduced.size()) == in.dim(), "one reduced flag per axis");
  std::vector<int64_t> out_sizes, out_strides(in.dim(), 0);
  for (int64_t d = 0; d < in.dim(); ++d)
    if (!reduced[d]) out_sizes.push_back(in.sizes()[d]);
  int64_t stride = 1;
  for (int64_t d = in.dim(); d-- > 0;) {
    if (reduced[d]) continue;
    out_strides[d] = stride;
    stride *= in.sizes()[d];
  }
  const int64_t out_numel = stride;
  const bool floating = isFloatingType(in.dtype());

  std::vector<Accumulator> acc(out_numel);
  for (Accumulator& a : acc) {
    if (floating && op == BinaryOpType::Add) a.sum.add(asDouble(init));
    a.real = asDouble(init);
    a.bits = static_cast<uint64_t>(asInt(init));
  }
  std::vector<int64_t> idx(in.dim(), 0);
  int64_t out_at = 0;
  for (int64_t i = 0; i < in.numel(); ++i) {
    Accumulator& a = acc[out_at];
    const ScalarValue v = in.value(i);
    if (floating) {
      const double x = asDouble(v);
      switch (op) {
        case BinaryOpType::Add:
          a.sum.add(x);
          break;
        case BinaryOpType::Mul:
          a.real *= x;
          break;
        case BinaryOpType::Maximum:
          a.real = math::maximum(a.real, x);
          break;
        default:
          a.real = math::minimum(a.real, x);
      }
    } else {
      const auto x = static_cast<uint64_t>(asInt(v));
      const auto s = static_cast<int64_t>(x);
      switch (op) {
        case BinaryOpType::Add:
          a.bits += x;
          break;
        case BinaryOpType::Mul:
          a.bits *= x;
          break;
        case BinaryOpType::Maximum:
          if (s > static_cast<int64_t>(a.bits)) a.bits = x;
          break;
        default:
          if (s < static_cast<int64_t>(a.bits)) a.bits = x;
      }
    }
    for (int64_t d = in.dim(); d-- > 0;) {
      out_at += out_strides[d];
      if (++idx[d] < in.sizes()[d]) break;
      out_at -= out_strides[d] * in.sizes()[d];
      idx[d] = 0;
    }
  }

  Tensor out = Tensor::empty(out_sizes, dtype);
  auto* dst = static_cast<std::byte*>(out.rawData());
  const int64_t bytes = dataTypeSize(dtype);
  for (int64_t o = 0; o < out_numel; ++o) {
    const Accumulator& a = acc[o];
    const ScalarValue r = !floating                 ? ScalarValue(static_cast<int64_t>(a.bits))
                          : op == BinaryOpType::Add ? ScalarValue(a.sum.value())
                                                    : ScalarValue(a.real);
    storeElement(dst + o * bytes, dtype, r);
  }
  return out;
}

}  // namespace mf
