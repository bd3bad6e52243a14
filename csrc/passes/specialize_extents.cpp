#include <algorithm>
#include <functional>
#include <unordered_map>

#include "ir/builder.h"
#include "ir/fusion.h"
#include "ir/id_model.h"
#include "ir/mutator.h"
#include "ir/shape_exprs.h"
#include "passes/passes.h"

namespace mf {
namespace {

// The splits between a reshape output's root and logical axes.
std::vector<Split*> reshapeSplits(const TensorView* tv) {
  std::vector<Split*> splits;
  const auto& root = tv->getMaybeRootDomain();
  std::function<void(IterDomain*)> visit = [&](IterDomain* id) {
    if (std::find(root.begin(), root.end(), id) != root.end() || id->definition() == nullptr)
      return;
    if (auto* s = dynamic_cast<Split*>(id->definition());
        s != nullptr && std::find(splits.begin(), splits.end(), s) == splits.end())
      splits.push_back(s);
    for (Val* in : id->definition()->inputs())
      if (auto* in_id = dynamic_cast<IterDomain*>(in)) visit(in_id);
  };
  for (IterDomain* id : tv->getLogicalDomain()) visit(id);
  return splits;
}

}  // namespace

void specializeExtents(Fusion& fusion, const FusionPassRequest& request) {
  IdModel model(fusion);
  std::unordered_map<Val*, int64_t> values;  // symbolic extent -> its value
  std::vector<Val*> order;                   // of the keys, as found (a deterministic rewrite)
  auto know = [&](IterDomain* axis, int64_t value) {
    bool changed = false;
    for (IterDomain* id : model.group(axis, IdMappingMode::Exact)) {
      Val* extent = id->extent();
      if (extent->isConst()) {
        MF_ASSERT(extent->constInt() == value, "{}: extent {} is not {}", id->toString(),
                  extent->toInlineString(), value);
        continue;
      }
      if (values.emplace(extent, value).second) {
        order.push_back(extent);
        changed = true;
      }
    }
    return changed;
  };
  auto valueOf = [&](IterDomain* id) -> std::optional<int64_t> {
    if (std::optional<int64_t> c = id->extent()->constInt()) return c;
    auto it = values.find(id->extent());
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
  for (const KnownExtent& known : request.known_extents) know(known.axis, known.value);
  // A reshape's splits are exact (its sizes multiply to its input's): an axis split into
  // known extents is their product, and so is the input axis it is read from (`[M, 144]` read
  // as `[M, 9, 16]`, 16 known: 144), so the input's loops replayed from it are constant too.
  for (bool changed = true; changed;) {
    changed = false;
    for (Expr* e : fusion.exprs()) {
      if (!e->isA<ViewOp>()) continue;
      for (Split* s : reshapeSplits(e->output(0)->as<TensorView>())) {
        std::optional<int64_t> outer = valueOf(s->outer()), inner = valueOf(s->inner());
        if (outer && inner && !valueOf(s->in())) changed |= know(s->in(), *outer * *inner);
      }
    }
  }
  IrMutator mutator;
  // A derived extent too (a reshape's `ceilDiv(i1, 9)`): its expression stays, unread.
  for (Val* extent : order) mutator.registerMutation(extent, constInt(values.at(extent)));
  mutator.mutate(fusion);
}

}  // namespace mf
