// runtime/vector.cuh: whole-vector copies for vectorized set() copies. The generated code
// calls mf_vectorCopy<T, N>(dst, src) with both pointers aligned to N * sizeof(T) bytes (the
// executor checks global tensors' alignment before the launch; register buffers are declared
// alignas(16)).

template <typename T, int N>
struct __align__(sizeof(T) * N) mf_Vector {
  T v[N];
};

template <typename T, int N>
__device__ inline void mf_vectorCopy(T* dst, const T* src) {
  *reinterpret_cast<mf_Vector<T, N>*>(dst) = *reinterpret_cast<const mf_Vector<T, N>*>(src);
}
