#include "ir/verifier.h"

#include <algorithm>

#include "ir/fusion.h"
#include "ir/tensor_view.h"
#include "ir/traversal.h"

namespace mf {

void verifyFusionInputs(const Fusion& fusion, std::string_view who) {
  for (TensorView* tv : fusion.allTvs())
    MF_CHECK(tv->definition() != nullptr || tv->isFusionInput(),
             "{}: {} is neither a fusion input nor computed by an expr; add it with "
             "fusion.addInput({})",
             who, tv->toString(), tv->toInlineString());
}

void verifyFusion(const Fusion& fusion) {
  for (const auto& s : fusion.statements()) {
    MF_ASSERT(s->fusion() == &fusion, "{} belongs to another fusion", s->toString());
    if (auto* e = dynamic_cast<Expr*>(s.get())) {
      for (Val* out : e->outputs())
        MF_ASSERT(out->definition() == e, "{} is an output of `{}` but defined elsewhere",
                  out->toInlineString(), e->toString());
      for (Val* in : e->inputs()) {
        const auto& uses = in->uses();
        MF_ASSERT(std::find(uses.begin(), uses.end(), e) != uses.end(),
                  "{} is an input of `{}` which is not among its uses", in->toInlineString(),
                  e->toString());
      }
      continue;
    }
    auto* v = static_cast<Val*>(s.get());
    if (Expr* def = v->definition()) {
      const auto& outs = def->outputs();
      MF_ASSERT(std::find(outs.begin(), outs.end(), v) != outs.end(),
                "{}'s definition does not list it", v->toInlineString());
    }
    for (Expr* use : v->uses()) {
      const auto& ins = use->inputs();
      MF_ASSERT(std::find(ins.begin(), ins.end(), v) != ins.end(), "{}'s use `{}` does not list it",
                v->toInlineString(), use->toString());
    }
  }
  for (Val* in : fusion.inputs())
    MF_ASSERT(in->definition() == nullptr, "input {} has a definition", in->toInlineString());

  std::vector<Val*> roots = fusion.inputs();
  roots.insert(roots.end(), fusion.outputs().begin(), fusion.outputs().end());
  getStmts(roots);  // asserts acyclicity
  verifyFusionInputs(fusion, "verifyFusion");

  for (TensorView* tv : fusion.allTvs()) {
    const TensorDomain* td = tv->domain();
    try {
      validateDomainEquivalence(td->loopSource(), td->loop(), "loop domain");
      if (td->hasAllocation() && !td->allocationDeclared())
        validateDomainEquivalence(td->logical(), td->allocation(), "allocation domain");
    } catch (const UserError& e) {
      MF_ASSERT(false, "{}: {}", tv->toString(), e.what());
    }
    MF_ASSERT_EQ(td->contiguity().size(), td->maybeAllocation().size());
    MF_ASSERT(tv->computeAtPosition() <= tv->nDims(), "{} ca_pos out of range", tv->toString());
  }
}

}  // namespace mf
