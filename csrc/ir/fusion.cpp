#include "ir/fusion.h"

#include <algorithm>
#include <atomic>
#include <iostream>

#include "ir/builder.h"
#include "ir/cloner.h"
#include "ir/exprs.h"
#include "ir/tensor_view.h"
#include "ir/traversal.h"
#include "support/options.h"

namespace mf {
namespace {
thread_local Fusion* active_fusion = nullptr;
}  // namespace

FusionGuard::FusionGuard(Fusion* fusion) : previous_(active_fusion) {
  active_fusion = fusion;
}
FusionGuard::~FusionGuard() {
  active_fusion = previous_;
}
Fusion* FusionGuard::current() {
  return active_fusion;
}

Fusion::Fusion() {
  // Reads the environment now, so a bad MINIFUSER_DUMP fails before any work, not at the
  // first compile.
  options();
}
Fusion::~Fusion() = default;

uint64_t Fusion::nextId() {
  static std::atomic<uint64_t> next{1};
  return next++;
}

Fusion::Fusion(const Fusion& other) {
  IrCloner cloner(this);
  copyFrom(other, cloner);
}

Fusion& Fusion::operator=(const Fusion& other) {
  if (this == &other) return *this;
  kernel_statements_.clear();
  statements_.clear();
  inputs_.clear();
  outputs_.clear();
  val_counters_.clear();
  expr_counter_ = 0;
  markChanged();
  IrCloner cloner(this);
  copyFrom(other, cloner);
  return *this;
}

void Fusion::copyFrom(const Fusion& other, IrCloner& cloner) {
  MF_ASSERT(statements_.empty(), "copyFrom needs an empty fusion");
  for (const auto& s : other.statements_) cloner.clone(s.get());
  keepNames(other, cloner);
  inputs_ = cloner.clone(other.inputs_);
  outputs_ = cloner.clone(other.outputs_);
}

void Fusion::keepNames(const Fusion& other, const IrCloner& cloner) {
  MF_ASSERT(cloner.to() == this, "keepNames: the cloner targets another fusion");
  for (const auto& [from, to] : cloner.map()) to->name_ = from->name_;
  for (const auto& [kind, count] : other.val_counters_)
    val_counters_[kind] = std::max(val_counters_[kind], count);
  expr_counter_ = std::max(expr_counter_, other.expr_counter_);
}

void Fusion::adopt(std::unique_ptr<Statement> s) {
  if (auto* v = dynamic_cast<Val*>(s.get())) {
    // Scalars of every dtype share one counter, so i3 and d3 never coexist.
    s->name_ = val_counters_[static_cast<int>(v->kind())]++;
  } else {
    s->name_ = expr_counter_++;
  }
  (isKernelIr(s.get()) ? kernel_statements_ : statements_).push_back(std::move(s));
  markChanged();
}

void Fusion::addInput(Val* v) {
  MF_CHECK(v != nullptr, "addInput: the value is null");
  MF_CHECK(v->fusion() == this, "addInput: {} belongs to another fusion", v->toString());
  MF_CHECK(!v->isConst(), "addInput: {} is a constant; only symbolic values can be inputs",
           v->toString());
  MF_CHECK(v->definition() == nullptr,
           "addInput: {} is computed by `{}`; an input cannot have a definition",
           v->toInlineString(), v->definition() ? v->definition()->toString() : "");
  MF_CHECK(std::find(inputs_.begin(), inputs_.end(), v) == inputs_.end(),
           "addInput: {} is already an input", v->toInlineString());
  MF_CHECK(v->kind() == ValKind::TensorView || v->kind() == ValKind::Scalar,
           "addInput: {} is neither a tensor nor a scalar", v->toString());
  if (auto* tv = dynamic_cast<TensorView*>(v)) tv->setMemoryType(MemoryType::Global);
  inputs_.push_back(v);
  markChanged();
}

void Fusion::addOutput(Val* v) {
  MF_CHECK(v != nullptr, "addOutput: the value is null");
  MF_CHECK(v->fusion() == this, "addOutput: {} belongs to another fusion", v->toString());
  MF_CHECK(v->kind() == ValKind::TensorView, "addOutput: {} is not a tensor; outputs are tensors",
           v->toString());
  MF_CHECK(std::find(outputs_.begin(), outputs_.end(), v) == outputs_.end(),
           "addOutput: {} is already an output", v->toInlineString());
  auto* tv = v->as<TensorView>();
  tv->setMemoryType(MemoryType::Global);
  if (tv->definition() == nullptr && !tv->isFusionInput()) {
    bool constant = true, empty = false;
    for (IterDomain* id : tv->getLogicalDomain()) {
      constant = constant && id->extent()->isConst();
      empty = empty || (id->extent()->isConst() && *id->extent()->constInt() == 0);
    }
    if (constant && empty) {
      FusionGuard fg(this);
      IrBuilder::create<FullOp>(std::vector<Val*>{constFloat(0.0)}, std::vector<Val*>{tv});
    }
  }
  outputs_.push_back(v);
  markChanged();
}

Val* Fusion::zeroVal(DataType dtype) {
  FusionGuard fg(this);
  return isFloatingType(dtype) ? constFloat(0.0, dtype) : constInt(0, dtype);
}

Val* Fusion::oneVal(DataType dtype) {
  FusionGuard fg(this);
  return isFloatingType(dtype) ? constFloat(1.0, dtype) : constInt(1, dtype);
}

void Fusion::replaceInputOrOutput(Val* old, Val* replacement) {
  MF_ASSERT(replacement != nullptr && replacement->fusion() == this,
            "replaceInputOrOutput: the replacement of {} belongs to another fusion",
            old->toString());
  if (std::find(inputs_.begin(), inputs_.end(), old) != inputs_.end()) {
    MF_ASSERT(!replacement->isConst() && replacement->definition() == nullptr,
              "replaceInputOrOutput: input {} cannot become {}", old->toString(),
              replacement->toString());
    std::replace(inputs_.begin(), inputs_.end(), old, replacement);
  }
  std::replace(outputs_.begin(), outputs_.end(), old, replacement);
  markChanged();
  if (auto* tv = dynamic_cast<TensorView*>(replacement);
      tv && (replacement->isFusionInput() || replacement->isFusionOutput()))
    tv->setMemoryType(MemoryType::Global);
}

std::vector<Expr*> Fusion::exprs() const {
  return tensorExprs(outputs_);
}

std::vector<TensorView*> Fusion::allTvs() const {
  std::vector<Val*> roots = inputs_;
  roots.insert(roots.end(), outputs_.begin(), outputs_.end());
  return tensorViews(roots);
}

bool Fusion::hasDynamicTransform() const {
  const std::vector<TensorView*> tvs = allTvs();
  return std::any_of(tvs.begin(), tvs.end(),
                     [](TensorView* tv) { return tv->domain()->hasSymbolicAxis(); });
}

void Fusion::removeExpr(Expr* e) {
  MF_ASSERT(e->fusion() == this, "removeExpr of a foreign expr");
  for (Val* out : e->outputs())
    if (out->definition_ == e) out->definition_ = nullptr;
  for (Val* in : e->inputs()) std::erase(in->uses_, e);
  auto& list = isKernelIr(e) ? kernel_statements_ : statements_;
  auto it = std::find_if(list.begin(), list.end(), [e](const auto& p) { return p.get() == e; });
  MF_ASSERT(it != list.end(), "removeExpr: expr not owned");
  list.erase(it);
  markChanged();
}

void Fusion::printMath() const {
  std::cout << mathString() << std::flush;
}
void Fusion::printTransforms() const {
  std::cout << transformsString() << std::flush;
}
void Fusion::print(std::ostream& os, bool include_tensor_transforms) const {
  os << mathString() << (include_tensor_transforms ? transformsString() : "") << std::flush;
}
void Fusion::print() const {
  print(std::cout);
}

}  // namespace mf
