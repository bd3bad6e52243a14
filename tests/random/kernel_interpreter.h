// A host interpreter of lowered kernels, for checking indexing, predicates and the
// cooperation of threads without a GPU. Every thread of the launch runs in lockstep (each
// statement for every active thread before the next): parallel loops bound to the thread's
// coordinates, serial loops iterated, guards evaluated, a register array per thread, shared
// arrays per block, a whole-vector copy element by element, and block and grid all-reduces
// combining the values of the threads that share a row (the last block of a column going on
// after a grid reduction, as on the GPU). Host buffers are laid out as the executor lays them
// out. Values are computed with the host's scalar ops (evalUnary, evalBinary, castScalar), so
// results equal the reference evaluator's up to the transcendental functions' tolerance and
// the order of a reduction's terms. An access outside a buffer, or a barrier or cross-thread
// reduction reached by part of a block only, is a test failure.
#pragma once

#include <optional>
#include <vector>

#include "lower/kernel.h"
#include "tensor/tensor.h"

namespace mf::testing {

//! The outputs of `kernel` (lowered from a fusion) on host
//! `inputs`, in the fusion's output order and logical layout; an output element no thread
//! wrote is NaN (or the dtype's cast of NaN). The layout op's calls run the host build of
//! its runtime functions (layout_runtime_host.h); its output is the padded buffer, poisoned
//! with 0xFF bytes before the run, with usedRows() set. Scalar inputs are bound to their
//! values. nullopt for what it does not model: intermediate global buffers. Throws
//! std::runtime_error on an access outside a global, shared or register array (or the layout op's
//! padded buffer), and on a barrier or cross-thread reduction that part of a block (or, for a grid
//! reduction, of the grid) does not reach; a UserError when the layout op's error flag is raised
//! (as the executor).
std::optional<std::vector<Tensor>> interpretKernel(Kernel& kernel,
                                                   const std::vector<Tensor>& inputs);

//! interpretKernel for FusionKernelRuntime::runOnHost: throws std::runtime_error for a
//! kernel the interpreter does not model.
std::vector<Tensor> interpretKernelOrThrow(Kernel& kernel, const std::vector<Tensor>& inputs);

}  // namespace mf::testing
