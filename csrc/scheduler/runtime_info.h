//! SchedulerRuntimeInfo: what a scheduler may know about one run before anything is
//! compiled: the inputs' metadata (sizes, strides, storage offset and alignment, dtype;
//! never their data), the extents bound into an ExpressionEvaluator, the index type, and
//! the device. Host tensors work: nothing here touches a GPU.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/expr_evaluator.h"
#include "ir/tensor_view.h"
#include "tensor/kernel_argument_holder.h"
#include "tensor/tensor.h"

namespace mf {

class Fusion;

//! The metadata of one input tensor: everything a heuristic may read.
struct TensorMetadata {
  DataType dtype = DataType::Float;
  std::vector<int64_t> sizes;
  //! Per logical axis, in elements (0 for an expanded, self-overlapping axis).
  std::vector<int64_t> strides;
  //! Elements between the allocation's base pointer and element 0 (a view's offset).
  int64_t storage_offset = 0;
  //! Bytes the allocation's base pointer is aligned to (a power of two).
  int64_t base_alignment = kAllocationAlignment;
  //! The value of a 0-dim tensor (a scalar fusion input's argument).
  std::optional<ScalarValue> scalar;

  //! The metadata of `t`: its view's storage offset; the base alignment of a device tensor's
  //! allocation as its address says (a host tensor is copied to a fresh, aligned block).
  static TensorMetadata of(const Tensor& t);
  //! A fresh contiguous (row-major) allocation of `sizes`.
  static TensorMetadata contiguous(DataType dtype, std::vector<int64_t> sizes);
  //! The largest power of two (at most base_alignment) dividing element 0's byte address
  //! (addressAlignment of the offset's bytes, capped by the base's).
  int64_t dataAlignment() const;
};

//! The device a kernel will run on; the executor fills it from the driver. The defaults
//! are an H200's, used when there is no device.
struct DeviceDescription {
  int64_t sm_count = 132;
  int64_t max_threads_per_block = 1024;
  int64_t max_threads_per_sm = 2048;
  int64_t warp_size = 32;
  int64_t smem_per_block_bytes = 227 * 1024;
  int64_t l2_cache_bytes = 50 * 1024 * 1024;
  int64_t compute_major = 9;
  int64_t compute_minor = 0;
};

//! One axis of a tensor's memory layout, outer to inner.
struct AllocationAxis {
  IterDomain* id = nullptr;  //!< the allocation (= a logical) IterDomain
  int64_t size = 1;
  int64_t stride = 0;       //!< elements
  bool contiguous = false;  //!< declared contiguous in the fusion (false for broadcasts)
};

class SchedulerRuntimeInfo {
 public:
  //! Binds `inputs` (one per fusion input, in order; a scalar input's entry holds `scalar`)
  //! into the evaluator. A wrong count or rank, or a size that contradicts the fusion, is a
  //! UserError.
  SchedulerRuntimeInfo(Fusion* fusion, std::vector<TensorMetadata> inputs,
                       DeviceDescription device = {});
  //! The same from tensors (their metadata only).
  SchedulerRuntimeInfo(Fusion* fusion, const std::vector<Tensor>& inputs,
                       DeviceDescription device = {});
  //! nvFuser's: tensors and plain numbers (tensor/kernel_argument_holder.h).
  SchedulerRuntimeInfo(Fusion* fusion, const KernelArgumentHolder& args,
                       DeviceDescription device = {});
  SchedulerRuntimeInfo(Fusion* fusion, ArgumentList args, DeviceDescription device = {});

  Fusion* fusion() const { return fusion_; }
  ExpressionEvaluator& expressionEvaluator() { return ee_; }
  const DeviceDescription& device() const { return device_; }
  //! Int32 when every input fits fitsInt32Index (tensor/tensor.h: its elements and its
  //! farthest element's offset from its first fit in 31 bits; the storage offset does not
  //! count) and every output's allocation fits too; else Int64. The executor's rule.
  DataType indexType() const { return index_type_; }

  //! The run-time extent of `id`; a UserError when it cannot be evaluated.
  int64_t extent(const IterDomain* id);
  //! One entry per fusion input, in order (what the constructor was given).
  const std::vector<TensorMetadata>& inputsMetadata() const { return inputs_; }
  //! The metadata of `tv` when it is a fusion input, else nullptr.
  const TensorMetadata* inputMetadata(const TensorView* tv) const;
  //! `tv`'s allocation axes (reductions dropped) with their run-time sizes and strides:
  //! an input's from its metadata, any other tensor's as a fresh contiguous allocation.
  //! nullopt when the allocation domain is not a permutation of the logical domain (split,
  //! merged or declared, like the layout op's padded output).
  std::optional<std::vector<AllocationAxis>> allocationLayout(const TensorView* tv);
  //! Bytes element 0 of `tv` is aligned to: an input's from its metadata, any other
  //! tensor's kAllocationAlignment.
  int64_t alignment(const TensorView* tv) const;

 private:
  void bindInputs();
  DataType computeIndexType();

  Fusion* fusion_;
  std::vector<TensorMetadata> inputs_;
  DeviceDescription device_;
  ExpressionEvaluator ee_;
  DataType index_type_ = DataType::Int64;
};

}  // namespace mf
