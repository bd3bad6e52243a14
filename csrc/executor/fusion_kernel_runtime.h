//! FusionKernelRuntime: one way of running a fusion, fixed for one input signature: which
//! scheduler takes each part, its heuristics, the scheduled copies, and one compiled kernel
//! per part (nvFuser's FusionKernelRuntime). FusionExecutorCache keeps one per signature and
//! reuses it when the heuristics for new sizes are `sameAs` its own.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "executor/kernel_executor.h"
#include "scheduler/registry.h"

namespace mf {

class FusionKernelRuntime {
 public:
  //! Schedules a copy of `fusion` with `scheduler`'s `params` and compiles it (NVRTC; no GPU
  //! needed). `inputs` give the sizes the kernel is compiled for (index type, vector widths).
  FusionKernelRuntime(const Fusion& fusion, SchedulerType scheduler,
                      std::unique_ptr<HeuristicParams> params, const std::vector<Tensor>& inputs);
  ~FusionKernelRuntime();
  FusionKernelRuntime(const FusionKernelRuntime&) = delete;
  FusionKernelRuntime& operator=(const FusionKernelRuntime&) = delete;

  //! True when the fusion runs as more than one kernel.
  bool isSegmented() const { return false; }
  //! The heuristics of each kernel, in run order.
  std::vector<const HeuristicParams*> heuristics() const { return {params_.get()}; }
  SchedulerType schedulerType() const { return scheduler_; }
  //! True when `params` would schedule exactly as this runtime's (only launch sizes differ).
  bool canReuse(const HeuristicParams& params) const { return params_->sameAs(&params); }

  //! Runs the compiled kernel(s) with `params`' launch sizes (host or device tensors, as
  //! KernelExecutor::run). A NoOp runtime computes nothing: outputs that are inputs come
  //! back as given, empty outputs are allocated.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs, const RunOptions& options = {});

  //! Every kernel's CUDA source, in run order (empty for NoOp).
  std::string code() const;
  //! The scheduled fusion(s) as the printer shows math and transforms.
  std::string scheduledIr() const;
  //! Number of kernels this runtime compiled.
  int64_t kernelCount() const { return executor_ ? 1 : 0; }
  //! The kernel executor of the (single) kernel, for benchmarks; null for NoOp.
  KernelExecutor* executor() { return executor_.get(); }

 private:
  std::unique_ptr<Fusion> fusion_;  // the unscheduled copy (NoOp outputs, reference fallback)
  std::unique_ptr<Fusion> scheduled_;
  SchedulerType scheduler_;
  std::unique_ptr<HeuristicParams> params_;
  std::unique_ptr<KernelExecutor> executor_;
};

}  // namespace mf
