#include "scheduler/pointwise_utils.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/op_traits.h"

namespace mf {
namespace {

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
  for (TensorView* tv : fusion->allTvs())
    for (Expr* t : tv->domain()->allTransforms())
      if (auto* r = dynamic_cast<Resize*>(t);
          r != nullptr && std::find(resizes_.begin(), resizes_.end(), r) == resizes_.end())
        resizes_.push_back(r);
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
  std::vector<IterDomain*> have;
  // A broadcast axis a resize made (a slice to one element) is a loop of its own sources.
  for (IterDomain* id : TensorDomain::noReductions(tv->getLogicalDomain()))
    if (!id->isBroadcast() || resizeSources(id).size() > 1) have.push_back(id);
  for (const TensorView* other : inputs_outputs_)
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

std::optional<std::string> resizeRejectReason(Fusion* fusion, TensorView* reference) {
  std::vector<const Val*> upstream{reference};
  for (size_t i = 0; i < upstream.size(); ++i)
    if (Expr* def = upstream[i]->definition())
      for (Val* in : def->inputs())
        if (in->kind() == ValKind::TensorView &&
            std::find(upstream.begin(), upstream.end(), in) == upstream.end())
          upstream.push_back(in);
  for (Expr* e : fusion->exprs()) {
    if (!e->isA<PadOp>() && !e->isA<SliceOp>() && !e->isA<CatOp>()) continue;
    if (std::find(upstream.begin(), upstream.end(), e->output(0)) == upstream.end())
      return fmt::format(
          "the resize op `{}` does not lead to the reference {}: its loop would not be the "
          "schedule's",
          e->toString(), reference->toInlineString());
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
  for (Val* v : fusion->outputs()) {
    auto* tv = dynamic_cast<TensorView*>(v);
    if (tv == nullptr) continue;
    std::string missing;
    if (!map.covers(tv, &missing)) {
      lacks.push_back(fmt::format("{} lacks {}", tv->toInlineString(), missing));
      continue;
    }
    if (best == nullptr || better(tv, best)) best = tv;
  }
  if (best == nullptr && why_not != nullptr)
    *why_not =
        fmt::format("no output covers every input and output axis ({})", fmt::join(lacks, "; "));
  return best;
}

}  // namespace mf
