#include "executor/arguments.h"

#include <algorithm>

#include "ir/tensor_view.h"
#include "reference/reference_evaluator.h"

namespace mf {

int64_t TensorLayout::allocNumel() const {
  int64_t n = 1;
  for (int64_t s : alloc_sizes) n *= s;
  return n;
}

void bindInputs(const Fusion& fusion, const std::vector<Tensor>& inputs, ExpressionEvaluator& ee) {
  bindFusionInputs(fusion, inputs, ee, "KernelExecutor");
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto* tv = dynamic_cast<TensorView*>(fusion.inputs()[i]);
    if (tv == nullptr) continue;
    const Tensor& t = inputs[i];
    MF_CHECK(!tv->domain()->hasAllocation(),
             "KernelExecutor: input {}: inputs with an allocation domain are not supported yet",
             tv->toString());
    // A contiguous axis must be dense with the next non-broadcast axis.
    const Contiguity& contig = tv->getContiguity();
    int64_t expected = 1;
    for (int64_t d = t.dim() - 1; d >= 0; --d) {
      if (tv->getLogicalDomain()[d]->isBroadcast()) continue;
      if (contig[d].value_or(false) && t.sizes()[d] > 1)
        MF_CHECK(t.strides()[d] == expected,
                 "KernelExecutor: input {}: axis {} is declared contiguous, so its stride must be "
                 "{}, got {}",
                 tv->toString(), d, expected, t.strides()[d]);
      expected = t.strides()[d] * t.sizes()[d];
    }
  }
  validateOperandExtents(fusion, ee);
}

TensorLayout layoutOf(TensorView* tv, ExpressionEvaluator& ee) {
  TensorLayout l;
  // A reduction's output stores no element along its reduction axes.
  const auto logical = TensorDomain::noReductions(tv->getLogicalDomain());
  for (IterDomain* id : logical)
    l.sizes.push_back(ee.evaluateInt(id->extent(), fmt::format("extent of {}", tv->toString())));
  const auto alloc = TensorDomain::noReductions(tv->getMaybeAllocationDomain());
  for (IterDomain* id : alloc)
    l.alloc_sizes.push_back(
        ee.evaluateInt(id->extent(), fmt::format("allocation extent of {}", tv->toString())));
  l.alloc_strides.assign(alloc.size(), 1);
  for (int64_t j = static_cast<int64_t>(alloc.size()) - 2; j >= 0; --j)
    l.alloc_strides[j] = l.alloc_strides[j + 1] * l.alloc_sizes[j + 1];
  l.declared_allocation = tv->domain()->allocationDeclared();
  l.logical_strides.assign(logical.size(), 0);
  if (l.declared_allocation) {
    // The layout op's logical view of its padded buffer is plain row-major [M, K] (nvFuser:
    // indexing never uses these strides).
    int64_t s = 1;
    for (int64_t d = static_cast<int64_t>(logical.size()) - 1; d >= 0; --d) {
      l.logical_strides[d] = s;
      s *= l.sizes[d];
    }
    return l;
  }
  for (size_t d = 0; d < logical.size(); ++d) {
    // The logical axis itself, or the inner part of a split of it, sets its stride.
    IterDomain* id = logical[d];
    auto it = std::find(alloc.begin(), alloc.end(), id);
    if (it == alloc.end() && !id->uses().empty() && id->uses()[0]->isA<Split>()) {
      auto* split = id->uses()[0]->as<Split>();
      it = std::find(alloc.begin(), alloc.end(), split->inner());
      MF_CHECK(it != alloc.end() && it != alloc.begin() && *(it - 1) == split->outer(),
               "output {}: its allocation domain splits {} into non-adjacent axes, which a "
               "strided host tensor cannot express",
               tv->toString(), id->toString());
    }
    if (it == alloc.end()) continue;  // broadcast axis left out of the allocation
    l.logical_strides[d] = l.alloc_strides[it - alloc.begin()];
  }
  return l;
}

Tensor allocateHost(TensorView* tv, const TensorLayout& layout) {
  if (layout.declared_allocation)
    return Tensor::withAllocation(layout.sizes, layout.alloc_sizes, tv->dtype());
  return Tensor::emptyStrided(layout.sizes, layout.logical_strides, layout.allocNumel(),
                              tv->dtype());
}

}  // namespace mf
