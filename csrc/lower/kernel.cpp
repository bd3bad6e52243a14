#include "lower/kernel.h"

#include <algorithm>
#include <sstream>

#include "ir/dispatch.h"
#include "ir/exprs.h"

namespace mf {

Kernel::Kernel(const Fusion& scheduled) : ir_(std::make_unique<Fusion>(scheduled)) {}

void Kernel::setIndexType(DataType t) {
  MF_CHECK(t == DataType::Int32 || t == DataType::Int64,
           "index type must be Int32 or Int64, got {}", t);
  index_type_ = t;
}

namespace {

void walk(const Scope& scope, std::vector<ForLoop*>& loops, std::vector<Kernel::LoopNested>& out) {
  for (Expr* e : scope.exprs()) {
    if (auto* loop = dynamic_cast<ForLoop*>(e)) {
      loops.push_back(loop);
      walk(loop->body(), loops, out);
      loops.pop_back();
    } else if (auto* ite = dynamic_cast<IfThenElse*>(e)) {
      walk(ite->thenBody(), loops, out);
      walk(ite->elseBody(), loops, out);
    } else if (!e->isA<Allocate>() && !e->isA<BlockSync>()) {
      out.push_back({e, loops});
    }
  }
}

}  // namespace

std::vector<Kernel::LoopNested> Kernel::computeExprs() const {
  std::vector<LoopNested> out;
  std::vector<ForLoop*> loops;
  walk(body_, loops, out);
  return out;
}

RuntimeCall* Kernel::groupedReduction(const ForLoop* loop,
                                      std::vector<const ForLoop*>& group) const {
  if (!loop->isSerial() || loop->iterDomain()->isReduction() || loop->body().exprs().size() != 1)
    return nullptr;
  group.push_back(loop);
  Expr* body = loop->body().exprs().front();
  if (auto* inner = dynamic_cast<ForLoop*>(body)) return groupedReduction(inner, group);
  auto* call = dynamic_cast<RuntimeCall*>(body);
  return call != nullptr && call->isAllReduce() ? call : nullptr;
}

Val* Kernel::sizeOf(TensorView* tv, int64_t axis) {
  auto [it, inserted] = named_.try_emplace({tv, axis}, nullptr);
  if (inserted)
    it->second = IrBuilder::createIn<Scalar>(ir_.get(), DataType::Index,
                                             fmt::format("T{}.size[{}]", tv->name(), axis));
  return it->second;
}

int64_t Kernel::lastLogicalStridePos(const TensorView* tv) {
  const auto alloc = TensorDomain::noReductions(tv->getMaybeAllocationDomain());
  IterDomain* last = TensorDomain::noReductions(tv->getLogicalDomain()).back();
  return std::find(alloc.begin(), alloc.end(), last) - alloc.begin();
}

Val* Kernel::strideOf(TensorView* tv, int64_t axis) {
  auto [it, inserted] = named_.try_emplace({tv, -1 - axis}, nullptr);
  if (inserted)
    it->second = IrBuilder::createIn<Scalar>(ir_.get(), DataType::Index,
                                             fmt::format("T{}.stride[{}]", tv->name(), axis));
  return it->second;
}

namespace {

// One line per expr, scopes indented under their loop or branch.
class KernelPrinter final : public KirVisitor {
 public:
  explicit KernelPrinter(const Kernel& kernel) : kernel_(kernel) {}

  std::string print() {
    os_ << "%kernel {\n";
    printScope(kernel_.body());
    os_ << "} // %kernel\n";
    return os_.str();
  }

 private:
  void printScope(const Scope& scope) {
    ++depth_;
    for (Expr* e : scope.exprs()) dispatch(e);
    --depth_;
  }
  void line(const Statement* s) {
    os_ << std::string(2 * depth_, ' ') << s->toString();
    // What lowering recorded on a write that changes the code printed for it.
    if (auto* e = dynamic_cast<const Expr*>(s))
      for (Val* out : e->outputs())
        if (auto* ti = dynamic_cast<TensorIndex*>(out); ti != nullptr && ti->anyNaNBits())
          os_ << (e->outputs().size() == 1
                      ? std::string(" (any NaN bits)")
                      : fmt::format(" (any NaN bits: T{})", ti->view()->name()));
    os_ << "\n";
  }

  void handle(ForLoop* loop) override {
    line(loop);
    printScope(loop->body());
  }
  void handle(IfThenElse* ite) override {
    line(ite);
    printScope(ite->thenBody());
    if (ite->elseBody().empty()) return;
    os_ << std::string(2 * depth_, ' ') << "ELSE:\n";
    printScope(ite->elseBody());
  }
  void handle(Allocate* a) override { line(a); }
  void handle(BlockSync* sync) override { line(sync); }
  void handle(ScalarDef* def) override { line(def); }
  // Lowered math (fusion exprs on TensorIndex operands) prints as in a fusion.
  void unhandled(Statement* s, std::string_view) override { line(s); }

  const Kernel& kernel_;
  std::ostringstream os_;
  int depth_ = 0;
};

}  // namespace

std::string Kernel::toString() const {
  return KernelPrinter(*this).print();
}

}  // namespace mf
