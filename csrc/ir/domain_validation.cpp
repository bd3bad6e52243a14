// validateDomainEquivalence: replays the Split/Merge exprs between two domains on a frontier
// of axes, so a layout that drops, repeats or invents an axis is rejected with a message
// that names it.
#include <algorithm>
#include <functional>
#include <unordered_set>

#include "ir/tensor_domain.h"

namespace mf {
namespace {

std::string listIds(const std::vector<IterDomain*>& ids) {
  std::string s;
  for (IterDomain* id : ids) s += (s.empty() ? "" : ", ") + id->toString();
  return "[" + s + "]";
}

}  // namespace

void validateDomainEquivalence(const std::vector<IterDomain*>& from,
                               const std::vector<IterDomain*>& to, std::string_view context) {
  std::unordered_set<IterDomain*> from_set(from.begin(), from.end());
  std::unordered_set<IterDomain*> to_set;
  for (IterDomain* id : to)
    MF_CHECK(to_set.insert(id).second, "{}: axis {} appears twice in {}", context, id->toString(),
             listIds(to));

  // Exprs between the domains, found walking back from `to`; an axis that reaches neither
  // `from` nor a definition is unrelated to `from`.
  std::vector<Expr*> order;
  std::unordered_set<Expr*> seen;
  std::function<void(IterDomain*, IterDomain*)> walk = [&](IterDomain* id, IterDomain* start) {
    if (from_set.count(id)) return;
    Expr* def = id->definition();
    MF_CHECK(def != nullptr,
             "{}: axis {} is not derived from {} (through split/merge); an allocation domain "
             "must be a permutation or split/merge of the logical domain",
             context, start->toString(), listIds(from));
    if (!seen.insert(def).second) return;
    for (Val* v : def->inputs())
      if (auto* in = dynamic_cast<IterDomain*>(v)) walk(in, start);
    order.push_back(def);
  };
  for (IterDomain* id : to) walk(id, id);

  std::unordered_set<IterDomain*> frontier = from_set;
  for (Expr* e : order) {
    for (Val* v : e->inputs()) {
      auto* in = dynamic_cast<IterDomain*>(v);
      if (in == nullptr) continue;
      MF_CHECK(frontier.erase(in) == 1,
               "{}: axis {} is used twice in {} (an axis and an axis derived from it)", context,
               in->toString(), listIds(to));
    }
    for (Val* v : e->outputs()) frontier.insert(v->as<IterDomain>());
  }
  for (IterDomain* id : to)
    MF_CHECK(frontier.count(id), "{}: {} holds {} and an axis derived from it", context,
             listIds(to), id->toString());
  for (IterDomain* id : from) {
    if (!frontier.count(id) || to_set.count(id) || id->isBroadcast()) continue;
    MF_THROW("{}: {} does not cover axis {} of {}", context, listIds(to), id->toString(),
             listIds(from));
  }
  for (IterDomain* id : frontier) {
    if (to_set.count(id) || from_set.count(id) || id->isBroadcast()) continue;
    MF_THROW("{}: {} leaves out {}, which a split/merge of {} produced", context, listIds(to),
             id->toString(), listIds(from));
  }
}

}  // namespace mf
