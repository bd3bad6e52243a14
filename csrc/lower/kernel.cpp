#include "lower/kernel.h"

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

ReductionOp* Kernel::groupedReduction(const ForLoop* loop,
                                      std::vector<const ForLoop*>& group) const {
  if (!loop->isSerial() || loop->iterDomain()->isReduction() || loop->body().exprs().size() != 1)
    return nullptr;
  group.push_back(loop);
  Expr* body = loop->body().exprs().front();
  if (auto* inner = dynamic_cast<ForLoop*>(body)) return groupedReduction(inner, group);
  auto* red = dynamic_cast<ReductionOp*>(body);
  return red != nullptr && inline_predicates_.count(red) ? red : nullptr;
}

Val* Kernel::sizeOf(TensorView* tv, int64_t axis) {
  auto [it, inserted] = named_.try_emplace({tv, axis}, nullptr);
  if (inserted)
    it->second = IrBuilder::createIn<Scalar>(ir_.get(), DataType::Index,
                                             fmt::format("T{}.size[{}]", tv->name(), axis));
  return it->second;
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
    // A block reduction's predicates are arguments of its call, not a guard around it.
    const auto& inline_predicates = kernel_.inlinePredicates();
    if (auto it = inline_predicates.find(dynamic_cast<const Expr*>(s));
        it != inline_predicates.end())
      os_ << fmt::format(" (read: {}, write: {})", it->second.read->toInlineString(),
                         it->second.write->toInlineString());
    os_ << "\n";
  }

  void handle(ForLoop* loop) override {
    line(loop);
    printScope(loop->body());
  }
  void handle(IfThenElse* ite) override {
    line(ite);
    printScope(ite->thenBody());
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
