#include "scheduler/tools/inlining.h"

#include <algorithm>

#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/logical_domain_map.h"
#include "ir/op_traits.h"

namespace mf {
int64_t MaxPosCalculator::maxPosition(const TensorView* tv) const {
  if (tv->isFusionInput() || isReadWhole(tv) || tv->uses().empty()) return 0;
  return maxSharedLoopPosition(model_, tv);
}

std::string MaxPosCalculator::whyNot(const TensorView* tv, int64_t pos) const {
  for (int64_t i = 0; i < pos; ++i)
    for (TensorView* c : consumerTvsOf(tv))
      if (std::string why = sharedLoopMismatch(model_, tv, c, i); !why.empty()) return why;
  return {};
}

int64_t maxInlinePosition(const TensorView* producer) {
  return MaxPosCalculator(*producer->fusion()).maxPosition(producer);
}

void TensorView::inlineAt(int64_t given) {
  int64_t pos = given < 0 ? given + nDims() + 1 : given;
  MF_CHECK(pos >= 0 && pos <= nDims(), "inlineAt: position {} of {} is out of range [-{}, {}]",
           given, toString(), nDims() + 1, nDims());
  MF_CHECK(pos == 0 || !isFusionInput(),
           "inlineAt: {} is a fusion input; inputs live in global "
           "memory and cannot be inlined",
           toString());
  MF_CHECK(pos == 0 || !isReadWhole(this),
           "inlineAt: {} is an offsets operand of preprocessGroupedMatmulInputSf, which must be "
           "in global memory when the kernel starts",
           toString());
  if (pos > computeAtPosition()) {  // leaving loops it shares needs no check (nor an IdModel)
    std::string why = MaxPosCalculator(*fusion()).whyNot(this, pos);
    MF_CHECK(why.empty(), "inlineAt({}) of {}: {}", pos, toString(), why);
  }
  setComputeAtPosition(pos);
}

void TensorView::inlineMost() {
  setComputeAtPosition(maxInlinePosition(this));
}

void inlineMost() {
  Fusion* f = FusionGuard::current();
  MF_CHECK(f != nullptr, "inlineMost: no active fusion");
  std::vector<TensorView*> tvs;
  for (TensorView* tv : f->allTvs())
    if (!tv->isFusionInput() && !tv->isFusionOutput()) tvs.push_back(tv);
  inlineMost(tvs);
}

void inlineMost(const std::vector<TensorView*>& tvs) {
  if (tvs.empty()) return;
  MaxPosCalculator calc(*tvs.front()->fusion());
  for (TensorView* tv : tvs) tv->setComputeAtPosition(calc.maxPosition(tv));
}

void inlineAllAt(TensorView* reference, int64_t given, bool best_effort) {
  int64_t n = reference->nDims();
  int64_t pos = given < 0 ? given + n + 1 : given;
  MF_CHECK(pos >= 0 && pos <= n, "inlineAllAt: position {} of {} is out of range [-{}, {}]", given,
           reference->toString(), n + 1, n);
  Fusion& fusion = *reference->fusion();
  MaxPosCalculator calc(fusion);
  const IdModel& model = calc.model();
  for (TensorView* tv : fusion.allTvs()) {
    if (tv->isFusionInput() || tv->isFusionOutput()) continue;
    // The leading axes of `tv` that are loops of the reference's first `pos`.
    int64_t target = 0;
    while (target < tv->nDims() &&
           std::any_of(reference->getLoopDomain().begin(), reference->getLoopDomain().begin() + pos,
                       [&](IterDomain* r) {
                         return model.areMapped(tv->axis(target), r, IdMappingMode::Permissive);
                       }))
      ++target;
    int64_t max = calc.maxPosition(tv);
    MF_CHECK(best_effort || target <= max,
             "inlineAllAt({}, {}): {} cannot be inlined at position {}: {}", reference->toString(),
             pos, tv->toString(), target, calc.whyNot(tv, target));
    tv->setComputeAtPosition(std::min(target, max));
  }
}

}  // namespace mf
