#include "ir/dispatch.h"

#include "ir/exprs.h"
#include "ir/kernel_ir.h"
#include "ir/shape_exprs.h"
#include "ir/tensor_view.h"

namespace mf {

// One switch case per kind, shared by both visitors' dispatch.
#define MF_VAL_CASE(T)          \
  case ValKind::T:              \
    handle(static_cast<T*>(v)); \
    return;
#define MF_EXPR_CASE(T)         \
  case ExprKind::T:             \
    handle(static_cast<T*>(e)); \
    return;
#define MF_VAL_LABEL(T) case ValKind::T:
#define MF_EXPR_LABEL(T) case ExprKind::T:

void IrVisitor::dispatch(Statement* s) {
  if (auto* v = dynamic_cast<Val*>(s)) {
    switch (v->kind()) {
      MF_FOR_ALL_FUSION_VALS(MF_VAL_CASE)
      MF_FOR_ALL_KERNEL_VALS(MF_VAL_LABEL)
      dispatchKernelIr(s);
      return;
    }
  }
  auto* e = static_cast<Expr*>(s);
  switch (e->kind()) {
    MF_FOR_ALL_FUSION_EXPRS(MF_EXPR_CASE)
    MF_FOR_ALL_KERNEL_EXPRS(MF_EXPR_LABEL)
    dispatchKernelIr(s);
    return;
  }
}

void KirVisitor::dispatchKernelIr(Statement* s) {
  if (auto* v = dynamic_cast<Val*>(s)) {
    switch (v->kind()) {
      MF_FOR_ALL_KERNEL_VALS(MF_VAL_CASE)
      MF_FOR_ALL_FUSION_VALS(MF_VAL_LABEL)
      break;
    }
  } else {
    auto* e = static_cast<Expr*>(s);
    switch (e->kind()) {
      MF_FOR_ALL_KERNEL_EXPRS(MF_EXPR_CASE)
      MF_FOR_ALL_FUSION_EXPRS(MF_EXPR_LABEL)
      break;
    }
  }
  MF_ASSERT(false, "not a kernel-IR node: {}", s->toString());
}

#undef MF_VAL_CASE
#undef MF_EXPR_CASE
#undef MF_VAL_LABEL
#undef MF_EXPR_LABEL

void IrVisitor::unhandled(Statement* s, std::string_view kind) {
  MF_ASSERT(false, "this visitor does not handle {} nodes: {}", kind, s->toString());
}

void IrVisitor::dispatchKernelIr(Statement* s) {
  MF_ASSERT(false, "a fusion-level visitor met kernel IR: {}", s->toString());
}

#define MF_DEFAULT_HANDLE(Visitor, T) \
  void Visitor::handle(T* node) {     \
    unhandled(node, #T);              \
  }
#define MF_IR_HANDLE(T) MF_DEFAULT_HANDLE(IrVisitor, T)
#define MF_KIR_HANDLE(T) MF_DEFAULT_HANDLE(KirVisitor, T)
MF_FOR_ALL_FUSION_VALS(MF_IR_HANDLE)
MF_FOR_ALL_FUSION_EXPRS(MF_IR_HANDLE)
MF_FOR_ALL_KERNEL_VALS(MF_KIR_HANDLE)
MF_FOR_ALL_KERNEL_EXPRS(MF_KIR_HANDLE)
#undef MF_IR_HANDLE
#undef MF_KIR_HANDLE
#undef MF_DEFAULT_HANDLE

}  // namespace mf
