// validateSchedule: reject schedules the later passes cannot lower, with a message that
// names the tensor and the axis.
#include <set>

#include "ir/exprs.h"
#include "lower/index_compute.h"
#include "lower/passes.h"

namespace mf {

void validateSchedule(Kernel& kernel) {
  for (TensorView* tv : kernel.ir().allTvs()) {
    std::set<ParallelType> bound;
    for (int64_t i = 0; i < tv->nDims(); ++i) {
      IterDomain* id = tv->axis(i);
      ParallelType p = id->parallelType();
      if (p == ParallelType::Serial || p == ParallelType::Unroll) continue;
      MF_CHECK(bound.insert(p).second, "{}: {} is bound to two axes", tv->toString(), toString(p));
      if (p != ParallelType::Vectorize) continue;
      MF_CHECK(i == tv->nDims() - 1, "{}: vectorized axis {} must be the innermost loop axis",
               tv->toString(), id->toString());
      std::optional<int64_t> w = id->extent()->constInt();
      MF_CHECK(w.has_value(), "{}: vectorized axis {} needs a constant extent", tv->toString(),
               id->toString());
      MF_CHECK(*w * dataTypeSize(tv->dtype()) <= 16 && (*w & (*w - 1)) == 0,
               "{}: vector width {} of {} bytes is not a power of two of at most 16 bytes",
               tv->toString(), *w, *w * dataTypeSize(tv->dtype()));
      bool is_copy = tv->definition() && tv->definition()->isA<LoadStoreOp>();
      MF_CHECK(tv->isFusionInput() || is_copy,
               "{}: only the output of a set() copy can be vectorized; vectorize the copy that "
               "stages it and compute on registers",
               tv->toString());
    }
    if (tv->isFusionInput() || tv->getMemoryType() == MemoryType::Global) continue;
    Val* size = localBufferSize(tv);
    MF_CHECK(size->constInt().has_value(),
             "{} is held in registers but needs a buffer of symbolic size {}; inline it "
             "(inlineAt / inlineMost), bind its axes to threads, or split by constants",
             tv->toString(), size->toInlineString());
  }
}

}  // namespace mf
