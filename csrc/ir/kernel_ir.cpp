#include "ir/kernel_ir.h"

#include "ir/fusion.h"

namespace mf {

TensorIndex::TensorIndex(Fusion* fusion, TensorView* view, Val* index)
    : Val(fusion, ValKind::TensorIndex, view->dtype()), view_(view), index_(index) {}

ForLoop::ForLoop(Fusion* fusion, IterDomain* iter_domain, Val* index, Val* stop)
    : Expr(fusion, ExprKind::ForLoop, {}, {}),
      iter_domain_(iter_domain),
      index_(index),
      stop_(stop) {}

Expr* ForLoop::newObject(Fusion*, std::vector<Val*>, std::vector<Val*>) const {
  MF_ASSERT(false, "kernel IR loops are not cloned");
}

IfThenElse::IfThenElse(Fusion* fusion, Val* cond)
    : Expr(fusion, ExprKind::IfThenElse, {}, {}), cond_(cond) {}

Expr* IfThenElse::newObject(Fusion*, std::vector<Val*>, std::vector<Val*>) const {
  MF_ASSERT(false, "kernel IR branches are not cloned");
}

BlockSync::BlockSync(Fusion* fusion) : Expr(fusion, ExprKind::BlockSync, {}, {}) {}

Expr* BlockSync::newObject(Fusion*, std::vector<Val*>, std::vector<Val*>) const {
  MF_ASSERT(false, "kernel IR barriers are not cloned");
}

Allocate::Allocate(Fusion* fusion, TensorView* buffer, Val* size)
    : Expr(fusion, ExprKind::Allocate, {}, {}), buffer_(buffer), size_(size) {}

Expr* Allocate::newObject(Fusion*, std::vector<Val*>, std::vector<Val*>) const {
  MF_ASSERT(false, "kernel IR allocations are not cloned");
}

ScalarDef::ScalarDef(Fusion* fusion, Val* value)
    : Expr(fusion, ExprKind::ScalarDef, {}, {}), value_(value) {}

Expr* ScalarDef::newObject(Fusion*, std::vector<Val*>, std::vector<Val*>) const {
  MF_ASSERT(false, "kernel IR scalar declarations are not cloned");
}

std::string ScalarDef::toString() const {
  return fmt::format("LET {} = {}", value_->toString(), value_->toInlineString());
}

}  // namespace mf
