#include "ir/transform_replay.h"

#include <algorithm>
#include <functional>
#include <unordered_set>

#include "ir/fusion.h"
#include "ir/shape_exprs.h"

namespace mf {
namespace {

// Root -> logical exprs a producer replays from its consumer, so that it runs over the
// consumer's loop: a pad's or slice's Resize (the producer's reads are then predicated by its
// own extents).
bool replayedFromRoot(const Expr* def) {
  return def != nullptr && def->isA<Resize>();
}

// The exprs between `from` (tv's logical or root domain) and its first `pos` loop axes,
// producers first; with `from_root`, also the root -> logical ones that replayedFromRoot names.
std::vector<Expr*> loopTransforms(const TensorView* tv, int64_t pos,
                                  const std::vector<IterDomain*>& from, bool from_root) {
  std::unordered_set<IterDomain*> stop(from.begin(), from.end());
  std::unordered_set<Expr*> seen;
  std::vector<Expr*> order;
  std::function<void(IterDomain*)> visit = [&](IterDomain* id) {
    Expr* def = id->definition();
    if (stop.count(id) && !(from_root && replayedFromRoot(def))) return;
    if (def == nullptr || !seen.insert(def).second) return;
    for (Val* v : def->inputs())
      if (auto* in = dynamic_cast<IterDomain*>(v)) visit(in);
    order.push_back(def);
  };
  for (int64_t i = 0; i < pos; ++i) visit(tv->axis(i));
  return order;
}

// The target's axes as the replay goes: its logical axes, with each replayed split's input
// replaced by its outputs and each merge's inputs by its output, in place.
class Frontier {
 public:
  explicit Frontier(const std::vector<IterDomain*>& ids) : ids_(ids) {}
  void replace(IterDomain* old_id, std::vector<IterDomain*> new_ids) {
    auto it = std::find(ids_.begin(), ids_.end(), old_id);
    MF_ASSERT(it != ids_.end(), "replay: {} is not on the frontier", old_id->toString());
    it = ids_.erase(it);
    ids_.insert(it, new_ids.begin(), new_ids.end());
  }
  void erase(IterDomain* id) { std::erase(ids_, id); }
  bool contains(IterDomain* id) const {
    return std::find(ids_.begin(), ids_.end(), id) != ids_.end();
  }
  const std::vector<IterDomain*>& ids() const { return ids_; }

 private:
  std::vector<IterDomain*> ids_;
};

// TransformReplay::replay with the target's axes starting as `start` (its logical or loop
// domain).
int64_t replayFrom(TensorView* target, const TensorView* reference,
                   const IdMap& reference_to_target, int64_t reference_pos,
                   const std::vector<IterDomain*>& start) {
  int64_t n = reference->nDims();
  int64_t pos = reference_pos < 0 ? reference_pos + n + 1 : reference_pos;
  MF_CHECK(pos >= 0 && pos <= n, "replay onto {}: position {} of {} is out of range [-{}, {}]",
           target->toString(), reference_pos, reference->toString(), n + 1, n);
  MF_CHECK(!target->domain()->loopFromAllocation() && !reference->domain()->loopFromAllocation(),
           "replay of {} onto {}: a loop domain over a declared allocation domain is not "
           "replayed",
           reference->toString(), target->toString());
  FusionGuard fg(target->fusion());
  IdMap ids = reference_to_target;
  Frontier frontier(start);
  // A map onto the reference's root (reference_to_target from its producer): a reshape's
  // output replays its root -> logical splits and merges first, so the producer's loop covers
  // the reshaped index space, and a pad's or slice's its resizes. Other root domains (rfactor
  // tensors) replay their loop from logical only.
  const auto& ref_root = reference->getMaybeRootDomain();
  const bool from_root = reference->domain()->hasRoot() &&
                         std::any_of(ref_root.begin(), ref_root.end(),
                                     [&](IterDomain* id) { return reference_to_target.count(id); });
  const bool through_view =
      from_root && reference->definition() != nullptr && reference->definition()->isA<ViewOp>();
  const std::vector<IterDomain*>& from = through_view ? ref_root : reference->getLogicalDomain();
  for (Expr* e : loopTransforms(reference, pos, from, from_root)) {
    visitIdExpr(
        e,
        [&](Split* s) {
          auto in = ids.find(s->in());
          if (in == ids.end()) return;
          auto [outer, inner] = IterDomain::split(in->second, s->factor(), s->innerSplit());
          frontier.replace(in->second, {outer, inner});
          ids[s->outer()] = outer;
          ids[s->inner()] = inner;
        },
        [&](Merge* m) {
          auto outer = ids.find(m->outer());
          auto inner = ids.find(m->inner());
          if (outer != ids.end() && inner != ids.end()) {
            IterDomain* out = IterDomain::merge(outer->second, inner->second);
            frontier.replace(outer->second, {out});
            frontier.erase(inner->second);
            ids[m->out()] = out;
          } else if (outer != ids.end() || inner != ids.end()) {
            // The other input has no counterpart here (an axis the target does not have): the
            // merge's output is the one input the target has.
            ids[m->out()] = (outer != ids.end() ? outer : inner)->second;
          }
        },
        [&](Resize* r) {
          // The same widths on the target's axis: a producer replayed over its consumer's
          // padded (or sliced) loop; lowering predicates its reads by its own extent.
          auto in = ids.find(r->in());
          if (in == ids.end()) return;
          IterDomain* out = nullptr;
          if (in->second->isBroadcast() && !r->in()->isBroadcast()) {
            // A broadcast the consumer iterates stays a size-1 broadcast, resized: its loop
            // runs over the promoted extent resized alike (promotedExtent), not over 1 plus
            // the widths (`1 - 1` would make an empty loop that needs no guard).
            FusionGuard fg(in->second->fusion());
            out = IterDomainBuilder(in->second->extent()).iterType(IterType::Broadcast).build();
            IrBuilder::create<Resize>(std::vector<Val*>{in->second, r->left(), r->right()},
                                      std::vector<Val*>{out});
          } else {
            out = IterDomain::resize(in->second, r->left(), r->right(), r->out()->iterType());
          }
          frontier.replace(in->second, {out});
          ids[r->out()] = out;
        });
  }

  std::vector<IterDomain*> loop;
  auto take = [&](IterDomain* ref_id) {
    auto it = ids.find(ref_id);
    if (it == ids.end() || !frontier.contains(it->second)) return false;
    if (std::find(loop.begin(), loop.end(), it->second) != loop.end()) return false;
    loop.push_back(it->second);
    return true;
  };
  int64_t target_pos = 0;
  for (int64_t i = 0; i < pos; ++i) target_pos += take(reference->axis(i)) ? 1 : 0;
  for (int64_t i = pos; i < n; ++i) take(reference->axis(i));
  for (IterDomain* id : frontier.ids())
    if (std::find(loop.begin(), loop.end(), id) == loop.end()) loop.push_back(id);
  target->setLoopDomain(std::move(loop));
  return target_pos;
}

}  // namespace

int64_t TransformReplay::replay(TensorView* target, const TensorView* reference,
                                const IdMap& reference_to_target, int64_t reference_pos) {
  return replayFrom(target, reference, reference_to_target, reference_pos,
                    target->getLogicalDomain());
}

int64_t TransformReplay::replayOnLoop(TensorView* target, const TensorView* reference,
                                      const IdMap& reference_to_loop, int64_t reference_pos) {
  return replayFrom(target, reference, reference_to_loop, reference_pos, target->getLoopDomain());
}

int64_t TransformReplay::replayPasC(TensorView* producer, const TensorView* consumer,
                                    int64_t consumer_pos) {
  return replay(producer, consumer,
                PairwiseLogicalDomainMap(producer, consumer).mapConsumerToProducer(), consumer_pos);
}

int64_t TransformReplay::replayCasP(TensorView* consumer, const TensorView* producer,
                                    int64_t producer_pos) {
  return replay(consumer, producer,
                PairwiseLogicalDomainMap(producer, consumer).mapProducerToConsumer(), producer_pos);
}

}  // namespace mf
