#include "tensor/tensor.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <random>

#include "cuda/caching_allocator.h"
#include "cuda/device_memory.h"
#include "cuda/driver.h"
#include "ir/scalar_ops.h"

namespace mf {

struct Tensor::Storage {
  Device device = Device::Host;
  int64_t nbytes = 0;
  std::vector<std::byte> host;
  cuda::DeviceAllocation owned;        // from the caching allocator
  uint64_t borrowed = 0;               // fromDevicePointer: the caller's memory
  std::byte* borrowed_host = nullptr;  // fromHostPointer: the caller's memory
  std::shared_ptr<const void> owner;   // keeps borrowed memory alive, when given

  std::byte* hostData() { return borrowed_host != nullptr ? borrowed_host : host.data(); }

  uint64_t devicePtr() const { return borrowed != 0 ? borrowed : owned.ptr(); }
  static std::shared_ptr<Storage> make(Device device, int64_t nbytes) {
    auto s = std::make_shared<Storage>();
    s->device = device;
    s->nbytes = nbytes;
    if (device == Device::Host)
      s->host.resize(static_cast<size_t>(nbytes));
    else
      s->owned = cuda::DeviceAllocation(static_cast<size_t>(nbytes));
    return s;
  }
};

namespace {

int64_t product(const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

// The bytes numel elements take (storageBytes: packed for a sub-byte dtype), checked like
// checkedNumel.
int64_t checkedBytes(const std::vector<int64_t>& sizes, DataType dtype, std::string_view what) {
  int64_t bits = 0;
  MF_CHECK(!__builtin_mul_overflow(checkedNumel(sizes, what), dataTypeSizeBit(dtype), &bits),
           "{}: sizes [{}] of {} need more than 2^63-1 bytes", what, fmt::join(sizes, ", "), dtype);
  return (bits + 7) / 8;
}

// The last element a view addresses, relative to its first: sum of (size-1)*stride.
int64_t checkedSpan(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                    std::string_view what) {
  int64_t last = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return 0;
    int64_t step = 0;
    MF_CHECK(!__builtin_mul_overflow(sizes[d] - 1, strides[d], &step) &&
                 !__builtin_add_overflow(last, step, &last),
             "{}: the view of sizes [{}] and strides [{}] spans more than 2^63-1 elements", what,
             fmt::join(sizes, ", "), fmt::join(strides, ", "));
  }
  return last;
}

void checkStrides(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                  std::string_view what) {
  MF_CHECK(sizes.size() == strides.size(), "{}: {} sizes [{}] but {} strides [{}]", what,
           sizes.size(), fmt::join(sizes, ", "), strides.size(), fmt::join(strides, ", "));
  for (size_t d = 0; d < strides.size(); ++d)
    MF_CHECK(strides[d] >= 0, "{}: stride {} of axis {} in [{}] is negative", what, strides[d], d,
             fmt::join(strides, ", "));
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

int64_t checkedNumel(const std::vector<int64_t>& sizes, std::string_view what) {
  int64_t n = 1;
  for (int64_t s : sizes)
    MF_CHECK(!__builtin_mul_overflow(n, s, &n), "{}: sizes [{}] hold more than 2^63-1 elements",
             what, fmt::join(sizes, ", "));
  return n;
}

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
    case DataType::Float4_e2m1fn:  // has no byte address: loadElementAt
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
    case DataType::Float4_e2m1fn:  // has no byte address: storeElementAt
    case DataType::Index:
      break;
  }
  MF_ASSERT(false, "storeElement: {} is not a tensor dtype", dtype);
}

ScalarValue loadElementAt(const std::byte* base, int64_t element, DataType dtype) {
  if (!isSubByteType(dtype)) return loadElement(base + element * dataTypeSize(dtype), dtype);
  const auto byte = static_cast<uint8_t>(base[element / 2]);
  const auto code = static_cast<uint8_t>((element % 2 != 0 ? byte >> 4 : byte) & 0xf);
  return double{float4e2m1ToFloat(Float4e2m1{code})};
}

void storeElementAt(std::byte* base, int64_t element, DataType dtype, const ScalarValue& v) {
  if (!isSubByteType(dtype)) return storeElement(base + element * dataTypeSize(dtype), dtype, v);
  const uint8_t code = doubleToFloat4e2m1(asDouble(castScalar(v, dtype))).bits;
  auto byte = static_cast<uint8_t>(base[element / 2]);
  byte = element % 2 != 0 ? static_cast<uint8_t>((byte & 0x0f) | (code << 4))
                          : static_cast<uint8_t>((byte & 0xf0) | code);
  base[element / 2] = static_cast<std::byte>(byte);
}

Tensor::Tensor() : Tensor(DataType::Float, {0}, {0}, Device::Host) {}

Tensor::Tensor(DataType dtype, std::vector<int64_t> logical_sizes,
               std::vector<int64_t> allocation_sizes, Device device)
    : dtype_(dtype),
      sizes_(std::move(logical_sizes)),
      strides_(contiguousStrides(sizes_)),
      allocation_sizes_(std::move(allocation_sizes)) {
  if (device == Device::Cuda) cuda::requireDevice();  // even for zero bytes
  storage_ = Storage::make(device, checkedBytes(allocation_sizes_, dtype_, "Tensor"));
}

Tensor Tensor::empty(std::vector<int64_t> sizes, DataType dtype) {
  return withAllocation(sizes, sizes, dtype);
}

Tensor Tensor::emptyDevice(std::vector<int64_t> sizes, DataType dtype) {
  return withAllocation(sizes, sizes, dtype, Device::Cuda);
}

Tensor Tensor::emptyStrided(std::vector<int64_t> sizes, std::vector<int64_t> strides,
                            int64_t storage_numel, DataType dtype, Device device) {
  constexpr std::string_view kWhat = "Tensor::emptyStrided";
  checkStrides(sizes, strides, kWhat);
  checkSizes(sizes, kWhat);
  const int64_t last = checkedSpan(sizes, strides, kWhat);
  MF_CHECK(checkedNumel(sizes, kWhat) == 0 || last < storage_numel,
           "{}: the view reaches element {} of a storage of {}", kWhat, last, storage_numel);
  Tensor t(dtype, {}, {storage_numel}, device);  // no contiguous strides to replace
  t.sizes_ = std::move(sizes);
  t.strides_ = std::move(strides);
  return t;
}

Tensor Tensor::withAllocation(std::vector<int64_t> logical_sizes,
                              std::vector<int64_t> allocation_sizes, DataType dtype,
                              Device device) {
  MF_CHECK(isTensorDataType(dtype), "Tensor: {} is not a tensor dtype", dtype);
  checkSizes(logical_sizes, "Tensor");
  checkSizes(allocation_sizes, "Tensor allocation");
  const int64_t logical = checkedNumel(logical_sizes, "Tensor");
  const int64_t allocated = checkedNumel(allocation_sizes, "Tensor allocation");
  MF_CHECK(logical <= allocated,
           "Tensor::withAllocation: the allocation [{}] ({} elements) is smaller than the "
           "logical shape [{}] ({} elements)",
           fmt::join(allocation_sizes, ", "), allocated, fmt::join(logical_sizes, ", "), logical);
  return Tensor(dtype, std::move(logical_sizes), std::move(allocation_sizes), device);
}

Tensor Tensor::fromDevicePointer(void* ptr, std::vector<int64_t> sizes,
                                 std::vector<int64_t> strides, DataType dtype) {
  return borrow(ptr, std::move(sizes), std::move(strides), dtype, Device::Cuda, nullptr);
}

Tensor Tensor::fromDevicePointer(void* ptr, std::vector<int64_t> sizes,
                                 std::vector<int64_t> strides, DataType dtype,
                                 std::shared_ptr<const void> owner) {
  return borrow(ptr, std::move(sizes), std::move(strides), dtype, Device::Cuda, std::move(owner));
}

Tensor Tensor::fromHostPointer(void* ptr, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                               DataType dtype, std::shared_ptr<const void> owner) {
  return borrow(ptr, std::move(sizes), std::move(strides), dtype, Device::Host, std::move(owner));
}

Tensor Tensor::borrow(void* ptr, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                      DataType dtype, Device device, std::shared_ptr<const void> owner) {
  const std::string_view kWhat =
      device == Device::Cuda ? "Tensor::fromDevicePointer" : "Tensor::fromHostPointer";
  MF_CHECK(isTensorDataType(dtype), "{}: {} is not a tensor dtype", kWhat, dtype);
  checkStrides(sizes, strides, kWhat);
  checkSizes(sizes, kWhat);
  const int64_t numel = checkedNumel(sizes, kWhat);
  const int64_t span = numel == 0 ? 0 : checkedSpan(sizes, strides, kWhat) + 1;
  const auto address = reinterpret_cast<uint64_t>(ptr);
  MF_CHECK(numel == 0 || address != 0, "{}: the pointer is null", kWhat);
  const auto element_bytes = static_cast<uint64_t>(storageBytes(dtype, 1));
  MF_CHECK(address % element_bytes == 0, "{}: pointer {:#x} is not aligned to {} ({} bytes)", kWhat,
           address, dtype, element_bytes);
  if (device == Device::Cuda) cuda::requireDevice();
  Tensor t;
  t.dtype_ = dtype;
  t.sizes_ = std::move(sizes);
  t.strides_ = std::move(strides);
  t.allocation_sizes_ = {span};
  t.storage_ = std::make_shared<Storage>();
  t.storage_->device = device;
  t.storage_->nbytes = checkedBytes(t.allocation_sizes_, dtype, kWhat);
  if (device == Device::Cuda)
    t.storage_->borrowed = address;
  else
    t.storage_->borrowed_host = static_cast<std::byte*>(ptr);
  t.storage_->owner = std::move(owner);
  return t;
}

Tensor Tensor::asStrided(std::vector<int64_t> sizes, std::vector<int64_t> strides,
                         int64_t storage_offset) const {
  constexpr std::string_view kWhat = "Tensor::asStrided";
  checkStrides(sizes, strides, kWhat);
  checkSizes(sizes, kWhat);
  const int64_t numel = checkedNumel(sizes, kWhat);
  const int64_t span = checkedSpan(sizes, strides, kWhat);
  const int64_t capacity = storageNumel();
  MF_CHECK(storage_offset >= 0,
           "{}: the storage offset {} is negative; a view's first element is element 0 or a "
           "later one of the storage",
           kWhat, storage_offset);
  MF_CHECK((numel == 0 ? storage_offset <= capacity
                       : storage_offset < capacity && span < capacity - storage_offset),
           "{}: a view of sizes [{}], strides [{}] and storage offset {} reaches element {} of "
           "a storage of {} elements",
           kWhat, fmt::join(sizes, ", "), fmt::join(strides, ", "), storage_offset,
           storage_offset + span, capacity);
  Tensor t = *this;
  t.sizes_ = std::move(sizes);
  t.strides_ = std::move(strides);
  t.storage_offset_ = storage_offset;
  t.allocation_sizes_ = {capacity - storage_offset};
  t.used_rows_.reset();
  return t;
}

Tensor Tensor::toDevice() const {
  cuda::requireDevice();
  if (isCuda()) return *this;
  Tensor t = *this;
  t.storage_ = Storage::make(Device::Cuda, storage_->nbytes);
  cuda::copyToDeviceAsync(t.storage_->devicePtr(), storage_->hostData(),
                          static_cast<size_t>(storage_->nbytes));
  return t;
}

Tensor Tensor::toHost() const {
  if (!isCuda()) return *this;
  Tensor t = *this;
  t.storage_ = Storage::make(Device::Host, storage_->nbytes);
  cuda::copyToHostAsync(t.storage_->hostData(), storage_->devicePtr(),
                        static_cast<size_t>(storage_->nbytes));
  cuda::synchronize("Tensor::toHost");
  return t;
}

bool Tensor::isCuda() const {
  return storage_->device == Device::Cuda;
}

int64_t Tensor::storageNumel() const {
  return storage_->nbytes * 8 / dataTypeSizeBit(dtype_);
}

uint64_t Tensor::devicePtr() const {
  MF_CHECK(isCuda(), "Tensor::devicePtr: the {}[{}] tensor is on the host; call toDevice()", dtype_,
           fmt::join(sizes_, ", "));
  return storage_->devicePtr() + static_cast<uint64_t>(byteOffset());
}

void* Tensor::dataPtr() const {
  if (isCuda()) return reinterpret_cast<void*>(devicePtr());
  return hostBytes("dataPtr");
}

std::byte* Tensor::hostBytes(std::string_view what) const {
  MF_CHECK(!isCuda(), "Tensor::{}: the {}[{}] tensor is on the device; call toHost()", what, dtype_,
           fmt::join(sizes_, ", "));
  return storage_->hostData() + byteOffset();
}

int64_t Tensor::byteOffset() const {
  MF_CHECK(storage_offset_ * dataTypeSizeBit(dtype_) % 8 == 0,
           "Tensor: a view of a {} tensor (two elements per byte) must start at an even element, "
           "got storage offset {}",
           dtype_, storage_offset_);
  return storage_offset_ * dataTypeSizeBit(dtype_) / 8;
}

const std::byte* Tensor::hostElements(std::string_view what) const {
  MF_CHECK(!isCuda(), "Tensor::{}: the {}[{}] tensor is on the device; call toHost()", what, dtype_,
           fmt::join(sizes_, ", "));
  return storage_->hostData();
}

Tensor Tensor::random(std::vector<int64_t> sizes, DataType dtype, uint64_t seed) {
  Tensor t = empty(std::move(sizes), dtype);
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> real(-2.0, 2.0);
  std::uniform_int_distribution<int64_t> integer(-100, 99);
  const int64_t n = t.numel();
  // float4 holds magnitudes up to 6: its values spread over all of them.
  const double spread = dtype == DataType::Float4_e2m1fn ? 3.0 : 1.0;
  bool any_nonzero = false;
  for (int64_t i = 0; i < n; ++i) {
    ScalarValue v;
    if (dtype == DataType::Bool)
      v = (gen() & 1) != 0;
    else if (isIntegralType(dtype))
      v = integer(gen);
    else
      v = real(gen) * spread;
    storeElementAt(t.bytes(), i, dtype, v);
    any_nonzero = any_nonzero || asBool(loadElementAt(t.bytes(), i, dtype));
  }
  if (n > 0 && !any_nonzero) storeElementAt(t.bytes(), 0, dtype, int64_t{1});
  return t;
}

Tensor Tensor::arange(std::vector<int64_t> sizes, DataType dtype) {
  Tensor t = empty(std::move(sizes), dtype);
  for (int64_t i = 0; i < t.numel(); ++i) storeElementAt(t.bytes(), i, dtype, i);
  return t;
}

Tensor Tensor::full(std::vector<int64_t> sizes, DataType dtype, double value) {
  Tensor t = empty(std::move(sizes), dtype);
  for (int64_t i = 0; i < t.numel(); ++i) storeElementAt(t.bytes(), i, dtype, value);
  return t;
}

int64_t Tensor::numel() const {
  return product(sizes_);
}
int64_t Tensor::allocationNumel() const {
  return product(allocation_sizes_);
}
int64_t Tensor::nbytes() const {
  return storageBytes(dtype_, allocationNumel());
}

ScalarValue Tensor::scalarValue() const {
  MF_CHECK(dim() == 0, "Tensor::scalarValue: expected a 0-dim tensor, got {}[{}]", dtype_,
           fmt::join(sizes_, ", "));
  return isCuda() ? toHost().value(0) : value(0);
}

uint64_t Tensor::alignmentAddress() const {
  return isCuda() ? devicePtr() : static_cast<uint64_t>(byteOffset());
}

int64_t Tensor::dataAlignment(int64_t cap) const {
  return addressAlignment(alignmentAddress(), cap);
}

bool Tensor::fitsInt32Index() const {
  return mf::fitsInt32Index(sizes_, strides_);
}

int64_t addressAlignment(uint64_t byte_address, int64_t cap) {
  if (byte_address == 0) return cap;
  return std::min<int64_t>(cap, int64_t{1} << std::countr_zero(byte_address));
}

bool fitsInt32Index(std::span<const int64_t> sizes, std::span<const int64_t> strides) {
  if (std::find(sizes.begin(), sizes.end(), 0) != sizes.end()) return true;  // nothing addressed
  int64_t numel = 1, last = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    // An overflow of int64 is past 2^31 anyway.
    int64_t step = 0;
    if (__builtin_mul_overflow(numel, sizes[d], &numel) ||
        __builtin_mul_overflow(sizes[d] - 1, strides[d], &step) ||
        __builtin_add_overflow(last, step, &last))
      return false;
  }
  return numel <= kMaxInt32Index && last <= kMaxInt32Index;
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
  return loadElementAt(hostElements("value"), storage_offset_ + offsetOf(linear), dtype_);
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
  return asDouble(loadElementAt(hostElements("at"), storage_offset_ + offset, dtype_));
}

double Tensor::allocationItem(int64_t flat) const {
  MF_CHECK(flat >= 0 && flat < allocationNumel(),
           "Tensor::allocationItem: position {} is out of range for allocation [{}]", flat,
           fmt::join(allocation_sizes_, ", "));
  return asDouble(loadElementAt(hostElements("allocationItem"), storage_offset_ + flat, dtype_));
}

std::string Tensor::toString(int64_t max_elements) const {
  std::string s = fmt::format("{}[{}]", dtype_, fmt::join(sizes_, ", "));
  if (allocation_sizes_ != sizes_)
    s += fmt::format(" allocation [{}]", fmt::join(allocation_sizes_, ", "));
  if (used_rows_) s += fmt::format(" used rows {}", *used_rows_);
  if (!isContiguous()) s += fmt::format(" strides [{}]", fmt::join(strides_, ", "));
  if (storage_offset_ != 0) s += fmt::format(" offset {}", storage_offset_);
  if (isCuda()) return s + " on the device";
  s += " {";
  const int64_t n = numel();
  for (int64_t i = 0; i < n && i < max_elements; ++i)
    s += (i == 0 ? "" : ", ") + mf::toString(value(i));
  if (n > max_elements) s += max_elements > 0 ? ", ..." : "...";
  return s + "}";
}

}  // namespace mf
