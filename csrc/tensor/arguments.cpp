#include "tensor/arguments.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <unordered_map>

#include "ir/block_scaling_factor_layout.h"
#include "ir/expr_evaluator.h"
#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/tensor_view.h"
#include "ir/verifier.h"
#include "tensor/kernel_argument_holder.h"

namespace mf {
namespace {

void bindScalar(const Val* s, size_t i, const Tensor& t, ExpressionEvaluator& ee,
                std::string_view who) {
  const bool ok =
      s->dtype() == DataType::Index ? isIntegralType(t.dtype()) : t.dtype() == s->dtype();
  MF_CHECK(t.dim() == 0 && ok,
           "{}: input {} {} is a {} scalar: expected a 0-dim {} tensor holding its value, "
           "got {}[{}]",
           who, i, s->toString(), s->dtype(),
           s->dtype() == DataType::Index ? DataType::Int64 : s->dtype(), t.dtype(),
           fmt::join(t.sizes(), ", "));
  // One element; a device scalar costs one small copy.
  ee.bind(s, t.scalarValue());
}

// A contiguous axis must be dense with the next non-broadcast axis of the allocation
// domain (inner to outer) that has more than one element. Broadcast and size-1 axes place no
// constraint and are skipped (as PyTorch's is_contiguous): no index ever steps along them,
// so their strides are arbitrary. Lowering relies on this: a merged loop index addresses a
// run of contiguous axes directly, their strides being the products of the inner sizes.
void checkContiguity(const TensorView* tv, size_t i, const Tensor& t, std::string_view who) {
  if (t.numel() == 0) return;  // no element is addressed: any strides will do
  const Contiguity& contig = tv->getContiguity();
  const std::vector<int64_t> perm = allocationPermutation(tv);
  const auto& alloc = tv->getMaybeAllocationDomain();
  int64_t expected = 1;
  for (int64_t j = static_cast<int64_t>(perm.size()) - 1; j >= 0; --j) {
    const int64_t d = perm[j];
    if (alloc[j]->isBroadcast() || t.sizes()[d] == 1) continue;
    if (contig[j].value_or(false))
      MF_CHECK(t.strides()[d] == expected,
               "{}: input {} {}: axis {} is declared contiguous, so its stride must be {}, got {}",
               who, i, tv->toString(), d, expected, t.strides()[d]);
    expected = t.strides()[d] * t.sizes()[d];
  }
}

}  // namespace

std::vector<int64_t> allocationPermutation(const TensorView* tv, std::string_view who) {
  const std::vector<IterDomain*> logical = TensorDomain::noReductions(tv->getLogicalDomain());
  std::vector<int64_t> perm;
  for (IterDomain* id : tv->getMaybeAllocationDomain()) {
    if (id->isReduction()) continue;
    auto it = std::find(logical.begin(), logical.end(), id);
    MF_CHECK(it != logical.end(),
             "{}: input {}: its allocation domain must be a permutation of its logical domain; {} "
             "is not a logical axis (split or merged allocation domains are supported on outputs "
             "only)",
             who, tv->toString(), id->toString());
    perm.push_back(it - logical.begin());
  }
  return perm;
}

std::vector<int64_t> allocationStrides(const TensorView* tv, const Tensor& t) {
  std::vector<int64_t> strides;
  for (int64_t d : allocationPermutation(tv)) strides.push_back(t.strides()[d]);
  return strides;
}

void bindFusionInputs(const Fusion& fusion, const std::vector<Tensor>& inputs,
                      ExpressionEvaluator& ee, std::string_view who) {
  const std::vector<Val*>& fusion_inputs = fusion.inputs();
  std::vector<std::string> names;
  for (Val* v : fusion_inputs) names.push_back(v->toInlineString());
  MF_CHECK(inputs.size() == fusion_inputs.size(), "{}: expected {} inputs ({}), got {}", who,
           fusion_inputs.size(), fmt::join(names, ", "), inputs.size());
  // extent -> (input, axis) that bound it first, to name both tensors on a conflict.
  std::unordered_map<const Val*, std::pair<size_t, size_t>> bound_by;
  for (size_t i = 0; i < fusion_inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    if (fusion_inputs[i]->kind() == ValKind::Scalar) {
      bindScalar(fusion_inputs[i], i, t, ee, who);
      continue;
    }
    auto* tv = fusion_inputs[i]->as<TensorView>();
    const std::vector<IterDomain*> ids = TensorDomain::noReductions(tv->getLogicalDomain());
    MF_CHECK(t.dim() == static_cast<int64_t>(ids.size()),
             "{}: input {} {}: expected rank {}, got a tensor of rank {} [{}]", who, i,
             tv->toString(), ids.size(), t.dim(), fmt::join(t.sizes(), ", "));
    MF_CHECK(t.dtype() == tv->dtype(), "{}: input {} {}: expected dtype {}, got {}", who, i,
             tv->toString(), tv->dtype(), t.dtype());
    MF_CHECK(!tv->domain()->allocationDeclared(),
             "{}: input {} {}: an input's allocation domain must be a permutation of its logical "
             "domain, not a declared (padded) one",
             who, i, tv->toString());
    allocationPermutation(tv, who);  // a split or merged allocation domain is a UserError
    for (size_t d = 0; d < ids.size(); ++d) {
      const int64_t size = t.sizes()[d];
      const Val* extent = ids[d]->extent();
      if (std::optional<int64_t> c = extent->constInt()) {
        MF_CHECK(*c == size,
                 "{}: input {} {}: axis {} ({}) has the constant extent {}, got size {}", who, i,
                 tv->toString(), d, ids[d]->toString(), *c, size);
      } else if (auto it = bound_by.find(extent); it != bound_by.end()) {
        auto [j, dj] = it->second;
        const int64_t expected = inputs[j].sizes()[dj];
        MF_CHECK(expected == size,
                 "{}: input {} {}: axis {} has size {}, but axis {} of input {} {} has size {} "
                 "and both have the extent {}",
                 who, i, tv->toString(), d, size, dj, j, fusion_inputs[j]->toInlineString(),
                 expected, extent->toInlineString());
      } else {
        bound_by.emplace(extent, std::pair{i, d});
      }
    }
    checkContiguity(tv, i, t, who);
    // Cannot fail after the checks above, which name the tensors more precisely.
    ee.bindTensorSizes(tv, t.sizes());
  }
}

void verifyRunnable(const Fusion& fusion, std::string_view who) {
  MF_CHECK(!fusion.outputs().empty(),
           "{}: the fusion has no outputs, so a run computes nothing; add one with "
           "fusion.addOutput(tv)",
           who);
  verifyFusionInputs(fusion, who);
}

void checkAndBindInputs(const Fusion& fusion, const std::vector<Tensor>& inputs,
                        ExpressionEvaluator& ee, std::string_view who) {
  verifyRunnable(fusion, who);
  bindFusionInputs(fusion, inputs, ee, who);
  // validateOperandExtents names the expr but not the entry point: add it.
  try {
    validateOperandExtents(fusion, ee);
  } catch (const UserError& e) {
    throw UserError(fmt::format("{}: {}", who, e.what()));
  }
}

int64_t TensorLayout::allocNumel() const {
  int64_t n = 1;
  for (int64_t s : alloc_sizes) n *= s;
  return n;
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
  // Sizes computed from the inputs' (a broadcast of [2^40, 1] and [1, 2^40]) may not fit.
  checkedNumel(l.sizes, fmt::format("output {}", tv->toString()));
  checkedNumel(l.alloc_sizes, fmt::format("the allocation of output {}", tv->toString()));
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
    Split* split = it != alloc.end() || id->uses().empty()
                       ? nullptr
                       : visitIdExpr(
                             id->uses()[0], [](Split* s) { return s; },
                             [](Merge*) -> Split* { return nullptr; },  // not looked through
                             [](Resize*) -> Split* { return nullptr; });
    if (split != nullptr) {
      it = std::find(alloc.begin(), alloc.end(), split->inner());
      MF_CHECK(it != alloc.end() && it != alloc.begin() && *(it - 1) == split->outer(),
               "output {}: its allocation domain splits {} into non-adjacent axes, which a "
               "strided tensor cannot express",
               tv->toString(), id->toString());
    }
    if (it == alloc.end()) continue;  // broadcast axis left out of the allocation
    l.logical_strides[d] = l.alloc_strides[it - alloc.begin()];
  }
  return l;
}

Tensor allocateOutput(TensorView* tv, const TensorLayout& layout, Device device) {
  if (layout.declared_allocation)
    return Tensor::withAllocation(layout.sizes, layout.alloc_sizes, tv->dtype(), device);
  return Tensor::emptyStrided(layout.sizes, layout.logical_strides, layout.allocNumel(),
                              tv->dtype(), device);
}

int64_t layoutUsedRows(const Tensor& input_offsets, const Tensor& output_offsets, int64_t m) {
  const int64_t g = input_offsets.numel();
  if (g == 0 || output_offsets.numel() != g) return 0;
  const int64_t rows = m - asInt(input_offsets.value(g - 1));
  // Block128x4 is the only layout (ops/layout.cpp refuses others).
  return asInt(output_offsets.value(g - 1)) +
         blockScalingFactorGeometry(BlockScalingFactorLayout::Block128x4).groupRows(rows);
}

Tensor PolymorphicValue::toTensor(std::optional<DataType> dtype) const {
  if (!number_) return tensor_;
  const DataType type = dtype.value_or(dataTypeOf(*number_));
  Tensor t = Tensor::empty({}, type);
  storeElement(static_cast<std::byte*>(t.rawData()), type, *number_);
  return t;
}

std::vector<Tensor> KernelArgumentHolder::toTensors(const Fusion& fusion) const {
  std::vector<Tensor> tensors;
  tensors.reserve(args_.size());
  for (size_t i = 0; i < args_.size(); ++i) {
    const Val* input = i < fusion.inputs().size() ? fusion.inputs()[i] : nullptr;
    std::optional<DataType> dtype;
    if (args_[i].isNumber() && input != nullptr && input->kind() == ValKind::Scalar)
      dtype = input->dtype() == DataType::Index ? DataType::Int64 : input->dtype();
    tensors.push_back(args_[i].toTensor(dtype));
  }
  return tensors;
}

}  // namespace mf
