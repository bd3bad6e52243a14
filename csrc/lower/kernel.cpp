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

namespace {
void printScope(std::ostringstream& os, const Scope& scope, int depth) {
  std::string pad(2 * depth, ' ');
  for (Expr* e : scope.exprs()) {
    os << pad << e->toString() << "\n";
    if (auto* loop = dynamic_cast<ForLoop*>(e)) printScope(os, loop->body(), depth + 1);
    if (auto* ite = dynamic_cast<IfThenElse*>(e)) printScope(os, ite->thenBody(), depth + 1);
  }
}
}  // namespace

std::string Kernel::toString() const {
  std::ostringstream os;
  os << "%kernel {\n";
  printScope(os, body_, 1);
  os << "} // %kernel\n";
  return os.str();
}

}  // namespace mf
