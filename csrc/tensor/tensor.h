//! mf::Tensor: a host tensor (dtype, logical sizes, strides in elements, shared byte storage).
//! It carries the inputs and outputs of the CPU reference evaluator (reference/), and the
//! layout op's padded output, whose allocation is larger than its logical shape.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "ir/dtype.h"
#include "ir/statement.h"
#include "support/error.h"
#include "support/numerics.h"

namespace mf {

//! The tensor dtype stored as the host type T (bool, int32_t, int64_t, float, double, Half,
//! BFloat16, Float8e4m3).
template <typename T>
constexpr DataType dataTypeOf() {
  if constexpr (std::is_same_v<T, bool>)
    return DataType::Bool;
  else if constexpr (std::is_same_v<T, int32_t>)
    return DataType::Int32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return DataType::Int64;
  else if constexpr (std::is_same_v<T, float>)
    return DataType::Float;
  else if constexpr (std::is_same_v<T, double>)
    return DataType::Double;
  else if constexpr (std::is_same_v<T, Half>)
    return DataType::Half;
  else if constexpr (std::is_same_v<T, BFloat16>)
    return DataType::BFloat16;
  else {
    static_assert(std::is_same_v<T, Float8e4m3>, "dataTypeOf: unsupported element type");
    return DataType::Float8_e4m3fn;
  }
}

//! Reads one element of `dtype` at `p` exactly: bool, int64_t (for Int32/Int64) or double
//! (the exact value of a floating element, narrow floats included).
ScalarValue loadElement(const std::byte* p, DataType dtype);
//! Writes `v` at `p` as one element of `dtype` (converted with castScalar's rules first).
void storeElement(std::byte* p, DataType dtype, const ScalarValue& v);

class Tensor {
 public:
  //! An empty Float tensor of shape [0].
  Tensor();

  //! Contiguous, zero-filled storage.
  static Tensor empty(std::vector<int64_t> sizes, DataType dtype);
  //! `values` in row-major order; the dtype is T's (see dataTypeOf). A count that is not
  //! the product of `sizes` is a UserError.
  template <typename T>
  static Tensor fromVector(const std::vector<T>& values, std::vector<int64_t> sizes);
  //! Fresh values from std::mt19937_64(seed): floating dtypes uniform in [-2, 2) rounded to
  //! the dtype, integers uniform in [-100, 100), Bool 50/50. Never all zeros (numel > 0).
  static Tensor random(std::vector<int64_t> sizes, DataType dtype, uint64_t seed);
  //! 0, 1, 2, ... in row-major order, converted to `dtype`.
  static Tensor arange(std::vector<int64_t> sizes, DataType dtype);
  //! Every element `value`, converted to `dtype`.
  static Tensor full(std::vector<int64_t> sizes, DataType dtype, double value);
  //! Storage for the product of `allocation_sizes` elements (zero-filled), viewed as the
  //! contiguous `logical_sizes` over its first elements: the layout op's padded output, as
  //! nvFuser re-views it. The allocation must hold at least the logical elements.
  static Tensor withAllocation(std::vector<int64_t> logical_sizes,
                               std::vector<int64_t> allocation_sizes, DataType dtype);

  //! `storage_numel` zero-filled elements viewed with `sizes` and `strides` (elements), e.g.
  //! an output whose allocation domain permutes its logical axes. Every element the view
  //! addresses must lie inside the storage.
  static Tensor emptyStrided(std::vector<int64_t> sizes, std::vector<int64_t> strides,
                             int64_t storage_numel, DataType dtype);

  DataType dtype() const { return dtype_; }
  const std::vector<int64_t>& sizes() const { return sizes_; }
  //! Per logical axis, in elements.
  const std::vector<int64_t>& strides() const { return strides_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numel() const;
  bool isContiguous() const;

  //! The shape of the whole buffer; sizes() unless made by withAllocation.
  const std::vector<int64_t>& allocationSizes() const { return allocation_sizes_; }
  int64_t allocationNumel() const;
  //! The layout op's output only: rows of the padded buffer that hold groups (set by the
  //! reference evaluator: out_off[G-1] + roundup(M - in_off[G-1], 128)).
  std::optional<int64_t> usedRows() const { return used_rows_; }
  void setUsedRows(int64_t rows) { used_rows_ = rows; }

  //! Bytes of the whole buffer (allocationNumel() elements).
  int64_t nbytes() const;
  void* rawData() { return storage_->data(); }
  const void* rawData() const { return storage_->data(); }

  //! The first element; a dtype other than T's is a UserError naming both.
  template <typename T>
  T* data() {
    checkDtype(dataTypeOf<T>(), "data");
    return reinterpret_cast<T*>(storage_->data());
  }
  template <typename T>
  const T* data() const {
    checkDtype(dataTypeOf<T>(), "data");
    return reinterpret_cast<const T*>(storage_->data());
  }
  //! The whole buffer, padding included (allocationNumel() elements).
  template <typename T>
  std::span<T> allocationData() {
    return {data<T>(), static_cast<size_t>(allocationNumel())};
  }
  template <typename T>
  std::span<const T> allocationData() const {
    return {data<T>(), static_cast<size_t>(allocationNumel())};
  }

  //! Element `linear` of the logical shape in row-major order, as a double (exact for every
  //! floating dtype; integers past 2^53 round).
  double item(int64_t linear) const;
  //! Element at the logical index `idx` (one entry per axis), as a double.
  double at(const std::vector<int64_t>& idx) const;
  //! Element `linear` of the logical shape, exactly (see loadElement).
  ScalarValue value(int64_t linear) const;
  //! Position `flat` of the whole buffer (0 <= flat < allocationNumel()), as a double.
  double allocationItem(int64_t flat) const;

  //! `float[2, 3] {0, 1, 2, 3, 4, 5}`; at most `max_elements` values, then `...`. Shows
  //! the allocation and used rows when they differ from the logical shape.
  std::string toString(int64_t max_elements = 64) const;

 private:
  Tensor(DataType dtype, std::vector<int64_t> logical_sizes, std::vector<int64_t> allocation_sizes);
  void checkDtype(DataType expected, std::string_view what) const;
  //! Storage offset (elements) of the logical row-major element `linear`.
  int64_t offsetOf(int64_t linear) const;
  std::byte* bytes() { return storage_->data(); }

  DataType dtype_ = DataType::Float;
  std::vector<int64_t> sizes_;
  std::vector<int64_t> strides_;
  std::vector<int64_t> allocation_sizes_;
  std::optional<int64_t> used_rows_;
  std::shared_ptr<std::vector<std::byte>> storage_;
};

template <typename T>
Tensor Tensor::fromVector(const std::vector<T>& values, std::vector<int64_t> sizes) {
  constexpr DataType dtype = dataTypeOf<T>();
  Tensor t = empty(std::move(sizes), dtype);
  MF_CHECK(static_cast<int64_t>(values.size()) == t.numel(),
           "Tensor::fromVector: {} values do not fill a {} tensor of {} elements", values.size(),
           dtype, t.numel());
  constexpr size_t bytes = sizeof(T);
  for (size_t i = 0; i < values.size(); ++i) {
    const T v = values[i];  // std::vector<bool> has no data()
    if constexpr (std::is_same_v<T, bool>) {
      t.bytes()[i] = std::byte{v ? uint8_t{1} : uint8_t{0}};
    } else {
      std::memcpy(t.bytes() + i * bytes, &v, bytes);
    }
  }
  return t;
}

}  // namespace mf
