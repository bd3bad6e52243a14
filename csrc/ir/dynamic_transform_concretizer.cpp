// DynamicTransform::concretizeFusion (ir/dynamic_transform.h): the concretizer. It decides
// what replaces each dynamic node and leaves the rewriting to IrMutator, whose one generic
// mechanism rebuilds every user of a replaced node: the four domains of every TensorDomain,
// every extent expression and every Expr operand (nvFuser #5384, where the layout op's
// padded allocation domain was missed by per-case code, cannot recur here).
#include <fmt/format.h>

#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "ir/builder.h"
#include "ir/dynamic_transform.h"
#include "ir/fusion.h"
#include "ir/logical_domain_map.h"
#include "ir/mutator.h"
#include "ir/shape_exprs.h"
#include "ir/traversal.h"

namespace mf {
namespace {

// The IterType a merge of these gives (IterDomain::merge's rule, on concrete types).
IterType mergedType(IterType outer, IterType inner) {
  if (outer == IterType::Broadcast) return inner;
  if (inner == IterType::Broadcast) return outer;
  if (outer == IterType::Symbolic || inner == IterType::Symbolic) return IterType::Symbolic;
  return outer;
}

class Concretizer {
 public:
  Concretizer(Fusion* fusion, const DynamicTransformConcretizationInfo& info)
      : fusion_(fusion), info_(info) {}

  void run() {
    FusionGuard fg(fusion_);
    const DynamicTransformInitialInfo& init = *info_.initialInfo();
    for (const auto& [i, view] : info_.getReshapeTransforms())
      reshapes_[init.getDynamicReshapedTensorViews().at(i)] = &view;
    for (const auto& [i, sizes] : info_.getEmptyReshapes())
      empty_reshapes_[init.getDynamicReshapedTensorViews().at(i)] = &sizes;
    for (const auto& [i, t] : info_.getResizeIterTypes())
      resized_[init.getDynamicResizedIterDomains().at(i)] = t;
    for (const auto& [i, flags] : info_.getExpandAxes())
      expands_[init.getDynamicExpandedTensorViews().at(i)] = &flags;
    for (int64_t i : info_.getEmptyExtents()) {
      Val* extent = init.getMaybeZeroExtents().at(i);
      Val* zero = constInt(0, extent->dtype());
      // A scalar input stays an input (it is bound at run time): only the axes it is the
      // extent of get the constant. Any other extent is replaced everywhere it is used.
      if (extent->isFusionInput())
        zero_input_extents_.emplace(extent, zero);
      else
        mutator_.registerMutation(extent, zero);
    }
    // Topological order of the definition: each tensor's producers are concrete (and in the
    // graph) when it is concretized.
    for (TensorView* tv : fusion_->allTvs()) {
      if (auto it = reshapes_.find(tv); it != reshapes_.end())
        concretizeReshape(tv, *it->second);
      else
        concretizeTensor(tv);
    }
    mutator_.mutate(*fusion_);
    // The dynamic reshapes compute nothing in use now; removed, so their inputs' uses are
    // those of the graph (consumerTvsOf, the schedulers' traversals).
    for (const auto& [old, view] : reshapes_)
      if (Expr* def = old->definition(); def != nullptr && def->isA<ViewOp>())
        fusion_->removeExpr(def);
    for (TensorView* tv : fusion_->allTvs())
      MF_ASSERT(!tv->domain()->hasSymbolicAxis(),
                "concretizeFusion: {} still has a Symbolic axis after concretization",
                tv->toString());
  }

 private:
  // The static form replaces the reshape's output; its consumers are rebuilt on it when
  // they are concretized. The sizes are the reshape's size Vals, so the concretized fusion
  // serves every run with the same structure.
  void concretizeReshape(TensorView* old, const AnalyzeViewResult& view) {
    auto* in = mutator_.maybeMutated(old->definition()->as<ViewOp>()->in())->as<TensorView>();
    std::vector<Val*> sizes;
    for (IterDomain* id : old->getLogicalDomain()) sizes.push_back(sizeVal(id->extent()));
    TensorView* concrete = applyViewTransforms(in, view, sizes);
    for (size_t i = 0; i < view.broadcast_axes.size(); ++i)
      if (view.broadcast_axes[i]) broadcast_extents_.insert(old->getLogicalDomain()[i]->extent());
    mutator_.registerMutation(old, concrete);
  }

  // The IterType the info gives a dynamic Resize's output. Rebuilding a tensor on its
  // producers' replacements (an empty extent substituted by 0) recreates its Resize exprs, so
  // the output may be the replacement of the one the info recorded.
  std::optional<IterType> resizedType(IterDomain* out) const {
    if (auto it = resized_.find(out); it != resized_.end()) return it->second;
    for (const auto& [id, type] : resized_)
      if (mutator_.maybeMutated(id) == out) return type;
    return std::nullopt;
  }

  // `extent` with the empty-extent substitutions applied.
  Val* sizeVal(Val* extent) const {
    Val* v = mutator_.maybeMutated(extent);
    if (auto it = zero_input_extents_.find(v); it != zero_input_extents_.end()) return it->second;
    return v;
  }

  void concretizeTensor(TensorView* tv) {
    // First rebuild the definition on its producers' replacements (a reshape's static
    // form), so that the producers read below are those of the graph.
    mutator_.mutate({tv});
    checkSqueeze(tv);
    std::unordered_map<IterDomain*, IterType> types;
    std::unordered_map<IterDomain*, Val*> extents;
    auto typeOf = [&](IterDomain* id) {
      auto it = types.find(id);
      return it != types.end() ? it->second : id->iterType();
    };
    const std::vector<IterDomain*>& root = tv->domain()->maybeRoot();
    const std::vector<bool>* expand = nullptr;
    if (auto it = expands_.find(tv); it != expands_.end()) expand = it->second;
    for (size_t i = 0; i < root.size(); ++i) {
      IterDomain* id = root[i];
      if (expand != nullptr && expand->at(i)) {
        types[id] = IterType::Iteration;
        extents[id] = sizeVal(tv->definition()->as<ExpandOp>()->expandedSizes().at(i));
      } else if (id->isSymbolic()) {
        types[id] = fromProducers(tv, id, extents);
      }
    }
    if (auto empty = empty_reshapes_.find(tv); empty != empty_reshapes_.end()) {
      // A reshape of an empty tensor keeps its dynamic form (its logical axes are not derived
      // from its root): size 1 is a broadcast.
      const std::vector<IterDomain*>& logical = tv->getLogicalDomain();
      for (size_t i = 0; i < logical.size(); ++i)
        if (logical[i]->isSymbolic())
          types[logical[i]] = empty->second->at(i) == 1 ? IterType::Broadcast : IterType::Iteration;
    }
    for (Expr* e : tv->domain()->allTransforms()) {
      visitIdExpr(
          e,
          [&](Split* s) {
            for (IterDomain* out : {s->outer(), s->inner()})
              if (out->isSymbolic()) types[out] = typeOf(s->in());
          },
          [&](Merge* m) {
            if (m->out()->isSymbolic())
              types[m->out()] = mergedType(typeOf(m->outer()), typeOf(m->inner()));
          },
          [&](Resize* r) {
            if (!r->out()->isSymbolic()) return;
            std::optional<IterType> t = resizedType(r->out());
            types[r->out()] = t ? *t : typeOf(r->in());
          });
    }
    for (IterDomain* id : tv->domain()->allIds()) {
      auto t = types.find(id);
      auto e = extents.find(id);
      Val* extent = e != extents.end() ? e->second : sizeVal(id->extent());
      const bool retype = t != types.end() && t->second != id->iterType();
      if (!retype && extent == mutator_.maybeMutated(id->extent())) continue;
      const IterType type = retype ? t->second : id->iterType();
      MF_ASSERT(type != IterType::Symbolic, "concretizeFusion: no IterType for {} of {}",
                id->toString(), tv->toString());
      if (type == IterType::Broadcast && id->isSymbolic()) broadcast_extents_.insert(id->extent());
      mutator_.registerMutation(id, IterDomainBuilder(id).extent(extent).iterType(type).build());
    }
    mutator_.mutate({tv});
  }

  // A Symbolic root axis takes the type of the producer axes mapped to it: Iteration when
  // one is, else Broadcast. An axis whose extent came from a producer axis that became a
  // broadcast takes the extent of an Iteration producer axis instead.
  IterType fromProducers(TensorView* tv, IterDomain* id,
                         std::unordered_map<IterDomain*, Val*>& extents) {
    IterDomain* iteration = nullptr;
    bool broadcast = false;
    for (TensorView* producer : producerTvsOf(tv))
      for (auto [p, c] : PairwiseLogicalDomainMap(producer, tv).pairs()) {
        if (c != id) continue;
        if (p->iterType() == IterType::Iteration && iteration == nullptr) iteration = p;
        broadcast = broadcast || p->isBroadcast();
      }
    if (iteration != nullptr) {
      if (broadcast_extents_.count(id->extent())) extents[id] = iteration->extent();
      return IterType::Iteration;
    }
    MF_ASSERT(broadcast, "concretizeFusion: no concrete producer axis maps to {} of {}",
              id->toString(), tv->toString());
    return IterType::Broadcast;
  }

  // A squeeze of an axis that concretized to something other than a broadcast.
  void checkSqueeze(TensorView* tv) {
    auto* squeeze = dynamic_cast<SqueezeOp*>(tv->definition());
    if (squeeze == nullptr) return;
    auto* in = squeeze->in()->as<TensorView>();
    const std::vector<IterDomain*> ids = TensorDomain::noReductions(in->getLogicalDomain());
    // An Iteration axis of symbolic extent was checked to be 1 in this run (the info).
    for (size_t d = 0; d < ids.size(); ++d)
      MF_CHECK(!squeeze->isSqueezeDims().at(d) || ids[d]->isBroadcast() ||
                   (ids[d]->iterType() == IterType::Iteration && isSqueezeCheckedPerRun(ids[d])),
               "squeeze: axis {} ({}) of {} must concretize to IterType::Broadcast but found "
               "IterType::{}; only a size-1 axis can be squeezed",
               d, ids[d]->toString(), in->toString(), mf::toString(ids[d]->iterType()));
  }

  Fusion* fusion_;
  const DynamicTransformConcretizationInfo& info_;
  IrMutator mutator_;
  std::unordered_map<TensorView*, const AnalyzeViewResult*> reshapes_;
  std::unordered_map<TensorView*, const std::vector<int64_t>*> empty_reshapes_;
  std::unordered_map<IterDomain*, IterType> resized_;
  std::unordered_map<TensorView*, const std::vector<bool>*> expands_;
  // Scalar inputs that are 0 in this run -> the constant their axes get.
  std::unordered_map<Val*, Val*> zero_input_extents_;
  // Extents of Symbolic axes that became broadcasts (size 1 in this run, not in general).
  std::unordered_set<Val*> broadcast_extents_;
};

}  // namespace

void DynamicTransform::concretizeFusion(Fusion* fusion,
                                        const DynamicTransformConcretizationInfo* info) {
  MF_CHECK(fusion != nullptr && info != nullptr,
           "DynamicTransform::concretizeFusion: the fusion and the info must not be null");
  MF_CHECK(info->initialInfo()->fusion() == fusion,
           "DynamicTransform::concretizeFusion: the info was made for another fusion; build it "
           "from DynamicTransform::getInitialInfo(fusion) (or setInitialInfo for a copy)");
  if (info->isTrivial()) return;
  Concretizer(fusion, *info).run();
}

}  // namespace mf
