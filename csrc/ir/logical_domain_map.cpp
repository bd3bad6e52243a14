#include "ir/logical_domain_map.h"

#include <algorithm>

#include "ir/exprs.h"
#include "ir/op_traits.h"
#include "ir/shape_exprs.h"

namespace mf {
PairwiseLogicalDomainMap::PairwiseLogicalDomainMap(const TensorView* producer,
                                                   const TensorView* consumer)
    : producer_(producer), consumer_(consumer) {
  Expr* def = consumer->definition();
  MF_ASSERT(def != nullptr && std::find(def->inputs().begin(), def->inputs().end(), producer) !=
                                  def->inputs().end(),
            "{} is not a producer of {}", producer->toString(), consumer->toString());
}

std::vector<std::pair<IterDomain*, IterDomain*>> PairwiseLogicalDomainMap::pairs() const {
  Expr* def = consumer_->definition();
  if (auto* layout = dynamic_cast<PreprocessGroupedMatmulInputSf*>(def);
      layout != nullptr && layout->in() != producer_)
    return {};  // the offsets are read whole; none of their axes is a loop of the output
  std::vector<IterDomain*> p_ids = TensorDomain::noReductions(producer_->getLogicalDomain());
  if (isBlockQuantization(def)) {
    // The quantized values align with the input; the scales with all but its last axis (a
    // scale column is a block of 16 input columns). The global scale and the offsets map
    // nothing.
    if (producer_ != def->input(0)) return {};
    const std::vector<IterDomain*>& c_ids = consumer_->getLogicalDomain();
    const size_t n = consumer_ == def->output(1) ? p_ids.size() : p_ids.size() - 1;
    std::vector<std::pair<IterDomain*, IterDomain*>> out;
    for (size_t i = 0; i < n; ++i) out.emplace_back(p_ids[i], c_ids[i]);
    return out;
  }
  if (auto* sq = dynamic_cast<SqueezeOp*>(def)) {
    // The squeezed producer axes have no image; the rest map in order.
    std::vector<IterDomain*> kept;
    for (size_t i = 0; i < p_ids.size(); ++i)
      if (!sq->isSqueezeDims().at(i)) kept.push_back(p_ids[i]);
    p_ids = std::move(kept);
  }
  // Positional onto the consumer's root (a reshape's and a permute's root is a copy of the
  // producer's logical domain): a ReductionOp maps each input axis to the output axis
  // at its position, Reduction axes included; after rFactor the rfactor tensor's root is a
  // copy of the input's logical domain and the final reduction's root lists the rfactor
  // tensor's non-reduction logical axes in order, so the rule holds for both halves.
  std::vector<IterDomain*> c_ids;
  const std::vector<IterDomain*>& c_root = consumer_->getMaybeRootDomain();
  if (auto* b = dynamic_cast<BroadcastOp*>(def)) {
    for (size_t i = 0; i < c_root.size(); ++i)
      if (!b->isBroadcastDims().at(i)) c_ids.push_back(c_root[i]);
  } else {
    c_ids = c_root;
  }
  MF_ASSERT(p_ids.size() == c_ids.size(), "{}: producer {} has {} axes to map, consumer {} has {}",
            def->toString(), producer_->toString(), p_ids.size(), consumer_->toString(),
            c_ids.size());
  std::vector<std::pair<IterDomain*, IterDomain*>> out;
  for (size_t i = 0; i < p_ids.size(); ++i) {
    if (!map_broadcast_ && p_ids[i]->isBroadcast() != c_ids[i]->isBroadcast()) continue;
    out.emplace_back(p_ids[i], c_ids[i]);
  }
  return out;
}

IdMap PairwiseLogicalDomainMap::mapProducerToConsumer() const {
  IdMap m;
  for (auto [p, c] : pairs()) m.emplace(p, c);
  return m;
}

IdMap PairwiseLogicalDomainMap::mapConsumerToProducer() const {
  IdMap m;
  for (auto [p, c] : pairs()) m.emplace(c, p);
  return m;
}

namespace {

// The logical axes of `tv` that `id` is derived from.
void logicalSources(IterDomain* id, const std::vector<IterDomain*>& logical,
                    std::vector<IterDomain*>& out) {
  if (std::find(logical.begin(), logical.end(), id) != logical.end()) {
    out.push_back(id);
    return;
  }
  Expr* def = id->definition();
  if (def == nullptr) return;  // an axis of a declared allocation domain
  for (Val* v : def->inputs())
    if (auto* in = dynamic_cast<IterDomain*>(v)) logicalSources(in, logical, out);
}

}  // namespace

bool coversBroadcastAgainst(const TensorView* producer, int64_t axis, const TensorView* consumer) {
  IdMap p2c = PairwiseLogicalDomainMap(producer, consumer).mapProducerToConsumer();
  std::vector<IterDomain*> sources;
  logicalSources(producer->axis(axis), producer->getLogicalDomain(), sources);
  return std::any_of(sources.begin(), sources.end(), [&](IterDomain* id) {
    auto it = p2c.find(id);
    return id->isBroadcast() && it != p2c.end() && !it->second->isBroadcast();
  });
}

std::vector<TensorView*> producerTvsOf(const TensorView* tv) {
  std::vector<TensorView*> out;
  if (tv->definition() == nullptr) return out;
  for (Val* v : tv->definition()->inputs())
    if (auto* p = dynamic_cast<TensorView*>(v);
        p != nullptr && std::find(out.begin(), out.end(), p) == out.end())
      out.push_back(p);
  return out;
}

std::vector<TensorView*> consumerTvsOf(const TensorView* tv) {
  std::vector<TensorView*> out;
  for (Expr* use : tv->uses())
    for (Val* v : use->outputs())
      if (auto* c = dynamic_cast<TensorView*>(v);
          c != nullptr && std::find(out.begin(), out.end(), c) == out.end())
        out.push_back(c);
  return out;
}

}  // namespace mf
