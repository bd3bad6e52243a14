#include "ops/tensor_factories.h"

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

TensorView* TensorViewBuilder::build() const {
  int64_t rank = ndims_ >= 0 ? ndims_ : static_cast<int64_t>(shape_.size());
  MF_CHECK(shape_.empty() || static_cast<int64_t>(shape_.size()) == rank,
           "TensorViewBuilder: shape has {} entries but ndims is {}", shape_.size(), rank);
  std::vector<IterDomain*> ids;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t s = shape_.empty() ? -1 : shape_[i];
    MF_CHECK(s >= -1, "TensorViewBuilder: size {} of axis {} is invalid (use -1 for symbolic)", s,
             i);
    if (s == -1)
      ids.push_back(IterDomainBuilder(newScalar(DataType::Index)).build());
    else if (s == 1)
      ids.push_back(IterDomainBuilder(constInt(1)).iterType(IterType::Broadcast).build());
    else
      ids.push_back(IterDomainBuilder(constInt(s)).build());
  }
  Contiguity c = !contiguity_.empty()
                     ? contiguity_
                     : TensorDomain::filledContiguity(ids, contiguous_.value_or(false));
  auto* td = IrBuilder::create<TensorDomain>(ids, c);
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
