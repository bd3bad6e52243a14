#include "ir/cloner.h"

#include "ir/fusion.h"
#include "ir/tensor_view.h"

namespace mf {

Statement* IrCloner::clone(const Statement* s) {
  if (auto it = map_.find(s); it != map_.end()) return it->second;
  Statement* c = nullptr;
  if (const auto* e = dynamic_cast<const Expr*>(s)) {
    in_progress_.insert(e);
    c = e->newObject(to_, clone(e->inputs()), clone(e->outputs()));
    in_progress_.erase(e);
    map_[s] = c;
    return c;
  }
  const auto* v = static_cast<const Val*>(s);
  c = cloneVal(v);
  map_[s] = c;
  if (scalar_definitions_ && v->kind() == ValKind::Scalar && v->definition() != nullptr &&
      !in_progress_.count(v->definition()))
    clone(v->definition());
  return c;
}

void IrCloner::registerClone(const Statement* from, Statement* to) {
  MF_ASSERT(to->fusion() == to_, "registerClone: {} is not in the target fusion", to->toString());
  auto [it, inserted] = map_.try_emplace(from, to);
  MF_ASSERT(inserted, "registerClone: {} is cloned already", from->toString());
}

Statement* IrCloner::cloneVal(const Val* v) {
  switch (v->kind()) {
    case ValKind::Scalar: {
      const auto* sc = v->as<Scalar>();
      if (!sc->codeName().empty())
        return IrBuilder::createIn<Scalar>(to_, v->dtype(), sc->codeName());
      return IrBuilder::createIn<Scalar>(to_, v->dtype(), v->constValue());
    }
    case ValKind::IterDomain: {
      const auto* id = v->as<IterDomain>();
      return IterDomainBuilder(id).extent(clone(id->extent())).build(to_);
    }
    case ValKind::TensorDomain: {
      const auto* td = v->as<TensorDomain>();
      return IrBuilder::createIn<TensorDomain>(to_, clone(td->root()), clone(td->logical()),
                                               clone(td->allocation()), clone(td->loop()),
                                               td->contiguity(), td->allocationDeclared());
    }
    case ValKind::TensorView: {
      const auto* tv = v->as<TensorView>();
      auto* c = IrBuilder::createIn<TensorView>(to_, clone(tv->domain()), tv->dtype(),
                                                tv->getMemoryType());
      c->setComputeAtPosition(tv->computeAtPosition());
      if (tv->bufferRow() > 0) c->padBufferRows(tv->bufferRow(), tv->bufferRowPad());
      return c;
    }
    case ValKind::TensorIndex:
      break;
  }
  MF_ASSERT(false, "cannot clone {}", v->toString());
}

}  // namespace mf
