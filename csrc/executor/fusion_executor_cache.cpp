#include "executor/fusion_executor_cache.h"

#include <fmt/format.h>

#include <atomic>
#include <bit>
#include <iostream>
#include <mutex>
#include <string>

#include "cuda/driver.h"
#include "ir/cloner.h"
#include "ir/dynamic_transform.h"
#include "ir/expr_evaluator.h"
#include "ir/fusion.h"
#include "ir/tensor_view.h"
#include "reference/reference_evaluator.h"
#include "scheduler/registry.h"
#include "support/hash.h"
#include "support/options.h"
#include "tensor/arguments.h"

namespace mf {

size_t detail::SignatureHash::operator()(const std::vector<int64_t>& v) const noexcept {
  uint64_t h = 0;
  for (int64_t x : v) h = hashCombine(h, static_cast<uint64_t>(x));
  return static_cast<size_t>(h);
}

namespace {

constexpr std::string_view kWho = "FusionExecutorCache";

// Bytes element 0 is aligned to, capped at 16 (what a vector access needs).
int64_t alignmentClass(const Tensor& t) {
  return t.dataAlignment(16);
}

// What decides the kernel, not its sizes: per input its dtype and rank, and per axis
// whether it is empty, of size 1, expanded (stride 0) or dense with the next axis; and
// element 0's alignment. Runtimes are kept per signature.
std::vector<int64_t> structuralSignature(const std::vector<Tensor>& inputs) {
  std::vector<int64_t> key;
  for (const Tensor& t : inputs) {
    key.push_back(static_cast<int64_t>(t.dtype()));
    key.push_back(t.dim());
    int64_t dense = 1;
    for (int64_t d = t.dim() - 1; d >= 0; --d) {
      const int64_t size = t.sizes()[d], stride = t.strides()[d];
      key.push_back((size == 0) | (size == 1) << 1 | (stride == 0) << 2 | (stride == dense) << 3);
      dense = stride * size;
    }
    key.push_back(alignmentClass(t));
  }
  return key;
}

// Everything the heuristics read: exact sizes, strides, alignment, and scalar values. Written
// into `key` (cleared first, capacity kept).
void exactSignature(const std::vector<Tensor>& inputs, std::vector<int64_t>& key) {
  key.clear();
  for (const Tensor& t : inputs) {
    key.push_back(static_cast<int64_t>(t.dtype()) | int64_t{t.isCuda()} << 8);
    key.push_back(t.dim());
    key.insert(key.end(), t.sizes().begin(), t.sizes().end());
    key.insert(key.end(), t.strides().begin(), t.strides().end());
    key.push_back(alignmentClass(t));
    if (t.dim() == 0) {
      // A scalar input can be an extent; its value is part of the key (exactly, as bits).
      const ScalarValue v = t.scalarValue();
      key.push_back(std::holds_alternative<double>(v) ? std::bit_cast<int64_t>(asDouble(v))
                                                      : asInt(v));
    }
  }
}

std::vector<LaunchParams> launchParamsOf(const std::vector<const HeuristicParams*>& params) {
  std::vector<LaunchParams> out;
  for (const HeuristicParams* p : params) out.push_back(p->lparams);
  return out;
}

DeviceDescription deviceDescription() {
  DeviceDescription d;
  if (!cuda::cudaAvailable()) return d;  // an H200's numbers
  const cuda::DeviceInfo& info = cuda::deviceInfo();
  d.sm_count = info.sm_count;
  d.max_threads_per_block = info.max_threads_per_block;
  d.compute_major = info.major;
  d.compute_minor = info.minor;
  return d;
}

void noticeCpuFallback() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::cerr << "minifuser: no CUDA device available (" << cuda::noDeviceReason()
              << "); FusionExecutorCache schedules, lowers and compiles every kernel, then "
                 "computes the outputs with the CPU reference evaluator\n";
  });
}

}  // namespace

struct FusionExecutorCache::Concretization {
  DynamicTransformConcretizationInfo info;  // of the user's fusion (the key)
  // The concretized copy; null when concretization changes nothing (the user's fusion runs).
  std::unique_ptr<Fusion> fusion;
  std::unique_ptr<DynamicTransformInitialInfo> initial_info;  // of `fusion`
  // Structural signature -> the runtimes made for it.
  std::unordered_map<std::vector<int64_t>, std::vector<std::unique_ptr<FusionKernelRuntime>>,
                     detail::SignatureHash>
      runtimes;
};

FusionExecutorCache::FusionExecutorCache(std::unique_ptr<Fusion> fusion)
    : fusion_(std::move(fusion)) {
  MF_CHECK(fusion_ != nullptr, "FusionExecutorCache: the fusion is null");
}

FusionExecutorCache::~FusionExecutorCache() = default;

std::vector<Tensor> FusionExecutorCache::runFusionWithInputs(const KernelArgumentHolder& args) {
  return runFusionWithInputs(args.toTensors(*fusion_));
}

std::vector<Tensor> FusionExecutorCache::runFusionWithInputs(ArgumentList args) {
  return runFusionWithInputs(KernelArgumentHolder(args));
}

std::vector<Tensor> FusionExecutorCache::runFusionWithInputs(const std::vector<Tensor>& inputs) {
  return runFusionWithInputs(inputs, RunOptions{});
}

std::vector<Tensor> FusionExecutorCache::runFusionWithInputs(const std::vector<Tensor>& inputs,
                                                             const RunOptions& options) {
  // Per thread, so the key is built outside the lock and its buffer is reused.
  thread_local std::vector<int64_t> exact;
  exactSignature(inputs, exact);
  std::unique_lock lock(mutex_);
  if (runtimes_version_ != fusion_->version()) [[unlikely]]
    adoptFusionVersion();
  const ExactEntry& entry = entryFor(inputs, exact);
  // A miss may have added nodes to the fusion (scalars the heuristics built): not an edit.
  runtimes_version_ = fusion_->version();
  most_recent_ = entry.runtime;
  if (!cuda::cudaAvailable()) {
    noticeCpuFallback();
    FusionKernelRuntime* runtime = entry.runtime;
    const std::span<const LaunchParams> launch_params = entry.launch_params;
    lock.unlock();
    return runtime->runOnReference(inputs, launch_params);
  }
  lock.unlock();
  return entry.runtime->run(inputs, options, entry.launch_params, entry.id);
}

uint64_t FusionExecutorCache::nextEntryId() {
  static std::atomic<uint64_t> next{1};
  return next++;
}

namespace {

// What the cache accepts (the header): an unscheduled fusion whose outputs need only its
// inputs.
// The reason `tv` counts as scheduled, or empty.
std::string scheduledBecause(TensorView* tv) {
  if (tv->getLoopDomain() != tv->getLogicalDomain())
    return "its loop domain is not its logical domain";
  for (IterDomain* id : tv->getLoopDomain())
    if (id->parallelType() != ParallelType::Serial)
      return fmt::format("axis {} is parallelized", id->toString());
  if (tv->computeAtPosition() != 0)
    return fmt::format("inlined at position {}", tv->computeAtPosition());
  if (!tv->isFusionInput() && !tv->isFusionOutput() && tv->getMemoryType() != MemoryType::Local)
    return fmt::format("an intermediate placed in {} memory",
                       tv->getMemoryType() == MemoryType::Shared ? "shared" : "global");
  return {};
}

void checkUnscheduled(const Fusion& fusion) {
  verifyRunnable(fusion, kWho);
  for (TensorView* tv : fusion.allTvs()) {
    const std::string why = scheduledBecause(tv);
    MF_CHECK(why.empty(),
             "{}: {} is scheduled ({}); the cache schedules fusions itself, so give it an "
             "unscheduled fusion, or run a hand schedule with KernelExecutor",
             kWho, tv->toString(), why);
  }
}

}  // namespace

void FusionExecutorCache::adoptFusionVersion() {
  checkUnscheduled(*fusion_);
  if (runtimes_version_ && isDumpEnabled(DumpOption::FecCache))
    dumpStream() << "fec_cache: the fusion was edited; dropping every runtime\n";
  for (auto& [hash, bucket] : concretizations_)
    for (auto& concretization : bucket)
      for (auto& [signature, runtimes] : concretization->runtimes)
        for (auto& runtime : runtimes) retired_.push_back(std::move(runtime));
  concretizations_.clear();
  initial_info_.reset();
  exact_.clear();
  runtimes_version_ = fusion_->version();
}

const FusionExecutorCache::ExactEntry& FusionExecutorCache::entryFor(
    const std::vector<Tensor>& inputs, const std::vector<int64_t>& exact) {
  if (auto it = exact_.find(exact); it != exact_.end()) [[likely]] {
    if (isDumpEnabled(DumpOption::FecCache)) dumpStream() << "fec_cache: hit\n";
    return it->second;
  }
  // The argument layer's checks first: their messages name the input.
  ExpressionEvaluator ee;
  checkAndBindInputs(*fusion_, inputs, ee, kWho);
  Concretization& concretization = concretizationFor(ee);
  Fusion* fusion = concretization.fusion ? concretization.fusion.get() : fusion_.get();
  const DeviceDescription device = deviceDescription();
  if (isDumpEnabled(DumpOption::SchedulerVerbose)) {
    // What each scheduler says of the whole fusion (the segmenter asks the same of its parts:
    // segmenter_logging).
    SchedulerRuntimeInfo info(fusion, inputs, device);
    HeuristicsProposal proposal = proposeHeuristics(fusion, info);
    dumpStream() << "=== scheduler_verbose ===\n" << proposal.rejectionsString();
    if (proposal.accepted()) dumpStream() << toString(proposal.type) << ": accepted\n";
  }
  std::vector<std::unique_ptr<FusionKernelRuntime>>& candidates =
      concretization.runtimes[structuralSignature(inputs)];
  for (const auto& runtime : candidates) {
    auto params = runtime->heuristicsFor(inputs, device);
    if (params && runtime->canReuse(*params)) {
      if (isDumpEnabled(DumpOption::FecCache))
        dumpStream() << "fec_cache: miss; reusing a runtime with the same heuristics\n";
      std::vector<const HeuristicParams*> views;
      for (const auto& p : *params) views.push_back(p.get());
      return exact_.emplace(exact, ExactEntry{runtime.get(), launchParamsOf(views)}).first->second;
    }
  }
  candidates.push_back(std::make_unique<FusionKernelRuntime>(*fusion, inputs, device));
  FusionKernelRuntime* runtime = candidates.back().get();
  const FusionKernelRuntime::CompileProfile& p = runtime->compileProfile();
  if (isDumpEnabled(DumpOption::FecCache))
    dumpStream() << fmt::format(
        "fec_cache: miss; new runtime ({} group{}; kernels: {} compiled, {} from the cache)\n",
        p.groups, p.groups == 1 ? "" : "s", p.kernels_compiled, p.kernels_reused);
  ++runtime_count_;
  kernels_compiled_ += runtime->kernelCount();
  return exact_.emplace(exact, ExactEntry{runtime, launchParamsOf(runtime->heuristics())})
      .first->second;
}

FusionExecutorCache::Concretization& FusionExecutorCache::concretizationFor(
    ExpressionEvaluator& ee) {
  if (initial_info_ == nullptr)
    initial_info_ = std::make_unique<DynamicTransformInitialInfo>(
        DynamicTransform::getInitialInfo(fusion_.get()));
  DynamicTransformConcretizationInfo info(initial_info_.get(), &ee);
  std::vector<std::unique_ptr<Concretization>>& bucket = concretizations_[info.hash()];
  for (const auto& c : bucket)
    if (c->info == info) return *c;
  auto c = std::make_unique<Concretization>(Concretization{info, nullptr, nullptr, {}});
  if (!info.isTrivial()) {
    // A copy, so the user's fusion stays symbolic; the info's indices hold for the copy.
    c->fusion = std::make_unique<Fusion>();
    IrCloner cloner(c->fusion.get());
    c->fusion->copyFrom(*fusion_, cloner);
    c->initial_info = std::make_unique<DynamicTransformInitialInfo>(initial_info_->cloneTo(cloner));
    DynamicTransformConcretizationInfo local = info;
    local.setInitialInfo(c->initial_info.get());
    const bool dump = isDumpEnabled(DumpOption::FusionIrConcretized);
    if (dump)
      dumpStream() << "=== fusion_ir_concretized: before ===\n"
                   << c->fusion->mathString() << info.toString();
    DynamicTransform::concretizeFusion(c->fusion.get(), &local);
    if (dump) dumpStream() << "=== fusion_ir_concretized: after ===\n" << c->fusion->mathString();
  }
  if (isDumpEnabled(DumpOption::FecCache))
    dumpStream() << fmt::format("fec_cache: new concretization ({})\n",
                                info.isTrivial() ? "the fusion as defined" : "a concretized copy");
  ++concretization_count_;
  bucket.push_back(std::move(c));
  return *bucket.back();
}

std::string FusionExecutorCache::getMostRecentCode() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return most_recent_ ? most_recent_->code() : std::string();
}

std::string FusionExecutorCache::getMostRecentScheduledIr() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return most_recent_ ? most_recent_->scheduledIr() : std::string();
}

int64_t FusionExecutorCache::countRuntimes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return runtime_count_;
}

int64_t FusionExecutorCache::countKernelsCompiled() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return kernels_compiled_;
}

int64_t FusionExecutorCache::countConcretizations() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return concretization_count_;
}

}  // namespace mf
