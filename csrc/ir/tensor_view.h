//! TensorView: a tensor in a fusion. It holds a TensorDomain, a dtype and a memory type, and
//! offers the scheduling verbs (split, merge, reorder, parallelize, allocation domain,
//! inline position) that later phases read.
#pragma once

#include <concepts>
#include <utility>
#include <vector>

#include "ir/tensor_domain.h"

namespace mf {

enum class LoadStoreOpType;  // ir/exprs.h
//! How TensorView::computeAt treats a position deeper than legal (nvFuser's enum).
enum class ComputeAtMode { Standard, BestEffort, MostInlined };

enum class MemoryType { Global, Local, Shared };
std::string_view toString(MemoryType t);

class TensorView : public Val {
 public:
  TensorView(Fusion* fusion, TensorDomain* domain, DataType dtype,
             MemoryType memory_type = MemoryType::Local);

  TensorDomain* domain() const { return domain_; }
  //! Replaces the domain (IrMutator rebuilds a domain whose axes changed); `domain` must be
  //! in this tensor's fusion and keep its loop rank, so the compute-at position stays valid.
  void setDomain(TensorDomain* domain);
  const std::vector<IterDomain*>& getLogicalDomain() const { return domain_->logical(); }
  const std::vector<IterDomain*>& getMaybeRootDomain() const { return domain_->maybeRoot(); }
  //! nvFuser's: the root domain, empty unless a shape-changing op or rFactor made one.
  const std::vector<IterDomain*>& getRootDomain() const { return domain_->root(); }
  bool hasRoot() const { return domain_->hasRoot(); }
  const std::vector<IterDomain*>& getMaybeAllocationDomain() const {
    return domain_->maybeAllocation();
  }
  const std::vector<IterDomain*>& getLoopDomain() const { return domain_->loop(); }
  const Contiguity& getContiguity() const { return domain_->contiguity(); }
  int64_t nDims() const { return domain_->nDims(); }
  IterDomain* axis(int64_t i) const { return domain_->axis(i); }

  MemoryType getMemoryType() const { return memory_type_; }
  void setMemoryType(MemoryType t);
  //! Pads the rows of this tensor's buffer (shared memory, against bank conflicts): `pad`
  //! unused elements follow every `row` elements of the buffer as lowering linearizes it
  //! (localOffset, localBufferSize). A tile [32][32] read along its columns, padded by one
  //! element per row of 32, puts a column's 32 elements in 32 different banks.
  void padBufferRows(int64_t row, int64_t pad);
  int64_t bufferRow() const { return buffer_row_; }
  int64_t bufferRowPad() const { return buffer_row_pad_; }

  // Scheduling verbs (loop domain). Each returns this, so calls chain.
  //! Splits loop axis `axis` by a constant `factor` (> 0). A template over integer types, so
  //! that `split(0, 0)` picks it (exact match) over the Val* overload (a null pointer).
  template <std::integral T>
  TensorView* split(int64_t axis, T factor, bool inner_split = true) {
    return splitByConstant(axis, static_cast<int64_t>(factor), inner_split);
  }
  //! Splits loop axis `axis` by a scalar of this fusion (symbolic or constant).
  TensorView* split(int64_t axis, Val* factor, bool inner_split = true);
  TensorView* merge(int64_t outer, int64_t inner);
  TensorView* merge(int64_t axis) { return merge(axis, axis + 1); }
  TensorView* reorder(const std::vector<std::pair<int64_t, int64_t>>& old_to_new);
  TensorView* parallelize(int64_t axis, ParallelType p);
  //! Replaces the loop domain (see TensorDomain::setLoopDomain). For the layout op's output,
  //! `setLoopDomain(getMaybeAllocationDomain())` schedules the op over its padded buffer.
  TensorView* setLoopDomain(std::vector<IterDomain*> ids);

  //! Memory layout derived from the logical domain (permutation / split / merge).
  TensorView* setAllocationDomain(std::vector<IterDomain*> ids, Contiguity contiguity);
  TensorView* setAllocationDomain(std::vector<IterDomain*> ids, bool contiguous);

  //! Splits a reduction in two, as nvFuser's rFactor: this tensor must be a ReductionOp's
  //! output, `axes` some (not all) of its loop axes that are reductions. Returns a new tensor,
  //! the rfactor tensor, that reduces only those axes of the input (its root is a copy of this
  //! tensor's logical domain, its logical domain the split/merge outputs the rfactored axes
  //! come from, its loop a copy of this loop); this tensor then reduces the rfactor tensor over
  //! the remaining reduction axes: its root and logical domain become the rfactor tensor's
  //! non-reduction logical axes (reductions kept), its loop this loop without `axes`.
  //! Defined in ir/rfactor.cpp.
  TensorView* rFactor(const std::vector<int64_t>& axes);

  //! Loop axes [0, pos) are shared with the consumers (computed inside their loops).
  int64_t computeAtPosition() const { return compute_at_pos_; }
  int64_t getComputeAtPosition() const { return compute_at_pos_; }  // nvFuser's spelling
  void setComputeAtPosition(int64_t pos);
  //! Computes this tensor inside its consumers' first `pos` loops (negative counts from
  //! the end). Each of those loop axes must map to the consumers' (IdModel-mapped and bound
  //! alike); otherwise a UserError says which axis does not.
  //! Defined in scheduler/tools/inlining.cpp (link mf_scheduler), where the rule lives.
  void inlineAt(int64_t pos);
  //! inlineAt the largest legal position. Defined in scheduler/tools/inlining.cpp.
  void inlineMost();
  //! nvFuser's computeAt: replays this tensor and every tensor on a path from it to
  //! `consumer` like `consumer` up to `position` (negative: position + nDims + 1), consumer
  //! to producer (other consumers of the replayed tensors are replayed from them), then
  //! computes them inside `consumer`'s first `position` loops. A position that is not legal is
  //! a UserError (Standard), clamped to the legal one (BestEffort); MostInlined replays all
  //! axes and inlines each tensor as deep as it can. Returns this. Defined in
  //! scheduler/tools/inlining.cpp.
  TensorView* computeAt(TensorView* consumer, int64_t position,
                        ComputeAtMode mode = ComputeAtMode::Standard);

  // Staging copies (nvFuser's names), defined in scheduler/tools/cache.cpp.
  //! A register copy `cache = set(this)` that `cached_uses` (all uses when empty) read
  //! instead of this tensor. Returns the cache.
  TensorView* cacheAfter(std::vector<Expr*> cached_uses = {});
  //! This tensor's definition computes a new register tensor instead, and this tensor
  //! becomes `set(cache)`. Returns the cache.
  TensorView* cacheBefore();
  //! nvFuser's overloads: `op_type` is the copy's kind; only LoadStoreOpType::Set stages (a
  //! UserError otherwise).
  TensorView* cacheBefore(LoadStoreOpType op_type);
  TensorView* cacheAfter(LoadStoreOpType op_type, std::vector<Expr*> cached_uses = {});
  //! For an output with uses in the fusion: a new output `copy = set(this)` takes this
  //! tensor's place among the fusion's outputs, and this tensor becomes a register
  //! intermediate its consumers keep reading. Returns the copy.
  TensorView* cacheFork();

  std::string toString() const override;
  std::string toInlineString() const override;

 private:
  TensorView* splitByConstant(int64_t axis, int64_t factor, bool inner_split);

  TensorDomain* domain_;
  MemoryType memory_type_;
  int64_t compute_at_pos_ = 0;
  int64_t buffer_row_ = 0;  // 0: the buffer is not padded
  int64_t buffer_row_pad_ = 0;
};

}  // namespace mf
