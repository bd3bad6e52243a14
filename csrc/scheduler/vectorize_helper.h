//! How wide a pointwise schedule may vectorize, from the run-time layout of the tensors it
//! reads and writes (nvFuser's vectorize_helper, for pointwise fusions).
#pragma once

#include <vector>

#include "scheduler/pointwise_utils.h"
#include "scheduler/runtime_info.h"

namespace mf {

//! The inputs and outputs a pointwise schedule around `reference` vectorizes: those whose
//! innermost concrete allocation axis maps to the reference's innermost concrete axis (in
//! the reference's allocation order). Not the layout op's output (its runtime function
//! writes it element by element) nor a tensor whose allocation domain is not a permutation
//! of its logical domain. The others are read or written per element and do not limit the
//! factor (a permuted input, an inner-broadcast input such as [M, 1]).
std::vector<TensorView*> vectorizableInputsOutputs(const PointwiseDomainMap& map,
                                                   TensorView* reference);

//! The reference's logical axes (reductions dropped) in its allocation order: the order a
//! pointwise schedule merges and splits them in.
std::vector<IterDomain*> referenceAxesInAllocationOrder(TensorView* reference);

//! The largest power of two (at most 16 bytes per access is the caller's cap) that, for
//! every tensor of `tvs`, divides
//!   - its contiguous inner extent: the product of its innermost allocation axes that map,
//!     in order, to the reference's axes right of `break_point` and are declared contiguous
//!     with the strides of a dense layout (a size-1 axis joins whatever its stride);
//!   - the stride of every other axis of size > 1;
//!   - its element 0's alignment, in elements.
//! fp32 contiguous [1024, 1024] gives a value >= 4; [1001, 17] gives 1 (17017 is odd).
int64_t vectorizationFactor(SchedulerRuntimeInfo& runtime_info, const PointwiseDomainMap& map,
                            TensorView* reference, int64_t break_point,
                            const std::vector<TensorView*>& tvs);

}  // namespace mf
