#include "ir/dispatch.h"

#include "ir/exprs.h"
#include "ir/kernel_ir.h"
#include "ir/tensor_view.h"

namespace mf {

void IrVisitor::dispatch(Statement* s) {
  if (auto* v = dynamic_cast<Val*>(s)) {
    switch (v->kind()) {
#define MF_CASE(T)              \
  case ValKind::T:              \
    handle(static_cast<T*>(v)); \
    return;
      MF_FOR_ALL_FUSION_VALS(MF_CASE)
#undef MF_CASE
#define MF_KERNEL_CASE(T) case ValKind::T:
      MF_FOR_ALL_KERNEL_VALS(MF_KERNEL_CASE)
#undef MF_KERNEL_CASE
      dispatchKernelIr(s);
      return;
    }
  }
  auto* e = static_cast<Expr*>(s);
  switch (e->kind()) {
#define MF_CASE(T)              \
  case ExprKind::T:             \
    handle(static_cast<T*>(e)); \
    return;
    MF_FOR_ALL_FUSION_EXPRS(MF_CASE)
#undef MF_CASE
#define MF_KERNEL_CASE(T) case ExprKind::T:
    MF_FOR_ALL_KERNEL_EXPRS(MF_KERNEL_CASE)
#undef MF_KERNEL_CASE
    dispatchKernelIr(s);
    return;
  }
}

#define MF_DEFAULT_HANDLE(T)        \
  void IrVisitor::handle(T* node) { \
    unhandled(node, #T);            \
  }
MF_FOR_ALL_FUSION_VALS(MF_DEFAULT_HANDLE)
MF_FOR_ALL_FUSION_EXPRS(MF_DEFAULT_HANDLE)
#undef MF_DEFAULT_HANDLE

void IrVisitor::unhandled(Statement* s, std::string_view kind) {
  MF_ASSERT(false, "this visitor does not handle {} nodes: {}", kind, s->toString());
}

void IrVisitor::dispatchKernelIr(Statement* s) {
  MF_ASSERT(false, "a fusion-level visitor met kernel IR: {}", s->toString());
}

void KirVisitor::dispatchKernelIr(Statement* s) {
  if (auto* v = dynamic_cast<Val*>(s)) {
    switch (v->kind()) {
#define MF_CASE(T)              \
  case ValKind::T:              \
    handle(static_cast<T*>(v)); \
    return;
      MF_FOR_ALL_KERNEL_VALS(MF_CASE)
#undef MF_CASE
      default:
        break;
    }
  } else {
    auto* e = static_cast<Expr*>(s);
    switch (e->kind()) {
#define MF_CASE(T)              \
  case ExprKind::T:             \
    handle(static_cast<T*>(e)); \
    return;
      MF_FOR_ALL_KERNEL_EXPRS(MF_CASE)
#undef MF_CASE
      default:
        break;
    }
  }
  MF_ASSERT(false, "not a kernel-IR node: {}", s->toString());
}

#define MF_DEFAULT_HANDLE(T)         \
  void KirVisitor::handle(T* node) { \
    unhandled(node, #T);             \
  }
MF_FOR_ALL_KERNEL_VALS(MF_DEFAULT_HANDLE)
MF_FOR_ALL_KERNEL_EXPRS(MF_DEFAULT_HANDLE)
#undef MF_DEFAULT_HANDLE

}  // namespace mf
