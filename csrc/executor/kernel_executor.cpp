#include "executor/kernel_executor.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <iostream>
#include <limits>
#include <ostream>

#include "cuda/device_memory.h"
#include "cuda/driver.h"
#include "cuda/kernel_args.h"
#include "cuda/kernel_cache.h"
#include "cuda/runtime_sources.h"
#include "ir/expr_evaluator.h"
#include "ir/exprs.h"
#include "lower/pipeline.h"
#include "reference/layout_reference.h"
#include "scheduler/heuristic_params.h"
#include "support/options.h"
#include "support/timing.h"
#include "tensor/arguments.h"

namespace mf {
namespace {

constexpr std::string_view kWho = "KernelExecutor";

// The argument layer's checks, with the generated kernel's own precondition: operands of
// one expr agree on every axis.
void bindInputs(const Fusion& fusion, const std::vector<Tensor>& inputs, ExpressionEvaluator& ee) {
  checkAndBindInputs(fusion, inputs, ee, kWho);
}

template <typename T>
size_t indexOf(const std::vector<T>& values, const T& v) {
  return std::find(values.begin(), values.end(), v) - values.begin();
}

// The logical positions of `tv` that its vectorized copy's vector axis runs over: the
// logical axes that axis is split and merged from, in the copy's output (`tv` itself, or
// the register copy `set(tv)` of an input, whose positions are tv's).
std::vector<size_t> vectorSpan(TensorView* tv) {
  TensorView* copy = tv;
  auto vectorAxis = [](TensorView* t) -> IterDomain* {
    for (IterDomain* id : t->getLoopDomain())
      if (id->parallelType() == ParallelType::Vectorize) return id;
    return nullptr;
  };
  if (vectorAxis(copy) == nullptr)
    for (Expr* use : tv->uses())
      if (use->isA<LoadStoreOp>() && vectorAxis(use->output(0)->as<TensorView>()) != nullptr)
        copy = use->output(0)->as<TensorView>();
  // The logical axes the vector axis is merged from, outer to inner (the merge order).
  std::vector<size_t> span;
  const auto& logical = copy->getLogicalDomain();
  std::function<void(IterDomain*)> collect = [&](IterDomain* id) {
    if (auto it = std::find(logical.begin(), logical.end(), id); it != logical.end()) {
      span.push_back(static_cast<size_t>(it - logical.begin()));
    } else if (Expr* def = id->definition()) {
      visitIdExpr(
          def,
          [&](Merge* m) {
            collect(m->outer());
            collect(m->inner());
          },
          [&](Split* s) { collect(s->in()); },
          // A resized copy (a producer replayed over its consumer's padded loop): its own
          // axis, read where the vector stays inside it.
          [&](Resize* r) { collect(r->in()); });
    }
  };
  if (IterDomain* axis = vectorAxis(copy)) collect(axis);
  return span;
}

// A vector of `width` elements at a multiple of `width` along the span (flattened in merge
// order) must be `width` consecutive elements in memory starting at a multiple of `width`:
// some innermost run of the span's axes is dense (innermost stride 1, each axis's stride
// the product of the inner sizes) and holds a multiple of `width` elements, so no vector
// leaves it; every other axis's stride is a multiple of `width`. [1000, 91] merged passes
// (91000 elements); vectorizing only its inner axis does not.
void checkVectorizable(TensorView* tv, int64_t width, const std::vector<int64_t>& sizes,
                       const std::vector<int64_t>& strides) {
  const std::vector<size_t> span = vectorSpan(tv);
  std::vector<bool> in_run(sizes.size(), false);
  bool found = false;
  int64_t dense = 1;
  for (size_t k = span.size(); k-- > 0 && !found;) {
    const size_t d = span[k];
    if (sizes[d] <= 1) continue;
    if (strides[d] != dense) break;
    dense *= sizes[d];
    in_run[d] = true;
    found = dense % width == 0;
  }
  bool ok = found;
  for (size_t d = 0; d < sizes.size(); ++d)
    if (!in_run[d] && sizes[d] > 1) ok = ok && strides[d] % width == 0;
  MF_CHECK(ok,
           "vectorized access of {} by {} elements needs an innermost dense run of the axes its "
           "vectors run along (logical positions [{}], innermost last) holding a multiple of {} "
           "elements, and its other strides multiples of {}; got sizes [{}] and strides [{}]",
           tv->toString(), width, fmt::join(span, ", "), width, width, fmt::join(sizes, ", "),
           fmt::join(strides, ", "));
}

// A vectorized input's first element must start a whole vector.
void checkVectorAligned(TensorView* tv, int64_t width, const Tensor& t) {
  const int64_t vector_bytes = width * dataTypeSizeBit(t.dtype()) / 8;
  const uint64_t address = t.alignmentAddress();
  MF_CHECK(t.dataAlignment(vector_bytes) == vector_bytes,
           "vectorized access of {} by {} elements needs its first element aligned to {} bytes; "
           "got a tensor at storage offset {}, {} bytes past an aligned address",
           tv->toString(), width, vector_bytes, t.storageOffset(), address % vector_bytes);
}

// The layout op's result reports how many rows of its padded buffer hold data. Offsets on
// the device are copied back (G entries each, after the launch's synchronization).
void setLayoutUsedRows(const KernelSummary& summary, const std::vector<Tensor>& inputs,
                       std::vector<Tensor>& outputs) {
  for (const PaddedOutput& p : summary.padded_outputs)
    outputs[p.output].setUsedRows(layoutUsedRows(inputs[p.input_offsets].toHost(),
                                                 inputs[p.output_offsets].toHost(),
                                                 outputs[p.output].sizes()[0]));
}

// The layout op's offset checks run on the host before the launch when both offsets are
// host tensors (a UserError naming the wrong entry); device offsets are checked by the
// kernel (the error flag), which never writes outside the buffer either way.
void checkHostLayoutOffsets(Kernel& kernel, const std::vector<Tensor>& inputs,
                            const PreparedLaunch& launch) {
  const Fusion& ir = kernel.ir();
  for (const PaddedOutput& p : kernel.summary().padded_outputs) {
    const Tensor& in_off = inputs[p.input_offsets];
    const Tensor& out_off = inputs[p.output_offsets];
    if (in_off.isCuda() || out_off.isCuda()) continue;
    const Val* out = ir.outputs()[p.output];
    const int64_t m = launch.outputs[p.output].layout.sizes[0];
    if (auto* gq = dynamic_cast<const GroupedBlockQuantizationOp*>(out->definition()))
      checkLayoutOffsets(layoutOperands(gq), m, in_off, out_off);
    else if (auto* op = dynamic_cast<const PreprocessGroupedMatmulInputSf*>(out->definition()))
      checkLayoutOffsets(op, m, in_off, out_off);
  }
}

// Outputs go to the device when any tensor input is there (scalars do not count).
bool outputsOnDevice(const Fusion& ir, const std::vector<Tensor>& inputs) {
  for (size_t i = 0; i < inputs.size(); ++i)
    if (ir.inputs()[i]->kind() == ValKind::TensorView && inputs[i].isCuda()) return true;
  return false;
}

}  // namespace

KernelExecutor::KernelExecutor() = default;
KernelExecutor::~KernelExecutor() = default;

namespace {

// True when a kernel with 32-bit indices addresses every element of every input and output
// (fitsInt32Index; the schedulers' SchedulerRuntimeInfo::indexType asks the same); `ee` has
// the inputs bound already.
bool fitsInt32(const Fusion& fusion, const std::vector<Tensor>& inputs, ExpressionEvaluator& ee) {
  for (const Tensor& t : inputs)
    if (!t.fitsInt32Index()) return false;
  for (Val* v : fusion.outputs()) {
    const TensorLayout layout = layoutOf(v->as<TensorView>(), ee);
    if (!fitsInt32Index(layout.alloc_sizes, layout.alloc_strides)) return false;
  }
  return true;
}

}  // namespace

DataType chooseIndexType(Fusion& fusion, const std::vector<Tensor>& inputs) {
  if (inputs.empty()) return DataType::Int64;
  ExpressionEvaluator ee;
  bindInputs(fusion, inputs, ee);
  return fitsInt32(fusion, inputs, ee) ? DataType::Int32 : DataType::Int64;
}

void KernelExecutor::compile(Fusion* fusion, const std::vector<Tensor>& inputs,
                             const CompileOptions& options) {
  MF_CHECK(fusion != nullptr, "KernelExecutor::compile: fusion is null");
  verifyRunnable(*fusion, "KernelExecutor::compile");
  auto start = std::chrono::steady_clock::now();
  LowerOptions lower;
  // Only bind the inputs when the index type is not given.
  lower.index_type = options.index_type ? *options.index_type : chooseIndexType(*fusion, inputs);
  // Said now rather than at the first run: the inputs given cannot use the asked-for kernel.
  if (options.index_type == DataType::Int32 && !inputs.empty())
    MF_CHECK(chooseIndexType(*fusion, inputs) == DataType::Int32,
             "KernelExecutor::compile: CompileOptions::index_type is Int32 but these inputs need "
             "64-bit indices (an extent, element offset or output past 2^31 - 1); use Int64 or "
             "leave index_type unset");
  lower.verify = options.verify_lowering;
  lower.min_blocks_per_sm = options.min_blocks_per_sm;
  kernel_ = lowerFusion(*fusion, lower);
  double lower_ms = msSince(start);

  start = std::chrono::steady_clock::now();
  generated_ = generateCuda(*kernel_, cuda::runtimePrelude());
  double codegen_ms = msSince(start);
  if (isDumpEnabled(DumpOption::CudaKernel)) dumpStream() << generated_.kernel_code;
  if (isDumpEnabled(DumpOption::CudaFull)) dumpStream() << generated_.full_source;
  if (isDumpEnabled(DumpOption::CudaToFile))
    if (std::optional<std::string> path =
            writeDumpFile(DumpOption::CudaToFile, generated_.name + ".cu", generated_.full_source))
      dumpStream() << "wrote " << *path << "\n";

  cuda::NvrtcOptions nvrtc;
  if (cuda::cudaAvailable()) {
    nvrtc.arch_major = cuda::deviceInfo().major;
    nvrtc.arch_minor = cuda::deviceInfo().minor;
  }
  try {
    compiled_ = cuda::compileCached(generated_.full_source, generated_.name, nvrtc,
                                    generated_.canonical_source);
  } catch (const cuda::NvrtcCompileError& e) {
    // The source is ours: a kernel minifuser generated that NVRTC rejects is a bug.
    throw InternalError(fmt::format(
        "minifuser internal error: {}This is a bug in minifuser; please report it with the "
        "fusion that triggered it.",
        e.what()));
  }
  compile_times_ = {.lower_ms = lower_ms,
                    .codegen_ms = codegen_ms,
                    .nvrtc_ms = compiled_.cache_hit.empty() ? compiled_.compile_ms : 0.0,
                    .cache_hit = !compiled_.cache_hit.empty()};
  const Fusion& ir = kernel_->ir();
  signature_inputs_.assign(ir.inputs().size(), {});
  for (size_t i = 0; i < ir.inputs().size(); ++i)
    signature_inputs_[i].scalar = ir.inputs()[i]->kind() == ValKind::Scalar;
  for (auto [tv, width] : kernel_->summary().vectorized)
    if (tv->isFusionInput())
      signature_inputs_[indexOf<Val*>(ir.inputs(), tv)].vector_bytes =
          width * dataTypeSizeBit(tv->dtype()) / 8;
  std::lock_guard lock(launch_mutex_);
  launch_cache_.clear();
  last_token_ = 0;
  loaded_.reset();
  if (isDumpEnabled(DumpOption::CompileTiming)) {
    // A cached kernel cost no NVRTC time now; its original compile_ms would mislead.
    std::string nvrtc_time = compiled_.cache_hit.empty()
                                 ? fmt::format("nvrtc {:.3f} ms", compiled_.compile_ms)
                                 : fmt::format("nvrtc: {} cache hit", compiled_.cache_hit);
    dumpStream() << fmt::format("compile {}: lower {:.3f} ms, codegen {:.3f} ms, {}\n",
                                generated_.name, lower_ms, codegen_ms, nvrtc_time);
  }
}

// The device tensors one launch's arguments point at, alive until its results are read
// (blocks return to the caching allocator in stream order).
struct KernelExecutor::BoundLaunch {
  std::vector<Tensor> outputs;         // in ir.outputs() order; an output that is an input is it
  std::vector<Tensor> intermediates;   // global buffers between kernel-internal exprs
  std::vector<Tensor> staged_inputs;   // device copies of host inputs
  std::vector<Tensor> unused_outputs;  // written by the kernel, but the output is an input
  std::optional<Tensor> error_flag;    // the layout op's, zeroed before the launch
  std::optional<Tensor> grid_work;     // a grid reduction's partial results
};

namespace {

// Calls `f` with `v` as the C++ type of a kernel parameter of `dtype` (an Index parameter
// is the kernel's mf_index_t). The element is read exactly (an int64 past 2^53 must not go
// through double); the dtype was checked against the parameter's.
template <typename F>
void withScalarArg(DataType dtype, bool index32, const ScalarValue& v, F&& f) {
  switch (dtype) {
    case DataType::Bool:
      return f(asBool(v));
    case DataType::Int32:
      return f(static_cast<int32_t>(asInt(v)));
    case DataType::Int64:
      return f(asInt(v));
    case DataType::Index:
      return index32 ? f(static_cast<int32_t>(asInt(v))) : f(asInt(v));
    case DataType::Float:
      return f(static_cast<float>(asDouble(v)));
    case DataType::Double:
      return f(asDouble(v));
    default:
      MF_THROW("scalar input of dtype {} is not supported", dtype);
  }
}

// Grid and block sizes from the summary's parallel dimensions (1 where unused). A
// dimension the heuristics bind is theirs; the kernel's extent must agree, or the kernel
// would index past (or short of) what the schedule meant.
cuda::LaunchDims launchDims(const KernelSummary& summary, ExpressionEvaluator& ee,
                            const LaunchParams* constraints, std::string_view kernel, bool& empty) {
  constexpr ParallelType kOrder[] = {ParallelType::BIDx, ParallelType::BIDy, ParallelType::BIDz,
                                     ParallelType::TIDx, ParallelType::TIDy, ParallelType::TIDz};
  cuda::LaunchDims dims;
  uint32_t* slot[] = {&dims.grid_x,  &dims.grid_y,  &dims.grid_z,
                      &dims.block_x, &dims.block_y, &dims.block_z};
  const std::vector<int64_t> sizes = summary.launchSizes(ee);
  empty = std::find(sizes.begin(), sizes.end(), 0) != sizes.end();
  for (int d = 0; d < 6; ++d) {
    int64_t size = 1;
    for (size_t i = 0; i < sizes.size(); ++i)
      if (summary.parallel_dims[i].type == kOrder[d]) size = sizes[i];
    if (constraints != nullptr && constraints->hasDim(kOrder[d]) && !empty)
      MF_ASSERT(constraints->getDim(kOrder[d]) == size,
                "kernel {}: the heuristics launch {} = {}, but the kernel's {} extent is {} for "
                "these inputs ({})",
                kernel, toString(kOrder[d]), constraints->getDim(kOrder[d]), toString(kOrder[d]),
                size, constraints->toString());
    *slot[d] = static_cast<uint32_t>(std::max<int64_t>(size, 1));
  }
  // The launch passes dynamic shared memory only; static is part of the compiled kernel.
  if (summary.dynamic_smem_bytes != nullptr)
    dims.smem = static_cast<uint32_t>(
        ee.evaluateInt(summary.dynamic_smem_bytes, "dynamic shared memory bytes"));
  return dims;
}

}  // namespace

PreparedLaunch KernelExecutor::prepare(const std::vector<Tensor>& inputs,
                                       const LaunchParams* launch_constraints) const {
  Fusion& ir = kernel_->ir();
  const KernelSummary& summary = kernel_->summary();
  ExpressionEvaluator ee;
  bindInputs(ir, inputs, ee);
  for (auto [tv, width] : summary.vectorized)
    if (tv->isFusionInput()) {
      const Tensor& t = inputs[indexOf<Val*>(ir.inputs(), tv)];
      checkVectorizable(tv, width, t.sizes(), t.strides());
      checkVectorAligned(tv, width, t);
    }
  const bool index32 = kernel_->indexType() == DataType::Int32;
  if (index32)
    MF_CHECK(fitsInt32(ir, inputs, ee),
             "kernel {} was compiled with 32-bit indices but these inputs need 64-bit; "
             "compile with these inputs or CompileOptions::index_type = Int64",
             generated_.name);

  PreparedLaunch launch;
  launch.dims = launchDims(summary, ee, launch_constraints, generated_.name, launch.empty);
  launch.outputs_on_device = outputsOnDevice(ir, inputs);
  for (Val* v : ir.outputs()) {
    auto* tv = v->as<TensorView>();
    PreparedLaunch::Buffer& out = launch.outputs.emplace_back();
    out.tv = tv;
    out.layout = layoutOf(tv, ee);
    if (size_t in = indexOf(ir.inputs(), v); in < ir.inputs().size())
      out.alias_input = static_cast<int64_t>(in);
  }
  for (auto [tv, width] : summary.vectorized)
    if (tv->isFusionOutput() && !tv->isFusionInput()) {
      const TensorLayout& layout = launch.outputs[indexOf<Val*>(ir.outputs(), tv)].layout;
      checkVectorizable(tv, width, layout.sizes, layout.logical_strides);
    }

  // Data pointers are 0 here; bind() patches them for every run.
  cuda::KernelArgs& args = launch.args;
  // A grid reduction's columns: the blocks that differ in its block index only, rows each.
  const int64_t grid_rows =
      std::max<int64_t>(1, summary.grid_reduction_dim == ParallelType::BIDx ? launch.dims.grid_x
                                                                            : launch.dims.grid_y);
  const int64_t grid_columns =
      int64_t{launch.dims.grid_x} * launch.dims.grid_y * launch.dims.grid_z / grid_rows;
  for (const KernelParameter& p : summary.params) {
    const size_t arg = args.size();
    if (p.kind == KernelParameter::Kind::ErrorFlag) {
      args.addPointer(0);
      launch.error_flag_arg = arg;
      continue;
    }
    if (p.kind == KernelParameter::Kind::GridWork) {
      // grid_reduction_group slots per thread of every block (KernelSummary), and of every
      // group of blocks for reductions finished in place (their tree's rows).
      args.addPointer(0);
      const int64_t rows =
          summary.grid_reductions_finish_in_place ? gridTreeRows(grid_rows) : grid_rows;
      launch.grid_work = PreparedLaunch::GridWork{
          arg,
          grid_columns * rows * summary.grid_reduction_group * launch.dims.block_x *
              launch.dims.block_y * launch.dims.block_z,
          *summary.grid_reduction_dtype};
      continue;
    }
    if (p.kind == KernelParameter::Kind::GridSemaphores) {
      args.addPointer(0);
      // One per grid column; for reductions finished in place, their tree's per column and
      // reduction (KernelSummary::grid_reductions).
      const int64_t per_column = summary.grid_reductions_finish_in_place
                                     ? gridTreeSemaphores(grid_rows) * summary.grid_reductions
                                     : 1;
      launch.grid_semaphores = PreparedLaunch::GridSemaphores{arg, grid_columns * per_column};
      continue;
    }
    auto* tv = dynamic_cast<TensorView*>(p.val);
    const size_t index = static_cast<size_t>(p.index);
    if (tv == nullptr) {
      const ScalarValue value = inputs[index].scalarValue();
      const DataType dtype = p.val->dtype();
      if (dtype == DataType::Index && index32)
        MF_CHECK(asInt(value) >= std::numeric_limits<int32_t>::min() &&
                     asInt(value) <= std::numeric_limits<int32_t>::max(),
                 "kernel {} was compiled with 32-bit indices but its scalar input {} is {}; "
                 "compile with CompileOptions::index_type = Int64",
                 generated_.name, p.val->toString(), asInt(value));
      withScalarArg(dtype, index32, value, [&](auto v) { args.addScalar(v); });
      // An integer's value is part of the signature (launchSignature): packed once.
      if (!isIntegralType(dtype)) launch.scalar_inputs.push_back({arg, index, dtype});
      continue;
    }
    if (p.kind == KernelParameter::Kind::Input) {
      // A view keeps its storage offset and strides: the kernel gets its real first element.
      const Tensor& t = inputs[index];
      args.addTensor(0, t.sizes(), allocationStrides(tv, t), index32);
      launch.tensor_inputs.push_back({arg, index, t.dtype()});
      continue;
    }
    PreparedLaunch::Buffer* buffer = nullptr;
    if (p.kind == KernelParameter::Kind::Output) {
      buffer = &launch.outputs[index];
    } else {
      buffer = &launch.intermediates.emplace_back();
      buffer->tv = tv;
      buffer->layout = layoutOf(tv, ee);
    }
    buffer->arg = arg;
    args.addTensor(0, buffer->layout.sizes, buffer->layout.alloc_strides, index32);
  }
  for (const PreparedLaunch::Buffer& out : launch.outputs)
    MF_ASSERT(out.arg || out.alias_input >= 0, "kernel {}: output {} is no kernel parameter",
              generated_.name, out.tv->toString());
  return launch;
}

PreparedLaunch& KernelExecutor::preparedFor(const std::vector<Tensor>& inputs,
                                            const LaunchParams* launch_constraints,
                                            uint64_t token) {
  if (token != 0 && token == last_token_) [[likely]]
    return launch_cache_.mostRecent();
  launchSignature(inputs, signature_inputs_, key_);
  last_token_ = 0;  // until the launch below exists (prepare may throw)
  PreparedLaunch* launch = launch_cache_.find(key_);
  if (!launch) launch = &launch_cache_.insert(key_, prepare(inputs, launch_constraints));
  last_token_ = token;
  return *launch;
}

void KernelExecutor::ensureLoaded() {
  if (loaded_) [[likely]]
    return;
  cuda::requireDevice();
  auto [major, minor] = kernel_->summary().min_compute_capability;
  MF_CHECK(std::pair(cuda::deviceInfo().major, cuda::deviceInfo().minor) >= std::pair(major, minor),
           "kernel {} needs compute capability {}.{} or newer; this device has {}.{}",
           generated_.name, major, minor, cuda::deviceInfo().major, cuda::deviceInfo().minor);
  loaded_ = std::make_unique<cuda::LoadedKernel>(compiled_);
}

KernelExecutor::BoundLaunch KernelExecutor::bind(PreparedLaunch& launch,
                                                 const std::vector<Tensor>& inputs,
                                                 const RunOptions& options,
                                                 const std::vector<Tensor>& preallocated) {
  ensureLoaded();
  cuda::KernelArgs& args = launch.args;
  BoundLaunch bound;
  for (const PreparedLaunch::InputArg& in : launch.tensor_inputs) {
    const Tensor& t = inputs[in.input];
    args.setPointer(in.arg, t.isCuda()
                                ? t.devicePtr()
                                : bound.staged_inputs.emplace_back(t.toDevice()).devicePtr());
  }
  for (const PreparedLaunch::InputArg& in : launch.scalar_inputs)
    withScalarArg(in.dtype, /*index32=*/false, inputs[in.input].scalarValue(),
                  [&](auto value) { args.setScalar(in.arg, value); });
  auto allocate = [&](const PreparedLaunch::Buffer& b) {
    Tensor buffer = allocateOutput(b.tv, b.layout, Device::Cuda);
    if (options.poison_outputs) cuda::fillAsync(buffer.devicePtr(), 0xFF, buffer.nbytes());
    if (b.layout.declared_allocation && options.zero_fill_layout_pads)
      cuda::fillAsync(buffer.devicePtr(), 0, buffer.nbytes());
    args.setPointer(*b.arg, buffer.devicePtr());
    return buffer;
  };
  bound.outputs.reserve(launch.outputs.size());
  for (const PreparedLaunch::Buffer& out : launch.outputs) {
    // An output that is an input is the input itself, as the reference evaluator returns it.
    if (out.alias_input < 0) {
      const size_t i = bound.outputs.size();
      if (i < preallocated.size() && preallocated[i].isCuda()) {
        args.setPointer(*out.arg, preallocated[i].devicePtr());
        bound.outputs.push_back(preallocated[i]);
      } else {
        bound.outputs.push_back(allocate(out));
      }
      continue;
    }
    bound.outputs.push_back(inputs[out.alias_input]);
    if (out.arg) bound.unused_outputs.push_back(allocate(out));
  }
  for (const PreparedLaunch::Buffer& b : launch.intermediates)
    bound.intermediates.push_back(allocate(b));
  if (launch.error_flag_arg) {
    bound.error_flag = Tensor::emptyDevice({1}, DataType::Int32);
    cuda::fillAsync(bound.error_flag->devicePtr(), 0, sizeof(int32_t));
    args.setPointer(*launch.error_flag_arg, bound.error_flag->devicePtr());
  }
  if (launch.grid_work) {
    bound.grid_work = Tensor::emptyDevice({launch.grid_work->slots}, launch.grid_work->dtype);
    args.setPointer(launch.grid_work->arg, bound.grid_work->devicePtr());
  }
  if (launch.grid_semaphores) {
    if (!grid_semaphores_ || grid_semaphores_->numel() < launch.grid_semaphores->count) {
      grid_semaphores_ = Tensor::emptyDevice({launch.grid_semaphores->count}, DataType::Int32);
      cuda::fillAsync(grid_semaphores_->devicePtr(), 0, grid_semaphores_->nbytes());
    }
    args.setPointer(launch.grid_semaphores->arg, grid_semaphores_->devicePtr());
  }
  return bound;
}

void KernelExecutor::prepareLaunch(const std::vector<Tensor>& inputs,
                                   const LaunchParams* launch_constraints) {
  MF_CHECK(isCompiled(), "KernelExecutor::prepareLaunch: call compile() first");
  std::lock_guard lock(launch_mutex_);
  preparedFor(inputs, launch_constraints);
}

namespace {

// RunOptions::outputs against the launch's outputs: the kernel writes them as it would write
// its own allocations.
void checkPreallocatedOutputs(const std::vector<Tensor>& given, const PreparedLaunch& launch) {
  MF_CHECK(given.size() == launch.outputs.size(),
           "KernelExecutor::run: {} preallocated outputs given, but the fusion has {} outputs",
           given.size(), launch.outputs.size());
  for (size_t i = 0; i < given.size(); ++i) {
    const PreparedLaunch::Buffer& out = launch.outputs[i];
    const Tensor& t = given[i];
    MF_CHECK(t.dtype() == out.tv->dtype() && t.sizes() == out.layout.sizes,
             "KernelExecutor::run: preallocated output {} for {} must be a {}[{}] tensor, got "
             "{}[{}]",
             i, out.tv->toString(), out.tv->dtype(), fmt::join(out.layout.sizes, ", "), t.dtype(),
             fmt::join(t.sizes(), ", "));
    MF_CHECK(t.strides() == out.layout.logical_strides && !out.layout.declared_allocation &&
                 out.alias_input < 0,
             "KernelExecutor::run: preallocated output {} for {} must have strides [{}] (the "
             "kernel's layout; not a padded or aliased output), got [{}]",
             i, out.tv->toString(), fmt::join(out.layout.logical_strides, ", "),
             fmt::join(t.strides(), ", "));
    MF_CHECK(t.isCuda() == launch.outputs_on_device,
             "KernelExecutor::run: preallocated output {} for {} must be on the {}, where the "
             "run puts its outputs ({})",
             i, out.tv->toString(), launch.outputs_on_device ? "device" : "host",
             launch.outputs_on_device ? "an input is on the device" : "every input is on the host");
  }
}

}  // namespace

std::vector<Tensor> KernelExecutor::run(const std::vector<Tensor>& inputs,
                                        const RunOptions& options,
                                        const LaunchParams* launch_constraints,
                                        uint64_t signature_token) {
  return runInto(inputs, options, launch_constraints, signature_token, {});
}

std::vector<Tensor> KernelExecutor::runInto(const std::vector<Tensor>& inputs,
                                            const RunOptions& options,
                                            const LaunchParams* launch_constraints,
                                            uint64_t signature_token,
                                            const std::vector<Tensor>& preallocated) {
  MF_CHECK(isCompiled(), "KernelExecutor::run: call compile() first");
  std::lock_guard lock(launch_mutex_);
  PreparedLaunch& launch = preparedFor(inputs, launch_constraints, signature_token);
  if (!preallocated.empty()) checkPreallocatedOutputs(preallocated, launch);
  last_launch_ = launch.dims;
  checkHostLayoutOffsets(*kernel_, inputs, launch);
  BoundLaunch bound = bind(launch, inputs, options, preallocated);
  if (!launch.empty) {
    loaded_->launchAsync(launch.dims, launch.args.pointers(), launch.dims_checked);
    launch.dims_checked = true;
  }
  // Device outputs without an error flag (nor layout-op rows to read) are done: later work
  // is ordered after the kernel on the same stream, and toHost() waits.
  const KernelSummary& summary = kernel_->summary();
  if (launch.outputs_on_device && !bound.error_flag && summary.padded_outputs.empty()) [[likely]]
    return std::move(bound.outputs);

  // Everything below is enqueued after the kernel; one synchronization covers it all.
  int32_t flag = 0;
  if (bound.error_flag) cuda::copyToHostAsync(&flag, bound.error_flag->devicePtr(), sizeof(flag));
  std::vector<Tensor> outputs;
  for (size_t i = 0; i < launch.outputs.size(); ++i) {
    const PreparedLaunch::Buffer& out = launch.outputs[i];
    if (launch.outputs_on_device || out.alias_input >= 0) {
      outputs.push_back(bound.outputs[i]);
      continue;
    }
    Tensor& host = outputs.emplace_back(i < preallocated.size()
                                            ? preallocated[i]
                                            : allocateOutput(out.tv, out.layout, Device::Host));
    cuda::copyToHostAsync(host.rawData(), bound.outputs[i].devicePtr(), host.nbytes());
  }
  cuda::synchronize("after launching " + generated_.name);
  MF_CHECK(flag == 0, "{}", summary.describeError(flag));
  setLayoutUsedRows(summary, inputs, outputs);
  return outputs;
}

void KernelExecutor::compile(Fusion* fusion, const KernelArgumentHolder& args,
                             const LaunchParams& launch_constraints, const CompileParams& params) {
  MF_CHECK(fusion != nullptr, "KernelExecutor::compile: fusion is null");
  compile(fusion, args.toTensors(*fusion), CompileOptions{.index_type = params.index_type});
  compile_launch_constraints_ = launch_constraints;
}

void KernelExecutor::compile(Fusion* fusion, ArgumentList args,
                             const LaunchParams& launch_constraints, const CompileParams& params) {
  compile(fusion, KernelArgumentHolder(args), launch_constraints, params);
}

std::vector<Tensor> KernelExecutor::run(const KernelArgumentHolder& args,
                                        const KernelArgumentHolder& outputs,
                                        const LaunchParams& launch_constraints,
                                        const CompileParams& /*params*/) {
  MF_CHECK(isCompiled(), "KernelExecutor::run: call compile() first");
  const std::vector<Tensor> inputs = args.toTensors(kernel_->ir());
  const LaunchParams& constraints =
      launch_constraints == LaunchParams() ? compile_launch_constraints_ : launch_constraints;
  return runInto(inputs, {}, &constraints, 0, outputs.toTensors(kernel_->ir()));
}

std::vector<Tensor> KernelExecutor::run(ArgumentList args, const KernelArgumentHolder& outputs,
                                        const LaunchParams& launch_constraints,
                                        const CompileParams& params) {
  return run(KernelArgumentHolder(args), outputs, launch_constraints, params);
}

void Fusion::printKernel() const {
  printKernel(CompileParams{});
}

void Fusion::printKernel(const CompileParams& params) const {
  Fusion copy(*this);
  KernelExecutor ke;
  ke.compile(&copy, std::vector<Tensor>{}, CompileOptions{.index_type = params.index_type});
  std::cout << ke.kernelCode() << std::flush;
}

LaunchParams KernelExecutor::lastLaunchParams() const {
  const cuda::LaunchDims& d = last_launch_;
  LaunchParams params(d.grid_x, d.grid_y, d.grid_z, d.block_x, d.block_y, d.block_z);
  params.setSmem(d.smem);
  return params;
}

void KernelExecutor::withBoundLaunch(const std::vector<Tensor>& inputs,
                                     const std::function<void(PreparedLaunch&)>& launches) {
  MF_CHECK(isCompiled(), "KernelExecutor::run: call compile() first");
  std::lock_guard lock(launch_mutex_);
  PreparedLaunch& launch = preparedFor(inputs, nullptr);
  MF_CHECK(!launch.empty, "KernelExecutor::benchmark: the inputs are empty; nothing to time");
  BoundLaunch bound = bind(launch, inputs, {});
  launches(launch);
}

std::vector<float> KernelExecutor::benchmark(const std::vector<Tensor>& inputs, int warmup,
                                             int iterations) {
  std::vector<float> ms;
  withBoundLaunch(inputs, [&](PreparedLaunch& launch) {
    for (int i = 0; i < warmup; ++i) loaded_->launch(launch.dims, launch.args.pointers());
    for (int i = 0; i < iterations; ++i)
      ms.push_back(loaded_->launchTimed(launch.dims, launch.args.pointers()));
  });
  return ms;
}

std::vector<float> KernelExecutor::benchmarkBackToBack(const std::vector<Tensor>& inputs,
                                                       int warmup, int samples, int per_sample) {
  std::vector<float> ms;
  withBoundLaunch(inputs, [&](PreparedLaunch& launch) {
    std::vector<void*>& args = launch.args.pointers();
    for (int i = 0; i < warmup; ++i) loaded_->launch(launch.dims, args);
    for (int s = 0; s < samples; ++s)
      ms.push_back(cuda::timeOnStreamMs([&] {
                     for (int i = 0; i < per_sample; ++i)
                       loaded_->launchUnchecked(launch.dims, args);
                   }) /
                   static_cast<float>(per_sample));
    cuda::synchronize("back-to-back launches of " + generated_.name);
  });
  return ms;
}

double KernelExecutor::benchmarkBareLaunchUs(const std::vector<Tensor>& inputs, int warmup,
                                             int iterations, bool wait_for_kernels) {
  double us = 0;
  withBoundLaunch(inputs, [&](PreparedLaunch& launch) {
    std::vector<void*>& args = launch.args.pointers();
    for (int i = 0; i < warmup; ++i) loaded_->launchUnchecked(launch.dims, args);
    cuda::synchronize("bare launches of " + generated_.name);
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) loaded_->launchUnchecked(launch.dims, args);
    if (wait_for_kernels) cuda::synchronize("bare launches of " + generated_.name);
    us = 1000.0 * msSince(start) / iterations;
    if (!wait_for_kernels) cuda::synchronize("bare launches of " + generated_.name);
  });
  return us;
}

int64_t KernelExecutor::launchCacheSize() const {
  std::lock_guard lock(launch_mutex_);
  return static_cast<int64_t>(launch_cache_.size());
}

int64_t KernelExecutor::launchCacheHits() const {
  std::lock_guard lock(launch_mutex_);
  return launch_cache_.hits();
}

}  // namespace mf
