//! Rewiring tools the schedulers use before transforming loops: staging a tensor through a
//! register copy (nvFuser's cacheAfter / cacheBefore / cacheFork, defined here as members of
//! TensorView), staging every input and output of a fusion at once (stageInputsAndOutputs,
//! the schedulers' common first step) and moving broadcasts next to the fusion inputs they
//! read, so that every computed tensor of a pointwise fusion has the reference's full rank.
#pragma once

#include <functional>
#include <vector>

#include "ir/tensor_view.h"

namespace mf {

//! Rebuilds `e` (through Expr::newObject) with `replacement` wherever `old` is an input;
//! `e` is removed. Returns the new expr.
Expr* replaceInputInExpr(Expr* e, Val* old, Val* replacement);

//! A recomputation of `tv`: fresh tensors computed by copies of the exprs between the fusion
//! inputs and `tv` (nvFuser's projection of a persistent buffer to the inputs); the tensors
//! `reused` accepts are read as they are, not recomputed. Every expr on the way must be a
//! pointwise op, a cast or a broadcast (recomputable(tv)).
TensorView* recomputeFromInputs(TensorView* tv,
                                const std::function<bool(const TensorView*)>& reused = {});
//! Whether `tv` is a fusion input or computed from fusion inputs by pointwise ops, casts and
//! broadcasts only.
bool recomputable(const TensorView* tv);

//! Removes the tensor exprs of `fusion` that no output needs (rewrites leave them behind,
//! and they would still count as uses of their inputs).
void removeDeadExprs(Fusion& fusion);

//! How stageInputsAndOutputs stages a fusion's inputs and outputs; the defaults are the
//! pointwise and reduction schedulers'.
struct StagingOptions {
  //! Broadcasts read an input's register copy too (the inner persistent scheduler's: its
  //! broadcast weights are read from registers); by default they read the input directly (as
  //! moveBroadcastsToInputs leaves them).
  bool cache_broadcast_uses = false;
  //! Forked outputs (outputs also read in the fusion) are staged after all other outputs
  //! (the inner persistent scheduler's order); by default each output in turn.
  bool forks_last = false;
};

//! What stageInputsAndOutputs staged, in fusion input and output order.
struct StagedTensors {
  std::vector<TensorView*> inputs;         //!< fusion inputs that got a register copy
  std::vector<TensorView*> input_caches;   //!< their copies, same order
  std::vector<TensorView*> outputs;        //!< outputs now written by `set(cache)` (cacheBefore)
  std::vector<TensorView*> forked_copies;  //!< new outputs copying a forked one (cacheFork)
};

//! Stages every tensor input with uses through a register copy (cacheAfter of its uses, but
//! not of those that read it whole, readsOperandWhole, and not of broadcasts unless
//! options say so), and every computed output through one: cacheBefore, or cacheFork when
//! other exprs also read it. An input that is also an output and an output its runtime
//! function writes (outputWrittenByRuntimeFunction) stay as they are, and so do
//! `unstaged_outputs` (the inner-outer scheduler's outer reductions, which the last block of
//! their grid reduction writes directly).
//!   T1 = exp(T0); T2 = T1 + T1 (outputs T1, T2)
//!   -> T3 = set(T0); T1 = exp(T3); T4 = T1 + T1; T2 = set(T4); T5 = set(T1) (outputs T5, T2)
StagedTensors stageInputsAndOutputs(Fusion* fusion, const StagingOptions& options = {},
                                    const std::vector<TensorView*>& unstaged_outputs = {});

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
