// The inexact steps of a fusion and how much each can move the outputs: the part of the
// random-fusion comparison's tolerance that depends on the fusion's conditioning.
//
// A correct kernel and the CPU reference agree bit for bit on exact and correctly rounded
// ops given the same operands (docs/numerics.md). They may differ only at the inexact steps:
//   - a floating sum (the GPU adds in another order: Higham and Mary's bound
//     5 sqrt(n) u sum|x_i|, plus one ulp of the output's rounding),
//   - a transcendental function (exp, log, rsqrt, tanh, sigmoid, sin, cos, pow: a few ulps
//     of the compute type between libdevice and glibc),
//   - the rounding of a value computed from those to a narrow float (half, bf16, e4m3):
//     a last-place difference before it can flip the rounding, one ulp of the narrow type.
// A relative tolerance on the output misses how later ops amplify such a difference: a sum
// with cancellation (a result small against its terms), or a bf16 ulp of a large
// intermediate that later ops cancel. inexactSteps measures it to first order: it perturbs
// one step at a time by its error bound, re-runs the reference and records how far each
// output element moves. The comparison allows the sum of the moves (a running error bound
// whose local errors are the steps' bounds).
#pragma once

#include <optional>
#include <string>

#include <vector>

#include "random/random_fusion.h"

namespace mf::testing {

//! One inexact step and its effect on the outputs.
struct InexactStep {
  const Expr* expr = nullptr;
  //! Per fusion output, a Double tensor of the output's sizes: |output with this step
  //! perturbed - output|; infinity where the perturbed output is not finite and the
  //! reference's is (a pole or an overflow: any result is within rounding).
  std::vector<Tensor> output_shift;
};

//! Every inexact step of `rf`'s fusion, in evaluation order, each with its output shift;
//! runs the reference once per step (and once more when there are sums).
std::vector<InexactStep> inexactSteps(const RandomFusion& rf);

//! Per fusion output: whether it is computed from an inexact step. The others are computed
//! with exact and correctly rounded ops only and must equal the reference bit for bit.
std::vector<bool> inexactOutputs(Fusion* fusion);

//! The sum of the steps' shifts of element `element` of output `output`.
double inexactSlack(const std::vector<InexactStep>& steps, size_t output, int64_t element);

//! The first element of `got` (outputs of `rf`'s fusion, host or device tensors) that the
//! reference `ref` rejects, described with its seed, or nullopt: outputs of exact ops must
//! equal the reference bit for bit (NaN bits aside); of the others, an element outside
//! closeToReference's tolerance must be within the inexact-step slack there (computed on
//! demand).
std::optional<std::string> firstMismatch(const RandomFusion& rf, const std::vector<Tensor>& ref,
                                         const std::vector<Tensor>& got);

}  // namespace mf::testing
