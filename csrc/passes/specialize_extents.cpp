#include "ir/builder.h"
#include "ir/fusion.h"
#include "ir/id_model.h"
#include "ir/mutator.h"
#include "passes/passes.h"

namespace mf {

void specializeExtents(Fusion& fusion, const FusionPassRequest& request) {
  IdModel model(fusion);
  IrMutator mutator;
  for (const KnownExtent& known : request.known_extents) {
    Val* value = constInt(known.value);
    for (IterDomain* id : model.group(known.axis, IdMappingMode::Exact)) {
      Val* extent = id->extent();
      if (extent->isConst()) {
        MF_ASSERT(extent->constInt() == known.value, "{}: extent {} is not {}", id->toString(),
                  extent->toInlineString(), known.value);
        continue;
      }
      // A derived extent (the layout op's padded rows) follows from the inputs it is made of.
      if (extent->definition() == nullptr) mutator.registerMutation(extent, value);
    }
  }
  mutator.mutate(fusion);
}

}  // namespace mf
