//! The shape exprs (ops/shape.h builds them): ViewOp (reshape), SqueezeOp and ExpandOp.
//! permute is a LoadStoreOp Set whose output's logical domain is a permutation of its root,
//! and unsqueeze a BroadcastOp, so neither needs a class of its own.
#pragma once

#include <vector>

#include "ir/statement.h"

namespace mf {

//! out = reshape(in). out's root is a fresh copy of in's non-reduction logical axes. The
//! static form derives out's logical axes from that root by Split and Merge (what
//! analyzeView found); the dynamic form's logical axes are fresh IterType::Symbolic axes
//! whose extents are the requested sizes, not connected to the root, until concretization
//! (helper dyn) replaces the op with its static form.
//!   T1[iS2{4}, iS3{3}] = reshape(T0)   root (iS2, iS3), logical: Merge iS2, iS3 -> iS4{12}
class ViewOp : public Expr {
 public:
  ViewOp(Fusion* f, std::vector<Val*> inputs, std::vector<Val*> outputs);
  MF_DECLARE_EXPR(ViewOp)
  Val* in() const { return input(0); }
  Val* out() const { return output(0); }
  //! True when out's logical axes are not derived from its root (a dynamic reshape).
  bool isDynamic() const;
  std::string toString() const override;
};

//! nvFuser's later name of the reshape expr.
using ReshapeOp = ViewOp;

//! out = squeeze(in, flags): out has in's logical axes without those flagged (one flag per
//! non-reduction logical axis of in). A flagged axis is Broadcast, or Symbolic until
//! concretized (which must make it Broadcast); the reference checks its size is 1.
class SqueezeOp : public Expr {
 public:
  SqueezeOp(Fusion* f, std::vector<Val*> inputs, std::vector<Val*> outputs,
            std::vector<bool> is_squeeze_dims);
  MF_DECLARE_EXPR(SqueezeOp)
  Val* in() const { return input(0); }
  Val* out() const { return output(0); }
  const std::vector<bool>& isSqueezeDims() const { return is_squeeze_dims_; }
  std::string toString() const override;

 private:
  std::vector<bool> is_squeeze_dims_;
};

//! out = expand(in, sizes): inputs {in, size_0, ..., size_{n-1}}, one size per logical axis.
//! A broadcast axis of in becomes an Iteration axis of the given extent (Symbolic when the size
//! is not a constant; it stays Broadcast for the constant 1); a size of -1, and every size of
//! a non-broadcast axis, keeps in's axis.
class ExpandOp : public Expr {
 public:
  ExpandOp(Fusion* f, std::vector<Val*> inputs, std::vector<Val*> outputs);
  MF_DECLARE_EXPR(ExpandOp)
  Val* in() const { return input(0); }
  Val* out() const { return output(0); }
  std::vector<Val*> expandedSizes() const { return {inputs().begin() + 1, inputs().end()}; }
  std::string toString() const override;
};

//! True for a LoadStoreOp Set whose output's logical domain is a permutation of its root.
bool isPermute(const Expr* e);

//! True for a ViewOp whose output's logical axes are its root axes or merges of them, never a
//! split (`[i0, 9, 16] -> [i0, 144]`): a loop over the output can be split back into its
//! root's axes and run like its producer (the transform propagator does so).
bool isMergeOnlyReshape(const Expr* e);

}  // namespace mf
