//! ReferenceEvaluator: runs a Fusion on the CPU, element by element, with the scalar
//! semantics of ir/scalar_ops.h (the one definition the GPU code must match). It is the
//! oracle GPU tests compare against; it needs no scheduling and no device, and it checks
//! its inputs (and the layout op's offsets) completely.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "tensor/tensor.h"

namespace mf {

class Expr;
class Fusion;

struct ReferenceOptions {
  //! The layout op's pad rows, pad columns and unused tail are filled with this value
  //! (converted to the dtype). nullopt leaves them "uninitialized", as nvFuser does,
  //! modelled as poison: NaN for floating dtypes, 0xAB bytes otherwise.
  std::optional<double> layout_pad_fill = 0.0;
  //! Called with each expression and the tensor it computed, before any later expression
  //! reads it; it may replace the values. Tests use it to see intermediate values, or to
  //! perturb one result by its rounding error and measure how much the outputs move
  //! (tests/random/random_fusion.cpp).
  std::function<void(const Expr*, Tensor&)> after_expr = nullptr;
};

class ReferenceEvaluator {
 public:
  explicit ReferenceEvaluator(Fusion* fusion);

  //! Evaluates the fusion's outputs from `inputs`, one per fusion input in order: a
  //! TensorView input takes a tensor of its rank and dtype; a scalar input takes a 0-dim
  //! tensor holding the value. A mismatch in count, rank, dtype or sizes (against a
  //! constant extent, or between inputs or operands that must agree) is a UserError naming
  //! the tensor. Each op computes in its own dtype, as a GPU would: operands are converted
  //! to the op's compute type, narrow floats compute in float, and results round to the
  //! output dtype. Inputs are checked and bound by tensor/arguments.h's bindFusionInputs, as
  //! the KernelExecutor's are (same rules, same messages). Outputs are fresh host tensors
  //! laid out as their allocation domains say (contiguous without one; a fusion input
  //! returned as an output shares the input's storage). Device inputs are copied to the
  //! host first.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs,
                          const ReferenceOptions& options = {}) const;

 private:
  Fusion* fusion_;
};

}  // namespace mf
