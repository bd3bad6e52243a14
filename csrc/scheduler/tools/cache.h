//! Rewiring tools the schedulers use before transforming loops: staging a tensor through a
//! register copy (nvFuser's cacheAfter / cacheBefore / cacheFork, defined here as members of
//! TensorView) and moving broadcasts next to the fusion inputs they read, so that every
//! computed tensor of a pointwise fusion has the reference's full rank.
#pragma once

#include <vector>

#include "ir/tensor_view.h"

namespace mf {

//! Rebuilds `e` (through Expr::newObject) with `replacement` wherever `old` is an input;
//! `e` is removed. Returns the new expr.
Expr* replaceInputInExpr(Expr* e, Val* old, Val* replacement);

//! Removes the tensor exprs of `fusion` that no output needs (rewrites leave them behind,
//! and they would still count as uses of their inputs).
void removeDeadExprs(Fusion& fusion);

//! Rewrites `fusion` so that every BroadcastOp reads a tensor without a definition (a fusion
//! input): `broadcast(op(a, b))` becomes `op(broadcast(a), broadcast(b))`, recursively, and
//! `broadcast(broadcast(x))` one broadcast. The values are unchanged (a broadcast copies);
//! a tensor that also has other uses stays for them. After it, only fusion inputs lack axes
//! of the tensors computed from them through broadcasts, so loop transforms replay onto every
//! computed tensor without dropping a merge.
//!   T1 = exp(T0[N]); T2 = broadcast(T1, {true, false}); T3 = T2 + T4[M, N]
//!   -> T5 = broadcast(T0, {true, false}); T6 = exp(T5); T3 = T6 + T4
void moveBroadcastsToInputs(Fusion& fusion);

}  // namespace mf
