#include "ir/inlining.h"

#include <algorithm>

#include "ir/exprs.h"
#include "ir/fusion.h"

namespace mf {
namespace {

std::string signatureOf(const IterDomain* id, const std::vector<IterDomain*>& logical,
                        const std::vector<int64_t>& position_map) {
  auto it = std::find(logical.begin(), logical.end(), id);
  if (it != logical.end()) {
    int64_t p = it - logical.begin();
    return fmt::format("L{}", position_map.empty() ? p : position_map[p]);
  }
  Expr* def = id->definition();
  // An axis of a declared allocation domain (a loop over the layout op's padded buffer) maps
  // to no logical axis, so it shares no loop with any other tensor.
  if (def == nullptr) return fmt::format("A{}", id->name());
  if (auto* s = dynamic_cast<Split*>(def)) {
    return fmt::format("{}({}, {}).{}", s->innerSplit() ? "split" : "outer_split",
                       signatureOf(s->in(), logical, position_map), s->factor()->toInlineString(),
                       id == s->outer() ? "outer" : "inner");
  }
  auto* m = def->as<Merge>();
  return fmt::format("merge({}, {})", signatureOf(m->outer(), logical, position_map),
                     signatureOf(m->inner(), logical, position_map));
}

std::vector<TensorView*> consumersOf(const TensorView* tv) {
  std::vector<TensorView*> out;
  for (Expr* use : tv->uses())
    for (Val* v : use->outputs())
      if (auto* c = dynamic_cast<TensorView*>(v)) out.push_back(c);
  return out;
}

bool isOffsetOfLayoutOp(const TensorView* tv) {
  for (Expr* use : tv->uses())
    if (auto* l = dynamic_cast<PreprocessGroupedMatmulInputSf*>(use))
      if (l->inputOffsets() == tv || l->outputOffsets() == tv) return true;
  return false;
}

// The logical axes of `logical` that `id` is derived from.
void logicalSources(IterDomain* id, const std::vector<IterDomain*>& logical,
                    std::vector<int64_t>& out) {
  if (auto it = std::find(logical.begin(), logical.end(), id); it != logical.end()) {
    out.push_back(it - logical.begin());
    return;
  }
  Expr* def = id->definition();
  MF_ASSERT(def != nullptr, "loop axis {} is not derived from the logical domain", id->toString());
  if (auto* s = dynamic_cast<Split*>(def)) {
    logicalSources(s->in(), logical, out);
  } else {
    logicalSources(def->as<Merge>()->outer(), logical, out);
    logicalSources(def->as<Merge>()->inner(), logical, out);
  }
}

}  // namespace

bool coversBroadcastAgainst(const TensorView* producer, int64_t axis, const TensorView* consumer) {
  std::vector<int64_t> map = producerToConsumerPositions(producer, consumer);
  std::vector<int64_t> sources;
  logicalSources(producer->axis(axis), producer->getLogicalDomain(), sources);
  for (int64_t j : sources) {
    size_t cj = static_cast<size_t>(map.empty() ? j : map[j]);
    if (producer->getLogicalDomain()[j]->isBroadcast() &&
        !consumer->getLogicalDomain().at(cj)->isBroadcast())
      return true;
  }
  return false;
}

namespace {

// Why `producer` axis `i` cannot share a loop with `consumer`, or empty.
std::string mismatch(const TensorView* producer, const TensorView* consumer, int64_t i) {
  if (i >= consumer->nDims())
    return fmt::format("its consumer {} has only {} axes", consumer->toString(), consumer->nDims());
  IterDomain* p = producer->axis(i);
  IterDomain* c = consumer->axis(i);
  // A vectorized axis is one whole-vector copy, not a loop: the producer's buffer must hold
  // the vector.
  if (p->parallelType() == ParallelType::Vectorize)
    return fmt::format("axis {} ({}) is vectorized; a vectorized axis cannot be inlined", i,
                       p->toString());
  std::vector<int64_t> map = producerToConsumerPositions(producer, consumer);
  if (loopAxisSignature(producer, i, map) != loopAxisSignature(consumer, i) ||
      p->parallelType() != c->parallelType()) {
    return fmt::format(
        "axis {} ({}) does not map to axis {} ({}) of its consumer {}; apply the "
        "same split/merge/parallelize to both",
        i, p->toString(), i, c->toString(), consumer->toString());
  }
  // The shared loop would run over the producer's extent 1 instead of the consumer's.
  if (coversBroadcastAgainst(producer, i, consumer))
    return fmt::format(
        "axis {} ({}) covers a broadcast axis where axis {} ({}) of its consumer {} does "
        "not; inlining across a broadcast is not supported",
        i, p->toString(), i, c->toString(), consumer->toString());
  return {};
}

}  // namespace

std::vector<int64_t> producerToConsumerPositions(const TensorView* producer,
                                                 const TensorView* consumer) {
  if (auto* b = dynamic_cast<BroadcastOp*>(consumer->definition())) {
    std::vector<int64_t> map;
    for (size_t j = 0; j < b->isBroadcastDims().size(); ++j)
      if (!b->isBroadcastDims()[j]) map.push_back(static_cast<int64_t>(j));
    return map;
  }
  (void)producer;
  return {};
}

std::string loopAxisSignature(const TensorView* tv, int64_t axis,
                              const std::vector<int64_t>& position_map) {
  return signatureOf(tv->axis(axis), tv->getLogicalDomain(), position_map);
}

void TensorView::inlineAt(int64_t given) {
  int64_t pos = given < 0 ? given + nDims() + 1 : given;
  MF_CHECK(pos >= 0 && pos <= nDims(), "inlineAt: position {} of {} is out of range [-{}, {}]",
           given, toString(), nDims() + 1, nDims());
  MF_CHECK(pos == 0 || !isFusionInput(),
           "inlineAt: {} is a fusion input; inputs live in global "
           "memory and cannot be inlined",
           toString());
  MF_CHECK(pos == 0 || !isOffsetOfLayoutOp(this),
           "inlineAt: {} is an offsets operand of preprocessGroupedMatmulInputSf, which must be "
           "in global memory when the kernel starts",
           toString());
  for (TensorView* c : consumersOf(this))
    for (int64_t i = 0; i < pos; ++i) {
      std::string why = mismatch(this, c, i);
      MF_CHECK(why.empty(), "inlineAt({}) of {}: {}", pos, toString(), why);
    }
  setComputeAtPosition(pos);
}

int64_t maxInlinePosition(const TensorView* producer) {
  if (producer->isFusionInput() || isOffsetOfLayoutOp(producer)) return 0;
  std::vector<TensorView*> consumers = consumersOf(producer);
  if (consumers.empty()) return 0;
  int64_t pos = 0;
  while (pos < producer->nDims()) {
    bool ok = true;
    for (TensorView* c : consumers) ok = ok && mismatch(producer, c, pos).empty();
    if (!ok) break;
    ++pos;
  }
  return pos;
}

void TensorView::inlineMost() {
  inlineAt(maxInlinePosition(this));
}

void inlineMost() {
  Fusion* f = FusionGuard::current();
  MF_CHECK(f != nullptr, "inlineMost: no active fusion");
  for (TensorView* tv : f->allTvs())
    if (!tv->isFusionInput() && !tv->isFusionOutput()) tv->inlineMost();
}

}  // namespace mf
