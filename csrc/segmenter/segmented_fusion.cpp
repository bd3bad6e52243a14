#include "segmenter/segmented_fusion.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/op_traits.h"
#include "ir/subgraph.h"
#include "scheduler/registry.h"
#include "segmenter/alias_analysis.h"

namespace mf {
namespace {

std::string joinNames(const std::vector<Val*>& vals) {
  std::string s;
  for (Val* v : vals) s += (s.empty() ? "" : ", ") + v->toInlineString();
  return s;
}

// Escapes `s` for a double-quoted Graphviz label; lines end left-aligned (\l).
std::string dotLabel(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c == '\n' ? std::string("\\l") : std::string(1, c);
  }
  return out;
}

}  // namespace

SegmentSubfusion makeSegmentSubfusion(const Fusion& complete, const std::vector<Expr*>& exprs,
                                      const std::vector<Val*>& inputs,
                                      const std::vector<Val*>& outputs) {
  SubgraphCopy copy = copySubgraph(complete, exprs, inputs, outputs);
  std::unordered_map<const Val*, Val*> new_to_old;
  for (const auto& [from, to] : copy.old_to_new) new_to_old[to] = const_cast<Val*>(from);
  SegmentSubfusion result{std::move(copy.fusion), {}};
  Fusion* fusion = result.fusion.get();
  for (Val* in : fusion->inputs()) result.original_inputs.push_back(new_to_old.at(in));
  // A segment_set whose output leaves the segment has done its job: the boundary is there.
  // What remains is a copy, which every scheduler takes.
  std::vector<LoadStoreOp*> hints;
  for (Expr* e : fusion->exprs())
    if (isSegmentSet(e) && e->output(0)->uses().empty()) hints.push_back(e->as<LoadStoreOp>());
  for (LoadStoreOp* hint : hints) {
    Val* in = hint->in();
    Val* out = hint->out();
    fusion->removeExpr(hint);
    IrBuilder::createIn<LoadStoreOp>(fusion, std::vector<Val*>{in}, std::vector<Val*>{out},
                                     LoadStoreOpType::Set);
  }
  return result;
}

std::vector<TensorMetadata> segmentInputsMetadata(const std::vector<Val*>& values,
                                                  SchedulerRuntimeInfo& info) {
  const std::vector<Val*>& fusion_inputs = info.fusion()->inputs();
  std::vector<TensorMetadata> metadata;
  for (Val* v : values) {
    auto it = std::find(fusion_inputs.begin(), fusion_inputs.end(), v);
    if (it != fusion_inputs.end()) {
      metadata.push_back(info.inputsMetadata().at(it - fusion_inputs.begin()));
      continue;
    }
    auto* tv = dynamic_cast<TensorView*>(v);
    MF_ASSERT(tv != nullptr, "segment input {} is neither a tensor nor a fusion input",
              v->toInlineString());
    std::vector<int64_t> sizes;
    for (IterDomain* id : tv->getLogicalDomain())
      if (!id->isReduction()) sizes.push_back(info.extent(id));
    metadata.push_back(TensorMetadata::contiguous(tv->dtype(), std::move(sizes)));
  }
  return metadata;
}

std::string SegmentedGroup::toString() const {
  const bool views = scheduler_type_ == SchedulerType::ExprEval;
  std::string s = fmt::format("group {} ({}{})\n", id_, scheduler_type_, views ? ", view" : "");
  s += fmt::format("  inputs: {}\n", joinNames(inputs_));
  s += fmt::format("  outputs: {}\n", joinNames(outputs_));
  // A view's chain of single-operand exprs leads back to the input whose storage it shares.
  for (Val* out : views ? outputs_ : std::vector<Val*>{}) {
    Val* in = out;
    while (std::find(inputs_.begin(), inputs_.end(), in) == inputs_.end() &&
           in->definition() != nullptr)
      in = in->definition()->input(0);
    s += fmt::format("  view: {} of {} (no kernel)\n", out->toInlineString(), in->toInlineString());
  }
  for (Expr* e : exprs_) s += fmt::format("  {}\n", e->toString());
  return s;
}

SegmentedFusion::SegmentedFusion(std::unique_ptr<Fusion> complete_fusion)
    : complete_fusion_(std::move(complete_fusion)) {
  MF_ASSERT(complete_fusion_ != nullptr, "SegmentedFusion: no fusion");
}

SegmentedFusion::~SegmentedFusion() = default;

std::vector<SegmentedGroup*> SegmentedFusion::groups() const {
  std::vector<SegmentedGroup*> out;
  for (const auto& g : groups_) out.push_back(g.get());
  return out;
}

std::vector<SegmentedEdge*> SegmentedFusion::edges() const {
  std::vector<SegmentedEdge*> out;
  for (const auto& e : edges_) out.push_back(e.get());
  return out;
}

void SegmentedFusion::addGroup(std::vector<Expr*> exprs, SchedulerType type,
                               std::optional<std::vector<Val*>> outputs) {
  auto group = std::make_unique<SegmentedGroup>();
  group->id_ = static_cast<int64_t>(groups_.size());
  group->scheduler_type_ = type;
  group->owner_ = this;
  group->exprs_ = std::move(exprs);
  group->given_outputs_ = std::move(outputs);
  groups_.push_back(std::move(group));
}

void SegmentedFusion::finalize(const std::vector<Expr*>& forwarded) {
  std::unordered_set<const Val*> replicated;
  for (Expr* e : forwarded) replicated.insert(e->outputs().begin(), e->outputs().end());
  std::unordered_map<const Val*, SegmentedGroup*> producer;
  for (const auto& g : groups_) {
    if (g->given_outputs_) {
      g->outputs_ = *g->given_outputs_;
    } else {
      for (Val* out : subgraphOutputs(g->exprs_))
        if (!replicated.count(out)) g->outputs_.push_back(out);
    }
    for (Val* out : g->outputs_) producer[out] = g.get();
    // The copy's inputs, in its order: the derived boundary, then the scalar fusion inputs
    // the copy reached.
    g->inputs_ =
        makeSegmentSubfusion(*complete_fusion_, g->exprs_, subgraphInputs(g->exprs_), g->outputs_)
            .original_inputs;
  }
  for (const auto& g : groups_) {
    for (Val* in : g->inputs_) {
      auto it = producer.find(in);
      if (it == producer.end()) continue;
      MF_ASSERT(it->second->id_ < g->id_, "group {} reads {} of the later group {}", g->id_,
                in->toInlineString(), it->second->id_);
      edges_.push_back(std::make_unique<SegmentedEdge>(SegmentedEdge{it->second, g.get(), in}));
      g->producer_edges_.push_back(edges_.back().get());
      it->second->consumer_edges_.push_back(edges_.back().get());
    }
  }
}

std::unique_ptr<Fusion> SegmentedFusion::makeFusion(const SegmentedGroup* group) const {
  MF_CHECK(group != nullptr && group->id_ < static_cast<int64_t>(groups_.size()) &&
               groups_[group->id_].get() == group,
           "makeFusion: the group is not one of this segmented fusion's");
  // The layout op's output is only for a block-scaled grouped GEMM (docs/layout_op.md): a
  // segment reading it could not index its padded, swizzled layout.
  for (Val* in : group->inputs_) {
    if (!outputWrittenByRuntimeFunction(in->definition())) continue;
    for (Expr* e : group->exprs_) {
      const std::vector<Val*>& operands = e->inputs();
      MF_CHECK(std::find(operands.begin(), operands.end(), in) == operands.end(), "{} (segment {})",
               readOfRuntimeFunctionOutputMessage(in->definition(), e), group->id_);
    }
  }
  return makeSegmentSubfusion(*complete_fusion_, group->exprs_, group->inputs_, group->outputs_)
      .fusion;
}

std::vector<TensorMetadata> SegmentedFusion::groupInputsMetadata(
    const SegmentedGroup* group, const std::vector<TensorMetadata>& fusion_inputs) const {
  SchedulerRuntimeInfo info(complete_fusion_.get(), fusion_inputs);
  return segmentInputsMetadata(group->inputs_, info);
}

std::unique_ptr<SchedulerRuntimeInfo> SegmentedFusion::groupRuntimeInfo(
    const SegmentedGroup* group, Fusion* group_fusion,
    const SchedulerRuntimeInfo& runtime_info) const {
  return std::make_unique<SchedulerRuntimeInfo>(
      group_fusion, groupInputsMetadata(group, runtime_info.inputsMetadata()),
      runtime_info.device());
}

std::unique_ptr<HeuristicParams> SegmentedFusion::computeHeuristics(
    const SegmentedGroup* group, Fusion* group_fusion, SchedulerRuntimeInfo& group_info,
    std::string* why) const {
  if (group->schedulerType() == SchedulerType::ExprEval) {
    if (findAliasedOutputs(*group_fusion, group_info).size() != group_fusion->outputs().size()) {
      if (why != nullptr) *why = "not every output is a view of an input";
      return nullptr;
    }
    auto params = std::make_unique<HeuristicParams>(SchedulerType::ExprEval);
    params->index_type = group_info.indexType();
    return params;
  }
  std::unique_ptr<SchedulerEntry> scheduler =
      SchedulerEntry::makeSchedulerInstance(group->schedulerType());
  MF_ASSERT(scheduler != nullptr, "group {} has no scheduler ({})", group->id_,
            group->schedulerType());
  if (!scheduler->canScheduleCompileTime(group_fusion) ||
      !scheduler->canScheduleRunTime(group_fusion, group_info)) {
    if (why != nullptr) *why = scheduler->rejectReason();
    return nullptr;
  }
  return scheduler->computeHeuristics(group_fusion, group_info);
}

std::string SegmentedFusion::toString() const {
  std::string s =
      fmt::format("Segmented fusion: {} group{}\n", groups_.size(), groups_.size() == 1 ? "" : "s");
  for (const auto& g : groups_) s += g->toString();
  for (const auto& e : edges_)
    s += fmt::format("edge group {} -> group {}: {}\n", e->from->id_, e->to->id_,
                     e->val->toInlineString());
  return s;
}

std::string SegmentedFusion::toDot() const {
  std::string s = "digraph segmented_fusion {\n  node [shape=box, fontname=monospace];\n";
  for (const auto& g : groups_) {
    std::string body = fmt::format("group {} ({})\n", g->id_, g->scheduler_type_);
    for (Expr* e : g->exprs_) body += e->toString() + "\n";
    s += fmt::format("  group{} [label=\"{}\"];\n", g->id_, dotLabel(body));
  }
  for (const auto& e : edges_)
    s += fmt::format("  group{} -> group{} [label=\"{}\"];\n", e->from->id_, e->to->id_,
                     dotLabel(e->val->toInlineString()));
  return s + "}\n";
}

SegmentedGroup::SegmentedGroup() = default;
SegmentedGroup::~SegmentedGroup() = default;

Fusion* SegmentedGroup::getFusion() {
  if (!fusion_) fusion_ = owner_->makeFusion(this);
  return fusion_.get();
}

}  // namespace mf
