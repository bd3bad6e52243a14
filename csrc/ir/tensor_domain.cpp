#include "ir/tensor_domain.h"

#include <algorithm>
#include <functional>
#include <unordered_set>

#include "ir/builder.h"
#include "ir/fusion.h"

namespace mf {

TensorDomain::TensorDomain(Fusion* fusion, std::vector<IterDomain*> logical, Contiguity contiguity)
    : Val(fusion, ValKind::TensorDomain, DataType::Index),
      logical_(std::move(logical)),
      loop_(logical_),
      contiguity_(contiguity.empty() ? filledContiguity(logical_, true) : std::move(contiguity)) {
  setContiguity(contiguity_);
}

TensorDomain::TensorDomain(Fusion* fusion, std::vector<IterDomain*> root,
                           std::vector<IterDomain*> logical, std::vector<IterDomain*> allocation,
                           std::vector<IterDomain*> loop, Contiguity contiguity,
                           bool allocation_declared)
    : Val(fusion, ValKind::TensorDomain, DataType::Index),
      root_(std::move(root)),
      logical_(std::move(logical)),
      allocation_(std::move(allocation)),
      loop_(std::move(loop)),
      allocation_declared_(allocation_declared) {
  setContiguity(std::move(contiguity));
}

std::vector<IterDomain*> TensorDomain::noReductions(const std::vector<IterDomain*>& ids) {
  std::vector<IterDomain*> out;
  for (IterDomain* id : ids)
    if (!id->isReduction()) out.push_back(id);
  return out;
}

Contiguity TensorDomain::filledContiguity(const std::vector<IterDomain*>& ids, bool contiguous) {
  Contiguity c;
  for (IterDomain* id : ids)
    c.push_back(id->isBroadcast() || id->isReduction() ? std::nullopt
                                                       : std::optional<bool>(contiguous));
  return c;
}

void TensorDomain::setContiguity(Contiguity contiguity) {
  const auto& alloc = maybeAllocation();
  MF_CHECK(contiguity.size() == alloc.size(),
           "contiguity of {}: expected one flag per allocation axis ({}), got {}", toString(),
           alloc.size(), contiguity.size());
  for (size_t i = 0; i < alloc.size(); ++i) {
    bool special = alloc[i]->isBroadcast() || alloc[i]->isReduction();
    MF_CHECK(special != contiguity[i].has_value(),
             "contiguity of {}: axis {} ({}) must have {} flag", toString(), i,
             alloc[i]->toString(), special ? "no (nullopt)" : "a true/false");
  }
  contiguity_ = std::move(contiguity);
}

std::vector<const std::vector<IterDomain*>*> TensorDomain::allDomains() const {
  std::vector<const std::vector<IterDomain*>*> out;
  for (const auto* d : {&root_, &logical_, &allocation_, &loop_})
    if (!d->empty()) out.push_back(d);
  return out;
}

std::vector<IterDomain*> TensorDomain::allIds() const {
  std::vector<IterDomain*> out;
  std::unordered_set<IterDomain*> seen;
  auto visit = [&](IterDomain* id) {
    if (seen.insert(id).second) out.push_back(id);
  };
  for (const auto* d : allDomains())
    for (IterDomain* id : *d) visit(id);
  // Walk back from every domain through definitions to reach intermediate axes and the
  // siblings of split outputs; stop at the root/logical axes (their producers' history
  // belongs to other tensors).
  std::unordered_set<IterDomain*> stop(maybeRoot().begin(), maybeRoot().end());
  for (size_t i = 0; i < out.size(); ++i) {
    IterDomain* id = out[i];
    if (stop.count(id) || id->definition() == nullptr) continue;
    for (Val* v : id->definition()->inputs())
      if (auto* in = dynamic_cast<IterDomain*>(v)) visit(in);
    for (Val* v : id->definition()->outputs()) visit(v->as<IterDomain>());
  }
  return out;
}

bool TensorDomain::hasSymbolicAxis() const {
  const std::vector<IterDomain*> ids = allIds();
  return std::any_of(ids.begin(), ids.end(), [](IterDomain* id) { return id->isSymbolic(); });
}

std::vector<Expr*> TensorDomain::allTransforms() const {
  std::vector<IterDomain*> ids = allIds();
  std::unordered_set<IterDomain*> stop(maybeRoot().begin(), maybeRoot().end());
  std::unordered_set<IterDomain*> members(ids.begin(), ids.end());
  std::vector<Expr*> order;
  std::unordered_set<Expr*> done;
  // Post-order DFS over definitions yields producers before consumers.
  std::function<void(IterDomain*)> visit = [&](IterDomain* id) {
    Expr* def = id->definition();
    if (stop.count(id) || def == nullptr || done.count(def)) return;
    done.insert(def);
    for (Val* v : def->inputs())
      if (auto* in = dynamic_cast<IterDomain*>(v); in && members.count(in)) visit(in);
    order.push_back(def);
  };
  for (IterDomain* id : ids) visit(id);
  return order;
}

int64_t TensorDomain::wrapAxis(int64_t axis, int64_t size, std::string_view what) {
  int64_t a = axis < 0 ? axis + size : axis;
  MF_CHECK(a >= 0 && a < size, "{}: axis {} is out of range for {} axes", what, axis, size);
  return a;
}

IterDomain* TensorDomain::axis(int64_t i) const {
  return loop_[wrapAxis(i, nDims(), "axis")];
}

void TensorDomain::split(int64_t axis, Val* factor, bool inner_split) {
  int64_t a = wrapAxis(axis, nDims(), "split");
  MF_CHECK(!loop_[a]->isParallelized() || loop_[a]->parallelType() == ParallelType::Serial,
           "split: axis {} ({}) is already parallelized; split before parallelizing", axis,
           loop_[a]->toString());
  auto [outer, inner] = IterDomain::split(loop_[a], factor, inner_split);
  loop_[a] = outer;
  loop_.insert(loop_.begin() + a + 1, inner);
}

void TensorDomain::merge(int64_t outer, int64_t inner) {
  int64_t o = wrapAxis(outer, nDims(), "merge");
  int64_t i = wrapAxis(inner, nDims(), "merge");
  MF_CHECK(o != i, "merge: cannot merge axis {} with itself", outer);
  IterDomain* merged = IterDomain::merge(loop_[o], loop_[i]);
  // The merged axis takes the outer position (nvFuser's convention for non-adjacent merges:
  // the smaller position).
  int64_t pos = std::min(o, i);
  loop_.erase(loop_.begin() + std::max(o, i));
  loop_[pos] = merged;
}

void TensorDomain::reorder(const std::vector<std::pair<int64_t, int64_t>>& old_to_new) {
  int64_t n = nDims();
  std::vector<IterDomain*> result(n, nullptr);
  std::vector<bool> taken(n, false);
  for (auto [from, to] : old_to_new) {
    int64_t f = wrapAxis(from, n, "reorder"), t = wrapAxis(to, n, "reorder");
    MF_CHECK(result[t] == nullptr, "reorder: two axes moved to position {}", to);
    MF_CHECK(!taken[f], "reorder: axis {} moved twice", from);
    result[t] = loop_[f];
    taken[f] = true;
  }
  size_t next = 0;
  for (int64_t f = 0; f < n; ++f) {
    if (taken[f]) continue;
    while (result[next] != nullptr) ++next;
    result[next] = loop_[f];
  }
  loop_ = std::move(result);
}

namespace {
// The axis `id` is ultimately derived from, following each split/merge's first input (the
// logical and declared allocation axes are disjoint and have no definitions).
IterDomain* firstSource(IterDomain* id) {
  while (id->definition() != nullptr) id = id->definition()->input(0)->as<IterDomain>();
  return id;
}
}  // namespace

bool TensorDomain::isAllocationAxis(const IterDomain* id) const {
  return std::find(allocation_.begin(), allocation_.end(), id) != allocation_.end();
}

void TensorDomain::setLoopDomain(std::vector<IterDomain*> loop) {
  std::string context = fmt::format("setLoopDomain of {}", toString());
  if (allocation_declared_ && !loop.empty()) {
    // A loop over the declared (padded) allocation domain is the only alternative to logical.
    bool derived = std::all_of(loop.begin(), loop.end(),
                               [&](IterDomain* id) { return isAllocationAxis(firstSource(id)); });
    if (derived) {
      validateDomainEquivalence(allocation_, loop, context);
      loop_ = std::move(loop);
      return;
    }
  }
  validateDomainEquivalence(logical_, loop, context);
  loop_ = std::move(loop);
}

bool TensorDomain::loopFromAllocation() const {
  if (!allocation_declared_ || loop_.empty()) return false;
  // Walk the first loop axis back through its definitions; logical and allocation axes are
  // disjoint and have no definitions of their own.
  return isAllocationAxis(firstSource(loop_.front()));
}

void TensorDomain::setAllocationDomain(std::vector<IterDomain*> allocation, Contiguity contiguity) {
  validateDomainEquivalence(logical_, allocation,
                            fmt::format("setAllocationDomain of {}", toString()));
  installAllocation(std::move(allocation), std::move(contiguity), /*declared=*/false);
}

void TensorDomain::setDeclaredAllocationDomain(std::vector<IterDomain*> allocation,
                                               Contiguity contiguity) {
  MF_CHECK(!allocation.empty(), "setDeclaredAllocationDomain of {}: empty domain", toString());
  installAllocation(std::move(allocation), std::move(contiguity), /*declared=*/true);
}

void TensorDomain::installAllocation(std::vector<IterDomain*> allocation, Contiguity contiguity,
                                     bool declared) {
  std::vector<IterDomain*> saved = std::move(allocation_);
  bool saved_declared = allocation_declared_;
  allocation_ = std::move(allocation);
  allocation_declared_ = declared;
  try {
    setContiguity(std::move(contiguity));
  } catch (...) {
    // A rejected call leaves the domain as it was, a declared one still declared.
    allocation_ = std::move(saved);
    allocation_declared_ = saved_declared;
    throw;
  }
}

bool TensorDomain::hasReduction() const {
  return std::any_of(logical_.begin(), logical_.end(),
                     [](const IterDomain* id) { return id->isReduction(); });
}

}  // namespace mf
