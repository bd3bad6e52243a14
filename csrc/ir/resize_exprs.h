//! The resize ops' exprs (ops/resize.h builds them): pad, slice and cat. Their outputs'
//! logical axes come from Resize exprs (ir/iter_domain.h) on a root that copies the input's
//! logical domain, so indexing and predicates follow the Resize: an output index i reads the
//! input at i - left.
#pragma once

#include <vector>

#include "ir/statement.h"

namespace mf {

class IterDomain;

//! out = pad(in, widths, value). Inputs: {in, value, widths...}: two widths (left, right)
//! per axis of in's logical domain, outer axis first (not PyTorch's innermost-first order;
//! ops/resize.h converts), zero for an axis left alone. out's root copies in's logical
//! axes; a padded axis's logical axis is a Resize of its root axis. An element whose input
//! index falls outside the input is `value` (a scalar of out's dtype).
class PadOp : public Expr {
 public:
  PadOp(Fusion* f, std::vector<Val*> inputs, std::vector<Val*> outputs);
  MF_DECLARE_EXPR(PadOp)
  Val* in() const { return input(0); }
  Val* value() const { return input(1); }
  Val* out() const { return output(0); }
  //! {left, right} of logical axis `axis` of in.
  std::pair<Val*, Val*> widths(size_t axis) const;
  //! The axes with a nonzero width (those out's logical domain resizes).
  std::vector<size_t> paddedAxes() const;
  std::string toString() const override;
};

//! out = slice(in, ranges). Inputs: {in, start, stop, step per axis of in's logical domain}:
//! normalized (0 <= start <= stop <= extent, step 1). out's root copies in's logical axes; a
//! sliced axis's logical axis is Resize(root, -start, stop - extent).
class SliceOp : public Expr {
 public:
  SliceOp(Fusion* f, std::vector<Val*> inputs, std::vector<Val*> outputs);
  MF_DECLARE_EXPR(SliceOp)
  Val* in() const { return input(0); }
  Val* out() const { return output(0); }
  Val* start(size_t axis) const { return input(1 + 3 * axis); }
  Val* stop(size_t axis) const { return input(2 + 3 * axis); }
  Val* step(size_t axis) const { return input(3 + 3 * axis); }
  std::string toString() const override;
};

//! out = cat(inputs, dim): the inputs are pad()s of the concatenated tensors, each already
//! of out's extents (input k padded by the extents before it on the left and after it on
//! the right). out's element at index i along `dim` is input k's, for the k whose unpadded
//! range holds i. No root: its axes map to each input's positionally.
class CatOp : public Expr {
 public:
  CatOp(Fusion* f, std::vector<Val*> inputs, std::vector<Val*> outputs, int64_t dim);
  MF_DECLARE_EXPR(CatOp)
  int64_t dim() const { return dim_; }
  Val* out() const { return output(0); }
  //! Where input k's own data starts along dim() (its pad's left width), and its extent.
  Val* offset(size_t k) const;
  Val* extent(size_t k) const;
  std::string toString() const override;

 private:
  int64_t dim_;
};

}  // namespace mf
