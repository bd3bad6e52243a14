//! Kernel arguments packed as the device expects them, for cuLaunchKernel's `void**`. The
//! executor adds one argument per kernel parameter, in the order codegen declared them, once
//! per input signature; later runs of that signature only overwrite the data pointers (and
//! scalar values) in place (setPointer, setScalar) and launch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

namespace mf::cuda {

//! A list of kernel arguments, each stored in its own 8-byte-aligned bytes.
//!
//!   KernelArgs args;
//!   args.addTensor(in.ptr(), sizes, strides, /*index32=*/false);  // Tensor<float, 2, 2> T0
//!   args.addScalar<float>(0.5f);                                  // float f1
//!   kernel.launch(dims, args.pointers());
class KernelArgs {
 public:
  //! A tensor laid out as runtime/tensor.cuh's
  //! `template <typename T, int N, int A> struct Tensor { T* data; mf_index_t size[N];
  //! mf_index_t stride[A]; }`: the 8-byte pointer, then the N sizes, then the A strides,
  //! each 4 (index32) or 8 bytes, the total rounded up to 8. N or A may be 0.
  void addTensor(uint64_t data_ptr, std::span<const int64_t> sizes,
                 std::span<const int64_t> strides, bool index32);

  //! A scalar parameter of type T (int64_t, double, float, bool, ...), its bytes as is.
  template <typename T>
  void addScalar(T value) {
    static_assert(std::is_trivially_copyable_v<T> && alignof(T) <= 8 && sizeof(T) <= 8);
    add(&value, sizeof(T));
  }

  //! A raw device pointer parameter (`T*`).
  void addPointer(uint64_t ptr) { add(&ptr, sizeof(ptr)); }

  //! Overwrites the data pointer of argument `i`: a tensor's `data` field or a pointer
  //! argument (added with addTensor or addPointer).
  void setPointer(size_t i, uint64_t ptr) { set(i, &ptr, sizeof(ptr)); }

  //! Overwrites scalar argument `i`, added with addScalar<T>.
  template <typename T>
  void setScalar(size_t i, T value) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8);
    set(i, &value, sizeof(T));
  }

  size_t size() const { return arguments_.size(); }

  //! The bytes of argument `i`, exactly as the kernel receives them.
  std::span<const std::byte> bytes(size_t i) const;

  //! One pointer per argument, for LoadedKernel::launch; valid until the next add.
  //! Moving a KernelArgs keeps them valid (each argument's words stay where they are).
  std::vector<void*>& pointers() { return pointers_; }

 private:
  void add(const void* data, size_t bytes);
  void set(size_t i, const void* data, size_t bytes);

  struct Argument {
    std::vector<uint64_t> words;  // uint64_t storage: 8-byte alignment for any argument
    size_t bytes = 0;
  };
  std::vector<Argument> arguments_;
  std::vector<void*> pointers_;
};

}  // namespace mf::cuda
