//! mf::Tensor: a tensor on the host or the device (dtype, logical sizes, strides in elements,
//! a storage offset, and shared byte storage). It carries the inputs and outputs of the CPU
//! reference evaluator (reference/) and of the KernelExecutor (executor/), and the layout
//! op's padded output, whose allocation is larger than its logical shape. Device storage
//! comes from the caching allocator (cuda/caching_allocator.h); tensor/arguments.h binds
//! tensors to a fusion.
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

//! Where a tensor's storage lives.
enum class Device { Host, Cuda };

//! Bytes a fresh allocation is aligned to (cudaMalloc and the caching allocator give 256).
constexpr int64_t kAllocationAlignment = 256;
//! The largest index a kernel compiled with 32-bit indices (Int32) may compute.
constexpr int64_t kMaxInt32Index = (int64_t{1} << 31) - 1;

//! The largest power of two, at most `cap` (a power of two), dividing `byte_address`; `cap`
//! for 0. The one alignment rule: the input signatures, the vectorization checks and the
//! schedulers' run-time info all ask it.
int64_t addressAlignment(uint64_t byte_address, int64_t cap);

//! True when a kernel with 32-bit indices addresses every element of a tensor of `sizes`
//! and `strides` (elements): its element count and the offset of its farthest element from
//! its first both fit in 31 bits. The storage offset does not count: a kernel's tensor
//! argument points at the view's first element and every index is relative to it (the
//! pointer itself is 64-bit). An empty tensor always fits. The one 32-bit index rule of the
//! executor and the schedulers.
bool fitsInt32Index(std::span<const int64_t> sizes, std::span<const int64_t> strides);

//! The product of `sizes`; throws mf::UserError "<what>: sizes [..] hold more than 2^63-1
//! elements" when it does not fit int64 (e.g. [2^40, 2^40] or [3, 2^62]).
int64_t checkedNumel(const std::vector<int64_t>& sizes, std::string_view what);

//! Reads one element of `dtype` at `p` exactly: bool, int64_t (for Int32/Int64) or double
//! (the exact value of a floating element, narrow floats included).
ScalarValue loadElement(const std::byte* p, DataType dtype);
//! Writes `v` at `p` as one element of `dtype` (converted with castScalar's rules first).
void storeElement(std::byte* p, DataType dtype, const ScalarValue& v);
//! loadElement and storeElement of element `element` of a storage at `base`, for every tensor
//! dtype: a sub-byte one (Float4_e2m1fn) packed, element 2i in the low nibble of byte i.
ScalarValue loadElementAt(const std::byte* base, int64_t element, DataType dtype);
void storeElementAt(std::byte* base, int64_t element, DataType dtype, const ScalarValue& v);

//! Host-only accessors (data, item, at, value, rawData, allocationData, allocationItem) on
//! a device tensor are a UserError saying to call toHost(). Sizes whose element count or
//! byte count overflows int64 are a UserError naming the sizes.
class Tensor {
 public:
  //! An empty Float tensor of shape [0].
  Tensor();

  //! Contiguous, zero-filled host storage.
  static Tensor empty(std::vector<int64_t> sizes, DataType dtype);
  //! Contiguous, uninitialized device storage from the caching allocator (as torch.empty on
  //! CUDA). Without a device: the no-device UserError.
  static Tensor emptyDevice(std::vector<int64_t> sizes, DataType dtype);
  //! A non-owning view of device memory the caller keeps alive: `sizes` and `strides`
  //! (elements, >= 0) from `ptr`, which must be aligned to the dtype.
  static Tensor fromDevicePointer(void* ptr, std::vector<int64_t> sizes,
                                  std::vector<int64_t> strides, DataType dtype);
  //! The same, holding `owner` (e.g. the framework's tensor the memory belongs to) until the
  //! storage's last view is gone: outputs that are views of this input keep it alive too.
  static Tensor fromDevicePointer(void* ptr, std::vector<int64_t> sizes,
                                  std::vector<int64_t> strides, DataType dtype,
                                  std::shared_ptr<const void> owner);
  //! A view of host memory that `owner` keeps alive (a numpy array's buffer, read in place:
  //! no copy). The memory must stay unchanged while minifuser reads it.
  static Tensor fromHostPointer(void* ptr, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                                DataType dtype, std::shared_ptr<const void> owner);
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
  //! On the device the storage is uninitialized.
  static Tensor withAllocation(std::vector<int64_t> logical_sizes,
                               std::vector<int64_t> allocation_sizes, DataType dtype,
                               Device device = Device::Host);

  //! `storage_numel` elements (zero-filled on the host, uninitialized on the device) viewed
  //! with `sizes` and `strides` (elements), e.g. an output whose allocation domain permutes
  //! its logical axes. Every element the view addresses must lie inside the storage.
  static Tensor emptyStrided(std::vector<int64_t> sizes, std::vector<int64_t> strides,
                             int64_t storage_numel, DataType dtype, Device device = Device::Host);

  //! A view of the same storage (host or device): `sizes` and `strides` (elements, >= 0;
  //! 0 repeats an element) from element `storage_offset` of the storage, not of this view.
  //! Non-contiguous, overlapping and misaligned views are all expressible; a view reaching
  //! past the storage is a UserError.
  Tensor asStrided(std::vector<int64_t> sizes, std::vector<int64_t> strides,
                   int64_t storage_offset) const;

  //! A copy of the whole storage on the device (same sizes, strides and offset), enqueued on
  //! minifuser's stream; *this when already there. Without a device: the no-device error.
  Tensor toDevice() const;
  //! A copy of the whole storage on the host (waits for the device); *this when already there.
  Tensor toHost() const;
  bool isCuda() const;
  Device device() const { return isCuda() ? Device::Cuda : Device::Host; }

  DataType dtype() const { return dtype_; }
  const std::vector<int64_t>& sizes() const { return sizes_; }
  //! Per logical axis, in elements.
  const std::vector<int64_t>& strides() const { return strides_; }
  //! Elements of the storage before the view's first element.
  int64_t storageOffset() const { return storage_offset_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numel() const;
  bool isContiguous() const;

  //! The value of this 0-dim tensor (a scalar argument), exactly (see loadElement); a
  //! device tensor costs one small copy. Another rank is a UserError.
  ScalarValue scalarValue() const;
  //! The byte address whose alignment a kernel sees for the view's first element: a device
  //! tensor's address; for a host tensor its storage offset in bytes (a run copies the whole
  //! storage to a fresh, kAllocationAlignment-aligned block, offset kept).
  uint64_t alignmentAddress() const;
  //! Bytes the view's first element is aligned to as a kernel sees it, at most `cap`:
  //! addressAlignment(alignmentAddress(), cap).
  int64_t dataAlignment(int64_t cap = kAllocationAlignment) const;
  //! fitsInt32Index(sizes(), strides()).
  bool fitsInt32Index() const;

  //! The shape of the buffer from the view's first element: sizes() for the contiguous
  //! factories, the padded shape for withAllocation, [elements up to the end of the storage]
  //! for emptyStrided, asStrided and fromDevicePointer.
  const std::vector<int64_t>& allocationSizes() const { return allocation_sizes_; }
  int64_t allocationNumel() const;
  //! The layout op's output only: rows of the padded buffer that hold groups (set by the
  //! reference evaluator: out_off[G-1] + roundup(M - in_off[G-1], 128)).
  std::optional<int64_t> usedRows() const { return used_rows_; }
  void setUsedRows(int64_t rows) { used_rows_ = rows; }

  //! Bytes of the whole buffer (allocationNumel() elements).
  int64_t nbytes() const;
  //! The view's first element in host memory.
  void* rawData() { return hostBytes("rawData"); }
  const void* rawData() const { return hostBytes("rawData"); }
  //! The view's first element as a device address (a CUdeviceptr, as kernels take it); a
  //! host tensor is a UserError.
  uint64_t devicePtr() const;
  //! The view's first element, host or device address.
  void* dataPtr() const;

  //! The first element; a dtype other than T's is a UserError naming both.
  template <typename T>
  T* data() {
    checkDtype(dataTypeOf<T>(), "data");
    return reinterpret_cast<T*>(hostBytes("data"));
  }
  template <typename T>
  const T* data() const {
    checkDtype(dataTypeOf<T>(), "data");
    return reinterpret_cast<const T*>(hostBytes("data"));
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
  //! the allocation and used rows when they differ from the logical shape, the strides
  //! and offset of a view; a device tensor shows `on the device` instead of values.
  std::string toString(int64_t max_elements = 64) const;

 private:
  struct Storage;  // host bytes, a caching-allocator block, or borrowed device memory

  Tensor(DataType dtype, std::vector<int64_t> logical_sizes, std::vector<int64_t> allocation_sizes,
         Device device);
  //! fromDevicePointer and fromHostPointer: a view of memory the caller (and `owner`) keeps.
  static Tensor borrow(void* ptr, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                       DataType dtype, Device device, std::shared_ptr<const void> owner);
  void checkDtype(DataType expected, std::string_view what) const;
  //! The view's first element on the host; `what` names the accessor for a device tensor.
  std::byte* hostBytes(std::string_view what) const;
  //! The host storage's first byte (element 0 of the storage, not of the view).
  const std::byte* hostElements(std::string_view what) const;
  //! The view's first element in bytes (a sub-byte view must start on a byte: UserError).
  int64_t byteOffset() const;
  //! Elements the storage holds.
  int64_t storageNumel() const;
  //! Offset (elements, from the view's first element) of the logical row-major element
  //! `linear`.
  int64_t offsetOf(int64_t linear) const;
  std::byte* bytes() { return hostBytes("bytes"); }

  DataType dtype_ = DataType::Float;
  std::vector<int64_t> sizes_;
  std::vector<int64_t> strides_;
  std::vector<int64_t> allocation_sizes_;
  int64_t storage_offset_ = 0;
  std::optional<int64_t> used_rows_;
  std::shared_ptr<Storage> storage_;
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
