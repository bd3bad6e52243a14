#include "tensor/tensor.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <random>

#include "ir/scalar_ops.h"

namespace mf {
namespace {

int64_t product(const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

std::vector<int64_t> contiguousStrides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (size_t i = sizes.size(); i-- > 1;)
    strides[i - 1] = strides[i] * std::max<int64_t>(sizes[i], 1);
  return strides;
}

void checkSizes(const std::vector<int64_t>& sizes, std::string_view what) {
  for (size_t i = 0; i < sizes.size(); ++i)
    MF_CHECK(sizes[i] >= 0, "{}: size {} of axis {} in [{}] is negative", what, sizes[i], i,
             fmt::join(sizes, ", "));
}

template <typename T>
T loadAs(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
void storeAs(std::byte* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

}  // namespace

ScalarValue loadElement(const std::byte* p, DataType dtype) {
  switch (dtype) {
    case DataType::Bool:
      return loadAs<uint8_t>(p) != 0;
    case DataType::Int32:
      return int64_t{loadAs<int32_t>(p)};
    case DataType::Int64:
      return loadAs<int64_t>(p);
    case DataType::Half:
      return double{halfToFloat(loadAs<Half>(p))};
    case DataType::BFloat16:
      return double{bfloat16ToFloat(loadAs<BFloat16>(p))};
    case DataType::Float:
      return double{loadAs<float>(p)};
    case DataType::Double:
      return loadAs<double>(p);
    case DataType::Float8_e4m3fn:
      return double{float8e4m3ToFloat(loadAs<Float8e4m3>(p))};
    case DataType::Index:
      break;
  }
  MF_ASSERT(false, "loadElement: {} is not a tensor dtype", dtype);
}

void storeElement(std::byte* p, DataType dtype, const ScalarValue& v) {
  const ScalarValue c = castScalar(v, dtype);
  switch (dtype) {
    case DataType::Bool:
      return storeAs<uint8_t>(p, asBool(c) ? 1 : 0);
    case DataType::Int32:
      return storeAs(p, static_cast<int32_t>(asInt(c)));
    case DataType::Int64:
      return storeAs(p, asInt(c));
    // castScalar already rounded to the dtype, so these conversions are exact.
    case DataType::Half:
      return storeAs(p, doubleToHalf(asDouble(c)));
    case DataType::BFloat16:
      return storeAs(p, doubleToBFloat16(asDouble(c)));
    case DataType::Float:
      return storeAs(p, static_cast<float>(asDouble(c)));
    case DataType::Double:
      return storeAs(p, asDouble(c));
    case DataType::Float8_e4m3fn:
      return storeAs(p, doubleToFloat8e4m3(asDouble(c)));
    case DataType::Index:
      break;
  }
  MF_ASSERT(false, "storeElement: {} is not a tensor dtype", dtype);
}

Tensor::Tensor() : Tensor(DataType::Float, {0}, {0}) {}

Tensor::Tensor(DataType dtype, std::vector<int64_t> logical_sizes,
               std::vector<int64_t> allocation_sizes)
    : dtype_(dtype),
      sizes_(std::move(logical_sizes)),
      strides_(contiguousStrides(sizes_)),
      allocation_sizes_(std::move(allocation_sizes)) {
  storage_ = std::make_shared<std::vector<std::byte>>(
      static_cast<size_t>(allocationNumel() * dataTypeSize(dtype_)));
}

Tensor Tensor::empty(std::vector<int64_t> sizes, DataType dtype) {
  return withAllocation(sizes, sizes, dtype);
}

Tensor Tensor::emptyStrided(std::vector<int64_t> sizes, std::vector<int64_t> strides,
                            int64_t storage_numel, DataType dtype) {
  MF_CHECK(sizes.size() == strides.size(), "Tensor::emptyStrided: {} sizes but {} strides",
           sizes.size(), strides.size());
  checkSizes(sizes, "Tensor::emptyStrided");
  int64_t last = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    MF_CHECK(strides[d] >= 0, "Tensor::emptyStrided: negative stride {}", strides[d]);
    if (sizes[d] > 0) last += (sizes[d] - 1) * strides[d];
  }
  MF_CHECK(product(sizes) == 0 || last < storage_numel,
           "Tensor::emptyStrided: the view reaches element {} of a storage of {}", last,
           storage_numel);
  Tensor t(dtype, std::move(sizes), {storage_numel});
  t.strides_ = std::move(strides);
  return t;
}

Tensor Tensor::withAllocation(std::vector<int64_t> logical_sizes,
                              std::vector<int64_t> allocation_sizes, DataType dtype) {
  MF_CHECK(isTensorDataType(dtype), "Tensor: {} is not a tensor dtype", dtype);
  checkSizes(logical_sizes, "Tensor");
  checkSizes(allocation_sizes, "Tensor allocation");
  MF_CHECK(product(logical_sizes) <= product(allocation_sizes),
           "Tensor::withAllocation: the allocation [{}] ({} elements) is smaller than the "
           "logical shape [{}] ({} elements)",
           fmt::join(allocation_sizes, ", "), product(allocation_sizes),
           fmt::join(logical_sizes, ", "), product(logical_sizes));
  return Tensor(dtype, std::move(logical_sizes), std::move(allocation_sizes));
}

Tensor Tensor::random(std::vector<int64_t> sizes, DataType dtype, uint64_t seed) {
  Tensor t = empty(std::move(sizes), dtype);
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> real(-2.0, 2.0);
  std::uniform_int_distribution<int64_t> integer(-100, 99);
  const int64_t n = t.numel(), bytes = dataTypeSize(dtype);
  bool any_nonzero = false;
  for (int64_t i = 0; i < n; ++i) {
    ScalarValue v;
    if (dtype == DataType::Bool)
      v = (gen() & 1) != 0;
    else if (isIntegralType(dtype))
      v = integer(gen);
    else
      v = real(gen);
    storeElement(t.bytes() + i * bytes, dtype, v);
    any_nonzero = any_nonzero || asBool(loadElement(t.bytes() + i * bytes, dtype));
  }
  if (n > 0 && !any_nonzero) storeElement(t.bytes(), dtype, int64_t{1});
  return t;
}

Tensor Tensor::arange(std::vector<int64_t> sizes, DataType dtype) {
  Tensor t = empty(std::move(sizes), dtype);
  const int64_t bytes = dataTypeSize(dtype), n = t.numel();
  for (int64_t i = 0; i < n; ++i) storeElement(t.bytes() + i * bytes, dtype, i);
  return t;
}

Tensor Tensor::full(std::vector<int64_t> sizes, DataType dtype, double value) {
  Tensor t = empty(std::move(sizes), dtype);
  const int64_t bytes = dataTypeSize(dtype), n = t.numel();
  for (int64_t i = 0; i < n; ++i) storeElement(t.bytes() + i * bytes, dtype, value);
  return t;
}

int64_t Tensor::numel() const {
  return product(sizes_);
}
int64_t Tensor::allocationNumel() const {
  return product(allocation_sizes_);
}
int64_t Tensor::nbytes() const {
  return allocationNumel() * dataTypeSize(dtype_);
}

bool Tensor::isContiguous() const {
  const std::vector<int64_t> expected = contiguousStrides(sizes_);
  for (size_t i = 0; i < sizes_.size(); ++i)
    if (sizes_[i] > 1 && strides_[i] != expected[i]) return false;
  return true;
}

void Tensor::checkDtype(DataType expected, std::string_view what) const {
  MF_CHECK(expected == dtype_, "Tensor::{}: expected dtype {}, but the tensor is {}", what,
           expected, dtype_);
}

int64_t Tensor::offsetOf(int64_t linear) const {
  MF_CHECK(linear >= 0 && linear < numel(),
           "Tensor: element {} is out of range for shape [{}] ({} elements)", linear,
           fmt::join(sizes_, ", "), numel());
  int64_t offset = 0;
  for (size_t i = sizes_.size(); i-- > 0;) {
    offset += (linear % sizes_[i]) * strides_[i];
    linear /= sizes_[i];
  }
  return offset;
}

ScalarValue Tensor::value(int64_t linear) const {
  return loadElement(storage_->data() + offsetOf(linear) * dataTypeSize(dtype_), dtype_);
}

double Tensor::item(int64_t linear) const {
  return asDouble(value(linear));
}

double Tensor::at(const std::vector<int64_t>& idx) const {
  MF_CHECK(idx.size() == sizes_.size(), "Tensor::at: index [{}] has {} entries for rank {}",
           fmt::join(idx, ", "), idx.size(), sizes_.size());
  int64_t offset = 0;
  for (size_t i = 0; i < idx.size(); ++i) {
    MF_CHECK(idx[i] >= 0 && idx[i] < sizes_[i],
             "Tensor::at: index [{}] is out of range for shape [{}] on axis {}",
             fmt::join(idx, ", "), fmt::join(sizes_, ", "), i);
    offset += idx[i] * strides_[i];
  }
  return asDouble(loadElement(storage_->data() + offset * dataTypeSize(dtype_), dtype_));
}

double Tensor::allocationItem(int64_t flat) const {
  MF_CHECK(flat >= 0 && flat < allocationNumel(),
           "Tensor::allocationItem: position {} is out of range for allocation [{}]", flat,
           fmt::join(allocation_sizes_, ", "));
  return asDouble(loadElement(storage_->data() + flat * dataTypeSize(dtype_), dtype_));
}

std::string Tensor::toString(int64_t max_elements) const {
  std::string s = fmt::format("{}[{}]", dtype_, fmt::join(sizes_, ", "));
  if (allocation_sizes_ != sizes_)
    s += fmt::format(" allocation [{}]", fmt::join(allocation_sizes_, ", "));
  if (used_rows_) s += fmt::format(" used rows {}", *used_rows_);
  if (!isContiguous()) s += fmt::format(" strides [{}]", fmt::join(strides_, ", "));
  s += " {";
  const int64_t n = numel();
  for (int64_t i = 0; i < n && i < max_elements; ++i)
    s += (i == 0 ? "" : ", ") + mf::toString(value(i));
  if (n > max_elements) s += max_elements > 0 ? ", ..." : "...";
  return s + "}";
}

}  // namespace mf
