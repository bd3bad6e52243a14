//! Kernel IR: the nodes lowering produces. A kernel is a tree of scopes (ForLoop,
//! IfThenElse) holding Allocate and compute exprs whose tensor operands are TensorIndex
//! values (a tensor plus a scalar index into its allocation). Compute exprs are the fusion's
//! math classes on TensorIndex operands, or a RuntimeCall (a call of a runtime/*.cuh function:
//! block and grid all-reduces, the layout op's forms). Scalars, including every index
//! expression, are ordinary IR scalars. What lowering learns about a lowered write (its axis
//! indices, vector width, ...) is kept on its output TensorIndex, so a pass that replaces an
//! expr by one with the same outputs keeps it.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "ir/exprs.h"
#include "ir/iter_domain.h"
#include "ir/tensor_view.h"

namespace mf {

//! The index of each IterDomain reached by walking a tensor's loop indices back through its
//! split/merge history (lower/index_compute.h).
using IndexMap = std::unordered_map<IterDomain*, Val*>;

//! An ordered list of exprs: a loop body or a branch.
class Scope {
 public:
  const std::vector<Expr*>& exprs() const { return exprs_; }
  std::vector<Expr*>& exprs() { return exprs_; }
  void push_back(Expr* e) { exprs_.push_back(e); }
  bool empty() const { return exprs_.empty(); }

 private:
  std::vector<Expr*> exprs_;
};

//! `view[index]`: one element (or the first of a vector) of a tensor's allocation. An
//! output of a lowered expr also carries what indexTensors found out about that write.
class TensorIndex : public Val {
 public:
  TensorIndex(Fusion* fusion, TensorView* view, Val* index);
  TensorView* view() const { return view_; }
  Val* index() const { return index_; }
  std::string toString() const override;

  //! Written outputs: the index of every axis of `view` that the walk back from the loop
  //! indices reaches (loop, split/merge, logical and, for an rfactor tensor, root axes); for
  //! a whole-vector copy, the indices of the vector's first element. insertPredicates bounds
  //! the write with them. Empty for an operand.
  const IndexMap& axisIndices() const { return axis_indices_; }
  void setAxisIndices(IndexMap indices) { axis_indices_ = std::move(indices); }
  //! Elements written from `index`: the vector width of a whole-vector copy, else 1.
  int64_t vectorWidth() const { return vector_width_; }
  void setVectorWidth(int64_t width) { vector_width_ = width; }
  //! The `acc = init` store that starts a reduction: it runs outside the reduction loops, so
  //! the reduction axes of `axisIndices()` are not in scope there (insertPredicates skips
  //! them, and guards it even when it computes registers only).
  bool startsReduction() const { return starts_reduction_; }
  void setStartsReduction() { starts_reduction_ = true; }
  //! The value written may carry any NaN's bits (set by indexTensors, lower/nan_bits.h): its
  //! NaN bits reach only arithmetic, so a float maximum/minimum need not pick one NaN and a
  //! narrow-float widening need not make a NaN canonical. Printed as `(any NaN bits)`.
  bool anyNaNBits() const { return any_nan_bits_; }
  void setAnyNaNBits() { any_nan_bits_ = true; }

 private:
  TensorView* view_;
  Val* index_;
  IndexMap axis_indices_;
  int64_t vector_width_ = 1;
  bool starts_reduction_ = false;
  bool any_nan_bits_ = false;
};

//! What a RuntimeCall does: the family of runtime functions it calls, hence its operands and
//! its collective scope. A new lowered form of an op is one more value here, with its operand
//! list (RuntimeCall::operandsOf) and its case in codegen.
enum class RuntimeCallForm {
  //! out = combine(out, all-reduce over the `across` threads of the block of (read ? In :
  //! Init)), written where `write` holds: mf_blockAllReduceX/Y. Operands {In, Init}. Grouped
  //! (groupReductionCalls, nvFuser's groupReductions): one output per member, operands {In,
  //! Init} per member in output order, a combine op and predicates per member, all reduced in
  //! one call of mf_blockAllReduceTupleX/Y (one barrier sequence for all members).
  BlockAllReduce,
  //! The block all-reduce, then across the blocks of blockIdx.y (mf_gridAllReduceY): the last
  //! block to arrive writes, the others return. Operands {In, Init}; grouped as
  //! BlockAllReduce (mf_gridAllReduceTupleX/Y).
  GridAllReduce,
  //! The layout op, one element of logical [M, K] (In) stored at the swizzled position of its
  //! (Row, Col) in the padded output (mf_preprocessGroupedMatmulInputSf). Operands {In,
  //! InputOffsets, OutputOffsets, K, G, Row, Col}; the output is the buffer's base.
  LayoutScatter,
  //! The layout op, `vector_width` elements of the padded output from its flat Position, each
  //! gathered from its source row of In or zero (mf_layoutOpGather). Operands {In (the base),
  //! InputOffsets, OutputOffsets, K, G, Position}; the output is the buffer's base.
  LayoutGather,
  //! The layout op, a block per slab of a 128-row tile: every thread of the block calls
  //! mf_layoutOpTile with its Position (as LayoutGather's); the block stages the slab's input
  //! rows in shared memory and writes the slab with `vector_width`-element stores. Collective
  //! (it synchronizes the block) and never guarded: it bounds every access itself. Operands as
  //! LayoutGather's.
  LayoutTile,
  //! NVFP4 block quantization of `vector_width` consecutive 16-value blocks of one row
  //! (mf_blockQuantize<W>), those below the row's end: reads them from In (indexed at the
  //! first block's first element), writes their e4m3 scales (output 0, indexed at the first;
  //! the rest follow along the scales' last axis) and their packed e2m1 codes (output 1,
  //! indexed at the first block's first element). Operands {In, GlobalScale, K (the scales'
  //! columns), Col (the first block's scale column)}.
  BlockQuantize,
  //! The same, the scales written at their swizzled positions of the layout op's padded
  //! buffer (output 0 is the buffer's base; mf_groupedBlockQuantize<W>). Operands {In,
  //! GlobalScale, InputOffsets, OutputOffsets, K (the scales' columns), G, Row, Col (the first
  //! block's scale position)}.
  GroupedBlockQuantize,
};
std::string_view toString(RuntimeCallForm form);

//! The role of a RuntimeCall operand: codegen and the interpreter ask for operands by role.
enum class CallOperand {
  In,
  Init,
  InputOffsets,
  OutputOffsets,
  K,
  G,
  Row,
  Col,
  Position,
  GlobalScale
};
std::string_view toString(CallOperand role);

//! Which threads must reach a call together: none (each thread calls on its own, so a guard
//! may wrap it), every thread of the block (it synchronizes the block), or every thread of the
//! grid (it synchronizes the blocks too). insertPredicates never wraps a collective call: its
//! predicates become the call's read and write predicates.
enum class CollectiveScope { None, Block, Grid };

//! `outs = function(operands)`: a call of a runtime function (Halide's Call with a typed call
//! kind). Its operands are the expr's inputs, in the order RuntimeCall::operandsOf(form)
//! lists their roles.
//!   T1[i5] = call BlockAllReduce mf_blockAllReduceX(in = T0[..], init = 0.0, op = add,
//!            across = threadIdx.x) (read: (.. < i1), write: (threadIdx.x == 0))
class RuntimeCall : public Expr {
 public:
  //! The form's payload besides its operands.
  struct Params {
    //! Reductions: how two values combine, and the thread dimension reduced across.
    BinaryOpType combine = BinaryOpType::Add;
    ParallelType across = ParallelType::Serial;
    //! A grouped all-reduce: each member's combine op (the first is `combine`); empty for one.
    std::vector<BinaryOpType> member_combines = {};
    //! LayoutGather, LayoutTile: the elements one call writes; BlockQuantize,
    //! GroupedBlockQuantize: the 16-value blocks one call quantizes.
    int64_t vector_width = 1;
    //! LayoutTile: threads per block (the slab is threads * vector_width positions).
    int64_t threads = 0;
  };

  RuntimeCall(Fusion* fusion, std::vector<Val*> operands, std::vector<Val*> outputs,
              RuntimeCallForm form, std::string function, Params params);
  std::string_view opName() const override { return "RuntimeCall"; }
  //! The same call (form, function, params, predicates) on other operands.
  Expr* newObject(Fusion* fusion, std::vector<Val*> inputs,
                  std::vector<Val*> outputs) const override;

  RuntimeCallForm form() const { return form_; }
  //! The runtime function's name (mf_blockAllReduceX, mf_layoutOpGather, ...).
  const std::string& function() const { return function_; }
  const Params& params() const { return params_; }
  //! The operand in `role` (of member `member` of a grouped all-reduce); an internal error
  //! when the form takes none.
  Val* operand(CallOperand role, size_t member = 0) const;
  //! The reductions one all-reduce call reduces together, one {In, Init} operand pair and one
  //! output each (1 unless grouped).
  size_t members() const { return isAllReduce() ? inputs().size() / operandsOf(form_).size() : 1; }
  //! Member `member`'s combine op.
  BinaryOpType combineOf(size_t member) const {
    return params_.member_combines.empty() ? params_.combine : params_.member_combines.at(member);
  }
  //! The operand roles of `form`, in input order.
  static const std::vector<CallOperand>& operandsOf(RuntimeCallForm form);
  CollectiveScope collectiveScope() const;
  bool isAllReduce() const {
    return form_ == RuntimeCallForm::BlockAllReduce || form_ == RuntimeCallForm::GridAllReduce;
  }
  bool isLayoutOp() const {
    return form_ == RuntimeCallForm::LayoutScatter || form_ == RuntimeCallForm::LayoutGather ||
           form_ == RuntimeCallForm::LayoutTile;
  }
  bool isBlockQuantize() const {
    return form_ == RuntimeCallForm::BlockQuantize ||
           form_ == RuntimeCallForm::GroupedBlockQuantize;
  }

  //! Collective calls (set by insertPredicates; null before): `read` selects In or the
  //! identity, `write` guards the update of the outputs; per member of a grouped all-reduce.
  Val* readPredicate(size_t member = 0) const {
    return reads_.empty() ? nullptr : reads_.at(member);
  }
  Val* writePredicate(size_t member = 0) const {
    return writes_.empty() ? nullptr : writes_.at(member);
  }
  void setPredicates(Val* read, Val* write);
  //! A grouped all-reduce's predicates, one per member.
  void setMemberPredicates(std::vector<Val*> reads, std::vector<Val*> writes);

  std::string toString() const override;

 private:
  RuntimeCallForm form_;
  std::string function_;
  Params params_;
  std::vector<Val*> reads_;
  std::vector<Val*> writes_;
};

//! for (index = 0; index < stop; ++index) body. A loop over a parallelized axis is not
//! emitted as a loop: its index is the thread/block index.
class ForLoop : public Expr {
 public:
  ForLoop(Fusion* fusion, IterDomain* iter_domain, Val* index, Val* stop);
  std::string_view opName() const override { return "ForLoop"; }
  Expr* newObject(Fusion*, std::vector<Val*>, std::vector<Val*>) const override;
  IterDomain* iterDomain() const { return iter_domain_; }
  Val* index() const { return index_; }
  Val* stop() const { return stop_; }
  ParallelType parallelType() const { return iter_domain_->parallelType(); }
  //! Printed as a `for` (serial or unrolled): not a thread or block index, not a vector copy.
  bool isSerial() const {
    const ParallelType p = parallelType();
    return !isThreadDim(p) && !isBlockDim(p) && p != ParallelType::Vectorize;
  }
  Scope& body() { return body_; }
  const Scope& body() const { return body_; }
  std::string toString() const override;

 private:
  IterDomain* iter_domain_;
  Val* index_;
  Val* stop_;
  Scope body_;
};

//! if (cond) then_body else else_body (the else only where unswitchLoops made one: the
//! unswitched nest with its per-element guards).
class IfThenElse : public Expr {
 public:
  IfThenElse(Fusion* fusion, Val* cond);
  std::string_view opName() const override { return "IfThenElse"; }
  Expr* newObject(Fusion*, std::vector<Val*>, std::vector<Val*>) const override;
  Val* cond() const { return cond_; }
  Scope& thenBody() { return then_; }
  const Scope& thenBody() const { return then_; }
  Scope& elseBody() { return else_; }
  const Scope& elseBody() const { return else_; }
  std::string toString() const override;

 private:
  Val* cond_;
  Scope then_;
  Scope else_;
};

//! Declares storage for an intermediate tensor: `size` elements in `memory_type`.
class Allocate : public Expr {
 public:
  Allocate(Fusion* fusion, TensorView* buffer, Val* size);
  std::string_view opName() const override { return "Allocate"; }
  Expr* newObject(Fusion*, std::vector<Val*>, std::vector<Val*>) const override;
  TensorView* buffer() const { return buffer_; }
  Val* size() const { return size_; }
  std::string toString() const override;

 private:
  TensorView* buffer_;
  Val* size_;
};

//! __syncthreads(): every thread of the block waits here (inserted by insertSyncs between a
//! shared-memory write and a read by other threads, and before a loop's next write).
class BlockSync : public Expr {
 public:
  explicit BlockSync(Fusion* fusion);
  std::string_view opName() const override { return "BlockSync"; }
  Expr* newObject(Fusion*, std::vector<Val*>, std::vector<Val*>) const override;
  std::string toString() const override { return "BLOCKSYNC"; }
};

//! `const mf_index_t i12 = ...;`: declares a computed scalar at the start of a scope
//! (inserted by hoistCommonScalars). Later scalars of the scope and of the scopes inside it
//! that are the same value (ScalarKeys) are written by its name.
class ScalarDef : public Expr {
 public:
  ScalarDef(Fusion* fusion, Val* value);
  std::string_view opName() const override { return "ScalarDef"; }
  Expr* newObject(Fusion*, std::vector<Val*>, std::vector<Val*>) const override;
  //! The scalar declared; its name (i12) is the declared name.
  Val* value() const { return value_; }
  std::string toString() const override;

 private:
  Val* value_;
};

}  // namespace mf
