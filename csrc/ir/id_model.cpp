#include "ir/id_model.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_set>

#include "ir/fusion.h"
#include "ir/logical_domain_map.h"

namespace mf {

void IdModel::DisjointSets::add(const IterDomain* id) {
  parent_.try_emplace(id, id);
}

const IterDomain* IdModel::DisjointSets::find(const IterDomain* id) const {
  auto it = parent_.find(id);
  if (it == parent_.end()) return nullptr;
  if (it->second == id) return id;
  const IterDomain* root = find(it->second);
  it->second = root;
  return root;
}

bool IdModel::DisjointSets::unite(const IterDomain* a, const IterDomain* b) {
  const IterDomain* ra = find(a);
  const IterDomain* rb = find(b);
  MF_ASSERT(ra != nullptr && rb != nullptr, "unite of an axis outside the IdModel");
  if (ra == rb) return false;
  // The smaller name becomes the root, so printing and iteration do not depend on hashing.
  if (rb->name() < ra->name()) std::swap(ra, rb);
  parent_[rb] = ra;
  return true;
}

std::vector<std::vector<IterDomain*>> IdModel::DisjointSets::sets() const {
  std::map<int64_t, std::vector<IterDomain*>> by_root;
  for (const auto& [id, parent] : parent_)
    by_root[find(id)->name()].push_back(const_cast<IterDomain*>(id));
  std::vector<std::vector<IterDomain*>> out;
  for (auto& [root, members] : by_root) {
    std::sort(members.begin(), members.end(),
              [](IterDomain* a, IterDomain* b) { return a->name() < b->name(); });
    out.push_back(std::move(members));
  }
  return out;
}

IdModel::IdModel(const Fusion& fusion) : tvs_(fusion.allTvs()) {
  std::unordered_set<IterDomain*> seen;
  for (TensorView* tv : tvs_)
    for (IterDomain* id : tv->domain()->allIds())
      if (seen.insert(id).second) ids_.push_back(id);
  std::unordered_set<Expr*> defs;
  for (IterDomain* id : ids_) {
    Expr* def = id->definition();
    if (def == nullptr || !defs.insert(def).second) continue;
    visitIdExpr(
        def, [&](Split* s) { splits_.push_back(s); }, [&](Merge* m) { merges_.push_back(m); },
        [&](Resize* r) { resizes_.push_back(r); });
  }
  build(exact_, /*map_broadcast=*/false, /*forward_broadcast_merges=*/false);
  build(permissive_, /*map_broadcast=*/true, /*forward_broadcast_merges=*/false);
  iterated_permissive_ = iteratedGroups(permissive_);
  build(forwarded_, /*map_broadcast=*/true, /*forward_broadcast_merges=*/true);
}

namespace {

// A split factor, a resize width or an extent, compared as the same value: a constant by its
// value, anything else by the Val itself.
using FactorKey = std::pair<const Val*, int64_t>;
FactorKey factorKey(Val* v) {
  return v->constInt() ? FactorKey{nullptr, *v->constInt()} : FactorKey{v, 0};
}

}  // namespace

void IdModel::build(DisjointSets& sets, bool map_broadcast, bool forward_broadcast_merges) const {
  for (IterDomain* id : ids_) sets.add(id);
  for (TensorView* c : tvs_)
    for (TensorView* p : producerTvsOf(c))
      for (auto [pid, cid] : PairwiseLogicalDomainMap(p, c).mapBroadcast(map_broadcast).pairs())
        sets.unite(pid, cid);

  std::unordered_set<const IterDomain*> logical;  // every tensor's logical axes
  for (TensorView* tv : tvs_)
    logical.insert(tv->getLogicalDomain().begin(), tv->getLogicalDomain().end());
  // A reshape's merged logical axis split in its loop by the merge's inner extent (an inner
  // split) or outer extent (an outer split) gives back the merge's inputs: index
  // (a * nb + b) / nb = a and % nb = b. Only there, of two iterated axes: on a loop merge, or
  // through mapped axes (a permissive set holds a broadcast merge's output with its other
  // input), it bound two loop axes of one tensor alike. Depends on no union: once.
  for (Split* s : splits_) {
    auto* m = dynamic_cast<Merge*>(s->in()->definition());
    if (m == nullptr || !logical.count(m->out()) || m->outer()->isBroadcast() ||
        m->inner()->isBroadcast())
      continue;
    IterDomain* by = s->innerSplit() ? m->inner() : m->outer();
    if (factorKey(s->factor()) != factorKey(by->extent())) continue;
    sets.unite(s->outer(), m->outer());
    sets.unite(s->inner(), m->inner());
  }
  propagate(sets, map_broadcast, forward_broadcast_merges);
}

void IdModel::propagate(DisjointSets& sets, bool map_broadcast,
                        bool forward_broadcast_merges) const {
  if (forward_broadcast_merges)
    for (Merge* m : merges_) {
      if (m->inner()->isBroadcast()) sets.unite(m->out(), m->outer());
      if (m->outer()->isBroadcast()) sets.unite(m->out(), m->inner());
    }
  // A broadcast no tensor iterates (iteratedGroups: its group holds broadcasts only and none
  // is padded into an Iteration axis) is an index that is always 0, so a merge with it is its
  // other input (nvFuser's AlmostExact trivial merge). A broadcast some consumer iterates is
  // left alone: with the broadcast mapped to that axis, the merge would become the merge of
  // the two, and the other input the same axis as it.
  auto forwardTrivialMerges = [&] {
    bool changed = false;
    if (!map_broadcast || forward_broadcast_merges) return changed;
    const std::unordered_set<const IterDomain*> iterated = iteratedGroups(sets);
    auto trivial = [&](IterDomain* id) {
      return id->isBroadcast() && !iterated.count(sets.find(id));
    };
    for (Merge* m : merges_) {
      if (trivial(m->inner())) changed |= sets.unite(m->out(), m->outer());
      if (trivial(m->outer())) changed |= sets.unite(m->out(), m->inner());
    }
    return changed;
  };
  // Splits by equal factors of one axis give the same axes, and merges of the same axes the
  // same axis; each union can enable another, so repeat until nothing changes. Each pass
  // unites an expr's outputs with those of the first expr of its bucket (inputs' groups,
  // factors or widths): linear per pass, where comparing every pair was quadratic.
  for (bool changed = true; changed;) {
    changed = false;
    std::map<std::tuple<const IterDomain*, bool, FactorKey>, Split*> split_of;
    for (Split* s : splits_) {
      auto [it, first] =
          split_of.try_emplace({sets.find(s->in()), s->innerSplit(), factorKey(s->factor())}, s);
      if (first) continue;
      changed |= sets.unite(it->second->outer(), s->outer());
      changed |= sets.unite(it->second->inner(), s->inner());
    }
    std::map<std::pair<const IterDomain*, const IterDomain*>, Merge*> merge_of;
    for (Merge* m : merges_) {
      auto [it, first] = merge_of.try_emplace({sets.find(m->outer()), sets.find(m->inner())}, m);
      if (!first) changed |= sets.unite(it->second->out(), m->out());
    }
    // Equal widths on one axis give the same axis (a pad replayed onto its producer).
    std::map<std::tuple<const IterDomain*, FactorKey, FactorKey>, Resize*> resize_of;
    for (Resize* r : resizes_) {
      auto [it, first] = resize_of.try_emplace(
          {sets.find(r->in()), factorKey(r->left()), factorKey(r->right())}, r);
      if (!first) changed |= sets.unite(it->second->out(), r->out());
    }
    if (!changed) changed = forwardTrivialMerges();
  }
}

ValGraph& IdModel::idGraph(IdMappingMode mode) {
  for (auto& graph : graphs_)
    if (graph->mode_ == mode) return *graph;
  graphs_.push_back(std::unique_ptr<ValGraph>(new ValGraph(*this, mode)));
  return *graphs_.back();
}

bool ValGraph::strictAreMapped(const IterDomain* a, const IterDomain* b) const {
  return model_.areMapped(a, b, mode_);
}

void ValGraph::mapVals(const IterDomain* a, const IterDomain* b) {
  IdModel::DisjointSets& sets = model_.sets(mode_);
  MF_CHECK(sets.find(a) != nullptr && sets.find(b) != nullptr,
           "ValGraph::mapVals: {} or {} is not an axis of the IdModel's fusion", a->toString(),
           b->toString());
  if (!sets.unite(a, b)) return;
  const bool map_broadcast = mode_ != IdMappingMode::Exact;
  model_.propagate(sets, map_broadcast, mode_ == IdMappingMode::PermissiveForwarded);
  model_.members_[static_cast<size_t>(mode_)].clear();
  if (mode_ == IdMappingMode::Permissive)
    model_.iterated_permissive_ = model_.iteratedGroups(model_.permissive_);
}

std::unordered_set<const IterDomain*> IdModel::iteratedGroups(const DisjointSets& sets) const {
  std::unordered_set<const IterDomain*> roots;
  for (IterDomain* id : ids_) {
    if (!id->isBroadcast()) roots.insert(sets.find(id));
    // A pad of a broadcast to more than one element iterates it.
    if (auto* r = dynamic_cast<Resize*>(id->definition()); r != nullptr && !id->isBroadcast())
      roots.insert(sets.find(r->in()));
  }
  return roots;
}

bool IdModel::isIteratedBroadcast(const IterDomain* id) const {
  return id->isBroadcast() && iterated_permissive_.count(permissive_.find(id));
}

bool IdModel::areMapped(const IterDomain* a, const IterDomain* b, IdMappingMode mode) const {
  if (a == b) return true;
  const IterDomain* ra = sets(mode).find(a);
  return ra != nullptr && ra == sets(mode).find(b);
}

std::vector<IterDomain*> IdModel::group(const IterDomain* id, IdMappingMode mode) const {
  // Every group of the mode, by root, made at the first question (then one lookup each).
  auto& members = members_[static_cast<size_t>(mode)];
  if (members.empty())
    for (std::vector<IterDomain*>& set : sets(mode).sets()) members[sets(mode).find(set[0])] = set;
  auto it = members.find(sets(mode).find(id));
  return it == members.end() ? std::vector<IterDomain*>{} : it->second;
}

std::string IdModel::toString(IdMappingMode mode) const {
  std::string s;
  for (const std::vector<IterDomain*>& members : sets(mode).sets()) {
    if (members.size() < 2) continue;
    std::string line;
    for (IterDomain* id : members) line += (line.empty() ? "" : ", ") + id->toString();
    s += "{" + line + "}\n";
  }
  return s;
}

std::string sharedLoopMismatch(const IdModel& model, const TensorView* producer,
                               const TensorView* consumer, int64_t i) {
  if (i >= consumer->nDims())
    return fmt::format("its consumer {} has only {} axes", consumer->toString(), consumer->nDims());
  IterDomain* p = producer->axis(i);
  IterDomain* c = consumer->axis(i);
  // The producer's buffer must hold the whole vector.
  if (p->parallelType() == ParallelType::Vectorize)
    return fmt::format("axis {} ({}) is vectorized; a vectorized axis cannot be inlined", i,
                       p->toString());
  // Inside a serial reduction loop the result is partial; a block reduction (threadIdx.x)
  // all-reduces, so every thread may read the result there.
  if (p->isReduction() && !isThreadDim(p->parallelType()))
    return fmt::format(
        "axis {} ({}) is a serial reduction axis; consumers read the result after that loop", i,
        p->toString());
  if (!model.areMapped(p, c, IdMappingMode::Permissive) || p->parallelType() != c->parallelType()) {
    return fmt::format(
        "axis {} ({}) does not map to axis {} ({}) of its consumer {}; apply the "
        "same split/merge/parallelize to both",
        i, p->toString(), i, c->toString(), consumer->toString());
  }
  return {};
}

int64_t maxSharedLoopPosition(const IdModel& model, const TensorView* producer) {
  std::vector<TensorView*> consumers = consumerTvsOf(producer);
  int64_t pos = 0;
  while (pos < producer->nDims() &&
         std::all_of(consumers.begin(), consumers.end(), [&](TensorView* c) {
           return sharedLoopMismatch(model, producer, c, pos).empty();
         }))
    ++pos;
  return pos;
}

}  // namespace mf
