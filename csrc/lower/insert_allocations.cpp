// insertAllocations: register and shared buffers for every tensor that is not in global memory.
#include "ir/builder.h"
#include "lower/index_compute.h"
#include "lower/passes.h"

namespace mf {

void insertAllocations(Kernel& kernel) {
  for (const auto& [e, loops] : kernel.computeExprs()) {
    for (Val* out : e->outputs()) {
      auto* tv = out->as<TensorView>();
      if (tv->getMemoryType() == MemoryType::Global) continue;
      int64_t pos = tv->computeAtPosition();
      Scope& scope = pos == 0 ? kernel.body() : loops[pos - 1]->body();
      auto* alloc = IrBuilder::createIn<Allocate>(&kernel.ir(), tv, localBufferSize(tv));
      scope.exprs().insert(scope.exprs().begin(), alloc);
    }
  }
}

}  // namespace mf
