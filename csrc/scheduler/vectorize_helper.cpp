#include "scheduler/vectorize_helper.h"

#include <algorithm>
#include <bit>
#include <limits>

#include "ir/exprs.h"
#include "ir/op_traits.h"

namespace mf {
namespace {

// Larger than any factor a caller accepts: what "no limit" means below.
constexpr int64_t kUnlimited = int64_t{1} << 30;

// The largest power of two dividing `n`; kUnlimited for 0 (every factor divides 0).
int64_t pow2Dividing(int64_t n) {
  if (n == 0) return kUnlimited;
  return std::min(kUnlimited, int64_t{1} << std::countr_zero(static_cast<uint64_t>(n)));
}

// True when the allocation domain of `tv` is a permutation of its logical domain.
bool allocationIsPermutation(const TensorView* tv) {
  std::vector<IterDomain*> logical = tv->getLogicalDomain();
  std::vector<IterDomain*> alloc = tv->getMaybeAllocationDomain();
  std::sort(logical.begin(), logical.end());
  std::sort(alloc.begin(), alloc.end());
  return logical == alloc;
}

IterDomain* innermostConcrete(const std::vector<IterDomain*>& ids) {
  for (auto it = ids.rbegin(); it != ids.rend(); ++it)
    if (!(*it)->isBroadcast() && !(*it)->isReduction()) return *it;
  return nullptr;
}

}  // namespace

std::vector<IterDomain*> referenceAxesInAllocationOrder(TensorView* reference) {
  const std::vector<IterDomain*>& ids = allocationIsPermutation(reference)
                                            ? reference->getMaybeAllocationDomain()
                                            : reference->getLogicalDomain();
  std::vector<IterDomain*> out;
  for (IterDomain* id : ids)
    if (!id->isReduction()) out.push_back(id);
  return out;
}

std::vector<TensorView*> vectorizableInputsOutputs(const PointwiseDomainMap& map,
                                                   TensorView* reference) {
  IterDomain* ref_inner = innermostConcrete(referenceAxesInAllocationOrder(reference));
  std::vector<TensorView*> tvs;
  if (ref_inner == nullptr) return tvs;
  for (TensorView* tv : map.inputsAndOutputs()) {
    if (outputWrittenByRuntimeFunction(tv->definition())) continue;
    if (!allocationIsPermutation(tv)) continue;
    IterDomain* inner = innermostConcrete(tv->getMaybeAllocationDomain());
    if (inner != nullptr && map.areMappedThroughResize(inner, ref_inner)) tvs.push_back(tv);
  }
  return tvs;
}

int64_t vectorizationFactor(SchedulerRuntimeInfo& runtime_info, const PointwiseDomainMap& map,
                            TensorView* reference, int64_t break_point,
                            const std::vector<TensorView*>& tvs) {
  // The reference's axes a vector may span, innermost first.
  std::vector<IterDomain*> ref_inner;
  const std::vector<IterDomain*> ref_axes = referenceAxesInAllocationOrder(reference);
  for (size_t i = ref_axes.size(); i-- > static_cast<size_t>(break_point);)
    if (!ref_axes[i]->isBroadcast()) ref_inner.push_back(ref_axes[i]);

  int64_t factor = kUnlimited;
  for (TensorView* tv : tvs) {
    std::optional<std::vector<AllocationAxis>> layout = runtime_info.allocationLayout(tv);
    MF_ASSERT(layout.has_value(), "{} has no vectorizable layout", tv->toString());
    std::vector<AllocationAxis> axes;  // innermost first, broadcasts dropped
    for (auto it = layout->rbegin(); it != layout->rend(); ++it)
      if (!it->id->isBroadcast()) axes.push_back(*it);

    int64_t inner_extent = 1, dense_stride = 1;
    size_t merged = 0;
    for (; merged < axes.size() && merged < ref_inner.size(); ++merged) {
      const AllocationAxis& a = axes[merged];
      if (!map.areMappedThroughResize(a.id, ref_inner[merged])) break;
      if (a.size != 1 && (!a.contiguous || a.stride != dense_stride)) break;
      inner_extent *= a.size;
      dense_stride *= a.size;
    }
    int64_t tv_factor = pow2Dividing(inner_extent);
    for (size_t i = merged; i < axes.size(); ++i)
      if (axes[i].size > 1) tv_factor = std::min(tv_factor, pow2Dividing(axes[i].stride));
    const int64_t align_elems = runtime_info.alignment(tv) * 8 / dataTypeSizeBit(tv->dtype());
    tv_factor = std::min(tv_factor, std::max<int64_t>(align_elems, 1));
    factor = std::min(factor, tv_factor);
  }
  // A vector must stay whole on each side of a resize along the axes it spans: its widths
  // and the resized extent are multiples of the factor (else no vectorization: a width not
  // known here gives 1).
  for (size_t i = 0; i < ref_inner.size() && !tvs.empty(); ++i)
    for (Resize* r : map.resizesOf(ref_inner[i]))
      for (Val* v : {r->left(), r->right(), r->in()->extent()}) {
        std::optional<ScalarValue> n = runtime_info.expressionEvaluator().evaluate(v);
        factor = std::min(factor, n ? pow2Dividing(std::abs(asInt(*n))) : 1);
      }
  return factor;
}

}  // namespace mf
