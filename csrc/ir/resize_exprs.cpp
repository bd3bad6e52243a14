#include "ir/resize_exprs.h"

#include "ir/builder.h"
#include "ir/fusion.h"
#include "ir/kernel_ir.h"
#include "ir/tensor_view.h"

namespace mf {
namespace {

std::string operand(const Val* v) {
  return v->toInlineString();
}

// The tensor behind a cat operand: the TensorView, or in a lowered kernel its TensorIndex's.
const TensorView* tensorOf(const Val* v) {
  if (const auto* ti = dynamic_cast<const TensorIndex*>(v)) return ti->view();
  return v->as<TensorView>();
}

}  // namespace

PadOp::PadOp(Fusion* f, std::vector<Val*> inputs, std::vector<Val*> outputs)
    : Expr(f, ExprKind::PadOp, std::move(inputs), std::move(outputs)) {
  MF_ASSERT(this->inputs().size() >= 2 && this->inputs().size() % 2 == 0,
            "PadOp: inputs are in, value and two widths per axis");
}

Expr* PadOp::newObject(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs) const {
  return IrBuilder::createIn<PadOp>(f, std::move(ins), std::move(outs));
}

std::pair<Val*, Val*> PadOp::widths(size_t axis) const {
  return {input(2 + 2 * axis), input(3 + 2 * axis)};
}

std::vector<size_t> PadOp::paddedAxes() const {
  std::vector<size_t> out;
  for (size_t a = 0; 2 + 2 * a < inputs().size(); ++a) {
    auto [l, r] = widths(a);
    if (l->constInt() != 0 || r->constInt() != 0) out.push_back(a);
  }
  return out;
}

std::string PadOp::toString() const {
  std::string w;
  for (size_t a = 0; 2 + 2 * a < inputs().size(); ++a) {
    auto [l, r] = widths(a);
    w += fmt::format("{}{{{}, {}}}", w.empty() ? "" : ", ", operand(l), operand(r));
  }
  return fmt::format("{} = pad({}, {{{}}}, value = {})", out()->toString(), operand(in()), w,
                     operand(value()));
}

SliceOp::SliceOp(Fusion* f, std::vector<Val*> inputs, std::vector<Val*> outputs)
    : Expr(f, ExprKind::SliceOp, std::move(inputs), std::move(outputs)) {
  MF_ASSERT(this->inputs().size() % 3 == 1,
            "SliceOp: inputs are in and start, stop, step per axis");
}

Expr* SliceOp::newObject(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs) const {
  return IrBuilder::createIn<SliceOp>(f, std::move(ins), std::move(outs));
}

std::string SliceOp::toString() const {
  std::string r;
  for (size_t a = 0; 1 + 3 * a < inputs().size(); ++a)
    r += fmt::format("{}{{{}, {}, {}}}", r.empty() ? "" : ", ", operand(start(a)), operand(stop(a)),
                     operand(step(a)));
  return fmt::format("{} = slice({}, {{{}}})", out()->toString(), operand(in()), r);
}

CatOp::CatOp(Fusion* f, std::vector<Val*> inputs, std::vector<Val*> outputs, int64_t dim)
    : Expr(f, ExprKind::CatOp, std::move(inputs), std::move(outputs)), dim_(dim) {}

Expr* CatOp::newObject(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs) const {
  return IrBuilder::createIn<CatOp>(f, std::move(ins), std::move(outs), dim_);
}

// An input not resized along dim (its pad widths there are both zero) covers the whole axis.
Val* CatOp::offset(size_t k) const {
  IterDomain* id = tensorOf(input(k))->getLogicalDomain().at(static_cast<size_t>(dim_));
  auto* resize = dynamic_cast<Resize*>(id->definition());
  if (resize != nullptr) return resize->left();
  FusionGuard fg(fusion());  // callers need not have one (the reference evaluator)
  return constInt(0);
}

Val* CatOp::extent(size_t k) const {
  IterDomain* id = tensorOf(input(k))->getLogicalDomain().at(static_cast<size_t>(dim_));
  auto* resize = dynamic_cast<Resize*>(id->definition());
  return resize != nullptr ? resize->in()->extent() : id->extent();
}

std::string CatOp::toString() const {
  std::string ins;
  for (Val* v : inputs()) ins += (ins.empty() ? "" : ", ") + operand(v);
  return fmt::format("{} = cat({{{}}}, dim = {})", out()->toString(), ins, dim_);
}

}  // namespace mf
