#include "scheduler/pointwise_utils.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <unordered_set>

#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/id_model.h"
#include "ir/op_traits.h"
#include "ir/shape_exprs.h"
#include "scheduler/tools/transform_propagator.h"

namespace mf {
namespace {

// Whether `id` is derived from `source` through the splits and merges above `root`.
bool dependsOn(IterDomain* id, IterDomain* source, const std::vector<IterDomain*>& root) {
  if (id == source) return true;
  if (std::find(root.begin(), root.end(), id) != root.end() || id->definition() == nullptr)
    return false;
  for (Val* v : id->definition()->inputs())
    if (auto* in = dynamic_cast<IterDomain*>(v); in && dependsOn(in, source, root)) return true;
  return false;
}

// The first shape op (reshape, squeeze, expand, permute, pad, slice, cat) `v` is computed
// from through pointwise ops and broadcasts, or null.
const Expr* shapeOpAbove(const Val* v, std::unordered_set<const Val*>& seen) {
  const Expr* def = v->definition();
  if (def == nullptr || !seen.insert(v).second) return nullptr;
  if (def->isA<ViewOp>() || def->isA<SqueezeOp>() || def->isA<ExpandOp>() || isPermute(def) ||
      isResizeOp(def))
    return def;
  for (Val* in : def->inputs())
    if (in->kind() == ValKind::TensorView)
      if (const Expr* shape = shapeOpAbove(in, seen)) return shape;
  return nullptr;
}

int64_t concreteAxes(const TensorView* tv) {
  const std::vector<IterDomain*> ids = TensorDomain::noReductions(tv->getLogicalDomain());
  return std::count_if(ids.begin(), ids.end(), [](IterDomain* id) { return !id->isBroadcast(); });
}

}  // namespace

PointwiseDomainMap::PointwiseDomainMap(Fusion* fusion) : model_(*fusion) {
  auto add = [&](TensorView* tv) {
    if (std::find(inputs_outputs_.begin(), inputs_outputs_.end(), tv) == inputs_outputs_.end())
      inputs_outputs_.push_back(tv);
  };
  for (Val* v : fusion->inputs())
    if (auto* tv = dynamic_cast<TensorView*>(v); tv && !tv->uses().empty() && !isReadWhole(tv))
      add(tv);
  for (Val* v : fusion->outputs())
    if (auto* tv = dynamic_cast<TensorView*>(v)) add(tv);
  for (TensorView* tv : fusion->allTvs()) {
    if (tv->definition() != nullptr && tv->definition()->isA<ViewOp>()) views_.push_back(tv);
    for (Expr* t : tv->domain()->allTransforms())
      if (auto* r = dynamic_cast<Resize*>(t);
          r != nullptr && std::find(resizes_.begin(), resizes_.end(), r) == resizes_.end())
        resizes_.push_back(r);
  }
}

std::vector<IterDomain*> PointwiseDomainMap::coveredThroughViews(
    std::vector<IterDomain*> have) const {
  auto covered = [&](IterDomain* id) {
    return std::any_of(have.begin(), have.end(), [&](IterDomain* h) { return areMapped(h, id); });
  };
  // A root axis of a reshape is covered when every concrete logical axis derived from it is:
  // a schedule of the reshape's output replays onto its producer (chains repeat the step).
  for (bool changed = true; changed;) {
    changed = false;
    for (const TensorView* view : views_) {
      const TensorDomain* td = view->domain();
      for (IterDomain* r : td->root()) {
        if (r->isBroadcast() || covered(r)) continue;
        bool all = true, any = false;
        for (IterDomain* l : td->logical()) {
          if (l->isBroadcast() || !dependsOn(l, r, td->root())) continue;
          any = true;
          all = all && covered(l);
        }
        if (any && all) {
          have.push_back(r);
          changed = true;
        }
      }
    }
  }
  return have;
}

std::vector<const IterDomain*> PointwiseDomainMap::resizeSources(const IterDomain* id) const {
  std::vector<const IterDomain*> out{id};
  for (size_t i = 0; i < out.size(); ++i)
    for (IterDomain* m : model_.group(out[i], IdMappingMode::Exact))
      if (auto* r = dynamic_cast<Resize*>(m->definition());
          r != nullptr && std::find(out.begin(), out.end(), r->in()) == out.end())
        out.push_back(r->in());
  return out;
}

bool PointwiseDomainMap::areMappedThroughResize(const IterDomain* a, const IterDomain* b) const {
  if (areMapped(a, b)) return true;
  if (resizes_.empty()) return false;
  const std::vector<const IterDomain*> sa = resizeSources(a), sb = resizeSources(b);
  return std::any_of(sa.begin(), sa.end(), [&](const IterDomain* x) {
    return std::any_of(sb.begin(), sb.end(), [&](const IterDomain* y) { return areMapped(x, y); });
  });
}

std::vector<Resize*> PointwiseDomainMap::resizesOf(const IterDomain* id) const {
  std::vector<Resize*> out;
  for (Resize* r : resizes_)
    if (areMappedThroughResize(r->out(), id)) out.push_back(r);
  return out;
}

bool PointwiseDomainMap::covers(const TensorView* tv, std::string* missing) const {
  return covers(tv, inputs_outputs_, missing);
}

bool PointwiseDomainMap::covers(const TensorView* tv, const std::vector<TensorView*>& targets,
                                std::string* missing) const {
  std::vector<IterDomain*> have;
  // A broadcast axis a resize made (a slice to one element) is a loop of its own sources.
  for (IterDomain* id : TensorDomain::noReductions(tv->getLogicalDomain()))
    if (!id->isBroadcast() || resizeSources(id).size() > 1) have.push_back(id);
  have = coveredThroughViews(std::move(have));
  for (const TensorView* other : targets)
    for (IterDomain* id : TensorDomain::noReductions(other->getLogicalDomain())) {
      if (id->isBroadcast() || std::any_of(have.begin(), have.end(), [&](IterDomain* h) {
            return areMappedThroughResize(h, id);
          }))
        continue;
      if (missing != nullptr)
        *missing = fmt::format("{} of {}", id->toString(), other->toInlineString());
      return false;
    }
  return true;
}

namespace {

// `v` and the tensors it is computed from.
std::vector<const Val*> upstreamOf(const Val* v) {
  std::vector<const Val*> upstream{v};
  for (size_t i = 0; i < upstream.size(); ++i)
    if (Expr* def = upstream[i]->definition())
      for (Val* in : def->inputs())
        if (in->kind() == ValKind::TensorView &&
            std::find(upstream.begin(), upstream.end(), in) == upstream.end())
          upstream.push_back(in);
  return upstream;
}

// Whether the resize op `e` may crop its input: a slice, or a pad by a width that is not a
// constant >= 0. A cat's own pads (used by the CatOp only) widen by the other inputs'
// extents.
bool mayCrop(const Expr* e) {
  if (e->isA<SliceOp>()) return true;
  const auto* pad = dynamic_cast<const PadOp*>(e);
  if (pad == nullptr) return false;
  const auto& uses = pad->out()->uses();
  if (!uses.empty() &&
      std::all_of(uses.begin(), uses.end(), [](const Expr* u) { return u->isA<CatOp>(); }))
    return false;
  for (size_t axis : pad->paddedAxes()) {
    auto [left, right] = pad->widths(axis);
    for (Val* w : {left, right})
      if (std::optional<int64_t> c = w->constInt(); !c || *c < 0) return true;
  }
  return false;
}

}  // namespace

std::optional<std::string> resizeRejectReason(Fusion* fusion, TensorView* reference) {
  const std::vector<const Val*> upstream = upstreamOf(reference);
  auto isUpstream = [&](const Val* v) {
    return std::find(upstream.begin(), upstream.end(), v) != upstream.end();
  };
  for (Expr* e : fusion->exprs()) {
    if (!isResizeOp(e)) continue;
    if (!isUpstream(e->output(0)))
      return fmt::format(
          "the resize op `{}` does not lead to the reference {}: its loop would not be the "
          "schedule's",
          e->toString(), reference->toInlineString());
    // The loop is the reference's: mapped back through a crop it covers only the kept part
    // of the input, so an output computed before the crop would have elements no thread
    // writes (pad(x) an output and slice(pad(x)) the reference).
    if (!mayCrop(e)) continue;
    for (const Val* before : upstreamOf(e->input(0)))
      if (before != reference && before->isFusionOutput())
        return fmt::format(
            "the output {} is computed before the crop `{}` that leads to the reference {}: "
            "the reference's loop would not cover it",
            before->toInlineString(), e->toString(), reference->toInlineString());
  }
  return std::nullopt;
}

TensorView* findReferenceTensor(Fusion* fusion, const PointwiseDomainMap& map,
                                std::string* why_not) {
  TensorView* best = nullptr;
  std::vector<std::string> lacks;
  auto better = [](TensorView* a, TensorView* b) {
    if (a->isFusionInput() != b->isFusionInput()) return !a->isFusionInput();
    return concreteAxes(a) > concreteAxes(b);
  };
  auto refused = [&](TensorView* ref) {
    return resizeRejectReason(fusion, ref) || shapeOpsRejectReason(fusion, ref);
  };
  for (Val* v : fusion->outputs()) {
    auto* tv = dynamic_cast<TensorView*>(v);
    if (tv == nullptr) continue;
    std::string missing;
    if (!map.covers(tv, &missing)) {
      lacks.push_back(fmt::format("{} lacks {}", tv->toInlineString(), missing));
      continue;
    }
    // On a tie, the first unless a later one is downstream of every resize op and reshape
    // (the order of a segment's outputs must not decide whether it is schedulable).
    if (best == nullptr || better(tv, best) || (!better(best, tv) && refused(best) && !refused(tv)))
      best = tv;
  }
  if (best == nullptr && why_not != nullptr)
    *why_not =
        fmt::format("no output covers every input and output axis ({})", fmt::join(lacks, "; "));
  return best;
}

std::optional<std::string> symbolicAxisRejectReason(Fusion* fusion) {
  for (TensorView* tv : fusion->allTvs())
    for (IterDomain* id : tv->getLogicalDomain())
      if (id->isSymbolic())
        return fmt::format(
            "{} has the Symbolic axis {} (a dynamic reshape or expand): concretize the fusion "
            "first",
            tv->toString(), id->toString());
  return std::nullopt;
}

std::optional<std::string> shapeOpsRejectReason(Fusion* fusion, TensorView* reference) {
  const std::vector<TensorView*> tvs = fusion->allTvs();
  std::vector<TensorView*> views;
  std::optional<IdModel> model;
  for (TensorView* tv : tvs) {
    Expr* def = tv->definition();
    if (def == nullptr) continue;
    if (auto* squeeze = dynamic_cast<SqueezeOp*>(def)) {
      const auto in_ids =
          TensorDomain::noReductions(squeeze->in()->as<TensorView>()->getLogicalDomain());
      for (size_t d = 0; d < in_ids.size(); ++d) {
        if (!squeeze->isSqueezeDims().at(d)) continue;
        // A squeeze of an Iteration axis (1 in this run: a static reshape's size-1 claim)
        // drops an axis its producer iterates: a view of its input (the segmenter's).
        if (!in_ids[d]->isBroadcast())
          return fmt::format("`{}` squeezes the Iteration axis {}", def->toString(),
                             in_ids[d]->toString());
        // A squeezed broadcast that another use iterates (broadcast against an axis there):
        // the producer's loop would cover that axis for one consumer and not the other.
        if (!model) model.emplace(*fusion);
        if (model->isIteratedBroadcast(in_ids[d]))
          return fmt::format(
              "`{}` squeezes the broadcast axis {}, which another use iterates (broadcast "
              "against an axis or padded); one loop nest cannot both drop and iterate it",
              def->toString(), in_ids[d]->toString());
      }
    }
    if ((def->isA<ViewOp>() || isPermute(def)) && tv->domain()->hasAllocation())
      return fmt::format("`{}`: the output of a reshape or permute has an allocation domain",
                         def->toString());
    if (!def->isA<ViewOp>()) continue;
    views.push_back(tv);
    auto* in = def->input(0)->as<TensorView>();
    if (in->uses().size() > 1)
      return fmt::format(
          "{} is read by the reshape `{}` and by {} other expr(s); a pointwise schedule has one "
          "loop nest per element of the reshaped index space",
          in->toString(), def->toString(), in->uses().size() - 1);
  }
  // A broadcast the scheduler cannot move up to an input (it follows a shape op) is a new
  // axis in the middle of the fusion, which a replay onto its producer cannot reproduce.
  for (Expr* e : fusion->exprs()) {
    auto* bcast = dynamic_cast<BroadcastOp*>(e);
    if (bcast == nullptr) continue;
    std::unordered_set<const Val*> seen;
    if (const Expr* shape = shapeOpAbove(bcast->in(), seen))
      return fmt::format(
          "the broadcast `{}` follows the shape op `{}`; a broadcast axis inserted after a "
          "reshape, squeeze, expand, permute, pad, slice or cat is not scheduled in one kernel",
          e->toString(), shape->toString());
  }
  if (views.empty()) return std::nullopt;
  const auto parents = propagationParents(reference);
  for (TensorView* tv : tvs) {
    if (parents.count(tv)) continue;
    return fmt::format(
        "the reference {} does not reach {} except through a reshape's producer (the reference "
        "is upstream of a reshape); transforms are replayed from a reshape onto its producer "
        "only",
        reference->toString(), tv->toString());
  }
  for (TensorView* view : views) {
    auto* in = view->definition()->input(0)->as<TensorView>();
    if (in->isFusionInput() || parents.at(in) == view) continue;
    return fmt::format(
        "the reference {} reaches {} other than through the reshape `{}` it feeds; its loop would "
        "not follow the reshape",
        reference->toString(), in->toString(), view->definition()->toString());
  }
  return std::nullopt;
}

}  // namespace mf
