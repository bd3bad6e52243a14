#include "ops/tensor_factories.h"

#include "ir/builder.h"
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
