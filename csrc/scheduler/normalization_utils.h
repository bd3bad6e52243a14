//! The analysis a normalization scheduler starts from (nvFuser's normalization_utils and
//! the persistent-buffer part of scheduler_utils): which fusions are "reduce the innermost
//! axes, broadcast the result back over the row, use the row again", which tensors must
//! stay in registers across a reduction (the persistent buffers), and the one structural
//! fact the Reduction scheduler also needs (a reduction's result broadcast back).
#pragma once

#include <functional>
#include <string>
#include <unordered_set>
#include <variant>
#include <vector>

#include "ir/tensor_view.h"

namespace mf {

class BroadcastOp;
class Fusion;

//! The first BroadcastOp of `fusion` (in topological order) whose input is computed from a
//! ReductionOp's output, or nullptr. A fusion with one re-reads the reduced row after the
//! reduction: one kernel must keep the row (a persistent buffer), else the segmenter cuts
//! between the reduction and the broadcast. nvFuser's Reduction scheduler refuses such a
//! fusion (hasPostReductionBCast); ours is meant to call this for the same rule.
BroadcastOp* findBroadcastAfterReduction(Fusion* fusion);

//! Tensors of `fusion` read by two or more exprs, one of them on a path into a reduction:
//! a schedule keeps them in registers between their first and last reader (an upper bound
//! of nvFuser's persistent buffers: a tensor whose readers all run before the reduction
//! would not need to persist). Fusion inputs included (a schedule reads them through a
//! register copy, which then has their readers).
std::vector<TensorView*> persistentBuffers(Fusion* fusion);

//! The tensors that the exprs `sink` accepts read, directly or through other exprs of `exprs`
//! (in topological order).
std::unordered_set<const Val*> upstreamOf(const std::vector<Expr*>& exprs,
                                          const std::function<bool(const Expr*)>& sink);

//! An inner normalization: every reduction reduces the same innermost `row_rank` axes of
//! tensors of one shape (the reference's), at least one reduction result is broadcast back
//! over the row, every output has the reference's shape, the rows' (a per-row result) or is
//! a merge-only reshape of a tensor of that shape, and every tensor input has that shape or
//! the row's (a norm's weight, broadcast over the rows) or is read only through reshapes into
//! that shape (NVFP4's `[M, K] -> [M, K/16, 16]`).
struct InnerNormalization {
  //! The first reduction's input: every full-shape tensor's axes map (IdModel, exact) to its
  //! logical axes.
  TensorView* reference = nullptr;
  //! The ReductionOp outputs, in topological order.
  std::vector<TensorView*> reductions;
  //! Innermost axes reduced (the row); the others are the rows.
  int64_t row_rank = 0;
  //! persistentBuffers(fusion): what a thread keeps in registers for its part of the row.
  std::vector<TensorView*> persistent_buffers;
  //! Those held across the reduction that holds the most (defined before it, read after it)
  //! and the sum of their element sizes: buffers whose lifetimes do not overlap share
  //! registers (nvFuser's persistentBufferSize takes the same maximum).
  std::vector<TensorView*> live_buffers;
  int64_t persistent_bytes = 0;
  //! Row-shaped tensors broadcast over the rows (a norm's weight, as its broadcast reads it):
  //! a thread keeps its part of each in registers for all its rows.
  std::vector<TensorView*> row_buffers;
  //! Register bytes per row element: persistent_bytes plus the row buffers' element sizes.
  int64_t persistentBytesPerElement() const;
};

//! The pattern of `fusion`, or why it is not one (a sentence naming the tensor or expr as
//! the IR printer shows it), e.g. `T2_l_float[iS4{i0}, rS5{i1}] reduces axis 0 of ...`.
std::variant<InnerNormalization, std::string> analyzeInnerNormalization(Fusion* fusion);

}  // namespace mf
