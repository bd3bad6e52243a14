#include "ir/shape_exprs.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>

#include "ir/builder.h"
#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/tensor_view.h"

namespace mf {
namespace {

std::string extents(const std::vector<IterDomain*>& ids) {
  std::vector<std::string> s;
  for (IterDomain* id : ids) s.push_back(id->extent()->toInlineString());
  return fmt::format("{{{}}}", fmt::join(s, ", "));
}

std::string flags(const std::vector<bool>& f) {
  std::vector<std::string> s;
  for (bool b : f) s.push_back(b ? "true" : "false");
  return fmt::format("{{{}}}", fmt::join(s, ", "));
}

}  // namespace

ViewOp::ViewOp(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs)
    : Expr(f, ExprKind::ViewOp, std::move(ins), std::move(outs)) {
  MF_ASSERT(inputs().size() == 1 && outputs().size() == 1, "ViewOp takes {{in}} and gives {{out}}");
  MF_ASSERT(out()->as<TensorView>()->domain()->hasRoot(), "ViewOp: {} has no root domain",
            out()->toString());
}
Expr* ViewOp::newObject(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs) const {
  return IrBuilder::createIn<ViewOp>(f, std::move(ins), std::move(outs));
}

bool ViewOp::isDynamic() const {
  const TensorDomain* td = out()->as<TensorView>()->domain();
  const auto& root = td->root();
  // A static form's logical axes are root axes or split/merge outputs; a dynamic form's have
  // no definition and are not root axes.
  return std::any_of(td->logical().begin(), td->logical().end(), [&](IterDomain* id) {
    return id->definition() == nullptr && std::find(root.begin(), root.end(), id) == root.end();
  });
}

std::string ViewOp::toString() const {
  return fmt::format("{} = reshape({}, {}){}", out()->toString(), in()->toInlineString(),
                     extents(out()->as<TensorView>()->getLogicalDomain()),
                     isDynamic() ? " (dynamic)" : "");
}

SqueezeOp::SqueezeOp(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs,
                     std::vector<bool> is_squeeze_dims)
    : Expr(f, ExprKind::SqueezeOp, std::move(ins), std::move(outs)),
      is_squeeze_dims_(std::move(is_squeeze_dims)) {
  MF_ASSERT(inputs().size() == 1 && outputs().size() == 1,
            "SqueezeOp takes {{in}} and gives {{out}}");
}
Expr* SqueezeOp::newObject(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs) const {
  return IrBuilder::createIn<SqueezeOp>(f, std::move(ins), std::move(outs), is_squeeze_dims_);
}

std::string SqueezeOp::toString() const {
  return fmt::format("{} = squeeze({}, {})", out()->toString(), in()->toInlineString(),
                     flags(is_squeeze_dims_));
}

ExpandOp::ExpandOp(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs)
    : Expr(f, ExprKind::ExpandOp, std::move(ins), std::move(outs)) {
  MF_ASSERT(inputs().size() >= 1 && outputs().size() == 1,
            "ExpandOp takes {{in, sizes...}} and gives {{out}}");
}
Expr* ExpandOp::newObject(Fusion* f, std::vector<Val*> ins, std::vector<Val*> outs) const {
  return IrBuilder::createIn<ExpandOp>(f, std::move(ins), std::move(outs));
}

std::string ExpandOp::toString() const {
  std::vector<std::string> s;
  for (Val* v : expandedSizes()) s.push_back(v->toInlineString());
  return fmt::format("{} = expand({}, {{{}}})", out()->toString(), in()->toInlineString(),
                     fmt::join(s, ", "));
}

bool isPermute(const Expr* e) {
  auto* op = dynamic_cast<const LoadStoreOp*>(e);
  if (op == nullptr || op->opType() != LoadStoreOpType::Set) return false;
  auto* out = dynamic_cast<const TensorView*>(op->out());
  return out != nullptr && out->domain()->hasRoot();
}

bool isMergeOnlyReshape(const Expr* e) {
  auto* view = dynamic_cast<const ViewOp*>(e);
  if (view == nullptr) return false;
  const TensorView* tv = view->output(0)->as<TensorView>();
  const auto& root = tv->getMaybeRootDomain();
  std::function<bool(IterDomain*)> merges_of_root = [&](IterDomain* id) {
    if (std::find(root.begin(), root.end(), id) != root.end()) return true;
    auto* m = dynamic_cast<Merge*>(id->definition());
    return m != nullptr && merges_of_root(m->outer()) && merges_of_root(m->inner());
  };
  const auto& logical = tv->getLogicalDomain();
  return std::all_of(logical.begin(), logical.end(), merges_of_root);
}

}  // namespace mf
