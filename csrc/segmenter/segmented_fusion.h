//! SegmentedFusion: a fusion cut into segments (SegmentedGroup), each one kernel with one
//! scheduler, joined by edges (SegmentedEdge) that carry a tensor through global memory.
//! SegmentCandidateFinder (segmenter/segment_candidate_finder.h) builds it; the runtime
//! walks groups() in order, builds each group's fusion (makeFusion), computes its
//! heuristics from its inputs' metadata (groupRuntimeInfo, computeHeuristics) and runs it.
//!
//!   T1 = exp(T0); T2 = segment_set(T1); T3 = neg(T2)
//!   group 0 (pointwise): T1 = exp(T0); T2 = segment_set(T1)    edge 0 -> 1: T2
//!   group 1 (pointwise): T3 = neg(T2)
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/heuristic_params.h"
#include "scheduler/runtime_info.h"

namespace mf {

class Fusion;
class SegmentedGroup;
class SegmentedFusion;

//! `val`, computed by group `from`, is read by group `to`.
struct SegmentedEdge {
  SegmentedGroup* from = nullptr;
  SegmentedGroup* to = nullptr;
  Val* val = nullptr;
};

//! One segment: exprs of the complete fusion that one scheduler takes as one kernel.
class SegmentedGroup {
 public:
  //! The position in SegmentedFusion::groups() (the run order).
  int64_t id() const { return id_; }
  SchedulerType schedulerType() const { return scheduler_type_; }
  //! The complete fusion's exprs in this segment, in topological order. A forwarded unary
  //! chain of a fusion input is listed in every group that reads its end.
  const std::vector<Expr*>& exprs() const { return exprs_; }
  //! The values the segment's fusion takes, in its input order: fusion inputs and tensors of
  //! earlier groups, in order of first use, then the scalar fusion inputs its scalars need.
  const std::vector<Val*>& inputs() const { return inputs_; }
  //! The tensors it computes for the fusion's outputs or for later groups, in topological
  //! order.
  const std::vector<Val*>& outputs() const { return outputs_; }
  //! Edges into this group (from earlier groups), in the order of inputs(), and out of it,
  //! by consumer group, then in that group's input order.
  const std::vector<SegmentedEdge*>& producerEdges() const { return producer_edges_; }
  const std::vector<SegmentedEdge*>& consumerEdges() const { return consumer_edges_; }
  //! `group 1 (pointwise)`, its inputs, outputs and exprs, one per line; an ExprEval group
  //! reads `group 0 (expr_eval, view)` and lists `view: T2 of T0` per output.
  std::string toString() const;
  //! nvFuser's getFusion(): this group's standalone fusion (SegmentedFusion::makeFusion),
  //! made on first use and kept.
  Fusion* getFusion();

  SegmentedGroup();
  ~SegmentedGroup();

 private:
  friend class SegmentedFusion;
  const SegmentedFusion* owner_ = nullptr;
  std::unique_ptr<Fusion> fusion_;

  int64_t id_ = 0;
  SchedulerType scheduler_type_ = SchedulerType::None;
  std::vector<Expr*> exprs_;
  std::optional<std::vector<Val*>> given_outputs_;  // addGroup's
  std::vector<Val*> inputs_;
  std::vector<Val*> outputs_;
  std::vector<SegmentedEdge*> producer_edges_;
  std::vector<SegmentedEdge*> consumer_edges_;
};

class SegmentedFusion {
 public:
  //! Takes the complete fusion; groups come from addGroup. Built by SegmentCandidateFinder.
  explicit SegmentedFusion(std::unique_ptr<Fusion> complete_fusion);
  ~SegmentedFusion();
  SegmentedFusion(const SegmentedFusion&) = delete;
  SegmentedFusion& operator=(const SegmentedFusion&) = delete;

  //! The copy of the segmented fusion that groups' exprs and values belong to.
  Fusion* completeFusion() const { return complete_fusion_.get(); }
  //! The groups in run order: every group runs after the groups it reads from.
  std::vector<SegmentedGroup*> groups() const;
  std::vector<SegmentedEdge*> edges() const;
  //! More than one group.
  bool isSegmented() const { return groups_.size() > 1; }

  //! A standalone fusion for `group`: a copy of its exprs with its inputs() and outputs()
  //! (ir/subgraph.h), names kept; a segment_set becomes a plain set (the segment boundary
  //! it asked for is there). Throws mf::UserError when the group reads the output of a layout
  //! op (readOfRuntimeFunctionOutputMessage, ir/op_traits.h): "unsafe use of the output of
  //! preprocessGroupedMatmulInputSf: <output> is read by <consumer's output>, ... (segment N)".
  std::unique_ptr<Fusion> makeFusion(const SegmentedGroup* group) const;

  //! The metadata of `group`'s inputs for the complete fusion's inputs `fusion_inputs` (one
  //! per input of completeFusion(), in order): a fusion input's own; a tensor of an earlier
  //! group gets the extents the complete fusion's ExpressionEvaluator gives and contiguous
  //! strides (intermediates are fresh contiguous allocations).
  std::vector<TensorMetadata> groupInputsMetadata(
      const SegmentedGroup* group, const std::vector<TensorMetadata>& fusion_inputs) const;
  //! The run-time info of `group_fusion` (makeFusion(group)) for the complete fusion's run
  //! described by `runtime_info` (of completeFusion() or of the fusion segmented: same
  //! inputs).
  std::unique_ptr<SchedulerRuntimeInfo> groupRuntimeInfo(
      const SegmentedGroup* group, Fusion* group_fusion,
      const SchedulerRuntimeInfo& runtime_info) const;
  //! The heuristics of `group`'s scheduler for `group_fusion` at the sizes of `group_info`
  //! (groupRuntimeInfo); nullptr when the scheduler refuses at these sizes (the runtime then
  //! segments again for them). An ExprEval group gets base HeuristicParams while every
  //! output is still a view of an input at these sizes and strides (findAliasedOutputs).
  //! `why`, if given, gets the refusal's reason.
  std::unique_ptr<HeuristicParams> computeHeuristics(const SegmentedGroup* group,
                                                     Fusion* group_fusion,
                                                     SchedulerRuntimeInfo& group_info,
                                                     std::string* why = nullptr) const;

  //! Every group (toString) and then every edge: `edge group 0 -> group 1: T2`.
  //! Deterministic: the same fusion and sizes print the same text in every process.
  std::string toString() const;
  //! A Graphviz digraph: one box per group (scheduler, exprs), one arrow per edge (value).
  std::string toDot() const;

  //! For SegmentCandidateFinder: appends a group of `exprs` (topological order) taken by
  //! `type`; then finalize() once all are added, in run order. `outputs`, when given, are
  //! the group's outputs (an ExprEval group's views, and the groups beside one: a view's
  //! chain may be copied into them, its tensors are not theirs to write).
  void addGroup(std::vector<Expr*> exprs, SchedulerType type,
                std::optional<std::vector<Val*>> outputs = std::nullopt);
  //! Computes each group's inputs, outputs (those given to addGroup, else the tensors its
  //! exprs compute for the fusion's outputs or for other groups) and the edges. `forwarded`
  //! are the exprs replicated into the groups that use them (their outputs are never edges).
  void finalize(const std::vector<Expr*>& forwarded);

 private:
  std::unique_ptr<Fusion> complete_fusion_;
  std::vector<std::unique_ptr<SegmentedGroup>> groups_;
  std::vector<std::unique_ptr<SegmentedEdge>> edges_;
};

//! A segment's standalone fusion and, per input of it, the value of the complete fusion it
//! stands for.
struct SegmentSubfusion {
  std::unique_ptr<Fusion> fusion;
  std::vector<Val*> original_inputs;
};

//! The standalone fusion of `exprs` of `complete` with these boundary values (copySubgraph:
//! scalar fusion inputs the copy needs come after `inputs`), a segment_set whose output
//! leaves the fusion turned into a plain set. The segmenter's trial unions and makeFusion
//! share it; makeFusion adds the layout op's unsafe-consumer check.
SegmentSubfusion makeSegmentSubfusion(const Fusion& complete, const std::vector<Expr*>& exprs,
                                      const std::vector<Val*>& inputs,
                                      const std::vector<Val*>& outputs);

//! The metadata of `values` (inputs of a segment of `complete`): a fusion input's from
//! `info` (of `complete`), any other tensor's as a contiguous allocation of the extents
//! `info`'s evaluator gives, a scalar's value from it.
std::vector<TensorMetadata> segmentInputsMetadata(const std::vector<Val*>& values,
                                                  SchedulerRuntimeInfo& info);

}  // namespace mf
