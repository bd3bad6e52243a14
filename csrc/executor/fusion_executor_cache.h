//! FusionExecutorCache: the automatic path (nvFuser's). A user builds a fusion, with no
//! scheduling, and runs it:
//!
//!   auto fusion = std::make_unique<mf::Fusion>();
//!   mf::FusionGuard fg(fusion.get());
//!   ... inputs, ops, outputs ...
//!   mf::FusionExecutorCache fec(std::move(fusion));
//!   std::vector<mf::Tensor> outs = fec.runFusionWithInputs(inputs);
//!
//! Per run: the inputs are checked; a dynamic fusion (ir/dynamic_transform.h: a reshape,
//! resize or expand to run-time sizes, or an extent that may be 0) is concretized for them:
//! a copy of it, rewritten into its static form, one per distinct concretization (compared
//! by structure, not by size: countConcretizations()), so the user's fusion stays symbolic.
//! The inputs are then keyed by their signature (dtype, rank, which axes are 1, 0 or stride
//! 0, contiguity, alignment); the registry picks a scheduler and computes its heuristics from
//! the sizes; a runtime of that concretization and signature whose heuristics are `sameAs`
//! the new ones is reused (a new size then recompiles nothing), otherwise a new one
//! schedules a copy, lowers and compiles it. Exact input metadata seen before (sizes,
//! strides and scalar values: everything a concretization depends on) skip all of that, so
//! the hot path of a dynamic fusion is that of a static one: one hash lookup.
//! Without a GPU every kernel is still scheduled, lowered and compiled with NVRTC, and the
//! outputs come from the CPU reference evaluator (one notice per process on stderr).
//! Safe to call from several threads: one lock per cache, held for the lookup (and, on a
//! miss, the compile); the cached run itself (FusionKernelRuntime::run) runs unlocked.
//!
//! What the cache accepts: an unscheduled fusion, since it schedules every segment itself.
//! A tensor whose loop domain is not its logical domain (split, merged, reordered), that has
//! a parallelized axis, is inlined (compute-at position > 0), or an intermediate placed in
//! memory other than Local is a UserError naming the tensor at the first run (schedule by
//! hand with KernelExecutor instead); nothing of a hand schedule is silently redone. A
//! fusion without outputs, or whose outputs need a tensor that is neither a fusion input nor
//! computed by an expr (verifyFusionInputs), is a UserError too. An output's allocation
//! domain (its memory layout) is the user's and is kept.
//!
//! The cache owns its fusion, and edits to it take effect: fusion() may be edited between
//! runs (an op, an input, an output added); every edit raises Fusion::version(), and the
//! next run drops every runtime made for an older version before it looks its inputs up,
//! so the same inputs never run a stale runtime.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "executor/fusion_kernel_runtime.h"

namespace mf {

class DynamicTransformInitialInfo;
class ExpressionEvaluator;

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
  //! nvFuser's spellings: tensors and plain numbers, `{t0, 2.0}` or a KernelArgumentHolder (a
  //! number becomes the 0-dim tensor of its scalar input's dtype).
  std::vector<Tensor> runFusionWithInputs(const KernelArgumentHolder& args);
  std::vector<Tensor> runFusionWithInputs(ArgumentList args);

  //! The fusion as the user built it (unscheduled). Editing it is allowed: the next run
  //! sees the edit (its runtimes are rebuilt; see above).
  Fusion* fusion() const { return fusion_.get(); }
  //! The runtime of the last run (null before the first): isSegmented(), heuristics(),
  //! fusionSegments().
  FusionKernelRuntime* getMostRecentKernelRuntime() const { return most_recent_; }
  //! Every kernel's CUDA source of the last run.
  std::string getMostRecentCode() const;
  //! The scheduled fusion(s) of the last run.
  std::string getMostRecentScheduledIr() const;
  //! Runtimes created so far (one per signature and distinct heuristics), including those
  //! dropped after an edit of the fusion.
  int64_t countRuntimes() const;
  //! Kernels compiled so far.
  int64_t countKernelsCompiled() const;
  //! Distinct concretizations made so far (DynamicTransformConcretizationInfo by value; a
  //! fusion that is not dynamic has one), including those dropped after an edit.
  int64_t countConcretizations() const;

 private:
  //! A runtime and the launch parameters of the heuristics for one exact signature.
  struct ExactEntry {
    FusionKernelRuntime* runtime = nullptr;
    std::vector<LaunchParams> launch_params;  // one per group
    uint64_t id = nextEntryId();              // the runtime's signature token, never reused
  };
  static uint64_t nextEntryId();
  //! The entry for `inputs`, whose exact signature is `exact`; mutex_ held. Entries are
  //! never erased, so the reference stays valid after the lock is released.
  const ExactEntry& entryFor(const std::vector<Tensor>& inputs, const std::vector<int64_t>& exact);
  //! The fusion changed since the last run (or this is the first): checks it (what the
  //! cache accepts) and drops the runtimes of its older version; mutex_ held.
  void adoptFusionVersion();
  //! One concretized copy of the fusion, with its runtimes.
  struct Concretization;
  //! The concretization for the inputs bound in `ee` (made on first use); mutex_ held.
  Concretization& concretizationFor(ExpressionEvaluator& ee);

  mutable std::mutex mutex_;
  std::unique_ptr<Fusion> fusion_;
  // The fusion version the runtimes below were made for; none before the first run.
  std::optional<uint64_t> runtimes_version_;
  // Runtimes of older versions of the fusion: unused, but a run on another thread that
  // looked one up before the edit may still be running it.
  std::vector<std::unique_ptr<FusionKernelRuntime>> retired_;
  // What is dynamic in the fusion (per version; made at the first miss).
  std::unique_ptr<DynamicTransformInitialInfo> initial_info_;
  // Concretization info hash -> the concretizations with that hash.
  std::unordered_map<size_t, std::vector<std::unique_ptr<Concretization>>> concretizations_;
  // Exact input metadata -> runtime (skips the registry and the heuristics).
  std::unordered_map<std::vector<int64_t>, ExactEntry, detail::SignatureHash> exact_;
  FusionKernelRuntime* most_recent_ = nullptr;
  int64_t runtime_count_ = 0;
  int64_t kernels_compiled_ = 0;
  int64_t concretization_count_ = 0;
};

}  // namespace mf
