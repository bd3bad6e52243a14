// A random pointwise-fusion generator for tests: from a fixed seed, a DAG of unary, binary,
// where, cast and broadcast ops over 1-4 inputs of random dtypes, ranks and sizes (1,
// primes, 0, non-divisible, large-ish), some inputs stored permuted (allocation domain) or
// strided (padding, stride 0), plus matching random input tensors.
//
// What it avoids, so that any two correct implementations give the same results (up to the
// floating tolerance of the transcendental functions):
//   - integer division and integer multiplication (division by zero, signed overflow);
//     integer values stay small (|x| < 100 * 2^ops);
//   - casts from floating to integer types (out-of-range and NaN conversions);
//   - comparisons, floor/ceil, casts to Bool and where-conditions on values computed with
//     a transcendental function (exp, log, rsqrt, tanh, sigmoid, sin, cos, pow): a 1-ulp
//     difference there could flip the result. +, -, *, /, sqrt, max, min and casts are
//     correctly rounded everywhere, so values built from them alone compare exactly;
//   - arithmetic on two Bool operands (only logicalAnd/Or, logicalNot and comparisons);
//   - ill-conditioned uses of inexact values: 1/x, rsqrt(x), log(x) and x / y take |x| + 1
//     (|y| + 1), sin and cos a clamped argument.
//
// With reductions (RandomFusionOptions): some ops are sum, max or min over a random non-empty
// set of axes, kept as size-1 axes (keep_dim) so the result broadcasts back over the shape in
// later ops (the normalization pattern: one kernel for the persistent scheduler, or a
// Reduction and a PointWise segment), sometimes also an output of its own, reduced rank, and
// sometimes with a sum of the same operand over the other axes as an output (a row and a column
// sum of one input: the inner-outer persistent scheduler's shape). A
// floating sum is inexact (its rounding depends on the order); max and min of exact values
// and integer sums (two's-complement wraparound on both sides) stay exact.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "minifuser.h"

namespace mf::testing {

//! How an input is stored.
enum class InputLayout { Contiguous, Permuted, Strided };
std::string_view toString(InputLayout l);

struct RandomFusion {
  uint64_t seed = 0;
  std::unique_ptr<Fusion> fusion;
  std::vector<Tensor> inputs;
  std::vector<InputLayout> layouts;
  //! False when the generator added an output unrelated to the others (no output can then
  //! cover every axis, so the pointwise scheduler must refuse).
  bool connected = true;
  //! How many binary ops and wheres take an operand of lower rank, broadcast implicitly
  //! (leading axes, as nvFuser's maybeBroadcast), instead of one broadcast explicitly.
  int64_t implicit_broadcasts = 0;

  //! The seed, each input's dtype, sizes, strides and layout, and the fusion's math: enough
  //! to reproduce a failure.
  std::string toString() const;
};

struct RandomFusionOptions {
  //! Also draw reductions (sum, max, min) among the ops.
  bool reductions = false;
  //! Also draw shape ops (random_fusion.cpp, tryShapeOp), each a round trip back to the
  //! fusion's shape (values in between sometimes also outputs, of other shapes), with more
  //! size-0 axes and empty slices: the view ops (reshape, squeeze, broadcast, expand,
  //! permute) and the resize ops (pad, slice, cat). Both off, every seed draws exactly what
  //! it drew before (pinned seeds).
  bool view_ops = false;
  bool resize_ops = false;
  //! At most kSmallNumel elements per input and no large fusions: cases the host kernel
  //! interpreter runs in seconds (CI). Off: the GPU run's sizes.
  bool small = false;
};

//! The element bound of RandomFusionOptions::small.
constexpr int64_t kSmallNumel = 4096;

//! The fusion of `seed`; the same seed (and options) always gives the same fusion and inputs.
RandomFusion makeRandomFusion(uint64_t seed, RandomFusionOptions options = {});

//! makeRandomFusion without reductions.
RandomFusion makeRandomPointwiseFusion(uint64_t seed);

//! The full shape of `seed`'s fusion (the sizes of input 0, which has every axis), drawn as
//! makeRandomFusion draws it but without building anything: cheap enough to pick seeds by size.
std::vector<int64_t> randomFusionShape(uint64_t seed, RandomFusionOptions options = {});

//! A sanitizer build (MINIFUSER_SANITIZE: CI's second leg; CMake defines MF_SANITIZER_BUILD
//! for the tests) runs the host kernel interpreter 5-10 times slower, and the interpreter's
//! cost grows with the fusion's elements (a seed past 1Mi elements takes minutes there):
//! its interpreter tests take only the seeds of at most kSanitizerInterpretedNumel elements.
//! The normal leg interprets every seed, and the sanitizer leg still segments, schedules,
//! lowers and compiles every seed in the tests beside them.
#ifdef MF_SANITIZER_BUILD
constexpr bool kSanitizerBuild = true;
#else
constexpr bool kSanitizerBuild = false;
#endif
constexpr int64_t kSanitizerInterpretedNumel = 16384;

//! The seeds of `seeds` this build's interpreter tests run: all of them, or in a sanitizer
//! build those whose shape (randomFusionShape) has at most `max_numel` elements.
std::vector<uint64_t> interpretedSeeds(const std::vector<uint64_t>& seeds,
                                       RandomFusionOptions options = {},
                                       int64_t max_numel = kSanitizerInterpretedNumel);

//! first, first + 1, ..., first + count - 1.
std::vector<uint64_t> seedRange(uint64_t first, uint64_t count);

//! Whether this build has the shape ops (ops/shape.h and ops/resize.h): without them
//! RandomFusionOptions::view_ops and resize_ops draw nothing more.
bool randomShapeOpsAvailable();

//! Elementwise agreement of a computed output element with the reference's: integers and
//! Bool exactly; floats within a tolerance that covers the transcendental functions'
//! last-place differences, by dtype, plus `slack` (the fusion's conditioning at that
//! element: inexactSlack of tests/random/inexact_steps.h); NaN only with NaN.
bool closeToReference(double got, double ref, DataType dtype, double slack = 0.0);

}  // namespace mf::testing
