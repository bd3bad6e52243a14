//! The launch cache behind KernelExecutor::run's hot path. A run with an input signature
//! seen before skips everything derived from the inputs (checks, expression evaluation,
//! launch dims, output layouts, argument packing): it allocates the outputs, patches the
//! data pointers into the packed arguments and launches.
//!
//!   run(inputs) --launchSignature--> key --LaunchCache::find--> PreparedLaunch
//!                                          (miss: KernelExecutor prepares and inserts it)
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "cuda/kernel_args.h"
#include "cuda/module.h"
#include "tensor/arguments.h"

namespace mf {

class TensorView;

//! What the signature of one fusion input depends on beyond its metadata, fixed at compile
//! time.
struct SignatureInput {
  //! Bytes per vector when the kernel reads this input with vector accesses (0 otherwise):
  //! only then does the alignment of its first element matter.
  int64_t vector_bytes = 0;
  //! A scalar input: an integer value may be an extent, so it is part of the key.
  bool scalar = false;
};

//! Writes the launch-cache key of `inputs` into `key` (cleared first; its capacity is kept,
//! so a steady state allocates nothing). Per input: dtype, device, rank, sizes, strides
//! (which decide the 32-bit index rule, fitsInt32Index), the alignment class of its first
//! element (vectorized inputs: Tensor::dataAlignment up to `vector_bytes`) and an integer
//! scalar's value. Two calls with equal keys pass or fail
//! KernelExecutor's input checks alike and get the same launch. `rules` has one entry per
//! fusion input; extra inputs (a count error to come) get the default.
void launchSignature(const std::vector<Tensor>& inputs, std::span<const SignatureInput> rules,
                     std::vector<int64_t>& key);

//! One launch prepared for one input signature. Argument numbers index `args`.
struct PreparedLaunch {
  cuda::LaunchDims dims;
  bool empty = false;  //!< some parallel extent is 0: nothing to launch
  bool outputs_on_device = false;
  bool dims_checked = false;  //!< launched before: dims within the device's limits
  //! Packed in kernel-parameter order; data pointers are patched by every run.
  cuda::KernelArgs args;

  //! A tensor input's data pointer or a floating or bool scalar input's value (of
  //! `dtype`; an integer's is part of the signature, packed once).
  struct InputArg {
    size_t arg;
    size_t input;
    DataType dtype;
  };
  std::vector<InputArg> tensor_inputs;
  std::vector<InputArg> scalar_inputs;

  //! A buffer each run allocates from the caching allocator: an output or a global
  //! intermediate, with its layout for these sizes.
  struct Buffer {
    std::optional<size_t> arg;  //!< none: an output that is an input and no kernel parameter
    TensorView* tv = nullptr;
    TensorLayout layout;
    int64_t alias_input = -1;  //!< an output that is this input is returned as given
  };
  std::vector<Buffer> outputs;  //!< in the fusion's output order
  std::vector<Buffer> intermediates;
  //! The layout op's error flag, zeroed before each launch.
  std::optional<size_t> error_flag_arg;
  //! A grid reduction's work buffer, allocated per launch (one slot per thread of the grid).
  struct GridWork {
    size_t arg;
    int64_t slots;
    DataType dtype;
  };
  std::optional<GridWork> grid_work;
  //! A grid reduction's semaphores (one per block column): the executor's, zeroed once.
  struct GridSemaphores {
    size_t arg;
    int64_t count;
  };
  std::optional<GridSemaphores> grid_semaphores;
};

//! Prepared launches by signature, at most kCapacity of them: a new signature past that
//! replaces the least recently used one (a fusion run with ever new sizes keeps the recent
//! ones, and memory stays bounded). Not thread-safe; KernelExecutor locks around it.
class LaunchCache {
 public:
  static constexpr size_t kCapacity = 32;

  //! The launch prepared for `key`, or null. The last hit is tried first, then a scan of
  //! the entries' hashes.
  PreparedLaunch* find(std::span<const int64_t> key);
  //! The launch the last find() or insert() returned, counted as a hit (the caller knows
  //! its key is that one's).
  PreparedLaunch& mostRecent();
  //! Keeps `launch` for `key` (not present) and returns it.
  PreparedLaunch& insert(std::span<const int64_t> key, PreparedLaunch launch);
  void clear();

  size_t size() const { return entries_.size(); }
  //! Runs served from the cache since construction (or clear()).
  int64_t hits() const { return hits_; }

 private:
  struct Entry {
    std::vector<int64_t> key;
    uint64_t hash = 0;
    uint64_t last_use = 0;
    PreparedLaunch launch;
  };
  std::vector<std::unique_ptr<Entry>> entries_;
  size_t most_recent_ = 0;
  uint64_t clock_ = 0;
  int64_t hits_ = 0;
};

}  // namespace mf
