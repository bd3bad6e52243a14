//! Kernel: the result of lowering one scheduled fusion. It owns a copy of the fusion (the
//! kernel container, where index scalars live and kernel-IR nodes are kept in a list of their
//! own, Fusion::kernelStatements()) and the kernel-IR tree (`body`) that codegen prints with
//! a KirVisitor.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/fusion.h"
#include "ir/kernel_ir.h"
#include "lower/kernel_summary.h"

namespace mf {

class Kernel {
 public:
  explicit Kernel(const Fusion& scheduled);
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  Fusion& ir() { return *ir_; }
  const Fusion& ir() const { return *ir_; }
  Scope& body() { return body_; }
  const Scope& body() const { return body_; }

  //! Int32 or Int64: the type of every index and extent in generated code.
  DataType indexType() const { return index_type_; }
  void setIndexType(DataType t);

  //! A compute expr of the tree (not a loop, guard, allocation or barrier) and the loops
  //! around it, outermost first.
  struct LoopNested {
    Expr* expr;
    std::vector<ForLoop*> loops;
  };
  //! The compute exprs in emission order: a walk of the tree, so a pass that moves or
  //! replaces an expr keeps it true without bookkeeping.
  std::vector<LoopNested> computeExprs() const;
  //! The all-reduce call that `loop` groups, or null: a serial loop over an iteration axis
  //! nested inside the call's thread-bound reduction axis (the vector of an outer reduction:
  //! validateSchedule requires a constant extent), whose body is the call or another such
  //! loop. `group` receives the loops, outermost first. One runtime call reduces all their
  //! values (codegen): fewer barriers, and a grid reduction must be called once (the blocks
  //! that do not finish it return).
  RuntimeCall* groupedReduction(const ForLoop* loop, std::vector<const ForLoop*>& group) const;
  //! Parameters, launch, vectorized accesses, error flag (set by analyzeKernel).
  KernelSummary& summary() { return summary_; }
  const KernelSummary& summary() const { return summary_; }

  //! `T{n}.size[i]` / `T{n}.stride[i]`: named scalars read from the tensor arguments.
  Val* sizeOf(TensorView* tv, int64_t axis);
  Val* strideOf(TensorView* tv, int64_t axis);
  //! The position of `tv`'s last logical axis among its argument's strides (its allocation
  //! order, reductions left out): strideOf(tv, pos) steps along that axis.
  static int64_t lastLogicalStridePos(const TensorView* tv);

  //! The kernel IR as indented text (the `kernel_ir` dump).
  std::string toString() const;

 private:
  std::unique_ptr<Fusion> ir_;
  Scope body_;
  DataType index_type_ = DataType::Int64;
  KernelSummary summary_;
  std::map<std::pair<const TensorView*, int64_t>, Val*> named_;
};

}  // namespace mf
