//! IrMutator: an opt-out mutator over the fusion IR (nvFuser's OptOutMutator, Halide's
//! IRMutator contract). Register replacements for Vals, then run it: every node that
//! (transitively) uses a replaced Val is rebuilt, and nothing else is touched.
//!
//!   i0 -> 8:   T0[iS0{i0}] ... Split: iS0{i0} by factor 4 -> iS2{ceilDiv(i0, 4)}, ...
//!   becomes    T0[iS7{8}]  ... Split: iS7{8} by factor 4 -> iS2{ceilDiv(8, 4)}, ...
//!
//! Rebuilt are: an Expr whose inputs (or outputs) changed, through Expr::newObject (the old
//! Expr is removed); an IterDomain whose extent changed; a TensorDomain any of whose root,
//! logical, allocation or loop axes changed (a declared allocation domain stays declared); a
//! TensorView whose domain changed, in place (it keeps its identity, name and compute-at
//! position, so pointers held by the caller stay valid). A scalar keeps its identity when
//! only its definition is rebuilt. Users: concretization (a symbolic extent becomes a
//! constant everywhere) and cacheBefore/cacheAfter (a tensor replaced by its cache).
#pragma once

#include <unordered_map>
#include <vector>

#include "ir/dispatch.h"
#include "ir/statement.h"

namespace mf {

class Fusion;

class IrMutator : public IrVisitor {
 public:
  //! Makes every later use of `old` a use of `replacement` (same fusion, same kind of node).
  //! A replacement is final: it is not itself mutated.
  void registerMutation(Val* old, Val* replacement);
  //! What `v` has become (following chains of replacements), or `v` when unchanged.
  Val* maybeMutated(Val* v) const;
  template <typename T>
  T* maybeMutated(T* v) const {
    return v == nullptr ? nullptr : maybeMutated(static_cast<Val*>(v))->template as<T>();
  }

  //! Rebuilds everything `fusion`'s inputs and outputs depend on (all four domains of every
  //! tensor and every extent expression included), then replaces mutated inputs and outputs.
  void mutate(Fusion& fusion);
  //! Rebuilds only what `roots` depend on (roots included); a fusion's boundary is untouched.
  void mutate(const std::vector<Val*>& roots);

 protected:
  // The opt-out defaults: each rebuilds its node when an operand changed. A subclass
  // overrides the kinds it treats differently (concretization: an IterDomain's IterType).
  void handle(Scalar* node) override;
  void handle(IterDomain* node) override;
  void handle(TensorDomain* node) override;
  void handle(TensorView* node) override;
#define MF_MUTATE_EXPR(T) void handle(T* node) override;
  MF_FOR_ALL_FUSION_EXPRS(MF_MUTATE_EXPR)
#undef MF_MUTATE_EXPR

  //! Rebuilds `e` through newObject when an input or output was mutated, and removes `e`.
  void mutateExpr(Expr* e);

 private:
  std::unordered_map<Val*, Val*> mutations_;
};

}  // namespace mf
