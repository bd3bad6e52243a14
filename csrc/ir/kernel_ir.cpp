#include "ir/kernel_ir.h"

#include <fmt/ranges.h>

#include <algorithm>

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

std::string_view toString(RuntimeCallForm form) {
  switch (form) {
    case RuntimeCallForm::BlockAllReduce:
      return "BlockAllReduce";
    case RuntimeCallForm::GridAllReduce:
      return "GridAllReduce";
    case RuntimeCallForm::LayoutScatter:
      return "LayoutScatter";
    case RuntimeCallForm::LayoutGather:
      return "LayoutGather";
    case RuntimeCallForm::LayoutTile:
      return "LayoutTile";
    case RuntimeCallForm::BlockQuantize:
      return "BlockQuantize";
    case RuntimeCallForm::GroupedBlockQuantize:
      return "GroupedBlockQuantize";
  }
  return "?";
}

std::string_view toString(CallOperand role) {
  switch (role) {
    case CallOperand::In:
      return "in";
    case CallOperand::Init:
      return "init";
    case CallOperand::InputOffsets:
      return "input_offsets";
    case CallOperand::OutputOffsets:
      return "output_offsets";
    case CallOperand::K:
      return "k";
    case CallOperand::G:
      return "g";
    case CallOperand::Row:
      return "row";
    case CallOperand::Col:
      return "col";
    case CallOperand::Position:
      return "position";
    case CallOperand::GlobalScale:
      return "global_scale";
  }
  return "?";
}

const std::vector<CallOperand>& RuntimeCall::operandsOf(RuntimeCallForm form) {
  using enum CallOperand;
  static const std::vector<CallOperand> all_reduce = {In, Init};
  static const std::vector<CallOperand> scatter = {In, InputOffsets, OutputOffsets, K, G, Row, Col};
  static const std::vector<CallOperand> gather = {In, InputOffsets, OutputOffsets, K, G, Position};
  static const std::vector<CallOperand> quantize = {In, GlobalScale, K, Col};
  static const std::vector<CallOperand> grouped_quantize = {
      In, GlobalScale, InputOffsets, OutputOffsets, K, G, Row, Col};
  switch (form) {
    case RuntimeCallForm::BlockAllReduce:
    case RuntimeCallForm::GridAllReduce:
      return all_reduce;
    case RuntimeCallForm::LayoutScatter:
      return scatter;
    case RuntimeCallForm::LayoutGather:
    case RuntimeCallForm::LayoutTile:
      return gather;
    case RuntimeCallForm::BlockQuantize:
      return quantize;
    case RuntimeCallForm::GroupedBlockQuantize:
      return grouped_quantize;
  }
  MF_ASSERT(false, "unknown runtime call form");
}

RuntimeCall::RuntimeCall(Fusion* fusion, std::vector<Val*> operands, std::vector<Val*> outs,
                         RuntimeCallForm form, std::string function, Params params)
    : Expr(fusion, ExprKind::RuntimeCall, std::move(operands), std::move(outs)),
      form_(form),
      function_(std::move(function)),
      params_(params) {
  MF_ASSERT(inputs().size() % operandsOf(form).size() == 0 &&
                (inputs().size() == operandsOf(form).size() || isAllReduce()),
            "{} {} takes {} operands, got {}", mf::toString(form), function_,
            operandsOf(form).size(), inputs().size());
  MF_ASSERT(members() == 1 ||
                (params_.member_combines.size() == members() && outputs().size() == members()),
            "{} {} groups {} reductions but has {} combine ops and {} outputs", mf::toString(form),
            function_, members(), params_.member_combines.size(), outputs().size());
  MF_ASSERT(!outputs().empty(), "{} {} has no output", mf::toString(form), function_);
  // A grid reduction may reduce no thread dimension (Serial): one value per thread and block.
  MF_ASSERT(!isAllReduce() || isThreadDim(params.across) ||
                (form == RuntimeCallForm::GridAllReduce && params.across == ParallelType::Serial),
            "{} {} reduces across {}, not a thread dimension", mf::toString(form), function_,
            mf::toString(params.across));
}

Expr* RuntimeCall::newObject(Fusion* fusion, std::vector<Val*> ins, std::vector<Val*> outs) const {
  auto* call = IrBuilder::createIn<RuntimeCall>(fusion, std::move(ins), std::move(outs), form_,
                                                function_, params_);
  call->reads_ = reads_;
  call->writes_ = writes_;
  return call;
}

Val* RuntimeCall::operand(CallOperand role, size_t member) const {
  const std::vector<CallOperand>& roles = operandsOf(form_);
  auto it = std::find(roles.begin(), roles.end(), role);
  MF_ASSERT(it != roles.end() && member < members(), "{} {} takes no {} operand {}",
            mf::toString(form_), function_, mf::toString(role), member);
  return input(member * roles.size() + static_cast<size_t>(it - roles.begin()));
}

CollectiveScope RuntimeCall::collectiveScope() const {
  switch (form_) {
    case RuntimeCallForm::BlockAllReduce:
    case RuntimeCallForm::LayoutTile:
      return CollectiveScope::Block;
    case RuntimeCallForm::GridAllReduce:
      return CollectiveScope::Grid;
    case RuntimeCallForm::LayoutScatter:
    case RuntimeCallForm::LayoutGather:
    case RuntimeCallForm::BlockQuantize:
    case RuntimeCallForm::GroupedBlockQuantize:
      return CollectiveScope::None;
  }
  return CollectiveScope::None;
}

void RuntimeCall::setPredicates(Val* read, Val* write) {
  MF_ASSERT(collectiveScope() != CollectiveScope::None,
            "{} {} is not collective: guard it instead of passing predicates in",
            mf::toString(form_), function_);
  setMemberPredicates({read}, {write});
}

void RuntimeCall::setMemberPredicates(std::vector<Val*> reads, std::vector<Val*> writes) {
  MF_ASSERT(collectiveScope() != CollectiveScope::None && reads.size() == members() &&
                writes.size() == members(),
            "{} {}: {} read and {} write predicates for {} members", mf::toString(form_), function_,
            reads.size(), writes.size(), members());
  reads_ = std::move(reads);
  writes_ = std::move(writes);
}

std::string RuntimeCall::toString() const {
  std::vector<std::string> outs, args;
  for (Val* v : outputs()) outs.push_back(v->toString());
  const std::vector<CallOperand>& roles = operandsOf(form_);
  for (size_t m = 0; m < members(); ++m) {
    for (size_t i = 0; i < roles.size(); ++i)
      args.push_back(fmt::format("{} = {}", mf::toString(roles[i]),
                                 input(m * roles.size() + i)->toInlineString()));
    if (isAllReduce()) args.push_back(fmt::format("op = {}", reductionOpName(combineOf(m))));
  }
  if (isAllReduce()) args.push_back(fmt::format("across = {}", mf::toString(params_.across)));
  if (form_ == RuntimeCallForm::LayoutGather || form_ == RuntimeCallForm::LayoutTile)
    args.push_back(fmt::format("width = {}", params_.vector_width));
  if (form_ == RuntimeCallForm::LayoutTile)
    args.push_back(fmt::format("threads = {}", params_.threads));
  std::string s =
      fmt::format("{} = call {} {}({})",
                  outs.size() == 1 ? outs[0] : fmt::format("({})", fmt::join(outs, ", ")),
                  mf::toString(form_), function_, fmt::join(args, ", "));
  std::vector<std::string> predicates;
  for (size_t m = 0; m < reads_.size(); ++m)
    predicates.push_back(fmt::format("read: {}, write: {}", reads_[m]->toInlineString(),
                                     writes_[m]->toInlineString()));
  if (!predicates.empty()) s += fmt::format(" ({})", fmt::join(predicates, "; "));
  return s;
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
