//! Kernel: the result of lowering one scheduled fusion. It owns a copy of the fusion (the
//! kernel container, where index scalars live and kernel-IR nodes are kept in a list of their
//! own, Fusion::kernelStatements()) and the kernel-IR tree (`body`) that codegen prints with
//! a KirVisitor.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/fusion.h"
#include "ir/kernel_ir.h"
#include "lower/kernel_summary.h"

namespace mf {

class ReductionOp;

//! The index of each IterDomain reached by walking a tensor's loop indices back through its
//! split/merge history (lower/index_compute.h).
using IndexMap = std::unordered_map<IterDomain*, Val*>;

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

  //! The loops around each tensor expr, outermost first (set by generateLoopNests).
  std::unordered_map<Expr*, std::vector<ForLoop*>>& loopsOf() { return loops_of_; }
  //! The tensor exprs in emission order (iterate this, not the maps, for stable output).
  std::vector<Expr*>& computeOrder() { return compute_order_; }
  //! Lowered copies (set by indexTensors) that are whole-vector copies, with their width.
  std::unordered_map<const Expr*, int64_t>& vectorWidth() { return vector_width_; }
  const std::unordered_map<const Expr*, int64_t>& vectorWidth() const { return vector_width_; }
  //! The index of every axis of each lowered expr's output that the walk back from its loop
  //! indices reaches: loop, split/merge, logical (and root, for an rfactor tensor) axes (set
  //! by indexTensors, read by insertPredicates). For a whole-vector copy: the indices of the
  //! vector's first element.
  std::unordered_map<const Expr*, IndexMap>& outputIndices() { return output_indices_; }
  //! The lowered `acc = init` stores that start each reduction (set by indexTensors, which
  //! places them before the first reduction loop, inside loops of their own over iteration
  //! axes nested in the reduction loops): predicates skip their reduction axes.
  std::unordered_set<const Expr*>& reductionInits() { return reduction_inits_; }
  //! Block reductions (set by insertPredicates): every thread must reach the call, so its
  //! predicates are passed in instead of wrapping it: `read` selects the input or the identity,
  //! `write` guards the update of the output.
  struct InlinePredicates {
    Val* read;
    Val* write;
  };
  std::unordered_map<const Expr*, InlinePredicates>& inlinePredicates() {
    return inline_predicates_;
  }
  const std::unordered_map<const Expr*, InlinePredicates>& inlinePredicates() const {
    return inline_predicates_;
  }
  //! The block reduction that `loop` groups, or null: a serial loop over an iteration axis
  //! nested inside the block reduction's thread-bound reduction axis (the vector of an outer
  //! reduction: validateSchedule requires a constant extent), whose body is the reduction or
  //! another such loop. `group` receives the loops, outermost first. One runtime call
  //! reduces all their values (codegen): fewer barriers, and a grid reduction must be called
  //! once (the blocks that do not finish it return).
  ReductionOp* groupedReduction(const ForLoop* loop, std::vector<const ForLoop*>& group) const;
  //! Parameters, launch, vectorized accesses, error flag (set by analyzeKernel).
  KernelSummary& summary() { return summary_; }
  const KernelSummary& summary() const { return summary_; }

  //! `T{n}.size[i]` / `T{n}.stride[i]`: named scalars read from the tensor arguments.
  Val* sizeOf(TensorView* tv, int64_t axis);
  Val* strideOf(TensorView* tv, int64_t axis);

  //! The kernel IR as indented text (the `kernel_ir` dump).
  std::string toString() const;

 private:
  std::unique_ptr<Fusion> ir_;
  Scope body_;
  DataType index_type_ = DataType::Int64;
  std::unordered_map<Expr*, std::vector<ForLoop*>> loops_of_;
  std::vector<Expr*> compute_order_;
  std::unordered_map<const Expr*, int64_t> vector_width_;
  std::unordered_map<const Expr*, IndexMap> output_indices_;
  std::unordered_set<const Expr*> reduction_inits_;
  std::unordered_map<const Expr*, InlinePredicates> inline_predicates_;
  KernelSummary summary_;
  std::map<std::pair<const TensorView*, int64_t>, Val*> named_;
};

}  // namespace mf
