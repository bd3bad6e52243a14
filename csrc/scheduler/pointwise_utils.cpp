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
}

bool PointwiseDomainMap::covers(const TensorView* tv, std::string* missing) const {
  std::vector<IterDomain*> have;
  for (IterDomain* id : TensorDomain::noReductions(tv->getLogicalDomain()))
    if (!id->isBroadcast()) have.push_back(id);
  for (const TensorView* other : inputs_outputs_)
    for (IterDomain* id : TensorDomain::noReductions(other->getLogicalDomain())) {
      if (id->isBroadcast() ||
          std::any_of(have.begin(), have.end(), [&](IterDomain* h) { return areMapped(h, id); }))
        continue;
      if (missing != nullptr)
        *missing = fmt::format("{} of {}", id->toString(), other->toInlineString());
      return false;
    }
  return true;
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
