// A host interpreter of lowered pointwise kernels, for checking indexing and predicates
// without a GPU: every launch position runs the kernel body as its thread would (parallel
// loops bound to its coordinates, serial loops iterated, guards evaluated, a register array
// per thread, a whole-vector copy element by element), reading and writing host buffers laid
// out as the executor lays them out. Values are computed with the host's scalar ops
// (evalUnary, evalBinary, castScalar), so results equal the reference evaluator's up to the
// transcendental functions' tolerance. An access outside a buffer is a test failure.
#pragma once

#include <optional>
#include <vector>

#include "lower/kernel.h"
#include "tensor/tensor.h"

namespace mf::testing {

//! The outputs of `kernel` (lowered from a fusion whose inputs are all tensors) on host
//! `inputs`, in the fusion's output order and logical layout; an output element no thread
//! wrote is NaN (or the dtype's cast of NaN). nullopt for what pointwise schedules never
//! produce: shared memory, barriers, block reductions, the layout op, scalar inputs.
//! Throws std::runtime_error on an access outside a global buffer or a register array.
std::optional<std::vector<Tensor>> interpretKernel(Kernel& kernel,
                                                   const std::vector<Tensor>& inputs);

}  // namespace mf::testing
