//! Inlining (nvFuser's scheduler/tools/inlining.h): compute-at positions, the largest legal
//! one per tensor, and the bulk forms schedulers call after transform propagation. Whether
//! two loop axes can be one loop is IdModel's question (ir/id_model.h, sharedLoopMismatch),
//! so lowering checks a schedule with the same rule that chose it.
//! TensorView::inlineAt and TensorView::inlineMost are defined here.
#pragma once

#include <vector>

#include "ir/id_model.h"

namespace mf {

//! The largest legal compute-at position of each tensor of one fusion, from one IdModel.
class MaxPosCalculator {
 public:
  explicit MaxPosCalculator(const Fusion& fusion) : model_(fusion) {}

  //! 0 for a fusion input (global memory), an offsets operand of the layout op (read whole
  //! from global memory) and a tensor no expr reads; otherwise the number of leading loop
  //! axes that map to every consumer's (maxSharedLoopPosition).
  int64_t maxPosition(const TensorView* tv) const;
  //! Why `tv` cannot be inlined at `pos` (empty when it can), naming the first axis and
  //! consumer that do not map.
  std::string whyNot(const TensorView* tv, int64_t pos) const;
  const IdModel& model() const { return model_; }

 private:
  IdModel model_;
};

//! The largest legal compute-at position of `producer` (MaxPosCalculator over its fusion).
int64_t maxInlinePosition(const TensorView* producer);

//! Sets the compute-at position of every TensorView of the current fusion that is neither an
//! input nor an output to its largest legal value.
void inlineMost();
//! The same for the tensors given (inputs and tensors without consumers get 0).
void inlineMost(const std::vector<TensorView*>& tvs);

//! Inlines every intermediate tensor of `reference`'s fusion at the position matching
//! `reference`'s first `pos` loop axes (its leading axes permissively mapped to them; the
//! reference itself at `pos`). With `best_effort`, a tensor that cannot go that deep is
//! inlined as deep as it can; without, that is a UserError naming the tensor and why.
void inlineAllAt(TensorView* reference, int64_t pos, bool best_effort = false);

}  // namespace mf
