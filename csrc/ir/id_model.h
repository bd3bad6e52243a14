//! IdModel: which IterDomains of a fusion are the same axis (nvFuser's IdModel, reduced to
//! one disjoint-set graph per mode). Built from the per-expr PairwiseLogicalDomainMap and
//! propagated through split/merge, it is what transform replay, the propagator, inlining and
//! lowering ask when they need to know whether two loops are one.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ir/tensor_view.h"

namespace mf {

class Fusion;

enum class IdMappingMode {
  //! Same axis with the same extent: mapped through ops (broadcast to broadcast only), and
  //! the outputs of splits by equal factors / merges of mapped inputs, and a reshape's merged
  //! logical axis split in its loop by the merge's inner extent mapped to the merge's inputs.
  Exact,
  //! Exact, plus a producer's broadcast axis with the consumer axis it is broadcast to: the
  //! two can share one loop (over the consumer's extent); and the output of a merge with a
  //! broadcast that no tensor iterates (a squeezed one) mapped to the merge's other input,
  //! whose index it is (nvFuser's AlmostExact trivial merge).
  Permissive,
  //! Permissive, plus the output of a merge with a broadcast input mapped to its other input
  //! (nvFuser's forwarding of broadcast merges): `[i0]` split by 128 and `[i0, b]` merged then
  //! split by 128 (itself mapped to `[i0, i1]` merged then split) may take the same thread
  //! bindings. Not one loop: they differ in extent; parallelizeAllLike alone asks this.
  PermissiveForwarded,
  //! nvFuser's names of the first two.
  EXACT = Exact,
  PERMISSIVE = Permissive,
};

class IdModel;

//! nvFuser's ValGraph: one mode's graph of an IdModel (IdModel::idGraph). For ported code:
//! `graph.disjointValSets().strictAreMapped(a, b)` asks it, and `graph.mapVals(a, b)` maps two
//! axes and what follows from that, as building the model does (splits by equal factors of
//! mapped axes, merges of mapped axes, ...).
class ValGraph {
 public:
  const ValGraph& disjointValSets() const { return *this; }
  bool strictAreMapped(const IterDomain* a, const IterDomain* b) const;
  void mapVals(const IterDomain* a, const IterDomain* b);

 private:
  friend class IdModel;
  ValGraph(IdModel& model, IdMappingMode mode) : model_(model), mode_(mode) {}
  IdModel& model_;
  IdMappingMode mode_;
};

class IdModel {
 public:
  //! The graphs over every IterDomain of every TensorView of `fusion` (Fusion::allTvs).
  explicit IdModel(const Fusion& fusion);
  //! nvFuser's spellings: the constructor builds every graph, so buildExactGraph() has
  //! nothing left to do; idGraph(mode) is the mode's graph.
  explicit IdModel(const Fusion* fusion) : IdModel(*fusion) {}
  void buildExactGraph() {}
  ValGraph& idGraph(IdMappingMode mode);

  bool areMapped(const IterDomain* a, const IterDomain* b, IdMappingMode mode) const;
  //! True for a broadcast axis that some tensor iterates: its Permissive group holds an axis
  //! that is not a broadcast, or one padded into an Iteration axis (a Resize to more than
  //! one element). A merge with a broadcast that is not iterated is its other input.
  bool isIteratedBroadcast(const IterDomain* id) const;
  //! The members of `id`'s group, ordered by name.
  std::vector<IterDomain*> group(const IterDomain* id, IdMappingMode mode) const;
  //! The groups with more than one member, one per line, each ordered by name and the lines
  //! by their first member: `{iS2{i0}, iS4{i0}}`.
  std::string toString(IdMappingMode mode) const;

 private:
  // Union-find over IterDomains; one per mode.
  class DisjointSets {
   public:
    void add(const IterDomain* id);
    const IterDomain* find(const IterDomain* id) const;
    bool unite(const IterDomain* a, const IterDomain* b);  //!< true when two sets merged
    std::vector<std::vector<IterDomain*>> sets() const;

   private:
    mutable std::unordered_map<const IterDomain*, const IterDomain*> parent_;
  };

  friend class ValGraph;
  void build(DisjointSets& sets, bool map_broadcast, bool forward_broadcast_merges) const;
  //! Unites what the unions in `sets` imply (splits, merges and resizes of mapped axes), until
  //! nothing changes.
  void propagate(DisjointSets& sets, bool map_broadcast, bool forward_broadcast_merges) const;
  //! The roots of the groups of `sets` that iterate (isIteratedBroadcast's rule).
  std::unordered_set<const IterDomain*> iteratedGroups(const DisjointSets& sets) const;
  DisjointSets& sets(IdMappingMode mode) {
    return const_cast<DisjointSets&>(std::as_const(*this).sets(mode));
  }
  const DisjointSets& sets(IdMappingMode mode) const {
    switch (mode) {
      case IdMappingMode::Exact:
        return exact_;
      case IdMappingMode::Permissive:
        return permissive_;
      case IdMappingMode::PermissiveForwarded:
        break;
    }
    return forwarded_;
  }

  std::vector<TensorView*> tvs_;
  std::vector<IterDomain*> ids_;
  std::vector<Split*> splits_;  // the definitions of ids_, by kind
  std::vector<Merge*> merges_;
  std::vector<Resize*> resizes_;
  DisjointSets exact_;
  DisjointSets permissive_;
  DisjointSets forwarded_;
  std::unordered_set<const IterDomain*> iterated_permissive_;  // iteratedGroups(permissive_)
  mutable std::unordered_map<const IterDomain*, std::vector<IterDomain*>> members_[3];  // group()'s
  std::vector<std::unique_ptr<ValGraph>> graphs_;  // idGraph()'s, made when asked
};

//! Why loop axis `axis` of `producer` cannot be the same loop as axis `axis` of `consumer`
//! (empty when it can): the consumer has that axis, the producer's is not vectorized (a
//! vectorized axis is one whole-vector copy, not a loop) nor a serial reduction axis (its
//! consumers read the finished result), the two are mapped (permissively:
//! a loop over a broadcast axis of the producer runs over the consumer's extent, the
//! producer computed at broadcast index 0 in each iteration) and bound alike.
std::string sharedLoopMismatch(const IdModel& model, const TensorView* producer,
                               const TensorView* consumer, int64_t axis);

//! The number of leading loop axes of `producer` that can be shared with every consumer
//! (sharedLoopMismatch empty for each). The scheduler's inlining and lowering's checks both
//! use it.
int64_t maxSharedLoopPosition(const IdModel& model, const TensorView* producer);

}  // namespace mf
