//! TensorDomain: the axes of one tensor. Four views of the same tensor, as in nvFuser:
//!   root        (optional) the producer-side axes of a shape-changing op;
//!   logical     the shape the user sees;
//!   allocation  (optional, defaults to logical) the memory layout, outer to inner, with one
//!               contiguity flag per axis; normally a permutation or split/merge of logical;
//!   loop        the loop nest; scheduling verbs transform this one.
//! An allocation domain can also be *declared* as not derived from the logical domain (the
//! layout op's padded buffer): then its extents are expressions of the logical extents and
//! no split/merge connects the two; only such a domain skips equivalence validation.
#pragma once

#include <optional>
#include <vector>

#include "ir/iter_domain.h"

namespace mf {

using Contiguity = std::vector<std::optional<bool>>;

class TensorDomain : public Val {
 public:
  //! `contiguity` is per allocation (here: logical) axis; empty means all contiguous
  //! (broadcast and reduction axes get nullopt).
  TensorDomain(Fusion* fusion, std::vector<IterDomain*> logical, Contiguity contiguity = {});
  //! The full form used by cloning.
  TensorDomain(Fusion* fusion, std::vector<IterDomain*> root, std::vector<IterDomain*> logical,
               std::vector<IterDomain*> allocation, std::vector<IterDomain*> loop,
               Contiguity contiguity, bool allocation_declared);

  const std::vector<IterDomain*>& root() const { return root_; }
  const std::vector<IterDomain*>& logical() const { return logical_; }
  const std::vector<IterDomain*>& allocation() const { return allocation_; }
  const std::vector<IterDomain*>& loop() const { return loop_; }
  const std::vector<IterDomain*>& maybeRoot() const { return root_.empty() ? logical_ : root_; }
  const std::vector<IterDomain*>& maybeAllocation() const {
    return allocation_.empty() ? logical_ : allocation_;
  }
  bool hasRoot() const { return !root_.empty(); }
  bool hasAllocation() const { return !allocation_.empty(); }
  //! True when the allocation domain was declared as not derived from logical.
  bool allocationDeclared() const { return allocation_declared_; }
  //! One flag per maybeAllocation() axis.
  const Contiguity& contiguity() const { return contiguity_; }

  //! Every domain vector this tensor owns: root, logical, allocation, loop (empty ones
  //! skipped). Traversals visit all of them, so allocation-only extents are never missed.
  std::vector<const std::vector<IterDomain*>*> allDomains() const;
  //! Every IterDomain of every domain and every one between them (split/merge outputs and
  //! inputs), each once, in a deterministic order.
  std::vector<IterDomain*> allIds() const;
  //! The Split/Merge exprs between the domains, in topological order.
  std::vector<Expr*> allTransforms() const;
  //! True when an axis of any domain (allIds) is IterType::Symbolic: not concretized yet
  //! (ir/dynamic_transform.h).
  bool hasSymbolicAxis() const;
  //! Whether a logical axis is a reduction axis (nvFuser's TensorDomain::hasReduction).
  bool hasReduction() const;

  // Scheduling verbs: they change the loop domain only.
  IterDomain* axis(int64_t i) const;
  int64_t nDims() const { return static_cast<int64_t>(loop_.size()); }
  void split(int64_t axis, Val* factor, bool inner_split);
  void merge(int64_t outer, int64_t inner);
  //! `old_to_new`: axis position -> new position; axes not named keep their relative order.
  void reorder(const std::vector<std::pair<int64_t, int64_t>>& old_to_new);
  //! Replaces the loop domain; it must cover the logical domain through split/merge, or, for
  //! a declared allocation domain, may instead cover that allocation domain (a schedule that
  //! iterates over the padded buffer: the layout op's gather form).
  void setLoopDomain(std::vector<IterDomain*> loop);
  //! True when the loop domain is derived from a declared allocation domain instead of the
  //! logical domain.
  bool loopFromAllocation() const;
  //! The domain the loop domain is derived from: allocation() when loopFromAllocation(),
  //! else logical().
  const std::vector<IterDomain*>& loopSource() const {
    return loopFromAllocation() ? allocation_ : logical_;
  }

  //! Sets an allocation domain that must be derived from the logical domain (a
  //! permutation, or split/merge of logical axes); anything else is a UserError.
  void setAllocationDomain(std::vector<IterDomain*> allocation, Contiguity contiguity);
  //! Declares an allocation domain that is NOT derived from the logical domain: no
  //! validation of its relation to logical (contiguity size is still checked).
  void setDeclaredAllocationDomain(std::vector<IterDomain*> allocation, Contiguity contiguity);
  //! Replaces the contiguity flags (same length as maybeAllocation()).
  void setContiguity(Contiguity contiguity);

  //! Normalizes an axis index (negative counts from the end) against `size` or throws.
  static int64_t wrapAxis(int64_t axis, int64_t size, std::string_view what);
  //! `ids` without its Reduction axes: the axes a tensor's data has (a reduction's output
  //! stores one element per non-reduction index).
  static std::vector<IterDomain*> noReductions(const std::vector<IterDomain*>& ids);
  //! Contiguity `contiguous` for every axis of `ids`, nullopt for broadcast/reduction.
  static Contiguity filledContiguity(const std::vector<IterDomain*>& ids, bool contiguous);

  std::string toString() const override;

 private:
  bool isAllocationAxis(const IterDomain* id) const;
  // Sets allocation and contiguity together; on a bad contiguity nothing changes.
  void installAllocation(std::vector<IterDomain*> allocation, Contiguity contiguity, bool declared);

  std::vector<IterDomain*> root_;
  std::vector<IterDomain*> logical_;
  std::vector<IterDomain*> allocation_;
  std::vector<IterDomain*> loop_;
  Contiguity contiguity_;
  bool allocation_declared_ = false;
};

//! Checks that `to` covers exactly the index space of `from` through the Split/Merge exprs
//! between them: every `to` axis derives from `from`, nothing is used twice, and no
//! non-broadcast `from` axis is left uncovered. Throws mf::UserError describing the first
//! violation, prefixed with `context`.
void validateDomainEquivalence(const std::vector<IterDomain*>& from,
                               const std::vector<IterDomain*>& to, std::string_view context);

}  // namespace mf
