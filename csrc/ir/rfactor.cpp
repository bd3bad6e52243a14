// TensorView::rFactor: one ReductionOp becomes two, the rfactor tensor reducing the chosen
// loop axes and the original tensor reducing the rest (see tensor_view.h).
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ir/builder.h"
#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/tensor_view.h"

namespace mf {
namespace {

using IdSet = std::unordered_set<IterDomain*>;
using IdToId = std::unordered_map<IterDomain*, IterDomain*>;

// The axes the rfactored loop axes are derived from, themselves included: the part of the
// transform history the rfactor tensor reduces.
IdSet rfactorAncestors(const std::vector<IterDomain*>& rfactored, const IdSet& logical) {
  IdSet out;
  std::vector<IterDomain*> stack = rfactored;
  while (!stack.empty()) {
    IterDomain* id = stack.back();
    stack.pop_back();
    if (!out.insert(id).second || logical.count(id) || id->definition() == nullptr) continue;
    for (Val* v : id->definition()->inputs())
      if (auto* in = dynamic_cast<IterDomain*>(v)) stack.push_back(in);
  }
  return out;
}

bool usesAny(const Expr* e, const IdSet& ids) {
  return std::any_of(e->inputs().begin(), e->inputs().end(), [&](Val* v) {
    auto* id = dynamic_cast<IterDomain*>(v);
    return id != nullptr && ids.count(id);
  });
}

// Replays the Split or Merge `e` on the images of its inputs in `map`, giving each output the
// type `typeOf(original output)`, and records the outputs' images.
template <typename TypeOf>
void replayExpr(Expr* e, IdToId& map, TypeOf&& typeOf) {
  Fusion* f = e->fusion();
  std::vector<Val*> outs;
  for (Val* v : e->outputs()) {
    auto* id = v->as<IterDomain>();
    IterDomain* copy =
        IterDomainBuilder(id).iterType(typeOf(id)).parallelType(ParallelType::Serial).build(f);
    map[id] = copy;
    outs.push_back(copy);
  }
  visitIdExpr(
      e,
      [&](Split* split) {
        IrBuilder::createIn<Split>(f, std::vector<Val*>{map.at(split->in()), split->factor()},
                                   std::move(outs), split->innerSplit());
      },
      [&](Merge* merge) {
        IrBuilder::createIn<Merge>(
            f, std::vector<Val*>{map.at(merge->outer()), map.at(merge->inner())}, std::move(outs));
      },
      [&](Resize* resize) {
        IrBuilder::createIn<Resize>(
            f, std::vector<Val*>{map.at(resize->in()), resize->left(), resize->right()},
            std::move(outs));
      });
}

// `ids` with the inputs of the Split or Merge `e` replaced by its outputs, in place.
void applyToFrontier(const Expr* e, std::vector<IterDomain*>& ids) {
  auto pos = [&](Val* v) { return std::find(ids.begin(), ids.end(), v) - ids.begin(); };
  visitIdExpr(
      e,
      [&](const Split* split) {
        auto at = ids.begin() + pos(split->in());
        *at = split->outer();
        ids.insert(at + 1, split->inner());
      },
      [&](const Merge* merge) {
        ids[pos(merge->outer())] = merge->out();
        ids.erase(ids.begin() + pos(merge->inner()));
      },
      [&](const Resize* resize) { ids[pos(resize->in())] = resize->out(); });
}

}  // namespace

TensorView* TensorView::rFactor(const std::vector<int64_t>& axes) {
  auto* red = dynamic_cast<ReductionOp*>(definition());
  MF_CHECK(red != nullptr, "rFactor: {} is not the output of a reduction", toString());
  MF_CHECK(!axes.empty(),
           "rFactor: no axes given for {}; name the reduction axes the rfactor tensor reduces",
           toString());
  MF_CHECK(compute_at_pos_ == 0 && !domain_->hasAllocation(),
           "rFactor: {} is already inlined or has an allocation domain; call rFactor first",
           toString());
  MF_CHECK(!domain_->loopFromAllocation(), "rFactor: the loop of {} is not derived from logical",
           toString());
  const std::vector<IterDomain*>& loop = domain_->loop();
  std::vector<IterDomain*> rfactored;
  for (int64_t axis : axes) {
    IterDomain* id = loop[TensorDomain::wrapAxis(axis, nDims(), "rFactor")];
    MF_CHECK(id->isReduction(), "rFactor: axis {} of {} is {}, not a reduction axis", axis,
             toString(), id->toString());
    MF_CHECK(std::find(rfactored.begin(), rfactored.end(), id) == rfactored.end(),
             "rFactor: axis {} of {} is named twice", axis, toString());
    rfactored.push_back(id);
  }
  const int64_t n_reductions =
      std::count_if(loop.begin(), loop.end(), [](IterDomain* id) { return id->isReduction(); });
  MF_CHECK(static_cast<int64_t>(rfactored.size()) < n_reductions,
           "rFactor: {} must keep at least one reduction axis out of the rfactored axes",
           toString());

  FusionGuard fg(fusion());
  const std::vector<IterDomain*>& logical = domain_->logical();
  const IdSet rf_ids = rfactorAncestors(rfactored, IdSet(logical.begin(), logical.end()));
  // In the rfactor tensor, only the rfactored history stays a reduction.
  auto producerType = [&](IterDomain* id) {
    return id->isReduction() && !rf_ids.count(id) ? IterType::Iteration : id->iterType();
  };

  // The rfactor tensor: root = copy of this logical; every transform replayed; logical = the
  // root after the transforms of the rfactored history.
  IdToId to_producer;
  std::vector<IterDomain*> p_root;
  for (IterDomain* id : logical) {
    p_root.push_back(IterDomainBuilder(id)
                         .iterType(producerType(id))
                         .parallelType(ParallelType::Serial)
                         .build());
    to_producer[id] = p_root.back();
  }
  std::vector<IterDomain*> frontier = logical;  // original axes, rfactored history applied
  for (Expr* e : domain_->allTransforms()) {
    replayExpr(e, to_producer, producerType);
    if (usesAny(e, rf_ids)) applyToFrontier(e, frontier);
  }
  std::vector<IterDomain*> p_logical, p_loop;
  for (IterDomain* id : frontier) p_logical.push_back(to_producer.at(id));
  for (IterDomain* id : loop) {
    p_loop.push_back(to_producer.at(id));
    p_loop.back()->parallelize(id->parallelType());
  }
  auto* p_domain = IrBuilder::create<TensorDomain>(
      p_root, p_logical, std::vector<IterDomain*>{}, p_loop,
      TensorDomain::filledContiguity(p_logical, true), /*allocation_declared=*/false);
  auto* producer = IrBuilder::create<TensorView>(p_domain, dtype(), MemoryType::Local);

  // This tensor: logical = the frontier's axes the rfactor tensor does not reduce; iteration
  // axes (and their transforms) are kept as they are, remaining reductions are fresh copies.
  IdToId to_consumer;
  std::vector<IterDomain*> c_logical;
  Contiguity c_contiguity;
  for (IterDomain* id : frontier) {
    if (rf_ids.count(id)) continue;
    IterDomain* c = id;
    if (id->isReduction()) c = IterDomainBuilder(id).parallelType(ParallelType::Serial).build();
    to_consumer[id] = c;
    c_logical.push_back(c);
    auto at = std::find(logical.begin(), logical.end(), id);
    c_contiguity.push_back(c->isReduction() || c->isBroadcast() ? std::nullopt
                           : at != logical.end() ? domain_->contiguity()[at - logical.begin()]
                                                 : std::optional<bool>(true));
  }
  for (Expr* e : domain_->allTransforms()) {
    if (usesAny(e, rf_ids)) continue;
    bool reduces = e->output(0)->as<IterDomain>()->isReduction();
    if (reduces) {
      replayExpr(e, to_consumer, [](IterDomain* id) { return id->iterType(); });
    } else {
      for (Val* v : e->outputs()) to_consumer[v->as<IterDomain>()] = v->as<IterDomain>();
    }
  }
  std::vector<IterDomain*> c_loop;
  for (IterDomain* id : loop) {
    if (rf_ids.count(id)) continue;
    c_loop.push_back(to_consumer.at(id));
    c_loop.back()->parallelize(id->parallelType());
  }
  domain_ = IrBuilder::create<TensorDomain>(std::vector<IterDomain*>{}, c_logical,
                                            std::vector<IterDomain*>{}, c_loop, c_contiguity,
                                            /*allocation_declared=*/false);

  Val* in = red->in();
  Val* init = red->init();
  BinaryOpType op = red->opType();
  fusion()->removeExpr(red);
  IrBuilder::create<ReductionOp>(std::vector<Val*>{in, init}, std::vector<Val*>{producer}, op);
  IrBuilder::create<ReductionOp>(std::vector<Val*>{producer, init}, std::vector<Val*>{this}, op);
  return producer;
}

}  // namespace mf
