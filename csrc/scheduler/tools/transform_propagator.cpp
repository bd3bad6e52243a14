#include "scheduler/tools/transform_propagator.h"

#include <algorithm>
#include <functional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/id_model.h"
#include "ir/shape_exprs.h"
#include "ir/transform_replay.h"

namespace mf {
namespace {

// The reference's logical axes still present in one tensor: reference axis -> its axis.
using PreservedAxes = IdMap;

// Across one producer/consumer edge.
IdMap stepMap(const TensorView* from, const TensorView* to, bool to_is_producer) {
  return to_is_producer ? PairwiseLogicalDomainMap(to, from).mapConsumerToProducer()
                        : PairwiseLogicalDomainMap(from, to).mapProducerToConsumer();
}

// What of `from`'s preserved axes reaches `to` across one producer/consumer edge. An axis
// that becomes a broadcast (extent 1 where the reference iterates) is not preserved.
PreservedAxes preservedAcross(const PreservedAxes& from_axes, const TensorView* from,
                              const TensorView* to, bool to_is_producer) {
  IdMap step = stepMap(from, to, to_is_producer);
  PreservedAxes out;
  for (auto [ref_id, id] : from_axes) {
    auto it = step.find(id);
    if (it == step.end() || (it->second->isBroadcast() && !id->isBroadcast())) continue;
    out.emplace(ref_id, it->second);
  }
  return out;
}

// Whether `tv`'s logical axes are Resize exprs of its root (a pad's or slice's output).
bool resizedFromRoot(const TensorView* tv) {
  const auto& logical = tv->getLogicalDomain();
  return tv->domain()->hasRoot() && std::any_of(logical.begin(), logical.end(), [](IterDomain* id) {
           return id->definition() != nullptr && id->definition()->isA<Resize>();
         });
}

// Sets `tv`'s loop (a merge-only reshape's output, isMergeOnlyReshape) to its logical axes with
// each merge split back by its inner extent, and returns its root axes -> those loop axes (IdModel
// maps each pair).
//   [iS0{i0}, iS3{9 * 16}] (iS3 = merge(iS1{9}, iS2{16}))  ->  loop [iS0, iS4{9}, iS5{16}]
IdMap unmergedLoop(TensorView* tv) {
  const auto& root = tv->getMaybeRootDomain();
  IdMap root_to_loop;
  std::vector<IterDomain*> loop;
  std::function<void(IterDomain*, IterDomain*)> unmerge = [&](IterDomain* id, IterDomain* as) {
    auto* m = dynamic_cast<Merge*>(id->definition());
    if (m == nullptr || std::find(root.begin(), root.end(), id) != root.end()) {
      root_to_loop.emplace(id, as);
      loop.push_back(as);
      return;
    }
    auto [outer, inner] = IterDomain::split(as, m->inner()->extent(), /*inner_split=*/true);
    unmerge(m->outer(), outer);
    unmerge(m->inner(), inner);
  };
  FusionGuard fg(tv->fusion());
  for (IterDomain* id : tv->getLogicalDomain()) unmerge(id, id);
  tv->setLoopDomain(std::move(loop));
  return root_to_loop;
}

struct Edge {
  TensorView* from;
  TensorView* to;
  bool to_is_producer;
  // A producer -> reshape-output edge (isMergeOnlyReshape): taken only when no other edge is left,
  // so a reshape's output keeps taking its loop from its consumers where it has them.
  bool into_merge;
  PreservedAxes axes;
  // Second weight: the axes of `to` the edge maps at all, broadcasts included, so that
  // `[i0, b] = broadcast([i0])` takes its loop from a consumer `[i0, b]` (the broadcast axis
  // merged in, as the reference's) rather than from its producer `[i0]`.
  size_t mapped;
  size_t order;  // ties go to the edge found first, so the tree is deterministic
};

Edge makeEdge(const PreservedAxes& from_axes, TensorView* from, TensorView* to, bool to_is_producer,
              size_t order) {
  return {from,
          to,
          to_is_producer,
          !to_is_producer && isMergeOnlyReshape(to->definition()),
          preservedAcross(from_axes, from, to, to_is_producer),
          stepMap(from, to, to_is_producer).size(),
          order};
}

// The maximum spanning tree of propagateTransforms, as the edges in the order they are
// taken (each tensor's parent comes before it).
std::vector<Edge> spanningTree(TensorView* reference) {
  std::unordered_set<TensorView*> visited{reference};
  std::unordered_map<TensorView*, PreservedAxes> preserved;
  for (IterDomain* id : reference->getLogicalDomain()) preserved[reference].emplace(id, id);

  // Prim's algorithm for a maximum spanning tree, the weight being the preserved axes: the
  // frontier ordered best first (a set, so each step is logarithmic in its size).
  auto better = [](const Edge& a, const Edge& b) {
    if (a.into_merge != b.into_merge) return !a.into_merge;
    if (a.axes.size() != b.axes.size()) return a.axes.size() > b.axes.size();
    if (a.mapped != b.mapped) return a.mapped > b.mapped;
    return a.order < b.order;
  };
  std::vector<Edge> tree;
  std::set<Edge, decltype(better)> frontier(better);
  size_t order = 0;
  auto expand = [&](TensorView* tv) {
    if (tv->domain()->loopFromAllocation()) return;  // its loop maps to nothing
    for (TensorView* p : producerTvsOf(tv))
      if (!visited.count(p)) frontier.insert(makeEdge(preserved[tv], tv, p, true, order++));
    // A reshape's, pad's or slice's output is reached from its consumers only: a producer's
    // loop transforms cannot be replayed onto its logical domain (they apply to its root; its
    // producer's loop is replayed from its reshaped or resized one, never the other way). But
    // a reshape that only merges axes is split back into its root's axes (unmergedLoop).
    for (TensorView* c : consumerTvsOf(tv))
      if (!visited.count(c) &&
          (!(c->definition() && c->definition()->isA<ViewOp>()) ||
           isMergeOnlyReshape(c->definition())) &&
          !resizedFromRoot(c))
        frontier.insert(makeEdge(preserved[tv], tv, c, false, order++));
  };
  expand(reference);
  while (!frontier.empty()) {
    Edge edge = std::move(frontier.extract(frontier.begin()).value());
    if (!visited.insert(edge.to).second) continue;
    preserved[edge.to] = edge.axes;
    tree.push_back(std::move(edge));
    expand(tree.back().to);
  }
  return tree;
}

}  // namespace

std::unordered_map<const TensorView*, IdMap> propagatedAxes(TensorView* reference) {
  std::unordered_map<const TensorView*, IdMap> axes;
  for (IterDomain* id : reference->getLogicalDomain()) axes[reference].emplace(id, id);
  for (Edge& edge : spanningTree(reference)) axes[edge.to] = std::move(edge.axes);
  return axes;
}

std::unordered_map<const TensorView*, const TensorView*> propagationParents(TensorView* reference) {
  std::unordered_map<const TensorView*, const TensorView*> parents;
  parents[reference] = nullptr;
  for (const Edge& edge : spanningTree(reference)) parents[edge.to] = edge.from;
  return parents;
}

void propagateTransforms(TensorView* reference) {
  MF_CHECK(!reference->domain()->loopFromAllocation(),
           "propagateTransforms: the reference {} loops over its declared allocation domain; "
           "pick a tensor whose loop domain is derived from its logical domain",
           reference->toString());
  for (const Edge& edge : spanningTree(reference)) {
    if (edge.to->domain()->loopFromAllocation()) continue;
    if (edge.to_is_producer) {
      TransformReplay::replayPasC(edge.to, edge.from);
    } else if (edge.into_merge) {
      // The producer's logical axes map to the reshape's root, which maps to the split loop.
      const IdMap root_to_loop = unmergedLoop(edge.to);
      IdMap to_loop;
      for (auto [p_id, root_id] : stepMap(edge.from, edge.to, false))
        if (auto it = root_to_loop.find(root_id); it != root_to_loop.end())
          to_loop.emplace(p_id, it->second);
      TransformReplay::replayOnLoop(edge.to, edge.from, to_loop);
    } else {
      TransformReplay::replayCasP(edge.to, edge.from);
    }
    edge.to->setComputeAtPosition(0);
  }
}

void parallelizeAllLike(TensorView* reference, const std::vector<TensorView*>& tvs,
                        std::vector<ParallelType> types) {
  Fusion& fusion = *reference->fusion();
  IdModel model(fusion);
  std::vector<TensorView*> targets = tvs.empty() ? fusion.allTvs() : tvs;
  auto selected = [&](ParallelType p) {
    return p != ParallelType::Serial &&
           (types.empty() || std::find(types.begin(), types.end(), p) != types.end());
  };
  for (TensorView* tv : targets) {
    if (tv == reference) continue;
    bool vectorizable = tv->isFusionInput() ||
                        (tv->definition() != nullptr && tv->definition()->isA<LoadStoreOp>());
    for (IterDomain* id : tv->getLoopDomain()) {
      for (IterDomain* ref_id : reference->getLoopDomain()) {
        ParallelType p = ref_id->parallelType();
        if (!selected(p) || !model.areMapped(id, ref_id, IdMappingMode::PermissiveForwarded))
          continue;
        if (p == ParallelType::Vectorize && (!vectorizable || id->isBroadcast())) continue;
        id->parallelize(p);
        break;
      }
    }
  }
}

void mergeRange(TensorView* tv, int64_t begin, int64_t end) {
  for (int64_t i = end - 1; i > begin; --i) tv->merge(begin, begin + 1);
}

void limitGridAxis(TensorView* tv, int64_t pos, int64_t limit) {
  const ParallelType grid = tv->axis(pos)->parallelType();
  tv->axis(pos)->parallelize(ParallelType::Serial);
  tv->split(pos, limit);
  tv->axis(pos + 1)->parallelize(grid);
  if (pos != 0) tv->reorder({{pos, 0}});
}

void MaxLogicalDomainInfoSpanningTree::traverse(TransformPropagator* propagator) const {
  MF_CHECK(propagator != nullptr && propagator->from() == reference_,
           "MaxLogicalDomainInfoSpanningTree::traverse: the tree is rooted at {}, but the "
           "propagator replays {}; give both the same tensor",
           reference_->toString(), propagator ? propagator->from()->toString() : "null");
  propagateTransforms(reference_);
}

}  // namespace mf
