#include "executor/fusion_kernel_runtime.h"

#include <algorithm>
#include <ostream>

#include "ir/expr_evaluator.h"
#include "ir/fusion.h"
#include "support/options.h"
#include "tensor/arguments.h"

namespace mf {

FusionKernelRuntime::FusionKernelRuntime(const Fusion& fusion, SchedulerType scheduler,
                                         std::unique_ptr<HeuristicParams> params,
                                         const std::vector<Tensor>& inputs)
    : fusion_(std::make_unique<Fusion>(fusion)), scheduler_(scheduler), params_(std::move(params)) {
  if (scheduler_ == SchedulerType::NoOp) return;
  scheduled_ = std::make_unique<Fusion>(fusion);
  if (isDumpEnabled(DumpOption::FusionIrPresched))
    dumpStream() << "=== fusion_ir_presched (" << toString(scheduler_) << ") ===\n"
                 << scheduled_->mathString();
  std::unique_ptr<SchedulerEntry> entry = SchedulerEntry::makeSchedulerInstance(scheduler_);
  MF_ASSERT(entry != nullptr, "no scheduler implements {}", toString(scheduler_));
  entry->schedule(scheduled_.get(), params_.get());
  if (isDumpEnabled(DumpOption::FusionIrScheduled))
    dumpStream() << "=== fusion_ir_scheduled (" << toString(scheduler_) << ") ===\n"
                 << scheduled_->mathString() << scheduled_->transformsString();
  executor_ = std::make_unique<KernelExecutor>();
  executor_->compile(scheduled_.get(), inputs, {.index_type = params_->index_type});
}

FusionKernelRuntime::~FusionKernelRuntime() = default;

std::vector<Tensor> FusionKernelRuntime::run(const std::vector<Tensor>& inputs,
                                             const RunOptions& options) {
  if (executor_) return executor_->run(inputs, options);
  // NoOp: nothing to compute. Outputs that are inputs come back as given; the others are
  // empty (NoOp's condition), allocated where the inputs live.
  ExpressionEvaluator ee;
  bindFusionInputs(*fusion_, inputs, ee, "FusionExecutorCache");
  bool on_device = false;
  for (const Tensor& t : inputs) on_device = on_device || t.isCuda();
  std::vector<Tensor> outputs;
  for (Val* out : fusion_->outputs()) {
    const auto& fins = fusion_->inputs();
    if (auto it = std::find(fins.begin(), fins.end(), out); it != fins.end()) {
      outputs.push_back(inputs[it - fins.begin()]);
      continue;
    }
    auto* tv = out->as<TensorView>();
    outputs.push_back(
        allocateOutput(tv, layoutOf(tv, ee), on_device ? Device::Cuda : Device::Host));
  }
  return outputs;
}

std::string FusionKernelRuntime::code() const {
  return executor_ ? executor_->kernelCode() : std::string();
}

std::string FusionKernelRuntime::scheduledIr() const {
  if (!scheduled_) return fmt::format("(no kernel: {})\n", toString(scheduler_));
  return scheduled_->mathString() + scheduled_->transformsString();
}

}  // namespace mf
