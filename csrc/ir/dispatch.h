//! The visitors, generated from ir/nodes.h. IrVisitor has one virtual handle() per fusion
//! node kind; KirVisitor adds the kernel-IR kinds, for codegen and the kernel printer. A
//! visitor overrides the kinds it understands; any other kind reaching it is an internal
//! error, and a kernel-IR node reaching a fusion-level IrVisitor always is.
#pragma once

#include <string_view>

#include "ir/nodes.h"

namespace mf {

class Statement;

class IrVisitor {
 public:
  virtual ~IrVisitor() = default;
  //! Calls the handle() overload of `s`'s class.
  void dispatch(Statement* s);

#define MF_VISIT(T) virtual void handle(T* node);
  MF_FOR_ALL_FUSION_VALS(MF_VISIT)
  MF_FOR_ALL_FUSION_EXPRS(MF_VISIT)
#undef MF_VISIT

 protected:
  //! Called for a kind this visitor does not override.
  virtual void unhandled(Statement* s, std::string_view kind);
  //! Called for a kernel-IR kind: an internal error here, handled by KirVisitor.
  virtual void dispatchKernelIr(Statement* s);
};

//! A visitor of lowered kernels: the fusion kinds (lowered math is fusion exprs on
//! TensorIndex operands) plus the kernel-IR kinds.
class KirVisitor : public IrVisitor {
 public:
#define MF_VISIT(T) virtual void handle(T* node);
  MF_FOR_ALL_KERNEL_VALS(MF_VISIT)
  MF_FOR_ALL_KERNEL_EXPRS(MF_VISIT)
#undef MF_VISIT
  using IrVisitor::handle;

 protected:
  void dispatchKernelIr(Statement* s) final;
};

}  // namespace mf
