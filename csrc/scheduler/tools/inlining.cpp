#include "scheduler/tools/inlining.h"

#include <algorithm>
#include <deque>
#include <unordered_map>
#include <unordered_set>

#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/logical_domain_map.h"
#include "ir/op_traits.h"
#include "ir/transform_replay.h"

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

TensorView* TensorView::computeAt(TensorView* consumer, int64_t position, ComputeAtMode mode) {
  MF_CHECK(consumer->fusion() == fusion(), "computeAt: {} and {} are not in the same fusion",
           toString(), consumer->toString());
  const int64_t n = consumer->nDims();
  const int64_t pos = mode == ComputeAtMode::MostInlined ? n
                      : position < 0                     ? position + n + 1
                                                         : position;
  MF_CHECK(pos >= 0 && pos <= n, "computeAt: position {} of {} is out of range [-{}, {}]", position,
           consumer->toString(), n + 1, n);
  const std::vector<TensorView*> order = fusion()->allTvs();  // topological
  // The tensors `target` depends on, itself included.
  auto reaching = [&](TensorView* target) {
    std::unordered_set<TensorView*> set{target};
    for (auto it = order.rbegin(); it != order.rend(); ++it)
      for (TensorView* c : consumerTvsOf(*it))
        if (set.count(c)) set.insert(*it);
    return set;
  };
  std::unordered_set<TensorView*> from_this{this};
  for (TensorView* tv : order)
    for (TensorView* p : producerTvsOf(tv))
      if (from_this.count(p)) from_this.insert(tv);
  const std::unordered_set<TensorView*> to_consumer = reaching(consumer);
  MF_CHECK(this != consumer && to_consumer.count(this),
           "computeAt: {} is not a producer of {}; computeAt needs a consumer that depends on it",
           toString(), consumer->toString());
  // As nvFuser: the selected tensors are those between this one and the first tensor every
  // use path of this one goes through (not strictly between this one and `consumer`), or, when
  // there is none, every tensor depending on this one that has consumers.
  auto on_every_path = [&](TensorView* through) {
    std::vector<TensorView*> stack{this};
    std::unordered_set<TensorView*> seen{this};
    while (!stack.empty()) {
      TensorView* tv = stack.back();
      stack.pop_back();
      std::vector<TensorView*> next = consumerTvsOf(tv);
      if (next.empty()) return false;  // a path that avoids `through` ends here
      for (TensorView* c : next)
        if (c != through && seen.insert(c).second) stack.push_back(c);
    }
    return true;
  };
  TensorView* common = nullptr;
  for (TensorView* tv : order)
    if (tv != this && from_this.count(tv) && (tv == consumer || !to_consumer.count(tv)) &&
        on_every_path(tv)) {
      common = tv;
      break;
    }
  const std::unordered_set<TensorView*> to_common =
      common != nullptr ? reaching(common) : std::unordered_set<TensorView*>{};
  std::unordered_set<TensorView*> selected;
  for (TensorView* tv : order)
    if (from_this.count(tv) && tv != common && (common == nullptr || to_common.count(tv)) &&
        !consumerTvsOf(tv).empty())
      selected.insert(tv);

  // Replay along a walk from `consumer`: into selected producers, and from selected tensors
  // (or into them) to consumers, so each selected tensor's loops match all its consumers'.
  // `at`: each replayed tensor's position matching the consumer's `pos`.
  std::unordered_map<TensorView*, int64_t> at{{consumer, pos}};
  // Replay makes serial axes; shared loops take the parallel types of the loops they join (as
  // nvFuser's lowering binds them), but vectorization stays the consumer's memory access.
  auto copyParallelTypes = [&](TensorView* from, TensorView* to) {
    if (at.at(to) != at.at(from)) return;  // an axis was dropped: the indices do not line up
    for (int64_t i = 0; i < at.at(to); ++i)
      if (ParallelType p = from->axis(i)->parallelType(); p != ParallelType::Vectorize)
        to->axis(i)->parallelize(p);
  };
  std::deque<TensorView*> work{consumer};
  while (!work.empty()) {
    TensorView* tv = work.front();
    work.pop_front();
    for (TensorView* p : producerTvsOf(tv))
      if (selected.count(p) && !at.count(p)) {
        at[p] = TransformReplay::replayPasC(p, tv, at.at(tv));
        copyParallelTypes(tv, p);
        work.push_back(p);
      }
    for (TensorView* c : consumerTvsOf(tv))
      if ((selected.count(tv) || selected.count(c)) && !at.count(c)) {
        at[c] = TransformReplay::replayCasP(c, tv, at.at(tv));
        copyParallelTypes(tv, c);
        c->setComputeAtPosition(0);  // its loops changed under its own consumers
        work.push_back(c);
      }
  }

  MaxPosCalculator calc(*fusion());
  for (TensorView* tv : order) {
    if (!selected.count(tv) || tv->isFusionInput() || !at.count(tv))
      continue;  // stays in global memory
    const int64_t legal = calc.maxPosition(tv);
    int64_t want = mode == ComputeAtMode::MostInlined ? legal : at.at(tv);
    if (want > legal) {
      MF_CHECK(mode == ComputeAtMode::BestEffort,
               "computeAt({}, {}) of {}: {} can be computed inside at most {} of its consumers' "
               "loops, not {} ({}); use ComputeAtMode::BestEffort to clamp",
               consumer->toString(), position, toString(), tv->toString(), legal, want,
               calc.whyNot(tv, want));
      want = legal;
    }
    tv->setComputeAtPosition(want);
  }
  return this;
}

}  // namespace mf
