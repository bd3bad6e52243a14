#include "scheduler/tools/transform_propagator.h"

#include <algorithm>
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

struct Edge {
  TensorView* from;
  TensorView* to;
  bool to_is_producer;
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

  std::vector<Edge> tree, frontier;
  size_t order = 0;
  auto expand = [&](TensorView* tv) {
    if (tv->domain()->loopFromAllocation()) return;  // its loop maps to nothing
    for (TensorView* p : producerTvsOf(tv))
      if (!visited.count(p)) frontier.push_back(makeEdge(preserved[tv], tv, p, true, order++));
    // A reshape's output is reached from its consumers only: a producer's loop transforms
    // cannot be replayed onto its logical domain (they apply to its root).
    for (TensorView* c : consumerTvsOf(tv))
      if (!visited.count(c) && !(c->definition() && c->definition()->isA<ViewOp>()))
        frontier.push_back(makeEdge(preserved[tv], tv, c, false, order++));
  };
  expand(reference);
  // Prim's algorithm for a maximum spanning tree, the weight being the preserved axes.
  while (!frontier.empty()) {
    auto best =
        std::min_element(frontier.begin(), frontier.end(), [](const Edge& a, const Edge& b) {
          if (a.axes.size() != b.axes.size()) return a.axes.size() > b.axes.size();
          if (a.mapped != b.mapped) return a.mapped > b.mapped;
          return a.order < b.order;
        });
    Edge edge = std::move(*best);
    frontier.erase(best);
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
    if (edge.to_is_producer)
      TransformReplay::replayPasC(edge.to, edge.from);
    else
      TransformReplay::replayCasP(edge.to, edge.from);
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

}  // namespace mf
