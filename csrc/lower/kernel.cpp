#include "lower/kernel.h"

#include <sstream>

#include "ir/exprs.h"

namespace mf {

Kernel::Kernel(const Fusion& scheduled) : ir_(std::make_unique<Fusion>(scheduled)) {}

void Kernel::setIndexType(DataType t) {
  MF_CHECK(t == DataType::Int32 || t == DataType::Int64,
           "index type must be Int32 or Int64, got {}", t);
  index_type_ = t;
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

void Kernel::printScope(std::ostringstream& os, const Scope& scope, int depth) const {
  std::string pad(2 * depth, ' ');
  for (Expr* e : scope.exprs()) {
    os << pad << e->toString();
    // A block reduction's predicates are arguments of its call, not a guard around it.
    if (auto it = inline_predicates_.find(e); it != inline_predicates_.end())
      os << fmt::format(" (read: {}, write: {})", it->second.read->toInlineString(),
                        it->second.write->toInlineString());
    os << "\n";
    if (auto* loop = dynamic_cast<ForLoop*>(e)) printScope(os, loop->body(), depth + 1);
    if (auto* ite = dynamic_cast<IfThenElse*>(e)) printScope(os, ite->thenBody(), depth + 1);
  }
}

std::string Kernel::toString() const {
  std::ostringstream os;
  os << "%kernel {\n";
  printScope(os, body_, 1);
  os << "} // %kernel\n";
  return os.str();
}

}  // namespace mf
