// runtime/helpers.cuh: integer helpers and the math functions generated code calls for unary
// and binary ops, in float and double. csrc/support/scalar_math.h is the host mirror: every
// formula here is written the same way there, so the CPU evaluator rounds the same way.
// Bit-exact with the host: neg, abs, sqrt, rsqrt, reciprocal, relu, floor, ceil, maximum,
// minimum (IEEE operations, given the kernel is compiled with the default -prec-div=true
// -prec-sqrt=true, no -use_fast_math and --fmad=false). Not bit-exact: exp, log, tanh, sin,
// cos, pow, sigmoid (CUDA's libdevice and glibc differ by a few ulp; docs/numerics.md).

// ---- integers (mf_ceilDiv: sizes and indices, a >= 0, b > 0; mf_min/mf_max also clamp) ----

__device__ inline int mf_ceilDiv(int a, int b) {
  return (a + b - 1) / b;
}
__device__ inline long long mf_ceilDiv(long long a, long long b) {
  return (a + b - 1) / b;
}
__device__ inline int mf_min(int a, int b) {
  return a < b ? a : b;
}
__device__ inline long long mf_min(long long a, long long b) {
  return a < b ? a : b;
}
__device__ inline int mf_max(int a, int b) {
  return a > b ? a : b;
}
__device__ inline long long mf_max(long long a, long long b) {
  return a > b ? a : b;
}

// ---- exact operations ----

__device__ inline float mf_neg(float x) {
  return -x;
}
__device__ inline double mf_neg(double x) {
  return -x;
}
__device__ inline float mf_abs(float x) {
  return fabsf(x);
}
__device__ inline double mf_abs(double x) {
  return fabs(x);
}
__device__ inline float mf_floor(float x) {
  return floorf(x);
}
__device__ inline double mf_floor(double x) {
  return floor(x);
}
__device__ inline float mf_ceil(float x) {
  return ceilf(x);
}
__device__ inline double mf_ceil(double x) {
  return ceil(x);
}

// relu(x) = x < 0 ? 0 : x: relu(NaN) = NaN, relu(-0) = -0.
__device__ inline float mf_relu(float x) {
  return x < 0.0f ? 0.0f : x;
}
__device__ inline double mf_relu(double x) {
  return x < 0.0 ? 0.0 : x;
}

// maximum / minimum as torch.maximum / torch.minimum: a NaN operand gives NaN (a's if both);
// +0 is larger than -0. One expression: nvcc makes the common case (a > b, the running maximum
// of a reduction) a taken branch past the NaN and signed-zero checks; the same conditions
// joined by `|` and `&` (no branch, one more instruction per element) were slower on the H200.
// Where the result only feeds arithmetic, codegen calls mf_maximumAnyNaN (below) instead.
__device__ inline float mf_maximum(float a, float b) {
  return (a > b || a != a || (a == b && __float_as_int(a) >= 0)) ? a : b;
}
__device__ inline double mf_maximum(double a, double b) {
  return (a > b || a != a || (a == b && __double_as_longlong(a) >= 0)) ? a : b;
}
__device__ inline float mf_minimum(float a, float b) {
  return (a < b || a != a || (a == b && __float_as_int(a) < 0)) ? a : b;
}
__device__ inline double mf_minimum(double a, double b) {
  return (a < b || a != a || (a == b && __double_as_longlong(a) < 0)) ? a : b;
}

// The same values, except that a NaN result is the canonical NaN, not a's: one instruction on
// sm_80 and later (FMNMX.NAN; +0 is larger than -0 there too, which the GPU tests pin).
// Codegen uses them where the result's NaN bits reach only arithmetic, whose NaN bits are
// not part of the contract (softmax's row maximum): there mf_maximum's checks were a third
// of the kernel's instructions.
__device__ inline float mf_maximumAnyNaN(float a, float b) {
#if __CUDA_ARCH__ >= 800
  float r;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
#else
  return mf_maximum(a, b);
#endif
}
__device__ inline float mf_minimumAnyNaN(float a, float b) {
#if __CUDA_ARCH__ >= 800
  float r;
  asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
#else
  return mf_minimum(a, b);
#endif
}

// ---- correctly rounded operations (IEEE, same bits as the host) ----

__device__ inline float mf_sqrt(float x) {
  return sqrtf(x);
}
__device__ inline double mf_sqrt(double x) {
  return sqrt(x);
}
// 1 / sqrt(x) as two correctly rounded operations, not rsqrtf (2 ulp, not reproducible on
// the host).
__device__ inline float mf_rsqrt(float x) {
  return 1.0f / sqrtf(x);
}
__device__ inline double mf_rsqrt(double x) {
  return 1.0 / sqrt(x);
}
__device__ inline float mf_reciprocal(float x) {
  return 1.0f / x;
}
__device__ inline double mf_reciprocal(double x) {
  return 1.0 / x;
}

// ---- transcendental (libdevice; the full-precision functions, never __expf and friends) ----

__device__ inline float mf_exp(float x) {
  return expf(x);
}
__device__ inline double mf_exp(double x) {
  return exp(x);
}
__device__ inline float mf_log(float x) {
  return logf(x);
}
__device__ inline double mf_log(double x) {
  return log(x);
}
__device__ inline float mf_tanh(float x) {
  return tanhf(x);
}
__device__ inline double mf_tanh(double x) {
  return tanh(x);
}
__device__ inline float mf_sin(float x) {
  return sinf(x);
}
__device__ inline double mf_sin(double x) {
  return sin(x);
}
__device__ inline float mf_cos(float x) {
  return cosf(x);
}
__device__ inline double mf_cos(double x) {
  return cos(x);
}
__device__ inline float mf_pow(float x, float y) {
  return powf(x, y);
}
__device__ inline double mf_pow(double x, double y) {
  return pow(x, y);
}
// sigmoid(x) = 1 / (1 + exp(-x)).
__device__ inline float mf_sigmoid(float x) {
  return 1.0f / (1.0f + expf(-x));
}
__device__ inline double mf_sigmoid(double x) {
  return 1.0 / (1.0 + exp(-x));
}
