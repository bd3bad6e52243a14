#include "scheduler/runtime_info.h"

#include <algorithm>

#include "ir/fusion.h"

namespace mf {
namespace {

std::vector<int64_t> contiguousStrides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (size_t d = sizes.size(); d-- > 1;)
    strides[d - 1] = strides[d] * std::max<int64_t>(sizes[d], 1);
  return strides;
}

}  // namespace

TensorMetadata TensorMetadata::of(const Tensor& t) {
  TensorMetadata m;
  m.dtype = t.dtype();
  m.sizes = t.sizes();
  m.strides = t.strides();
  m.storage_offset = t.storageOffset();
  if (t.isCuda()) {
    // The allocation's base: element 0's address less the view's offset.
    const uint64_t base =
        t.devicePtr() - static_cast<uint64_t>(t.storageOffset() * dataTypeSize(t.dtype()));
    m.base_alignment = addressAlignment(base, kAllocationAlignment);
  }
  if (t.dim() == 0) m.scalar = t.scalarValue();
  return m;
}

TensorMetadata TensorMetadata::contiguous(DataType dtype, std::vector<int64_t> sizes) {
  TensorMetadata m;
  m.dtype = dtype;
  m.strides = contiguousStrides(sizes);
  m.sizes = std::move(sizes);
  return m;
}

int64_t TensorMetadata::dataAlignment() const {
  return addressAlignment(static_cast<uint64_t>(storage_offset * dataTypeSize(dtype)),
                          base_alignment);
}

SchedulerRuntimeInfo::SchedulerRuntimeInfo(Fusion* fusion, std::vector<TensorMetadata> inputs,
                                           DeviceDescription device)
    : fusion_(fusion), inputs_(std::move(inputs)), device_(device) {
  MF_CHECK(fusion_ != nullptr, "SchedulerRuntimeInfo: fusion is null");
  bindInputs();
  index_type_ = computeIndexType();
}

SchedulerRuntimeInfo::SchedulerRuntimeInfo(Fusion* fusion, const std::vector<Tensor>& inputs,
                                           DeviceDescription device)
    : SchedulerRuntimeInfo(
          fusion,
          [&] {
            std::vector<TensorMetadata> m;
            for (const Tensor& t : inputs) m.push_back(TensorMetadata::of(t));
            return m;
          }(),
          device) {}

void SchedulerRuntimeInfo::bindInputs() {
  const std::vector<Val*>& fusion_inputs = fusion_->inputs();
  MF_CHECK(inputs_.size() == fusion_inputs.size(),
           "SchedulerRuntimeInfo: the fusion has {} inputs, got {}", fusion_inputs.size(),
           inputs_.size());
  for (size_t i = 0; i < fusion_inputs.size(); ++i) {
    const TensorMetadata& m = inputs_[i];
    MF_CHECK(m.strides.size() == m.sizes.size(),
             "SchedulerRuntimeInfo: input {} has {} sizes but {} strides",
             fusion_inputs[i]->toInlineString(), m.sizes.size(), m.strides.size());
    if (auto* tv = dynamic_cast<TensorView*>(fusion_inputs[i])) {
      ee_.bindTensorSizes(tv, m.sizes);
    } else {
      MF_CHECK(m.scalar.has_value(), "SchedulerRuntimeInfo: scalar input {} needs a 0-dim tensor",
               fusion_inputs[i]->toInlineString());
      ee_.bind(fusion_inputs[i], *m.scalar);
    }
  }
}

DataType SchedulerRuntimeInfo::computeIndexType() {
  // The executor's rule (tensor.h): the storage offset does not count.
  for (const TensorMetadata& m : inputs_)
    if (!fitsInt32Index(m.sizes, m.strides)) return DataType::Int64;
  for (Val* v : fusion_->outputs()) {
    auto* tv = dynamic_cast<TensorView*>(v);
    if (tv == nullptr) continue;
    int64_t numel = 1;
    for (IterDomain* id : TensorDomain::noReductions(tv->getMaybeAllocationDomain())) {
      std::optional<ScalarValue> e = ee_.evaluate(id->extent());
      if (!e) return DataType::Int64;  // unknown: the safe choice
      numel *= asInt(*e);
      if (numel > kMaxInt32Index) return DataType::Int64;
    }
  }
  return DataType::Int32;
}

int64_t SchedulerRuntimeInfo::extent(const IterDomain* id) {
  return ee_.evaluateInt(id->extent(), id->toString());
}

const TensorMetadata* SchedulerRuntimeInfo::inputMetadata(const TensorView* tv) const {
  const std::vector<Val*>& fusion_inputs = fusion_->inputs();
  auto it = std::find(fusion_inputs.begin(), fusion_inputs.end(), tv);
  return it == fusion_inputs.end() ? nullptr : &inputs_[it - fusion_inputs.begin()];
}

int64_t SchedulerRuntimeInfo::alignment(const TensorView* tv) const {
  const TensorMetadata* m = inputMetadata(tv);
  return m != nullptr ? m->dataAlignment() : kAllocationAlignment;
}

std::optional<std::vector<AllocationAxis>> SchedulerRuntimeInfo::allocationLayout(
    const TensorView* tv) {
  const std::vector<IterDomain*> logical = TensorDomain::noReductions(tv->getLogicalDomain());
  const std::vector<IterDomain*>& alloc_all = tv->getMaybeAllocationDomain();
  const Contiguity& contiguity = tv->getContiguity();
  std::vector<AllocationAxis> axes;
  std::vector<int64_t> logical_pos;  // allocation axis -> logical axis
  for (size_t a = 0; a < alloc_all.size(); ++a) {
    IterDomain* id = alloc_all[a];
    if (id->isReduction()) continue;
    auto it = std::find(logical.begin(), logical.end(), id);
    if (it == logical.end()) return std::nullopt;
    logical_pos.push_back(it - logical.begin());
    axes.push_back({id, extent(id), 0, a < contiguity.size() && contiguity[a].value_or(false)});
  }
  if (axes.size() != logical.size()) return std::nullopt;

  if (const TensorMetadata* m = inputMetadata(tv)) {
    for (size_t a = 0; a < axes.size(); ++a) axes[a].stride = m->strides.at(logical_pos[a]);
  } else {
    std::vector<int64_t> sizes;
    for (const AllocationAxis& axis : axes) sizes.push_back(axis.size);
    std::vector<int64_t> strides = contiguousStrides(sizes);
    for (size_t a = 0; a < axes.size(); ++a) axes[a].stride = strides[a];
  }
  return axes;
}

SchedulerRuntimeInfo::SchedulerRuntimeInfo(Fusion* fusion, const KernelArgumentHolder& args,
                                           DeviceDescription device)
    : SchedulerRuntimeInfo(fusion, args.toTensors(*fusion), device) {}

SchedulerRuntimeInfo::SchedulerRuntimeInfo(Fusion* fusion, ArgumentList args,
                                           DeviceDescription device)
    : SchedulerRuntimeInfo(fusion, KernelArgumentHolder(args), device) {}

}  // namespace mf
