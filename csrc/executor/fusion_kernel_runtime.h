//! FusionKernelRuntime: one way of running a fusion, fixed for one input signature
//! (nvFuser's): its segmentation (one group when a scheduler takes the whole fusion), each
//! group's scheduler and heuristics, the scheduled copies and one compiled kernel per group.
//! FusionExecutorCache keeps one per signature and reuses it when the heuristics for new
//! sizes are `sameAs` its own.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "executor/kernel_executor.h"
#include "segmenter/segmented_fusion.h"

namespace mf {

//! nvFuser's HeuristicParamsList: each group's heuristics, in run order.
class HeuristicParamsList {
 public:
  const std::vector<std::unique_ptr<HeuristicParams>>& heuristicsList() const { return list_; }

 private:
  friend class FusionKernelRuntime;
  std::vector<std::unique_ptr<HeuristicParams>> list_;
};

class FusionKernelRuntime {
 public:
  //! Runs the fusion passes that read the input sizes on a copy of `fusion` (removeEmpty:
  //! a copy it rewrote holds for these sizes only, see heuristicsFor), then segments the
  //! copy for `inputs` (SegmentCandidateFinder::segment), computes each group's
  //! heuristics in run order, schedules a copy of each group, then compiles the groups (NVRTC;
  //! no GPU needed), up to kCompileThreads at once. Dumps: fusion_ir_presched,
  //! scheduler_params, fusion_ir_scheduled.
  FusionKernelRuntime(const Fusion& fusion, const std::vector<Tensor>& inputs,
                      const DeviceDescription& device);
  ~FusionKernelRuntime();
  FusionKernelRuntime(const FusionKernelRuntime&) = delete;
  //! Groups compiled at once (NVRTC is thread-safe; a few threads cover the usual 2-4 groups).
  static constexpr size_t kCompileThreads = 4;
  FusionKernelRuntime& operator=(const FusionKernelRuntime&) = delete;

  //! What making this runtime cost, in milliseconds: the size passes, segmentation, the
  //! groups' heuristics and scheduling (summed), compiling them (wall time; groups compile in
  //! parallel) and, summed over the kernels, lowering, code generation and NVRTC; kernels
  //! compiled by NVRTC and kernels the kernel cache served (tools/bench/compile_scale).
  struct CompileProfile {
    double passes_ms = 0, segment_ms = 0, heuristics_ms = 0, schedule_ms = 0;
    double compile_wall_ms = 0, lower_ms = 0, codegen_ms = 0, nvrtc_ms = 0;
    size_t groups = 0, kernels_compiled = 0, kernels_reused = 0;
  };
  const CompileProfile& compileProfile() const { return profile_; }

  //! True when the fusion runs as more than one kernel.
  bool isSegmented() const { return segments_->isSegmented(); }
  //! The segmentation (one group for an unsegmented fusion).
  const SegmentedFusion* fusionSegments() const { return segments_.get(); }
  //! The heuristics of each group, in run order.
  std::vector<const HeuristicParams*> heuristics() const;
  //! Each group's heuristics for `inputs`, or nullopt when a group's scheduler refuses them,
  //! or when removeEmpty rewrote this runtime's fusion for other input sizes (it replaced
  //! tensors that are empty at those sizes by constant-shaped fulls).
  std::optional<std::vector<std::unique_ptr<HeuristicParams>>> heuristicsFor(
      const std::vector<Tensor>& inputs, const DeviceDescription& device) const;
  //! nvFuser's spelling: `schedulerHeuristics()->heuristicsList().at(0)->scheduler_type`.
  const HeuristicParamsList* schedulerHeuristics() const { return &heuristics_; }
  //! nvFuser's: each group's executor in run order (`executors().at(0)->as<KernelExecutor>()`);
  //! null for a group without a kernel (NoOp, ExprEval).
  std::vector<KernelExecutor*> executors() const;
  //! True when `params` (heuristicsFor) schedule every group as this runtime does.
  bool canReuse(const std::vector<std::unique_ptr<HeuristicParams>>& params) const;

  //! Runs the groups in order (host or device tensors, as KernelExecutor::run). An ExprEval
  //! group launches nothing: its outputs are views sharing its inputs' storage (the
  //! caller's tensors, host or device; segmenter/alias_analysis.h), on every path below too. With
  //! host inputs on a GPU the inputs go to the device once, intermediates stay there (freed after
  //! their last use) and only the fusion's outputs come back. `launch_params`: one per group
  //! (in run order), the launch parameters of heuristics computed for these inputs
  //! (heuristicsFor, or heuristics() for the inputs this runtime was made with); each
  //! kernel launches with them (KernelExecutor::run's launch constraints). Empty: the
  //! kernels take their launch sizes from their parallel extents alone. `signature_token`:
  //! KernelExecutor::run's, the same for every group (nonzero only for inputs of one exact
  //! signature: FusionExecutorCache's entry id).
  std::vector<Tensor> run(const std::vector<Tensor>& inputs, const RunOptions& options = {},
                          std::span<const LaunchParams> launch_params = {},
                          uint64_t signature_token = 0);

  //! Without a GPU: runs the groups in order on the CPU reference (each group's fusion),
  //! after preparing each kernel's launch for its inputs (KernelExecutor::prepareLaunch:
  //! input checks, launch sizes against `launch_params`), so a run without a device checks
  //! what it can of the real one.
  std::vector<Tensor> runOnReference(const std::vector<Tensor>& inputs,
                                     std::span<const LaunchParams> launch_params = {});

  //! Runs a compiled group's kernel on the host: its outputs for its inputs.
  using HostKernelRunner =
      std::function<std::vector<Tensor>(Kernel& kernel, const std::vector<Tensor>& inputs)>;
  //! Without a GPU: runs the groups in order on the host, each compiled group's lowered
  //! kernel through `run_kernel` (tests pass a kernel interpreter, which checks indexing,
  //! predicates and the threads' cooperation), the groups without a kernel (NoOp) on the CPU
  //! reference.
  std::vector<Tensor> runOnHost(const std::vector<Tensor>& inputs,
                                const HostKernelRunner& run_kernel);

  //! Every kernel's CUDA source, in run order.
  std::string code() const;
  //! The scheduled fusion of each group.
  std::string scheduledIr() const;
  //! Kernels this runtime compiled (NoOp and ExprEval groups have none).
  int64_t kernelCount() const;
  //! The kernel executor of the first kernel (benchmarks of one-kernel fusions); null if none.
  KernelExecutor* executor();

 private:
  struct Group;
  void compileGroups();
  //! The groups in order on the host: `run_group` computes each group's outputs.
  template <typename RunGroup>
  std::vector<Tensor> runGroupsOnHost(const std::vector<Tensor>& inputs, RunGroup run_group);
  //! Numbers every value that crosses a kernel boundary once, so a run keeps its tensors in
  //! a vector indexed by slot rather than a map of Val*.
  void assignSlots();

  std::unique_ptr<SegmentedFusion> segments_;
  HeuristicParamsList heuristics_;  // owns each group's params
  CompileProfile profile_;
  // The input sizes this runtime is specialized to (removeEmpty rewrote its fusion); none
  // when it holds for every size of its signature.
  std::optional<std::vector<std::vector<int64_t>>> sized_for_;
  std::vector<std::unique_ptr<Group>> groups_;
  size_t slot_count_ = 0;             // fusion inputs first (slot i is input i)
  std::vector<size_t> output_slots_;  // per fusion output
  // One group that reads the fusion's inputs and writes its outputs, both in order: a run
  // hands the inputs straight to it.
  bool single_group_passthrough_ = false;
};

}  // namespace mf
