#include "ir/iter_domain.h"

#include "ir/builder.h"
#include "ir/fusion.h"

namespace mf {

std::string_view toString(IterType t) {
  switch (t) {
    case IterType::Iteration:
      return "Iteration";
    case IterType::Reduction:
      return "Reduction";
    case IterType::Broadcast:
      return "Broadcast";
    case IterType::Symbolic:
      return "Symbolic";
  }
  return "?";
}

std::string_view toString(ParallelType p) {
  switch (p) {
    case ParallelType::Serial:
      return "S";
    case ParallelType::BIDx:
      return "blockIdx.x";
    case ParallelType::BIDy:
      return "blockIdx.y";
    case ParallelType::BIDz:
      return "blockIdx.z";
    case ParallelType::TIDx:
      return "threadIdx.x";
    case ParallelType::TIDy:
      return "threadIdx.y";
    case ParallelType::TIDz:
      return "threadIdx.z";
    case ParallelType::Vectorize:
      return "V";
    case ParallelType::Unroll:
      return "UR";
    case ParallelType::Unswitch:
      return "US";
    case ParallelType::Group:
      return "G";
  }
  return "?";
}

bool isThreadDim(ParallelType p) {
  return p == ParallelType::TIDx || p == ParallelType::TIDy || p == ParallelType::TIDz;
}
bool isBlockDim(ParallelType p) {
  return p == ParallelType::BIDx || p == ParallelType::BIDy || p == ParallelType::BIDz;
}

IterDomainBuilder::IterDomainBuilder(const IterDomain* id)
    : extent_(id->extent()), iter_type_(id->iterType()), parallel_type_(id->parallelType()) {}

IterDomain* IterDomainBuilder::build() const {
  return IrBuilder::create<IterDomain>(*this);
}

IterDomain* IterDomainBuilder::build(Fusion* fusion) const {
  return IrBuilder::createIn<IterDomain>(fusion, *this);
}

IterDomain::IterDomain(Fusion* fusion, const IterDomainBuilder& fields)
    : Val(fusion, ValKind::IterDomain, DataType::Index),
      extent_(fields.extent_),
      iter_type_(fields.iter_type_),
      parallel_type_(fields.parallel_type_) {
  MF_ASSERT(extent_ != nullptr && isIntegralType(extent_->dtype()),
            "an IterDomain extent must be an integer scalar");
}

void IterDomain::parallelize(ParallelType p) {
  MF_CHECK(!(isBroadcast() && p == ParallelType::Vectorize),
           "parallelize: broadcast axis {} cannot be vectorized", toString());
  parallel_type_ = p;
  fusion()->markChanged();
}

IterDomain* IterDomain::freshCopy() const {
  return IterDomainBuilder(this).parallelType(ParallelType::Serial).build(fusion());
}

std::pair<IterDomain*, IterDomain*> IterDomain::split(IterDomain* in, Val* factor,
                                                      bool inner_split) {
  MF_CHECK(factor != nullptr, "split of {}: the factor is null", in->toString());
  MF_CHECK(factor->fusion() == in->fusion(), "split of {}: the factor {} belongs to another fusion",
           in->toString(), factor->toString());
  MF_CHECK(isIntegralType(factor->dtype()), "split of {}: the factor must be an integer, got {}",
           in->toString(), factor->dtype());
  if (std::optional<int64_t> f = factor->constInt())
    MF_CHECK(*f > 0, "split of {}: the factor must be positive, got {}", in->toString(), *f);
  FusionGuard fg(in->fusion());
  Val* rest = SimplifyingIrBuilder::ceilDiv(in->extent(), factor);
  Val* outer_extent = inner_split ? rest : factor;
  Val* inner_extent = inner_split ? factor : rest;
  IterDomain* outer = IterDomainBuilder(outer_extent).iterType(in->iterType()).build();
  IterDomain* inner = IterDomainBuilder(inner_extent).iterType(in->iterType()).build();
  IrBuilder::create<Split>(std::vector<Val*>{in, factor}, std::vector<Val*>{outer, inner},
                           inner_split);
  return {outer, inner};
}

IterDomain* IterDomain::merge(IterDomain* outer, IterDomain* inner) {
  bool o_red = outer->isReduction(), i_red = inner->isReduction();
  MF_CHECK(o_red == i_red || outer->isBroadcast() || inner->isBroadcast(),
           "merge: cannot merge reduction and iteration axes {} and {}", outer->toString(),
           inner->toString());
  IterType t = outer->iterType();
  if (outer->isBroadcast()) t = inner->iterType();
  if (outer->isSymbolic() || inner->isSymbolic()) t = IterType::Symbolic;
  FusionGuard fg(outer->fusion());
  IterDomain* out = IterDomainBuilder(SimplifyingIrBuilder::mul(outer->extent(), inner->extent()))
                        .iterType(t)
                        .build();
  IrBuilder::create<Merge>(std::vector<Val*>{outer, inner}, std::vector<Val*>{out});
  return out;
}

IterDomain* IterDomain::resize(IterDomain* in, Val* left, Val* right,
                               std::optional<IterType> iter_type) {
  for (auto [what, v] : {std::pair{"left", left}, std::pair{"right", right}}) {
    MF_CHECK(v != nullptr, "resize of {}: the {} width is null", in->toString(), what);
    MF_CHECK(v->fusion() == in->fusion(), "resize of {}: the {} width {} belongs to another fusion",
             in->toString(), what, v->toString());
    MF_CHECK(isIntegralType(v->dtype()), "resize of {}: the {} width must be an integer, got {}",
             in->toString(), what, v->dtype());
  }
  MF_CHECK(!in->isReduction(), "resize of {}: a reduction axis cannot be resized", in->toString());
  FusionGuard fg(in->fusion());
  Val* extent = SimplifyingIrBuilder::add(SimplifyingIrBuilder::add(in->extent(), left), right);
  IterType t = IterType::Symbolic;
  if (iter_type) {
    t = *iter_type;
  } else if (std::optional<int64_t> e = extent->constInt()) {
    MF_CHECK(*e >= 0, "resize of {}: widths {} and {} give a negative extent {}", in->toString(),
             left->toInlineString(), right->toInlineString(), *e);
    t = IterType::Iteration;  // extent 1 too: see IterDomain::resize's comment
  } else if (left->constInt() && right->constInt() && *left->constInt() + *right->constInt() > 1) {
    t = IterType::Iteration;  // in >= 0, so out > 1
  }
  IterDomain* out = IterDomainBuilder(extent).iterType(t).build();
  IrBuilder::create<Resize>(std::vector<Val*>{in, left, right}, std::vector<Val*>{out});
  return out;
}

Split::Split(Fusion* f, std::vector<Val*> inputs, std::vector<Val*> outputs, bool inner_split)
    : Expr(f, ExprKind::Split, std::move(inputs), std::move(outputs)), inner_split_(inner_split) {}

Expr* Split::newObject(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs) const {
  return IrBuilder::createIn<Split>(f, std::move(ins), std::move(outs), inner_split_);
}

Merge::Merge(Fusion* f, std::vector<Val*> inputs, std::vector<Val*> outputs)
    : Expr(f, ExprKind::Merge, std::move(inputs), std::move(outputs)) {}

Expr* Merge::newObject(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs) const {
  return IrBuilder::createIn<Merge>(f, std::move(ins), std::move(outs));
}

Resize::Resize(Fusion* f, std::vector<Val*> inputs, std::vector<Val*> outputs)
    : Expr(f, ExprKind::Resize, std::move(inputs), std::move(outputs)) {}

Expr* Resize::newObject(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs) const {
  return IrBuilder::createIn<Resize>(f, std::move(ins), std::move(outs));
}

namespace detail {
void unhandledIdExpr(const Expr* e) {
  MF_ASSERT(false, "unhandled IterDomain expr {}: {}", e == nullptr ? "(null)" : e->opName(),
            e == nullptr ? "" : e->toString());
}
}  // namespace detail

bool runsAlong(IterDomain* id, IterDomain* target) {
  if (id == target) return true;
  if (id->definition() == nullptr) return false;
  return visitIdExpr(
      id->definition(), [&](Split* s) { return s->inner() == id && runsAlong(s->in(), target); },
      [&](Merge* m) {
        return runsAlong(m->inner(), target) ||
               (m->inner()->isBroadcast() && runsAlong(m->outer(), target));
      },
      // Consecutive out indices are consecutive in indices (shifted by the left width); the
      // pointwise heuristics vectorize a resized axis only when every width and extent keeps
      // vectors whole, so a vector is all inside `in` or all in the padding.
      [&](Resize* r) { return runsAlong(r->in(), target); });
}

}  // namespace mf
