#include "ops/operands.h"

#include "ir/fusion.h"

namespace mf {

Fusion* activeFusion(std::string_view op) {
  Fusion* f = FusionGuard::current();
  MF_CHECK(f != nullptr, "{}: no active fusion: create a FusionGuard before building IR", op);
  return f;
}

void checkOperand(std::string_view op, std::string_view arg, const Val* v, const Fusion* fusion,
                  std::string_view fusion_role) {
  MF_CHECK(v != nullptr, "{}: {} is null", op, arg);
  MF_CHECK(v->fusion() == fusion,
           "{}: {} {} belongs to another fusion than the one the op builds into ({}); build each "
           "op in the fusion of its operands",
           op, arg, v->toString(), fusion_role);
}

}  // namespace mf
