#include "scheduler/pointwise_utils.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "ir/exprs.h"
#include "ir/fusion.h"

namespace mf {
namespace {

int64_t concreteAxes(const TensorView* tv) {
  const std::vector<IterDomain*> ids = TensorDomain::noReductions(tv->getLogicalDomain());
  return std::count_if(ids.begin(), ids.end(), [](IterDomain* id) { return !id->isBroadcast(); });
}

bool isLayoutOffset(const Val* v) {
  for (Expr* use : v->uses())
    if (auto* op = dynamic_cast<PreprocessGroupedMatmulInputSf*>(use))
      if (op->inputOffsets() == v || op->outputOffsets() == v) return true;
  return false;
}

}  // namespace

PointwiseDomainMap::PointwiseDomainMap(Fusion* fusion) {
  auto add = [&](TensorView* tv) {
    if (std::find(inputs_outputs_.begin(), inputs_outputs_.end(), tv) == inputs_outputs_.end())
      inputs_outputs_.push_back(tv);
  };
  for (Val* v : fusion->inputs())
    if (auto* tv = dynamic_cast<TensorView*>(v); tv && !tv->uses().empty() && !isLayoutOffset(tv))
      add(tv);
  for (Val* v : fusion->outputs())
    if (auto* tv = dynamic_cast<TensorView*>(v)) add(tv);

  for (TensorView* tv : fusion->allTvs())
    for (IterDomain* id : tv->getLogicalDomain()) {
      index_.emplace(id, static_cast<int64_t>(parent_.size()));
      parent_.push_back(static_cast<int64_t>(parent_.size()));
    }

  // Maps `in`'s axes, in order, to `out`'s axes at `positions`.
  auto mapAxes = [&](const TensorView* in, const TensorView* out, std::vector<size_t> positions) {
    const std::vector<IterDomain*> a = TensorDomain::noReductions(in->getLogicalDomain());
    const std::vector<IterDomain*> b = TensorDomain::noReductions(out->getLogicalDomain());
    MF_ASSERT(a.size() == positions.size(), "{} -> {}: rank mismatch", in->toString(),
              out->toString());
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i]->isBroadcast() == b.at(positions[i])->isBroadcast()) map(a[i], b[positions[i]]);
  };
  auto identity = [](const TensorView* tv) {
    std::vector<size_t> p(TensorDomain::noReductions(tv->getLogicalDomain()).size());
    for (size_t i = 0; i < p.size(); ++i) p[i] = i;
    return p;
  };
  for (Expr* e : fusion->exprs()) {
    auto* out = dynamic_cast<TensorView*>(e->output(0));
    if (out == nullptr) continue;
    if (auto* layout = dynamic_cast<PreprocessGroupedMatmulInputSf*>(e)) {
      mapAxes(layout->in()->as<TensorView>(), out, identity(out));
    } else if (auto* bcast = dynamic_cast<BroadcastOp*>(e)) {
      std::vector<size_t> positions;
      for (size_t i = 0; i < bcast->isBroadcastDims().size(); ++i)
        if (!bcast->isBroadcastDims()[i]) positions.push_back(i);
      mapAxes(bcast->in()->as<TensorView>(), out, positions);
    } else {
      for (Val* in : e->inputs())
        if (auto* in_tv = dynamic_cast<TensorView*>(in)) mapAxes(in_tv, out, identity(out));
    }
  }
}

int64_t PointwiseDomainMap::classOf(const IterDomain* id) const {
  auto it = index_.find(id);
  MF_ASSERT(it != index_.end(), "{} is not a logical axis of this fusion", id->toString());
  int64_t i = it->second;
  while (parent_[i] != i) i = parent_[i] = parent_[parent_[i]];
  return i;
}

void PointwiseDomainMap::map(const IterDomain* a, const IterDomain* b) {
  parent_[classOf(a)] = classOf(b);
}

bool PointwiseDomainMap::areMapped(const IterDomain* a, const IterDomain* b) const {
  return classOf(a) == classOf(b);
}

bool PointwiseDomainMap::covers(const TensorView* tv, std::string* missing) const {
  std::vector<int64_t> have;
  for (IterDomain* id : TensorDomain::noReductions(tv->getLogicalDomain()))
    if (!id->isBroadcast()) have.push_back(classOf(id));
  for (const TensorView* other : inputs_outputs_)
    for (IterDomain* id : TensorDomain::noReductions(other->getLogicalDomain())) {
      if (id->isBroadcast() || std::count(have.begin(), have.end(), classOf(id)) > 0) continue;
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
