//! KernelExecutor: compiles one hand-scheduled fusion into a CUDA kernel and runs it, as
//! nvFuser's KernelExecutor. compile() needs no GPU (lowering, codegen, NVRTC); run() binds
//! inputs (host or device tensors, tensor/arguments.h), computes launch parameters,
//! allocates outputs on the device (from their allocation domains, caching allocator),
//! launches on minifuser's stream, and copies results back when the inputs were on the host.
//! Everything derived from the inputs is cached per input signature (executor/launch_cache.h):
//! a run with a signature seen before allocates the outputs, patches pointers and launches.
//!
//!   KernelExecutor ke;
//!   ke.compile(&fusion, inputs);
//!   std::vector<Tensor> outputs = ke.run(inputs);
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "cuda/module.h"
#include "cuda/nvrtc.h"
#include "executor/launch_cache.h"
#include "scheduler/heuristic_params.h"
#include "tensor/kernel_argument_holder.h"
#include "tensor/tensor.h"

namespace mf {

struct CompileOptions {
  //! Int32 or Int64; unset: Int32 when every extent and offset of the inputs given to
  //! compile() fits (Int64 without inputs).
  std::optional<DataType> index_type;
  //! Run the kernel-IR verifier after each lowering pass.
  bool verify_lowering = false;
  //! Blocks per SM the kernel's __launch_bounds__ asks ptxas to leave registers for (its
  //! second argument; HeuristicParams::min_blocks_per_sm). Unset: ptxas's choice.
  std::optional<int64_t> min_blocks_per_sm = std::nullopt;
};

struct RunOptions {
  //! Fill every output with 0xFF bytes before the launch (NaN for floats), so tests see any
  //! element the kernel failed to write.
  bool poison_outputs = false;
  //! Zero the layout op's padded buffer before the launch (default: pads left uninitialized,
  //! as nvFuser; docs/layout_op.md).
  bool zero_fill_layout_pads = false;
};

//! nvFuser's compile parameters: `index_type` is CompileOptions::index_type; `maxrregcount`
//! and `enable_magic_zero` are accepted and ignored (NVRTC's register default; no magic zero).
struct CompileParams {
  std::optional<DataType> index_type = std::nullopt;
  std::optional<int64_t> maxrregcount = std::nullopt;
  bool enable_magic_zero = true;
};

class KernelExecutor {
 public:
  KernelExecutor();
  ~KernelExecutor();

  //! Lowers, generates and compiles `fusion` (copied; later edits to it have no effect).
  void compile(Fusion* fusion, const std::vector<Tensor>& inputs = {},
               const CompileOptions& options = {});
  //! nvFuser's spellings: inputs as tensors and plain numbers; `launch_constraints` (LaunchParams
  //! binding some dimensions) are kept as every later run's, unless a run gives its own.
  void compile(Fusion* fusion, const KernelArgumentHolder& args,
               const LaunchParams& launch_constraints, const CompileParams& params = {});
  void compile(Fusion* fusion, ArgumentList args, const LaunchParams& launch_constraints = {},
               const CompileParams& params = {});
  //! nvFuser's run: `outputs`, when given, are preallocated, one per fusion output, each of
  //! its dtype, sizes and strides and where the run puts its outputs (on the device when an
  //! input is, else on the host; a UserError otherwise): the kernel writes into them and they
  //! are returned. Unbound `launch_constraints` take compile()'s. `params` are compile()'s
  //! (ignored).
  std::vector<Tensor> run(const KernelArgumentHolder& args,
                          const KernelArgumentHolder& outputs = {},
                          const LaunchParams& launch_constraints = {},
                          const CompileParams& params = {});
  std::vector<Tensor> run(ArgumentList args, const KernelArgumentHolder& outputs = {},
                          const LaunchParams& launch_constraints = {},
                          const CompileParams& params = {});
  //! Runs the compiled kernel. Inputs may be host or device tensors, views with strides and
  //! storage offsets included (mixing allowed). When any tensor input is on the device the
  //! outputs are device tensors and nothing is copied to the host (the launch is not waited
  //! for unless the layout op's error flag must be read; a kernel's execution error then
  //! surfaces at the next synchronization, e.g. toHost()); otherwise outputs are host tensors,
  //! read after one synchronization. Throws mf::UserError for bad inputs (count, dtype, rank,
  //! sizes, strides vs declared contiguity, vectorization divisibility and alignment) and,
  //! without a GPU, the no-device error. The launch is prepared (and cached for this input
  //! signature) before the device is needed, so a run without a GPU fills the launch cache.
  //! `launch_constraints`: the heuristics' launch parameters (FusionKernelRuntime passes
  //! them); every dimension they bind is the launch's, and must equal the kernel's parallel
  //! extent for these inputs (checked when the launch is prepared, i.e. on a cache miss; an
  //! internal error otherwise: the schedule does not match its heuristics). Safe to call from
  //! several threads (one lock around the cache and launch). `signature_token`: nonzero, an
  //! id the caller gives every input signature (FusionKernelRuntime passes its exact-signature
  //! entry's): a run with the previous run's token reuses its launch without computing the
  //! signature.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs, const RunOptions& options = {},
                          const LaunchParams* launch_constraints = nullptr,
                          uint64_t signature_token = 0);

  //! What run() does before it needs a device: checks `inputs` and prepares (and caches) the
  //! launch for their signature, launch constraints checked. FusionExecutorCache's CPU path
  //! calls it for every kernel, so those checks run without a GPU too.
  void prepareLaunch(const std::vector<Tensor>& inputs,
                     const LaunchParams* launch_constraints = nullptr);

  //! Times the kernel alone: inputs are copied to the device once, then `warmup` untimed
  //! and `iterations` timed launches (CUDA events); returns each launch's milliseconds.
  std::vector<float> benchmark(const std::vector<Tensor>& inputs, int warmup = 5,
                               int iterations = 50);

  //! Kernel time without launch gaps: `samples` times, CUDA events around `per_sample`
  //! back-to-back launches (after `warmup`); returns each sample's milliseconds per launch.
  //! (benchmark() times one launch per pair of events: a short kernel then shows its launch.)
  std::vector<float> benchmarkBackToBack(const std::vector<Tensor>& inputs, int warmup = 10,
                                         int samples = 30, int per_sample = 20);

  //! Host cost of a bare launch of this kernel: inputs bound and arguments packed once, then
  //! `iterations` back-to-back cuLaunchKernel calls alone (no checks) after `warmup`, and one
  //! synchronization (not timed without `wait_for_kernels`: the host's time alone, for fewer
  //! launches than the launch queue holds); returns the wall-clock microseconds per call.
  double benchmarkBareLaunchUs(const std::vector<Tensor>& inputs, int warmup = 100,
                               int iterations = 2000, bool wait_for_kernels = true);

  //! nvFuser's `executor->as<KernelExecutor>()` (its executors have several kinds; this one).
  template <typename T>
  T* as() {
    static_assert(std::is_same_v<T, KernelExecutor>, "KernelExecutor::as: only KernelExecutor");
    return this;
  }
  bool isCompiled() const { return kernel_ != nullptr; }
  //! What the last compile() cost: lowering, code generation and NVRTC (0 on a cache hit),
  //! in milliseconds, and whether the kernel cache (memory or disk) served the binary.
  struct CompileTimes {
    double lower_ms = 0, codegen_ms = 0, nvrtc_ms = 0;
    bool cache_hit = false;
  };
  const CompileTimes& compileTimes() const { return compile_times_; }
  const std::string& kernelName() const { return generated_.name; }
  //! The generated kernel function (cuda_kernel dump).
  const std::string& kernelCode() const { return generated_.kernel_code; }
  //! Everything NVRTC compiled: index typedef, runtime prelude, kernel.
  const std::string& fullSource() const { return generated_.full_source; }
  const std::string& ptx() const { return compiled_.ptx; }
  const std::string& compileLog() const { return compiled_.log; }
  const Kernel& kernel() const { return *kernel_; }
  Kernel& kernel() { return *kernel_; }
  //! Grid/block of the last run.
  const cuda::LaunchDims& lastLaunch() const { return last_launch_; }
  //! nvFuser's spelling of lastLaunch(): every dimension bound, smem() set.
  LaunchParams lastLaunchParams() const;
  //! nvFuser's `ke.compiledKernel()->kernel()->summary()`: the lowered Kernel, as a pointer.
  struct CompiledKernelHandle {
    Kernel* kernel_;
    Kernel* kernel() const { return kernel_; }
    const CompiledKernelHandle* operator->() const { return this; }
  };
  CompiledKernelHandle compiledKernel() const { return {kernel_.get()}; }
  //! Input signatures with a prepared launch (at most LaunchCache::kCapacity).
  int64_t launchCacheSize() const;
  //! Runs served from a prepared launch since compile().
  int64_t launchCacheHits() const;

 private:
  struct BoundLaunch;
  //! The launch for `inputs`' signature, prepared on a miss; launch_mutex_ held.
  PreparedLaunch& preparedFor(const std::vector<Tensor>& inputs,
                              const LaunchParams* launch_constraints, uint64_t token = 0);
  //! The miss path, no device needed: checks inputs, evaluates launch dims and output
  //! layouts, packs the arguments with null data pointers.
  PreparedLaunch prepare(const std::vector<Tensor>& inputs,
                         const LaunchParams* launch_constraints) const;
  //! Allocates the buffers `launch` needs (outputs, intermediates, the error flag, device
  //! copies of host inputs) and patches their pointers into its arguments.
  //! `preallocated`: outputs given by the caller (none, or one per output), used as they are.
  BoundLaunch bind(PreparedLaunch& launch, const std::vector<Tensor>& inputs,
                   const RunOptions& options, const std::vector<Tensor>& preallocated = {});
  //! run(), into `preallocated` outputs when given (checked against the launch).
  std::vector<Tensor> runInto(const std::vector<Tensor>& inputs, const RunOptions& options,
                              const LaunchParams* launch_constraints, uint64_t signature_token,
                              const std::vector<Tensor>& preallocated);
  //! Prepares and binds the launch for `inputs` once and calls `launches` with it, under
  //! the lock: the benchmarks' repeated launches.
  void withBoundLaunch(const std::vector<Tensor>& inputs,
                       const std::function<void(PreparedLaunch&)>& launches);
  //! Loads the kernel on first use (needs a device).
  void ensureLoaded();

  std::unique_ptr<Kernel> kernel_;
  LaunchParams compile_launch_constraints_;  // nvFuser's compile(..., LaunchParams, ...)
  GeneratedKernel generated_;
  cuda::CompiledKernel compiled_;
  CompileTimes compile_times_;
  std::unique_ptr<cuda::LoadedKernel> loaded_;
  std::vector<SignatureInput> signature_inputs_;  // per fusion input, from compile()

  mutable std::mutex launch_mutex_;  // guards everything below and loaded_'s creation
  LaunchCache launch_cache_;
  std::vector<int64_t> key_;  // the signature of the current run (capacity reused)
  // The signature token of the cache's most recent launch (0: none).
  uint64_t last_token_ = 0;
  cuda::LaunchDims last_launch_;
  //! A grid reduction's semaphores, zeroed when allocated (or grown); each launch's last
  //! blocks leave them zero again, so later launches reuse them as they are.
  std::optional<Tensor> grid_semaphores_;
};

//! Chooses Int32 when every input's and output's extent and offset fits in 31 bits.
DataType chooseIndexType(Fusion& fusion, const std::vector<Tensor>& inputs);

}  // namespace mf
