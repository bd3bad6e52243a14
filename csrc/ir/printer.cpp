// The IR printer: the toString of every node and the fusion-level printouts. The text is
// stable (names come from per-kind counters), so tests compare it verbatim.
#include <sstream>

#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/kernel_ir.h"
#include "ir/tensor_view.h"
#include "ir/traversal.h"

namespace mf {
namespace {

char scalarPrefix(DataType t) {
  switch (t) {
    case DataType::Bool:
      return 'b';
    case DataType::Double:
      return 'd';
    case DataType::Float:
    case DataType::Half:
    case DataType::BFloat16:
    case DataType::Float8_e4m3fn:
    case DataType::Float4_e2m1fn:
      return 'f';
    default:
      return 'i';
  }
}

char iterTypeChar(IterType t) {
  switch (t) {
    case IterType::Iteration:
      return 'i';
    case IterType::Reduction:
      return 'r';
    case IterType::Broadcast:
      return 'b';
    case IterType::Symbolic:
      return '?';
  }
  return '?';
}

std::string join(const std::vector<IterDomain*>& ids) {
  std::string s;
  for (IterDomain* id : ids) s += (s.empty() ? "" : ", ") + id->toString();
  return s;
}

std::string operand(const Val* v) {
  return v->toInlineString();
}

// "<out> = <rhs>", with the output printed in full for tensors.
std::string assignment(const Val* out, const std::string& rhs) {
  return fmt::format("{} = {}", out->toString(), rhs);
}

std::string unaryRhs(const UnaryOp* u) {
  switch (u->opType()) {
    case UnaryOpType::Neg:
      return "-" + operand(u->in());
    case UnaryOpType::LogicalNot:
      return "!" + operand(u->in());
    case UnaryOpType::Cast:
      return fmt::format("cast<{}>({})", u->out()->dtype(), operand(u->in()));
    default:
      return fmt::format("{}({})", toString(u->opType()), operand(u->in()));
  }
}

std::string binaryRhs(const BinaryOp* b, bool parens) {
  if (isInfix(b->opType())) {
    std::string s =
        fmt::format("{} {} {}", operand(b->lhs()), toString(b->opType()), operand(b->rhs()));
    return parens ? "( " + s + " )" : s;
  }
  return fmt::format("{}({}, {})", toString(b->opType()), operand(b->lhs()), operand(b->rhs()));
}

std::string ternaryRhs(const TernaryOp* t) {
  return fmt::format("{}({}, {}, {})", toString(t->opType()), operand(t->input(0)),
                     operand(t->input(1)), operand(t->input(2)));
}

std::string contiguityString(const Contiguity& c) {
  std::string s;
  for (const auto& f : c) s += (s.empty() ? "" : " ") + std::string(!f ? "n" : (*f ? "t" : "f"));
  return s;
}

}  // namespace

std::string Scalar::toString() const {
  if (constValue()) return mf::toString(*constValue());
  if (!code_name_.empty()) return code_name_;
  return fmt::format("{}{}", scalarPrefix(dtype()), name());
}

std::string Scalar::toInlineString() const {
  if (constValue() || definition() == nullptr) return toString();
  Expr* def = definition();
  if (auto* b = dynamic_cast<const BinaryOp*>(def)) return binaryRhs(b, true);
  if (auto* u = dynamic_cast<const UnaryOp*>(def)) return unaryRhs(u);
  if (auto* t = dynamic_cast<const TernaryOp*>(def)) return ternaryRhs(t);
  return toString();
}

std::string IterDomain::toString() const {
  return fmt::format("{}{}{}{{{}}}", iterTypeChar(iter_type_), mf::toString(parallel_type_), name(),
                     extent_->toInlineString());
}

std::string TensorDomain::toString() const {
  return "[" + join(loop()) + "]";
}

std::string TensorView::toString() const {
  std::string s = fmt::format("T{}_{}_{}[{}]", name(), mf::toString(memory_type_), dtype(),
                              join(domain_->loop()));
  if (compute_at_pos_ > 0) s += fmt::format(" ca_pos( {} )", compute_at_pos_);
  return s;
}

std::string TensorView::toInlineString() const {
  return fmt::format("T{}", name());
}

std::string TensorIndex::toString() const {
  return fmt::format("T{}[{}]", view_->name(), index_->toInlineString());
}

std::string Split::toString() const {
  return fmt::format("Split: {} by factor {}{} -> {}, {}", in()->toString(), operand(factor()),
                     inner_split_ ? "" : " (outer)", outer()->toString(), inner()->toString());
}

std::string Merge::toString() const {
  return fmt::format("Merge: {} and {} -> {}", outer()->toString(), inner()->toString(),
                     out()->toString());
}

std::string Resize::toString() const {
  return fmt::format("Resize: {} by {} and {} -> {}", in()->toString(), operand(left()),
                     operand(right()), out()->toString());
}

std::string UnaryOp::toString() const {
  return assignment(out(), unaryRhs(this));
}
std::string BinaryOp::toString() const {
  return assignment(out(), binaryRhs(this, false));
}
std::string TernaryOp::toString() const {
  return assignment(out(), ternaryRhs(this));
}
std::string LoadStoreOp::toString() const {
  const char* name = op_ == LoadStoreOpType::SegmentSet ? "segment_set" : "set";
  if (auto* tv = dynamic_cast<const TensorView*>(out()); tv && tv->domain()->hasRoot()) {
    const TensorDomain* td = tv->domain();
    std::string order;  // a permute (ops/shape.h): logical axis i is root axis order[i]
    for (IterDomain* id : td->logical())
      order +=
          fmt::format("{}{}", order.empty() ? "" : ", ",
                      std::find(td->root().begin(), td->root().end(), id) - td->root().begin());
    return assignment(out(), fmt::format("permute({}, {{{}}})", operand(in()), order));
  }
  return assignment(out(), fmt::format("{}({})", name, operand(in())));
}

std::string BroadcastOp::toString() const {
  std::string flags;
  for (bool b : is_broadcast_dims_)
    flags += (flags.empty() ? "" : ", ") + std::string(b ? "true" : "false");
  return assignment(out(), fmt::format("broadcast({}, {{{}}})", operand(in()), flags));
}

std::string ReductionOp::toString() const {
  return assignment(out(), fmt::format("reduction({}, op = {}, initial = {}{})", operand(in()),
                                       reductionOpName(op_), operand(init()),
                                       group_ < 0 ? "" : fmt::format(", group = {}", group_)));
}

std::string FullOp::toString() const {
  return assignment(out(), fmt::format("full({})", operand(fillValue())));
}

std::string PreprocessGroupedMatmulInputSf::toString() const {
  return assignment(out(), fmt::format("preprocessGroupedMatmulInputSf({}, input_offsets = {}, "
                                       "output_offsets = {}, k = {}, g = {}, layout = {}{})",
                                       operand(in()), operand(inputOffsets()),
                                       operand(outputOffsets()), operand(k()), operand(g()),
                                       mf::toString(layout_), tile_ ? ", form = tile" : ""));
}

std::string BlockQuantizationOp::toString() const {
  return fmt::format("{}, {} = blockQuantize({}{}, block_size = {})", blockScales()->toString(),
                     quantized()->toString(), operand(in()),
                     globalScale() ? ", global_scale = " + operand(globalScale()) : "",
                     block_size_);
}

std::string GroupedBlockQuantizationOp::toString() const {
  return fmt::format(
      "{}, {} = groupedBlockQuantize({}, input_offsets = {}, output_offsets = {}{}, block_size = "
      "{}, g = {}, layout = {})",
      blockScales()->toString(), quantized()->toString(), operand(in()), operand(inputOffsets()),
      operand(outputOffsets()), globalScale() ? ", global_scale = " + operand(globalScale()) : "",
      block_size_, operand(g()), mf::toString(layout_));
}

std::string ForLoop::toString() const {
  return fmt::format("FOR {} in {}:", index_->toInlineString(), iter_domain_->toString());
}

std::string IfThenElse::toString() const {
  return fmt::format("IF {}:", cond_->toInlineString());
}

std::string Allocate::toString() const {
  return fmt::format("{} = ALLOCATE(size = {}, mem = {})", buffer_->toString(),
                     size_->toInlineString(), mf::toString(buffer_->getMemoryType()));
}

std::string Fusion::mathString() const {
  std::ostringstream os;
  auto declare = [](const Val* v) {
    return v->kind() == ValKind::Scalar ? fmt::format("{} ({})", v->toString(), v->dtype())
                                        : v->toString();
  };
  os << "Inputs:\n";
  for (Val* v : inputs_) os << "  " << declare(v) << "\n";
  os << "Outputs:\n";
  for (Val* v : outputs_) os << "  " << declare(v) << "\n";
  os << "\n%kernel_math {\n";
  for (Expr* e : exprs()) os << e->toString() << "\n";
  os << "} // %kernel_math\n";
  return os.str();
}

std::string Fusion::transformsString() const {
  std::ostringstream os;
  os << "%kernel_transforms {\n";
  for (TensorView* tv : allTvs()) {
    const TensorDomain* td = tv->domain();
    os << tv->toString() << "\n";
    if (td->hasRoot()) os << " root domain : (" << join(td->root()) << ")\n";
    os << " logical domain : (" << join(td->logical()) << ")\n";
    if (td->hasAllocation()) {
      os << (td->allocationDeclared()
                 ? " allocation domain (declared, not derived from logical) : ("
                 : " allocation domain : (")
         << join(td->allocation()) << ")\n";
    }
    os << " contiguity: " << contiguityString(td->contiguity()) << "\n";
    for (Expr* e : td->allTransforms()) os << "  " << e->toString() << "\n";
    os << " loop domain : (" << join(td->loop()) << ")\n";
  }
  os << "} // %kernel_transforms\n";
  return os.str();
}

}  // namespace mf
