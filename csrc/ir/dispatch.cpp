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
      MF_FOR_ALL_VALS(MF_CASE)
#undef MF_CASE
    }
  }
  auto* e = static_cast<Expr*>(s);
  switch (e->kind()) {
#define MF_CASE(T)              \
  case ExprKind::T:             \
    handle(static_cast<T*>(e)); \
    return;
    MF_FOR_ALL_EXPRS(MF_CASE)
#undef MF_CASE
  }
}

#define MF_DEFAULT_HANDLE(T)        \
  void IrVisitor::handle(T* node) { \
    unhandled(node, #T);            \
  }
MF_FOR_ALL_VALS(MF_DEFAULT_HANDLE)
MF_FOR_ALL_EXPRS(MF_DEFAULT_HANDLE)
#undef MF_DEFAULT_HANDLE

void IrVisitor::unhandled(Statement* s, std::string_view kind) {
  MF_ASSERT(false, "this visitor does not handle {} nodes: {}", kind, s->toString());
}

}  // namespace mf
