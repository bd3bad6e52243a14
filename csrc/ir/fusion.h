//! Fusion: the container that owns every IR node of one graph, plus its inputs and outputs.
//! FusionGuard sets the fusion that op functions build into. A lowered kernel's container
//! (lower/kernel.h) also owns the kernel IR, in a list of its own that copies skip.
#pragma once

#include <deque>
#include <iosfwd>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "ir/statement.h"

namespace mf {

class TensorView;
class IrCloner;
class SegmentedFusion;
class KernelArgumentHolder;
struct CompileParams;

class Fusion {
 public:
  Fusion();
  ~Fusion();
  //! Deep copy: every fusion node is cloned; inputs, outputs and names are preserved. Kernel
  //! IR is not copied: the copy of a lowered kernel's container is the scheduled fusion.
  Fusion(const Fusion& other);
  Fusion& operator=(const Fusion& other);
  Fusion(Fusion&&) = delete;

  //! Marks `v` as a fusion input. TensorViews become global memory.
  void addInput(Val* v);
  //! Marks `v` as a fusion output. TensorViews become global memory. A tensor that nothing
  //! computes, no input, whose extents are constants and one of them 0 (nvFuser's
  //! FusionZeroSizeTensorReduction) is empty whatever the inputs: it gets the definition
  //! full(its shape, 0), so the runtime makes it without reading anything.
  void addOutput(Val* v);
  //! Puts `replacement` where `old` is among the inputs and outputs (IrMutator's last step).
  //! An input replacement must be able to be an input (symbolic, no definition).
  void replaceInputOrOutput(Val* old, Val* replacement);
  //! The constants 0 and 1 (nvFuser's fusion.zeroVal() / oneVal()): of the index type by
  //! default, or of `dtype`.
  Val* zeroVal(DataType dtype = DataType::Index);
  Val* oneVal(DataType dtype = DataType::Index);
  const std::vector<Val*>& inputs() const { return inputs_; }
  const std::vector<Val*>& outputs() const { return outputs_; }

  //! Tensor-level exprs (those producing TensorViews) needed by the outputs, in
  //! topological order.
  std::vector<Expr*> exprs() const;
  //! Every TensorView needed by the outputs, in topological order (inputs first).
  std::vector<TensorView*> allTvs() const;

  //! True when a tensor the outputs need has a Symbolic axis (TensorDomain::hasSymbolicAxis):
  //! a dynamic reshape, resize or expand not concretized yet (ir/dynamic_transform.h).
  bool hasDynamicTransform() const;

  //! A counter that every edit of this fusion raises: a new node (an op, a split or merge),
  //! a new input or output, a removed expr, and the scheduling verbs that change a tensor in
  //! place (reorder, parallelize, memory type, compute-at position, loop or allocation
  //! domain). FusionExecutorCache compares it on every run to drop runtimes compiled for an
  //! older version of its fusion.
  uint64_t version() const { return version_; }
  //! Raises version(); the in-place edits above call it.
  void markChanged() { ++version_; }
  //! Unique per Fusion object in this process (a copy gets its own): with version(), the
  //! key of an analysis kept between the questions asked of one fusion.
  uint64_t id() const { return id_; }

  //! Every fusion node this fusion owns (kernel IR excluded), in creation order.
  const std::deque<std::unique_ptr<Statement>>& statements() const { return statements_; }
  //! The kernel-IR nodes (isKernelIr) lowering created here, in creation order.
  const std::deque<std::unique_ptr<Statement>>& kernelStatements() const {
    return kernel_statements_;
  }

  //! One line per tensor expr, e.g. `T2_g_float[iS4{i0}, iS5{i1}] = T0 + T1`.
  std::string mathString() const;
  void printMath() const;
  //! Every tensor's domains, contiguity and split/merge history.
  std::string transformsString() const;
  void printTransforms() const;
  //! nvFuser's print(): printMath then, with `include_tensor_transforms`, printTransforms, to
  //! `os` (default stdout).
  void print(std::ostream& os, bool include_tensor_transforms = true) const;
  void print() const;
  //! nvFuser's printKernel(): the CUDA source KernelExecutor generates for this (scheduled)
  //! fusion, to stdout. Defined in executor/kernel_executor.cpp.
  void printKernel() const;
  void printKernel(const CompileParams& params) const;
  //! nvFuser's segment(args): how FusionExecutorCache would cut this fusion for these
  //! inputs (SegmentCandidateFinder::segment). Defined in segmenter/.
  std::unique_ptr<SegmentedFusion> segment(const KernelArgumentHolder& args) const;

  //! Takes ownership of a new node and names it. Used by IrBuilder.
  template <typename T>
  T* registerStatement(std::unique_ptr<T> node) {
    T* raw = node.get();
    adopt(std::move(node));
    return raw;
  }

  //! Detaches `e` from its operands (its outputs lose their definition, its inputs this
  //! use) and deletes it: pointers to `e` dangle afterwards.
  void removeExpr(Expr* e);

  //! Copies `other` into this (empty) fusion; `cloner` (targeting this fusion) holds the
  //! old -> new map afterwards.
  void copyFrom(const Fusion& other, IrCloner& cloner);
  //! Gives every clone in `cloner` (targeting this fusion) the name of its original in
  //! `other`, and continues `other`'s name counters, so copies print with the same names.
  void keepNames(const Fusion& other, const IrCloner& cloner);

 private:
  // Names `s` and files it with the fusion or the kernel nodes.
  void adopt(std::unique_ptr<Statement> s);

  std::deque<std::unique_ptr<Statement>> statements_;
  std::deque<std::unique_ptr<Statement>> kernel_statements_;
  std::vector<Val*> inputs_;
  std::vector<Val*> outputs_;
  std::unordered_map<int, int64_t> val_counters_;  // by ValKind; scalars share one counter
  int64_t expr_counter_ = 0;
  uint64_t version_ = 0;
  uint64_t id_ = nextId();
  static uint64_t nextId();
};

//! RAII: makes `fusion` the one IR builders and ops create nodes in (thread-local).
class FusionGuard {
 public:
  explicit FusionGuard(Fusion* fusion);
  ~FusionGuard();
  FusionGuard(const FusionGuard&) = delete;
  FusionGuard& operator=(const FusionGuard&) = delete;
  static Fusion* current();

 private:
  Fusion* previous_;
};

//! Creates IR nodes in the current fusion (or a given one).
struct IrBuilder {
  template <typename T, typename... Args>
  static T* create(Args&&... args) {
    Fusion* f = FusionGuard::current();
    MF_CHECK(f != nullptr, "no active fusion: create a FusionGuard before building IR");
    return createIn<T>(f, std::forward<Args>(args)...);
  }
  template <typename T, typename... Args>
  static T* createIn(Fusion* f, Args&&... args) {
    if constexpr (std::is_same_v<T, Val>)
      return newVal(f, std::forward<Args>(args)...);
    else
      return f->registerStatement(std::make_unique<T>(f, std::forward<Args>(args)...));
  }

 private:
  //! nvFuser's create<Val>: a constant of the value's type (1.0 Double, 1L Int64, true Bool)
  //! or of `dtype` (create<Val>(2.0, DataType::Float)), or a symbolic scalar of `dtype`
  //! (create<Val>(DataType::Double), a run-time scalar input once added with addInput).
  static Val* newVal(Fusion* f, ScalarValue value, std::optional<DataType> dtype = std::nullopt);
  static Val* newVal(Fusion* f, DataType dtype);
};

}  // namespace mf
