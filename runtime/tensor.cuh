// runtime/tensor.cuh: the kernel-argument view of a tensor. First file of the runtime prelude
// (tensor.cuh, numerics.cuh, helpers.cuh, layout_op.cuh), which csrc/cuda prepends to every
// generated kernel; NVRTC compiles it with --std=c++17 -default-device for sm_90 and no
// include path, so no file of the prelude includes anything. The generated code defines
// `typedef <mf_int32|mf_int64> mf_index_t;` before the prelude.

typedef long long mf_int64;
typedef int mf_int32;

// Tensor<T, N, A>: N logical sizes, A allocation strides (in elements). Memory layout, which
// the host's argument packer reproduces byte for byte (I = sizeof(mf_index_t), 4 or 8):
//   offset 0          T* data             8 bytes
//   offset 8          size[0 .. N)        N * I bytes
//   offset 8 + N*I    stride[0 .. A)      A * I bytes
//   alignment 8, sizeof = 8 + (N + A) * I rounded up to a multiple of 8 (tail padding when
//   I = 4 and N + A is odd).
// A zero-length array is not C++, so N = 0 or A = 0 drop the member (same layout otherwise).
template <typename T, int N, int A>
struct Tensor {
  T* data;
  mf_index_t size[N];
  mf_index_t stride[A];
  __device__ T& operator[](mf_index_t i) const { return data[i]; }
};

template <typename T, int A>
struct Tensor<T, 0, A> {
  T* data;
  mf_index_t stride[A];
  __device__ T& operator[](mf_index_t i) const { return data[i]; }
};

template <typename T, int N>
struct Tensor<T, N, 0> {
  T* data;
  mf_index_t size[N];
  __device__ T& operator[](mf_index_t i) const { return data[i]; }
};

template <typename T>
struct Tensor<T, 0, 0> {
  T* data;
  __device__ T& operator[](mf_index_t i) const { return data[i]; }
};
