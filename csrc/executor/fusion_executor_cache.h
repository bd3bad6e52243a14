//! FusionExecutorCache: the automatic path (nvFuser's). A user builds a fusion, with no
//! scheduling, and runs it:
//!
//!   auto fusion = std::make_unique<mf::Fusion>();
//!   mf::FusionGuard fg(fusion.get());
//!   ... inputs, ops, outputs ...
//!   mf::FusionExecutorCache fec(std::move(fusion));
//!   std::vector<mf::Tensor> outs = fec.runFusionWithInputs(inputs);
//!
//! Per run: the inputs are checked and keyed by their signature (dtype, rank, which axes are
//! 1, 0 or stride 0, contiguity, alignment); the registry picks a scheduler and computes its
//! heuristics from the sizes; a runtime of that signature whose heuristics are `sameAs` the
//! new ones is reused (a new size then recompiles nothing), otherwise a new one schedules a
//! copy, lowers and compiles it. Exact input metadata seen before skip all of that.
//! Without a GPU every kernel is still scheduled, lowered and compiled with NVRTC, and the
//! outputs come from the CPU reference evaluator (one notice per process on stderr).
//! Safe to call from several threads: one lock per cache, held for the lookup (and, on a
//! miss, the compile); the cached run itself (FusionKernelRuntime::run) runs unlocked.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "executor/fusion_kernel_runtime.h"

namespace mf {

namespace detail {
//! Hash of an input signature (a vector of small integers).
struct SignatureHash {
  size_t operator()(const std::vector<int64_t>& v) const noexcept;
};
}  // namespace detail

class FusionExecutorCache {
 public:
  explicit FusionExecutorCache(std::unique_ptr<Fusion> fusion);
  ~FusionExecutorCache();
  FusionExecutorCache(const FusionExecutorCache&) = delete;
  FusionExecutorCache& operator=(const FusionExecutorCache&) = delete;

  //! Runs the fusion on `inputs` (one per fusion input; host or device tensors, scalars as
  //! 0-dim tensors). Device inputs give device outputs. Bad inputs are mf::UserErrors naming
  //! the input, as KernelExecutor's.
  std::vector<Tensor> runFusionWithInputs(const std::vector<Tensor>& inputs);
  //! The same with test options (poisoned outputs, zero-filled layout pads).
  std::vector<Tensor> runFusionWithInputs(const std::vector<Tensor>& inputs,
                                          const RunOptions& options);

  //! The fusion as the user built it (unscheduled).
  Fusion* fusion() const { return fusion_.get(); }
  //! The runtime of the last run (null before the first): isSegmented(), heuristics(),
  //! fusionSegments().
  FusionKernelRuntime* getMostRecentKernelRuntime() const { return most_recent_; }
  //! Every kernel's CUDA source of the last run.
  std::string getMostRecentCode() const;
  //! The scheduled fusion(s) of the last run.
  std::string getMostRecentScheduledIr() const;
  //! Runtimes created so far (one per signature and distinct heuristics).
  int64_t countRuntimes() const;
  //! Kernels compiled so far.
  int64_t countKernelsCompiled() const;

 private:
  //! A runtime and the launch parameters of the heuristics for one exact signature.
  struct ExactEntry {
    FusionKernelRuntime* runtime = nullptr;
    std::vector<LaunchParams> launch_params;  // one per group
  };
  //! The entry for `inputs`, whose exact signature is `exact`; mutex_ held. Entries are
  //! never erased, so the reference stays valid after the lock is released.
  const ExactEntry& entryFor(const std::vector<Tensor>& inputs, const std::vector<int64_t>& exact);

  mutable std::mutex mutex_;
  std::unique_ptr<Fusion> fusion_;
  // Structural signature -> the runtimes made for it.
  std::unordered_map<std::vector<int64_t>, std::vector<std::unique_ptr<FusionKernelRuntime>>,
                     detail::SignatureHash>
      runtimes_;
  // Exact input metadata -> runtime (skips the registry and the heuristics).
  std::unordered_map<std::vector<int64_t>, ExactEntry, detail::SignatureHash> exact_;
  FusionKernelRuntime* most_recent_ = nullptr;
  int64_t runtime_count_ = 0;
  int64_t kernels_compiled_ = 0;
};

}  // namespace mf
