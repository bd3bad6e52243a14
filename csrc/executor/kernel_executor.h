//! KernelExecutor: compiles one hand-scheduled fusion into a CUDA kernel and runs it, as
//! nvFuser's KernelExecutor. compile() needs no GPU (lowering, codegen, NVRTC); run() binds
//! inputs (host or device tensors, tensor/arguments.h), computes launch parameters,
//! allocates outputs on the device (from their allocation domains, caching allocator),
//! launches on minifuser's stream, and copies results back when the inputs were on the host.
//!
//!   KernelExecutor ke;
//!   ke.compile(&fusion, inputs);
//!   std::vector<Tensor> outputs = ke.run(inputs);
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "cuda/module.h"
#include "cuda/nvrtc.h"
#include "tensor/tensor.h"

namespace mf {

struct CompileOptions {
  //! Int32 or Int64; unset: Int32 when every extent and offset of the inputs given to
  //! compile() fits (Int64 without inputs).
  std::optional<DataType> index_type;
  //! Run the kernel-IR verifier after each lowering pass.
  bool verify_lowering = false;
};

struct RunOptions {
  //! Fill every output with 0xFF bytes before the launch (NaN for floats), so tests see any
  //! element the kernel failed to write.
  bool poison_outputs = false;
  //! Zero the layout op's padded buffer before the launch (default: pads left uninitialized,
  //! as nvFuser; spec Part A).
  bool zero_fill_layout_pads = false;
};

class KernelExecutor {
 public:
  KernelExecutor();
  ~KernelExecutor();

  //! Lowers, generates and compiles `fusion` (copied; later edits to it have no effect).
  void compile(Fusion* fusion, const std::vector<Tensor>& inputs = {},
               const CompileOptions& options = {});
  //! Runs the compiled kernel. Inputs may be host or device tensors, views with strides and
  //! storage offsets included (mixing allowed). When any tensor input is on the device the
  //! outputs are device tensors and nothing is copied to the host (the launch is not waited
  //! for unless the layout op's error flag must be read; a kernel's execution error then
  //! surfaces at the next synchronization, e.g. toHost()); otherwise outputs are host tensors,
  //! read after one synchronization. Throws mf::UserError for bad inputs (count, dtype, rank,
  //! sizes, strides vs declared contiguity, vectorization divisibility and alignment) and,
  //! without a GPU, the no-device error.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs, const RunOptions& options = {});

  //! Times the kernel alone: inputs are copied to the device once, then `warmup` untimed
  //! and `iterations` timed launches (CUDA events); returns each launch's milliseconds.
  std::vector<float> benchmark(const std::vector<Tensor>& inputs, int warmup = 5,
                               int iterations = 50);

  bool isCompiled() const { return kernel_ != nullptr; }
  const std::string& kernelName() const { return generated_.name; }
  //! The generated kernel function (cuda_kernel dump).
  const std::string& kernelCode() const { return generated_.kernel_code; }
  //! Everything NVRTC compiled: index typedef, runtime prelude, kernel.
  const std::string& fullSource() const { return generated_.full_source; }
  const std::string& ptx() const { return compiled_.ptx; }
  const std::string& compileLog() const { return compiled_.log; }
  const Kernel& kernel() const { return *kernel_; }
  //! Grid/block of the last run.
  const cuda::LaunchDims& lastLaunch() const { return last_launch_; }

 private:
  struct PreparedLaunch;
  //! Checks inputs, computes launch dims, allocates and fills device buffers, packs args.
  PreparedLaunch prepare(const std::vector<Tensor>& inputs, const RunOptions& options);

  std::unique_ptr<Kernel> kernel_;
  GeneratedKernel generated_;
  cuda::CompiledKernel compiled_;
  std::unique_ptr<cuda::LoadedKernel> loaded_;
  cuda::LaunchDims last_launch_;
  //! A grid reduction's semaphores, zeroed when allocated (or grown); each launch's last
  //! blocks leave them zero again, so later launches reuse them as they are.
  std::optional<Tensor> grid_semaphores_;
};

//! Chooses Int32 when every input's and output's extent and offset fits in 31 bits.
DataType chooseIndexType(Fusion& fusion, const std::vector<Tensor>& inputs);

}  // namespace mf
