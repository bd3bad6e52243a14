//! Kernel IR: the nodes lowering produces. A kernel is a tree of scopes (ForLoop,
//! IfThenElse) holding Allocate and compute exprs whose tensor operands are TensorIndex
//! values (a tensor plus a scalar index into its allocation). Scalars, including every
//! index expression, are ordinary IR scalars.
#pragma once

#include <vector>

#include "ir/iter_domain.h"
#include "ir/tensor_view.h"

namespace mf {

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

//! `view[index]`: one element (or the first of a vector) of a tensor's allocation.
class TensorIndex : public Val {
 public:
  TensorIndex(Fusion* fusion, TensorView* view, Val* index);
  TensorView* view() const { return view_; }
  Val* index() const { return index_; }
  std::string toString() const override;

 private:
  TensorView* view_;
  Val* index_;
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

//! if (cond) then_body.
class IfThenElse : public Expr {
 public:
  IfThenElse(Fusion* fusion, Val* cond);
  std::string_view opName() const override { return "IfThenElse"; }
  Expr* newObject(Fusion*, std::vector<Val*>, std::vector<Val*>) const override;
  Val* cond() const { return cond_; }
  Scope& thenBody() { return then_; }
  const Scope& thenBody() const { return then_; }
  std::string toString() const override;

 private:
  Val* cond_;
  Scope then_;
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
