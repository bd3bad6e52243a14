#include "executor/kernel_executor.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <ostream>

#include "cuda/device_memory.h"
#include "cuda/driver.h"
#include "cuda/kernel_args.h"
#include "cuda/kernel_cache.h"
#include "cuda/runtime_sources.h"
#include "ir/expr_evaluator.h"
#include "ir/exprs.h"
#include "lower/pipeline.h"
#include "support/options.h"
#include "tensor/arguments.h"

namespace mf {
namespace {

constexpr std::string_view kWho = "KernelExecutor";

// The argument layer's checks, plus the generated kernel's own precondition: operands of
// one expr agree on every axis.
void bindInputs(const Fusion& fusion, const std::vector<Tensor>& inputs, ExpressionEvaluator& ee) {
  bindFusionInputs(fusion, inputs, ee, kWho);
  validateOperandExtents(fusion, ee);
}

template <typename T>
size_t indexOf(const std::vector<T>& values, const T& v) {
  return std::find(values.begin(), values.end(), v) - values.begin();
}

double msSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
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
    } else if (auto* m = dynamic_cast<Merge*>(id->definition())) {
      collect(m->outer());
      collect(m->inner());
    } else if (auto* s = dynamic_cast<Split*>(id->definition())) {
      collect(s->in());
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

// A vectorized input's first element must start a whole vector. A host input is copied to a
// fresh (aligned) block with its storage offset, so the offset alone decides.
void checkVectorAligned(TensorView* tv, int64_t width, const Tensor& t) {
  const int64_t vector_bytes = width * dataTypeSize(t.dtype());
  const uint64_t address = t.isCuda()
                               ? t.devicePtr()
                               : static_cast<uint64_t>(t.storageOffset() * dataTypeSize(t.dtype()));
  MF_CHECK(address % vector_bytes == 0,
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

// True when every input's and output's extent and element offset fits in 31 bits; `ee` has
// the inputs bound already.
bool fitsInt32(const Fusion& fusion, const std::vector<Tensor>& inputs, ExpressionEvaluator& ee) {
  constexpr int64_t kMax = (int64_t{1} << 31) - 1;
  for (const Tensor& t : inputs) {
    int64_t span = 1;
    for (int64_t d = 0; d < t.dim(); ++d)
      span += (t.sizes()[d] - 1) * std::max<int64_t>(t.strides()[d], 1);
    if (t.allocationNumel() > kMax || span > kMax) return false;
  }
  for (Val* v : fusion.outputs())
    if (layoutOf(v->as<TensorView>(), ee).allocNumel() > kMax) return false;
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
  kernel_ = lowerFusion(*fusion, lower);
  double lower_ms = msSince(start);

  start = std::chrono::steady_clock::now();
  generated_ = generateCuda(*kernel_, cuda::runtimePrelude());
  double codegen_ms = msSince(start);
  if (isDumpEnabled(DumpOption::CudaKernel)) dumpStream() << generated_.kernel_code;
  if (isDumpEnabled(DumpOption::CudaFull)) dumpStream() << generated_.full_source;
  if (isDumpEnabled(DumpOption::CudaToFile)) {
    std::string path = fmt::format("{}/{}.cu", mf::options().dump_dir, generated_.name);
    std::ofstream f(path);
    MF_CHECK(f.good(), "cuda_to_file: cannot write {}", path);
    f << generated_.full_source;
    dumpStream() << "wrote " << path << "\n";
  }

  cuda::NvrtcOptions nvrtc;
  if (cuda::cudaAvailable()) {
    nvrtc.arch_major = cuda::deviceInfo().major;
    nvrtc.arch_minor = cuda::deviceInfo().minor;
  }
  compiled_ = cuda::compileCached(generated_.full_source, generated_.name, nvrtc);
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

// Everything one launch needs. The device tensors its arguments point at live here until
// the launch's results are read (blocks return to the caching allocator in stream order).
struct KernelExecutor::PreparedLaunch {
  cuda::LaunchDims dims;
  bool empty = false;  // some parallel extent is 0: nothing to launch
  cuda::KernelArgs args;
  std::vector<Tensor> device_inputs;  // host inputs copied, device inputs as given
  std::vector<Tensor> intermediates;  // global buffers between kernel-internal exprs
  std::optional<Tensor> error_flag;   // the layout op's, zeroed before the launch
  std::optional<Tensor> grid_work;    // a grid reduction's partial results
  std::vector<Tensor> outputs;        // on the device, in ir.outputs() order
  std::vector<TensorLayout> out_layouts;
  bool outputs_on_device = false;  // else run() copies them to the host
};

namespace {

// The element read exactly (value(), not item(): an int64 past 2^53 must not go through
// double); the dtype was checked against the parameter's.
void addScalarArg(cuda::KernelArgs& args, const Val* param, const Tensor& t) {
  const ScalarValue v = t.value(0);
  switch (param->dtype()) {
    case DataType::Bool:
      return args.addScalar<bool>(asBool(v));
    case DataType::Int32:
      return args.addScalar<int32_t>(static_cast<int32_t>(asInt(v)));
    case DataType::Int64:
      return args.addScalar<int64_t>(asInt(v));
    case DataType::Float:
      return args.addScalar<float>(static_cast<float>(asDouble(v)));
    case DataType::Double:
      return args.addScalar<double>(asDouble(v));
    default:
      MF_THROW("scalar input {} of dtype {} is not supported", param->toString(), param->dtype());
  }
}

// Grid and block sizes from the summary's parallel dimensions (1 where unused).
cuda::LaunchDims launchDims(const KernelSummary& summary, ExpressionEvaluator& ee, bool& empty) {
  cuda::LaunchDims dims;
  std::vector<int64_t> sizes = summary.launchSizes(ee);
  empty = std::find(sizes.begin(), sizes.end(), 0) != sizes.end();
  for (size_t i = 0; i < sizes.size(); ++i) {
    uint32_t* slot[] = {&dims.grid_x,  &dims.grid_y,  &dims.grid_z,
                        &dims.block_x, &dims.block_y, &dims.block_z};
    ParallelType order[] = {ParallelType::BIDx, ParallelType::BIDy, ParallelType::BIDz,
                            ParallelType::TIDx, ParallelType::TIDy, ParallelType::TIDz};
    for (int d = 0; d < 6; ++d)
      if (order[d] == summary.parallel_dims[i].type)
        *slot[d] = static_cast<uint32_t>(std::max<int64_t>(sizes[i], 1));
  }
  // The launch passes dynamic shared memory only; static is part of the compiled kernel.
  if (summary.dynamic_smem_bytes != nullptr)
    dims.smem = static_cast<uint32_t>(
        ee.evaluateInt(summary.dynamic_smem_bytes, "dynamic shared memory bytes"));
  return dims;
}

}  // namespace

KernelExecutor::PreparedLaunch KernelExecutor::prepare(const std::vector<Tensor>& inputs,
                                                       const RunOptions& options) {
  MF_CHECK(isCompiled(), "KernelExecutor::run: call compile() first");
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
  bool index32 = kernel_->indexType() == DataType::Int32;
  if (index32)
    MF_CHECK(fitsInt32(ir, inputs, ee),
             "kernel {} was compiled with 32-bit indices but these inputs need 64-bit; "
             "compile with these inputs or CompileOptions::index_type = Int64",
             generated_.name);

  PreparedLaunch launch;
  launch.dims = launchDims(summary, ee, launch.empty);
  last_launch_ = launch.dims;
  std::vector<TensorLayout>& out_layouts = launch.out_layouts;
  for (Val* v : ir.outputs()) out_layouts.push_back(layoutOf(v->as<TensorView>(), ee));
  for (auto [tv, width] : summary.vectorized)
    if (tv->isFusionOutput() && !tv->isFusionInput()) {
      const TensorLayout& layout = out_layouts[indexOf<Val*>(ir.outputs(), tv)];
      checkVectorizable(tv, width, layout.sizes, layout.logical_strides);
    }

  cuda::requireDevice();
  auto [major, minor] = summary.min_compute_capability;
  MF_CHECK(std::pair(cuda::deviceInfo().major, cuda::deviceInfo().minor) >= std::pair(major, minor),
           "kernel {} needs compute capability {}.{} or newer; this device has {}.{}",
           generated_.name, major, minor, cuda::deviceInfo().major, cuda::deviceInfo().minor);
  if (!loaded_) loaded_ = std::make_unique<cuda::LoadedKernel>(compiled_);
  launch.outputs_on_device = outputsOnDevice(ir, inputs);
  launch.outputs.resize(ir.outputs().size());
  for (const KernelParameter& p : summary.params) {
    if (p.kind == KernelParameter::Kind::ErrorFlag) {
      launch.error_flag = Tensor::emptyDevice({1}, DataType::Int32);
      cuda::fillAsync(launch.error_flag->devicePtr(), 0, sizeof(int32_t));
      launch.args.addPointer(launch.error_flag->devicePtr());
      continue;
    }
    if (p.kind == KernelParameter::Kind::GridWork) {
      // One slot per thread of every block (KernelSummary::grid_reduction_dtype).
      const int64_t slots = int64_t{launch.dims.grid_x} * launch.dims.grid_y * launch.dims.block_x *
                            launch.dims.block_y * launch.dims.block_z;
      launch.grid_work = Tensor::emptyDevice({slots}, *summary.grid_reduction_dtype);
      launch.args.addPointer(launch.grid_work->devicePtr());
      continue;
    }
    if (p.kind == KernelParameter::Kind::GridSemaphores) {
      if (!grid_semaphores_ || grid_semaphores_->numel() < launch.dims.grid_x) {
        grid_semaphores_ = Tensor::emptyDevice({launch.dims.grid_x}, DataType::Int32);
        cuda::fillAsync(grid_semaphores_->devicePtr(), 0, grid_semaphores_->nbytes());
      }
      launch.args.addPointer(grid_semaphores_->devicePtr());
      continue;
    }
    auto* tv = dynamic_cast<TensorView*>(p.val);
    if (tv == nullptr) {
      const Tensor& t = inputs[p.index];
      addScalarArg(launch.args, p.val, t.isCuda() ? t.toHost() : t);
      continue;
    }
    if (p.kind == KernelParameter::Kind::Input) {
      // A view keeps its storage offset and strides: the kernel gets its real first element.
      const Tensor& t = launch.device_inputs.emplace_back(inputs[p.index].toDevice());
      launch.args.addTensor(t.devicePtr(), t.sizes(), allocationStrides(tv, t), index32);
      continue;
    }
    const bool is_output = p.kind == KernelParameter::Kind::Output;
    const TensorLayout layout = is_output ? out_layouts[p.index] : layoutOf(tv, ee);
    Tensor buffer = allocateOutput(tv, layout, Device::Cuda);
    if (options.poison_outputs) cuda::fillAsync(buffer.devicePtr(), 0xFF, buffer.nbytes());
    if (layout.declared_allocation && options.zero_fill_layout_pads)
      cuda::fillAsync(buffer.devicePtr(), 0, buffer.nbytes());
    launch.args.addTensor(buffer.devicePtr(), layout.sizes, layout.alloc_strides, index32);
    (is_output ? launch.outputs[p.index] : launch.intermediates.emplace_back()) = std::move(buffer);
  }
  return launch;
}

std::vector<Tensor> KernelExecutor::run(const std::vector<Tensor>& inputs,
                                        const RunOptions& options) {
  PreparedLaunch launch = prepare(inputs, options);
  if (!launch.empty) loaded_->launchAsync(launch.dims, launch.args.pointers());

  // Everything below is enqueued after the kernel; one synchronization covers it all.
  const Fusion& ir = kernel_->ir();
  const KernelSummary& summary = kernel_->summary();
  int32_t flag = 0;
  if (launch.error_flag) cuda::copyToHostAsync(&flag, launch.error_flag->devicePtr(), sizeof(flag));
  std::vector<Tensor> outputs;
  for (size_t i = 0; i < launch.outputs.size(); ++i) {
    // An output that is an input is the input itself, as the reference evaluator returns it.
    if (size_t in = indexOf(ir.inputs(), ir.outputs()[i]); in < ir.inputs().size()) {
      outputs.push_back(inputs[in]);
    } else if (launch.outputs_on_device) {
      outputs.push_back(std::move(launch.outputs[i]));
    } else {
      auto* tv = ir.outputs()[i]->as<TensorView>();
      Tensor& host = outputs.emplace_back(allocateOutput(tv, launch.out_layouts[i], Device::Host));
      cuda::copyToHostAsync(host.rawData(), launch.outputs[i].devicePtr(), host.nbytes());
    }
  }
  // Device outputs without an error flag need no wait: later work is ordered after the
  // kernel on the same stream, and toHost() waits.
  if (!launch.outputs_on_device || launch.error_flag)
    cuda::synchronize("after launching " + generated_.name);
  MF_CHECK(flag == 0, "{}", summary.describeError(flag));
  setLayoutUsedRows(summary, inputs, outputs);
  return outputs;
}

std::vector<float> KernelExecutor::benchmark(const std::vector<Tensor>& inputs, int warmup,
                                             int iterations) {
  PreparedLaunch launch = prepare(inputs, {});
  MF_CHECK(!launch.empty, "KernelExecutor::benchmark: the inputs are empty; nothing to time");
  for (int i = 0; i < warmup; ++i) loaded_->launch(launch.dims, launch.args.pointers());
  std::vector<float> ms;
  for (int i = 0; i < iterations; ++i)
    ms.push_back(loaded_->launchTimed(launch.dims, launch.args.pointers()));
  return ms;
}

}  // namespace mf
