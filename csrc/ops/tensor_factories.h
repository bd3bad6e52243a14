//! Fusion inputs (TensorViewBuilder and the make*Tensor helpers used by users and tests) and
//! full, a tensor made from a scalar.
#pragma once

#include <optional>
#include <vector>

#include "ir/tensor_view.h"

namespace mf {

//! Builds an input TensorView. shape: -1 means symbolic (a fresh Index scalar), 1 makes a
//! Broadcast axis, other values are constant extents. Contiguity defaults to false
//! (any strides accepted at run time).
class TensorViewBuilder {
 public:
  TensorViewBuilder& ndims(int64_t n);
  TensorViewBuilder& dtype(DataType t);
  TensorViewBuilder& shape(std::vector<int64_t> shape);
  TensorViewBuilder& contiguity(bool contiguous);
  TensorViewBuilder& contiguity(Contiguity contiguity);
  //! nvFuser's stride order: `order[i]` ranks axis i's stride (a permutation of 0..n-1; larger
  //! is outer). Builds the allocation domain, outermost first; contiguity then follows it.
  //! strideOrder({0, 1}) on [i0, i1] allocates [i1, i0] (column-major).
  TensorViewBuilder& strideOrder(std::vector<int64_t> order);
  //! nvFuser's expanded broadcasts: axis i with `expanded[i]` has the extent shape[i] (-1:
  //! symbolic) and is read with stride 0 (a tensor expanded from size 1). minifuser makes it an
  //! Iteration axis that is never contiguous (no expanded-extent Broadcast axis).
  TensorViewBuilder& expanded(std::vector<bool> expanded);
  TensorView* build() const;

 private:
  int64_t ndims_ = -1;
  DataType dtype_ = DataType::Float;
  std::vector<int64_t> shape_;
  std::optional<bool> contiguous_;
  Contiguity contiguity_;
  std::vector<int64_t> stride_order_;
  std::vector<bool> expanded_;
};

//! Rank-`rank` tensor with symbolic extents and arbitrary strides.
TensorView* makeSymbolicTensor(int64_t rank, DataType dtype = DataType::Float);
//! Rank-`rank` tensor with symbolic extents, contiguous row-major.
TensorView* makeContigTensor(int64_t rank, DataType dtype = DataType::Float);
//! Constant extents (-1 symbolic, 1 broadcast), arbitrary strides.
TensorView* makeConcreteTensor(std::vector<int64_t> sizes, DataType dtype = DataType::Float);
//! Constant extents, contiguous row-major.
TensorView* makeContigConcreteTensor(std::vector<int64_t> sizes, DataType dtype = DataType::Float);

//! A tensor of `dtype` and extents `shape` (constant integers, each an Iteration axis) whose
//! every element is `fill_value` (a scalar) converted to `dtype` (FullOp). A symbolic or
//! negative extent is a UserError.
//!   full({constInt(2), constInt(3)}, constFloat(1.5), DataType::Float)
TensorView* full(const std::vector<Val*>& shape, Val* fill_value, DataType dtype);

}  // namespace mf
