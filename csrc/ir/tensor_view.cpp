#include "ir/tensor_view.h"

#include "ir/builder.h"
#include "ir/fusion.h"

namespace mf {

std::string_view toString(MemoryType t) {
  switch (t) {
    case MemoryType::Global:
      return "g";
    case MemoryType::Local:
      return "l";
    case MemoryType::Shared:
      return "s";
  }
  return "?";
}

TensorView::TensorView(Fusion* fusion, TensorDomain* domain, DataType dtype, MemoryType memory_type)
    : Val(fusion, ValKind::TensorView, dtype), domain_(domain), memory_type_(memory_type) {
  MF_CHECK(isTensorDataType(dtype), "a tensor cannot have dtype {}", dtype);
}

void TensorView::setDomain(TensorDomain* domain) {
  MF_ASSERT(domain != nullptr && domain->fusion() == fusion(),
            "setDomain of {}: the domain must be in the tensor's fusion", toString());
  MF_ASSERT(domain->nDims() >= compute_at_pos_, "setDomain of {}: {} is shorter than ca_pos {}",
            toString(), domain->toString(), compute_at_pos_);
  domain_ = domain;
  fusion()->markChanged();
}

void TensorView::setMemoryType(MemoryType t) {
  memory_type_ = t;
  fusion()->markChanged();
}

void TensorView::padBufferRows(int64_t row, int64_t pad) {
  MF_CHECK(row > 0 && pad >= 0, "padBufferRows of {}: rows of {} padded by {} elements", toString(),
           row, pad);
  buffer_row_ = pad == 0 ? 0 : row;
  buffer_row_pad_ = pad;
  fusion()->markChanged();
}

TensorView* TensorView::splitByConstant(int64_t axis, int64_t factor, bool inner_split) {
  FusionGuard fg(fusion());
  MF_CHECK(factor > 0, "split of {}: the factor must be positive, got {}", toString(), factor);
  return split(axis, mf::constInt(factor), inner_split);
}

TensorView* TensorView::split(int64_t axis, Val* factor, bool inner_split) {
  domain_->split(axis, factor, inner_split);
  return this;
}

TensorView* TensorView::merge(int64_t outer, int64_t inner) {
  domain_->merge(outer, inner);
  return this;
}

TensorView* TensorView::reorder(const std::vector<std::pair<int64_t, int64_t>>& old_to_new) {
  domain_->reorder(old_to_new);
  fusion()->markChanged();
  return this;
}

TensorView* TensorView::parallelize(int64_t axis, ParallelType p) {
  domain_->axis(axis)->parallelize(p);
  fusion()->markChanged();
  return this;
}

TensorView* TensorView::setLoopDomain(std::vector<IterDomain*> ids) {
  domain_->setLoopDomain(std::move(ids));
  fusion()->markChanged();
  return this;
}

TensorView* TensorView::setAllocationDomain(std::vector<IterDomain*> ids, Contiguity contiguity) {
  domain_->setAllocationDomain(std::move(ids), std::move(contiguity));
  fusion()->markChanged();
  return this;
}

TensorView* TensorView::setAllocationDomain(std::vector<IterDomain*> ids, bool contiguous) {
  Contiguity c = TensorDomain::filledContiguity(ids, contiguous);
  return setAllocationDomain(std::move(ids), std::move(c));
}

void TensorView::setComputeAtPosition(int64_t pos) {
  MF_CHECK(pos >= 0 && pos <= nDims(), "compute-at position {} of {} is out of range [0, {}]", pos,
           toString(), nDims());
  compute_at_pos_ = pos;
  fusion()->markChanged();
}

}  // namespace mf
