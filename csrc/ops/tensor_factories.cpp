#include "ops/tensor_factories.h"

#include <fmt/ranges.h>

#include <algorithm>

#include "ir/builder.h"
#include "ir/exprs.h"
#include "ir/fusion.h"

namespace mf {

TensorViewBuilder& TensorViewBuilder::ndims(int64_t n) {
  MF_CHECK(n >= 0, "TensorViewBuilder: rank must be non-negative, got {}", n);
  ndims_ = n;
  return *this;
}
TensorViewBuilder& TensorViewBuilder::dtype(DataType t) {
  dtype_ = t;
  return *this;
}
TensorViewBuilder& TensorViewBuilder::shape(std::vector<int64_t> shape) {
  shape_ = std::move(shape);
  return *this;
}
TensorViewBuilder& TensorViewBuilder::contiguity(bool contiguous) {
  contiguous_ = contiguous;
  return *this;
}
TensorViewBuilder& TensorViewBuilder::contiguity(Contiguity contiguity) {
  contiguity_ = std::move(contiguity);
  return *this;
}

TensorViewBuilder& TensorViewBuilder::strideOrder(std::vector<int64_t> order) {
  stride_order_ = std::move(order);
  return *this;
}
TensorViewBuilder& TensorViewBuilder::expanded(std::vector<bool> expanded) {
  expanded_ = std::move(expanded);
  return *this;
}

TensorView* TensorViewBuilder::build() const {
  int64_t rank = ndims_ >= 0 ? ndims_ : static_cast<int64_t>(shape_.size());
  MF_CHECK(shape_.empty() || static_cast<int64_t>(shape_.size()) == rank,
           "TensorViewBuilder: shape has {} entries but ndims is {}", shape_.size(), rank);
  std::vector<IterDomain*> ids;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t s = shape_.empty() ? -1 : shape_[i];
    MF_CHECK(s >= -1, "TensorViewBuilder: size {} of axis {} is invalid (use -1 for symbolic)", s,
             i);
    const bool expanded = i < static_cast<int64_t>(expanded_.size()) && expanded_[i];
    if (s == -1)
      ids.push_back(IterDomainBuilder(newScalar(DataType::Index)).build());
    else if (s == 1 && !expanded)
      ids.push_back(IterDomainBuilder(constInt(1)).iterType(IterType::Broadcast).build());
    else
      ids.push_back(IterDomainBuilder(constInt(s)).build());
  }
  MF_CHECK(expanded_.empty() || static_cast<int64_t>(expanded_.size()) == rank,
           "TensorViewBuilder: expanded has {} entries but the rank is {}", expanded_.size(), rank);
  std::vector<IterDomain*> alloc = ids;
  if (!stride_order_.empty()) {
    std::vector<int64_t> sorted = stride_order_;
    std::sort(sorted.begin(), sorted.end());
    bool permutation = static_cast<int64_t>(sorted.size()) == rank;
    for (int64_t i = 0; permutation && i < rank; ++i) permutation = sorted[i] == i;
    MF_CHECK(permutation, "TensorViewBuilder: strideOrder [{}] is not a permutation of 0..{}",
             fmt::join(stride_order_, ", "), rank - 1);
    for (int64_t i = 0; i < rank; ++i) alloc[rank - 1 - stride_order_[i]] = ids[i];
  }
  Contiguity c = !contiguity_.empty()
                     ? contiguity_
                     : TensorDomain::filledContiguity(alloc, contiguous_.value_or(false));
  // An expanded axis is read with stride 0: neither it nor the axis outside it (dense with it
  // when contiguous) is contiguous.
  for (int64_t i = 0; i < static_cast<int64_t>(expanded_.size()); ++i) {
    if (!expanded_[i]) continue;
    auto pos = std::find(alloc.begin(), alloc.end(), ids[i]) - alloc.begin();
    if (pos < static_cast<int64_t>(c.size())) c[pos] = false;
    while (--pos >= 0 && alloc[pos]->isBroadcast()) {
    }
    if (pos >= 0 && pos < static_cast<int64_t>(c.size())) c[pos] = false;
  }
  auto* td = IrBuilder::create<TensorDomain>(ids, stride_order_.empty() ? c : Contiguity{});
  if (!stride_order_.empty()) td->setAllocationDomain(alloc, c);
  return IrBuilder::create<TensorView>(td, dtype_);
}

TensorView* full(const std::vector<Val*>& shape, Val* fill_value, DataType dtype) {
  MF_CHECK(fill_value != nullptr && fill_value->kind() == ValKind::Scalar,
           "full: the fill value must be a scalar, got {}",
           fill_value ? fill_value->toString() : "null");
  std::vector<IterDomain*> ids;
  for (size_t i = 0; i < shape.size(); ++i) {
    Val* extent = shape[i];
    MF_CHECK(
        extent != nullptr && extent->kind() == ValKind::Scalar && isIntegralType(extent->dtype()),
        "full: extent {} must be an integer scalar, got {}", i,
        extent ? extent->toString() : "null");
    // TODO(#16): symbolic extents (scalar fusion inputs), once a segment holding the full
    // receives them; an extent of another tensor would be unknown to such a segment.
    MF_CHECK(extent->isConst(),
             "full: extent {} ({}) must be a constant: a segment holding the full reads no "
             "tensor to take it from",
             i, extent->toInlineString());
    MF_CHECK(*extent->constInt() >= 0, "full: extent {} is negative ({})", i,
             extent->toInlineString());
    ids.push_back(IterDomainBuilder(extent).build());
  }
  auto* out = IrBuilder::create<TensorView>(IrBuilder::create<TensorDomain>(ids), dtype);
  IrBuilder::create<FullOp>(std::vector<Val*>{fill_value}, std::vector<Val*>{out});
  return out;
}

TensorView* makeSymbolicTensor(int64_t rank, DataType dtype) {
  return TensorViewBuilder().ndims(rank).dtype(dtype).build();
}
TensorView* makeContigTensor(int64_t rank, DataType dtype) {
  return TensorViewBuilder().ndims(rank).dtype(dtype).contiguity(true).build();
}
TensorView* makeConcreteTensor(std::vector<int64_t> sizes, DataType dtype) {
  return TensorViewBuilder().shape(std::move(sizes)).dtype(dtype).build();
}
TensorView* makeContigConcreteTensor(std::vector<int64_t> sizes, DataType dtype) {
  return TensorViewBuilder().shape(std::move(sizes)).dtype(dtype).contiguity(true).build();
}

}  // namespace mf
