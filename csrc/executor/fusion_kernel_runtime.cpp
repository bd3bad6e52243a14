#include "executor/fusion_kernel_runtime.h"

#include <algorithm>
#include <exception>
#include <ostream>
#include <thread>
#include <unordered_map>

#include "cuda/driver.h"
#include "ir/expr_evaluator.h"
#include "ir/exprs.h"
#include "ir/fusion.h"
#include "passes/pipeline.h"
#include "reference/reference_evaluator.h"
#include "scheduler/registry.h"
#include "segmenter/alias_analysis.h"
#include "segmenter/segment_candidate_finder.h"
#include "support/options.h"
#include "support/timing.h"
#include "tensor/arguments.h"

namespace mf {

// One segment: its standalone fusion, the scheduled copy and its kernel (none for NoOp and
// ExprEval).
struct FusionKernelRuntime::Group {
  const SegmentedGroup* segment = nullptr;
  std::unique_ptr<Fusion> fusion;     // makeFusion: unscheduled (NoOp outputs, reuse checks)
  std::unique_ptr<Fusion> scheduled;  // after the scheduler's schedule()
  HeuristicParams* params = nullptr;  // owned by heuristics_
  std::unique_ptr<KernelExecutor> executor;
  std::vector<size_t> input_slots;   // per segment input
  std::vector<size_t> output_slots;  // per segment output
  std::vector<size_t> release;       // slots whose last reader this group is

  // Outputs that are views of inputs: made on the host, sharing the inputs' storage.
  bool makesViews() const { return segment->schedulerType() == SchedulerType::ExprEval; }
};

namespace {

// The sizes of the tensor inputs (a runtime that removeEmpty rewrote holds for these only).
std::vector<std::vector<int64_t>> inputSizes(const std::vector<Tensor>& inputs) {
  std::vector<std::vector<int64_t>> sizes;
  for (const Tensor& t : inputs) sizes.push_back(t.sizes());
  return sizes;
}

// The fusion passes that read the run-time sizes, on the runtime's copy before it is
// segmented: removeEmpty. True when they rewrote it.
bool runSizePasses(Fusion& copy, const std::vector<Tensor>& inputs) {
  ExpressionEvaluator ee;
  bindFusionInputs(copy, inputs, ee, "FusionExecutorCache");
  FusionPassRequest request;
  request.passes = {"removeEmpty"};
  request.evaluator = &ee;
  const uint64_t before = copy.version();
  runFusionPasses(copy, request);
  return copy.version() != before;
}

}  // namespace

FusionKernelRuntime::FusionKernelRuntime(const Fusion& fusion, const std::vector<Tensor>& inputs,
                                         const DeviceDescription& device) {
  SteadyClock::time_point start = SteadyClock::now();
  Fusion copy(fusion);  // SchedulerRuntimeInfo takes a mutable fusion
  if (runSizePasses(copy, inputs)) sized_for_ = inputSizes(inputs);
  SchedulerRuntimeInfo info(&copy, inputs, device);
  profile_.passes_ms = msSince(start);
  start = SteadyClock::now();
  segments_ = SegmentCandidateFinder::segment(copy, info);
  profile_.segment_ms = msSince(start);
  for (SegmentedGroup* segment : segments_->groups()) {
    start = SteadyClock::now();
    auto group = std::make_unique<Group>();
    group->segment = segment;
    group->fusion = segments_->makeFusion(segment);
    std::unique_ptr<SchedulerRuntimeInfo> group_info =
        segments_->groupRuntimeInfo(segment, group->fusion.get(), info);
    std::string why;
    group->params = heuristics_.list_
                        .emplace_back(segments_->computeHeuristics(segment, group->fusion.get(),
                                                                   *group_info, &why))
                        .get();
    profile_.heuristics_ms += msSince(start);
    start = SteadyClock::now();
    MF_ASSERT(group->params != nullptr, "the segmenter's scheduler refused its own group {}: {}",
              segment->id(), why);
    const SchedulerType type = segment->schedulerType();
    if (isDumpEnabled(DumpOption::SchedulerParams))
      dumpStream() << "=== scheduler_params (group " << segment->id() << ", " << toString(type)
                   << ") ===\n"
                   << group->params->toString() << "\n";
    if (type != SchedulerType::NoOp && type != SchedulerType::ExprEval) {
      group->scheduled = std::make_unique<Fusion>(*group->fusion);
      if (isDumpEnabled(DumpOption::FusionIrPresched))
        dumpStream() << "=== fusion_ir_presched (" << toString(type) << ") ===\n"
                     << group->scheduled->mathString();
      SchedulerEntry::makeSchedulerInstance(type)->schedule(group->scheduled.get(), group->params);
      if (isDumpEnabled(DumpOption::FusionIrScheduled))
        dumpStream() << "=== fusion_ir_scheduled (" << toString(type) << ") ===\n"
                     << group->scheduled->mathString() << group->scheduled->transformsString();
    }
    profile_.schedule_ms += msSince(start);
    groups_.push_back(std::move(group));
  }
  start = SteadyClock::now();
  compileGroups();
  profile_.compile_wall_ms = msSince(start);
  for (const auto& g : groups_) {
    if (!g->scheduled) continue;
    const KernelExecutor::CompileTimes& t = g->executor->compileTimes();
    profile_.lower_ms += t.lower_ms;
    profile_.codegen_ms += t.codegen_ms;
    profile_.nvrtc_ms += t.nvrtc_ms;
    ++(t.cache_hit ? profile_.kernels_reused : profile_.kernels_compiled);
  }
  profile_.groups = groups_.size();
  assignSlots();
}

void FusionKernelRuntime::compileGroups() {
  std::vector<Group*> to_compile;
  for (const auto& g : groups_)
    if (g->scheduled) to_compile.push_back(g.get());
  auto compile = [](Group* g) {
    auto executor = std::make_unique<KernelExecutor>();
    executor->compile(
        g->scheduled.get(), {},
        {.index_type = g->params->index_type, .min_blocks_per_sm = g->params->min_blocks_per_sm});
    g->executor = std::move(executor);
  };
  // Lowering, codegen and NVRTC of one group touch nothing another group's do (the active
  // fusion is per thread, the kernel cache locks, NVRTC is thread-safe): a few threads
  // compile the groups at once. With a dump enabled, in run order, so the dump reads as one
  // group after another.
  const std::vector<bool>& dumps = options().dump;
  const bool dumping = std::find(dumps.begin(), dumps.end(), true) != dumps.end();
  const size_t threads =
      dumping ? 1
              : std::min<size_t>({to_compile.size(), kCompileThreads,
                                  std::max(1u, std::thread::hardware_concurrency())});
  if (threads <= 1) {
    for (Group* g : to_compile) compile(g);
    return;
  }
  // Worker w compiles groups w, w + threads, ...; the first error (in group order) is
  // rethrown once every worker has finished.
  std::vector<std::exception_ptr> errors(to_compile.size());
  std::vector<std::thread> workers;
  for (size_t w = 0; w < threads; ++w)
    workers.emplace_back([&, w] {
      for (size_t i = w; i < to_compile.size(); i += threads) {
        try {
          compile(to_compile[i]);
        } catch (...) {
          errors[i] = std::current_exception();
        }
      }
    });
  for (std::thread& t : workers) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

void FusionKernelRuntime::assignSlots() {
  const Fusion& complete = *segments_->completeFusion();
  std::unordered_map<const Val*, size_t> slot;
  for (Val* v : complete.inputs()) slot.emplace(v, slot.size());
  for (const auto& g : groups_)
    for (Val* v : g->segment->outputs()) slot.emplace(v, slot.size());
  slot_count_ = slot.size();
  for (Val* v : complete.outputs()) output_slots_.push_back(slot.at(v));
  // The last group reading a slot releases it, unless it is a fusion output.
  std::vector<Group*> last_reader(slot_count_, nullptr);
  for (const auto& g : groups_) {
    for (Val* v : g->segment->inputs()) {
      g->input_slots.push_back(slot.at(v));
      last_reader[g->input_slots.back()] = g.get();
    }
    for (Val* v : g->segment->outputs()) g->output_slots.push_back(slot.at(v));
  }
  for (size_t s : output_slots_) last_reader[s] = nullptr;
  for (size_t s = 0; s < slot_count_; ++s)
    if (last_reader[s] != nullptr) last_reader[s]->release.push_back(s);
  const size_t n_inputs = complete.inputs().size();
  auto identity = [](const std::vector<size_t>& slots, size_t first) {
    for (size_t i = 0; i < slots.size(); ++i)
      if (slots[i] != first + i) return false;
    return true;
  };
  single_group_passthrough_ = groups_.size() == 1 && groups_[0]->input_slots.size() == n_inputs &&
                              identity(groups_[0]->input_slots, 0) &&
                              groups_[0]->output_slots == output_slots_ &&
                              identity(output_slots_, n_inputs);
}

FusionKernelRuntime::~FusionKernelRuntime() = default;

std::vector<const HeuristicParams*> FusionKernelRuntime::heuristics() const {
  std::vector<const HeuristicParams*> out;
  for (const auto& g : groups_) out.push_back(g->params);
  return out;
}

std::vector<KernelExecutor*> FusionKernelRuntime::executors() const {
  std::vector<KernelExecutor*> out;
  for (const auto& g : groups_) out.push_back(g->executor.get());
  return out;
}

std::optional<std::vector<std::unique_ptr<HeuristicParams>>> FusionKernelRuntime::heuristicsFor(
    const std::vector<Tensor>& inputs, const DeviceDescription& device) const {
  if (sized_for_ && *sized_for_ != inputSizes(inputs)) return std::nullopt;
  SchedulerRuntimeInfo info(segments_->completeFusion(), inputs, device);
  std::vector<std::unique_ptr<HeuristicParams>> out;
  for (const auto& g : groups_) {
    std::unique_ptr<SchedulerRuntimeInfo> group_info =
        segments_->groupRuntimeInfo(g->segment, g->fusion.get(), info);
    std::unique_ptr<HeuristicParams> p =
        segments_->computeHeuristics(g->segment, g->fusion.get(), *group_info);
    if (p == nullptr) return std::nullopt;
    out.push_back(std::move(p));
  }
  return out;
}

bool FusionKernelRuntime::canReuse(
    const std::vector<std::unique_ptr<HeuristicParams>>& params) const {
  if (params.size() != groups_.size()) return false;
  for (size_t i = 0; i < params.size(); ++i)
    if (!groups_[i]->params->sameAs(params[i].get())) return false;
  return true;
}

namespace {

// A NoOp group computes nothing: an output that is an input comes back as given, the
// others are empty (NoOp's condition) and allocated where the inputs live.
std::vector<Tensor> runNoOp(const Fusion& fusion, const std::vector<Tensor>& inputs) {
  ExpressionEvaluator ee;
  bindFusionInputs(fusion, inputs, ee, "FusionExecutorCache");
  bool on_device = false;
  for (const Tensor& t : inputs) on_device = on_device || t.isCuda();
  std::vector<Tensor> outputs;
  for (Val* out : fusion.outputs()) {
    const auto& fusion_inputs = fusion.inputs();
    if (auto it = std::find(fusion_inputs.begin(), fusion_inputs.end(), out);
        it != fusion_inputs.end()) {
      outputs.push_back(inputs[it - fusion_inputs.begin()]);
      continue;
    }
    auto* tv = out->as<TensorView>();
    outputs.push_back(
        allocateOutput(tv, layoutOf(tv, ee), on_device ? Device::Cuda : Device::Host));
    // An empty layout op output (M = 0) still reports its used rows (the offsets' last
    // group's start: its rows are none).
    const Val* in_offsets = nullptr;
    const Val* out_offsets = nullptr;
    if (auto* op = dynamic_cast<const PreprocessGroupedMatmulInputSf*>(tv->definition())) {
      in_offsets = op->inputOffsets();
      out_offsets = op->outputOffsets();
    } else if (auto* gq = dynamic_cast<const GroupedBlockQuantizationOp*>(tv->definition());
               gq != nullptr && gq->blockScales() == tv) {
      in_offsets = gq->inputOffsets();
      out_offsets = gq->outputOffsets();
    }
    if (in_offsets == nullptr) continue;
    auto in_off = std::find(fusion_inputs.begin(), fusion_inputs.end(), in_offsets);
    auto out_off = std::find(fusion_inputs.begin(), fusion_inputs.end(), out_offsets);
    if (in_off != fusion_inputs.end() && out_off != fusion_inputs.end())
      outputs.back().setUsedRows(layoutUsedRows(inputs[in_off - fusion_inputs.begin()].toHost(),
                                                inputs[out_off - fusion_inputs.begin()].toHost(),
                                                0));
  }
  return outputs;
}

}  // namespace

std::vector<Tensor> FusionKernelRuntime::run(const std::vector<Tensor>& inputs,
                                             const RunOptions& options,
                                             std::span<const LaunchParams> launch_params,
                                             uint64_t signature_token) {
  const Fusion& complete = *segments_->completeFusion();
  MF_CHECK(inputs.size() == complete.inputs().size(),
           "FusionExecutorCache: expected {} inputs, got {}", complete.inputs().size(),
           inputs.size());
  MF_ASSERT(launch_params.empty() || launch_params.size() == groups_.size(),
            "{} launch parameters for {} groups", launch_params.size(), groups_.size());
  auto runGroup = [&](const Group& g, size_t i, const std::vector<Tensor>& group_inputs) {
    if (g.makesViews()) return evaluateViews(*g.fusion, group_inputs);
    if (!g.executor) return runNoOp(*g.fusion, group_inputs);
    return g.executor->run(group_inputs, options,
                           launch_params.empty() ? nullptr : &launch_params[i], signature_token);
  };
  if (single_group_passthrough_) return runGroup(*groups_[0], 0, inputs);

  // Several kernels on a GPU with host inputs: the inputs go to the device once and
  // intermediates stay there. One kernel: KernelExecutor puts outputs where inputs are.
  const bool stage =
      groups_.size() > 1 && cuda::cudaAvailable() &&
      std::none_of(inputs.begin(), inputs.end(), [](const Tensor& t) { return t.isCuda(); });
  std::vector<std::optional<Tensor>> values(slot_count_);
  for (size_t i = 0; i < inputs.size(); ++i)
    values[i] = stage && inputs[i].dim() > 0 ? inputs[i].toDevice() : inputs[i];
  // Assigned over group after group: an assigned Tensor keeps its shape buffers (no malloc).
  std::vector<Tensor> group_inputs;
  for (size_t i = 0; i < groups_.size(); ++i) {
    const Group& g = *groups_[i];
    group_inputs.resize(std::min(group_inputs.size(), g.input_slots.size()));
    for (size_t k = 0; k < g.input_slots.size(); ++k) {
      // Views share the caller's storage, not the staged copy's (a view group reads inputs).
      const size_t s = g.input_slots[k];
      const Tensor& t = g.makesViews() && s < inputs.size() ? inputs[s] : *values[s];
      if (k < group_inputs.size())
        group_inputs[k] = t;
      else
        group_inputs.push_back(t);
    }
    std::vector<Tensor> outs = runGroup(g, i, group_inputs);
    for (size_t k = 0; k < outs.size(); ++k) values[g.output_slots[k]] = std::move(outs[k]);
    // Intermediates go back to the caching allocator after their last reader (and group).
    for (size_t s : g.release) values[s].reset();
  }
  std::vector<Tensor> outputs;
  for (size_t s : output_slots_) outputs.push_back(stage ? values[s]->toHost() : *values[s]);
  return outputs;
}

template <typename RunGroup>
std::vector<Tensor> FusionKernelRuntime::runGroupsOnHost(const std::vector<Tensor>& inputs,
                                                         RunGroup run_group) {
  const Fusion& complete = *segments_->completeFusion();
  MF_CHECK(inputs.size() == complete.inputs().size(),
           "FusionExecutorCache: expected {} inputs, got {}", complete.inputs().size(),
           inputs.size());
  std::vector<std::optional<Tensor>> values(slot_count_);
  for (size_t i = 0; i < inputs.size(); ++i) values[i] = inputs[i];
  for (size_t i = 0; i < groups_.size(); ++i) {
    Group& g = *groups_[i];
    std::vector<Tensor> group_inputs;
    for (size_t s : g.input_slots) group_inputs.push_back(*values[s]);
    std::vector<Tensor> outs = run_group(i, g, group_inputs);
    for (size_t k = 0; k < outs.size(); ++k) values[g.output_slots[k]] = std::move(outs[k]);
  }
  std::vector<Tensor> outputs;
  for (size_t s : output_slots_) outputs.push_back(*values[s]);
  return outputs;
}

std::vector<Tensor> FusionKernelRuntime::runOnReference(
    const std::vector<Tensor>& inputs, std::span<const LaunchParams> launch_params) {
  return runGroupsOnHost(inputs, [&](size_t i, Group& g, const std::vector<Tensor>& group_inputs) {
    if (g.makesViews()) return evaluateViews(*g.fusion, group_inputs);
    if (g.executor)
      g.executor->prepareLaunch(group_inputs, launch_params.empty() ? nullptr : &launch_params[i]);
    return ReferenceEvaluator(g.fusion.get()).run(group_inputs);
  });
}

std::vector<Tensor> FusionKernelRuntime::runOnHost(const std::vector<Tensor>& inputs,
                                                   const HostKernelRunner& run_kernel) {
  return runGroupsOnHost(inputs, [&](size_t, Group& g, const std::vector<Tensor>& group_inputs) {
    if (g.makesViews()) return evaluateViews(*g.fusion, group_inputs);
    if (!g.executor) return ReferenceEvaluator(g.fusion.get()).run(group_inputs);
    g.executor->prepareLaunch(group_inputs);
    return run_kernel(g.executor->kernel(), group_inputs);
  });
}

std::string FusionKernelRuntime::code() const {
  std::string out;
  for (const auto& g : groups_)
    if (g->executor) out += g->executor->kernelCode();
  return out;
}

std::string FusionKernelRuntime::scheduledIr() const {
  std::string out;
  for (const auto& g : groups_) {
    out += fmt::format("=== group {} ({}) ===\n", g->segment->id(),
                       toString(g->segment->schedulerType()));
    if (g->scheduled) out += g->scheduled->mathString() + g->scheduled->transformsString();
  }
  return out;
}

int64_t FusionKernelRuntime::kernelCount() const {
  return std::count_if(groups_.begin(), groups_.end(),
                       [](const auto& g) { return g->executor != nullptr; });
}

KernelExecutor* FusionKernelRuntime::executor() {
  for (const auto& g : groups_)
    if (g->executor) return g->executor.get();
  return nullptr;
}

}  // namespace mf
