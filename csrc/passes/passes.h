//! The fusion passes. Each rewrites a Fusion in place; passes/pipeline.cpp runs them in
//! order. See each pass's comment for what it reads, needs and guarantees.
#pragma once

#include "passes/pipeline.h"

namespace mf {

//! Replaces the symbolic extent of each request.known_extents axis, and of every axis exactly
//! mapped to it (IdModel), by the constant value, so later splits of those axes have constant
//! extents (register buffers and block-reduction widths must be constants). A derived extent
//! (a reshape's `ceilDiv(i1, 9)`) is replaced as a whole; the scalars it is made of stay.
//!   T1[iS2{i0}, rS3{i1}] = sum(T0[iS0{i0}, iS1{i1}]), known i1 = 8
//!   ->  T1[iS6{i0}, rS7{8}] = sum(T0[iS4{i0}, iS5{8}])
void specializeExtents(Fusion& fusion, const FusionPassRequest& request);

//! Rewrites every float division by a per-row value broadcast over the row, `x / broadcast(s)`,
//! as `x * broadcast(reciprocal(s))`: one division per row instead of one per element (an IEEE
//! division is about ten instructions; softmax's is most of its arithmetic). The quotient moves
//! by at most about one float ulp (two roundings instead of one; docs/numerics.md). Only
//! divisors broadcast over exactly the request.row_rank innermost axes are rewritten; the old
//! broadcast is removed when nothing else reads it.
//!   T3 = broadcast(T2, {false, true}); T4 = T1 / T3
//!   ->  T5 = reciprocal(T2); T6 = broadcast(T5, {false, true}); T4 = T1 * T6
void multiplyByRowReciprocals(Fusion& fusion, const FusionPassRequest& request);

//! Removes every tensor expr whose results reach no fusion output (nothing reads them), so
//! the segmenter and the schedulers see only the fusion's work: a dead use would otherwise
//! make its operand look like a segment output. Inputs and outputs stay as they are.
//!   T1 = tanh(T0); T2 = -T0; outputs {T2}  ->  T2 = -T0; outputs {T2}
void removeDeadExprs(Fusion& fusion, const FusionPassRequest& request);

//! nvFuser's RemoveEmptyPass, with the run-time sizes (request.evaluator: the inputs bound).
//! Runs before segmentation, on the runtime's copy. Rules, for each tensor the outputs need:
//! a tensor with a size-0 data axis gets `full(0)` as its definition (its producers are then
//! dead); a reduction over a size-0 axis into a non-empty result becomes `full(init)` of its
//! data axes (the op's identity: 0 for sum, -inf for max, ...). A cat's empty inputs are to
//! be dropped too (a hook: CatOp is another change of #16). When it rewrites anything, it
//! first makes every tensor input's extent its value (the fulls' shapes are constants):
//! the rewritten fusion holds for these input sizes only. Then removeDeadExprs.
//! Untouched: the layout op's output, multi-output exprs, and a declared allocation domain
//! where a new tensor would replace the old.
//!   T1[iS2{i0}, rS3{i1}] = reduction(T0, op = add, initial = 0.0); T2 = T1 + 1.0, i1 = 0
//!   ->  T4[iS5{5}] = full(0.0); T2[iS6{5}] = T4 + 1.0
void removeEmpty(Fusion& fusion, const FusionPassRequest& request);

}  // namespace mf
