// The sweep behind the reduction, inner persistent and inner-outer heuristics' constants: for each
// of issue 9's benchmark fusions, schedules the fusion with variations of the heuristics'
// parameters (block shape, unroll, persistent batch, grid split), times each kernel alone
// (KernelExecutor::benchmark, median of 50 launches) and checks its output against the
// heuristics' own kernel. Prints one line per variant:
//   tune <case> <median us> <GB/s> <params>
// and marks the heuristics' choice with `*`. GPU only; run by hand (see docs/reductions.md).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "bench_utils.h"
#include "cuda/driver.h"
#include "minifuser/minifuser.h"
#include "scheduler/normalization_inner.h"
#include "scheduler/normalization_inner_outer.h"
#include "scheduler/reduction.h"
#include "scheduler/runtime_info.h"
#include "unit/scheduler/normalization_fusions.h"

namespace {

using mf::DataType;
using mf::HeuristicParams;
using mf::ParallelType;
using mf::Tensor;

// Schedules a copy of `fusion` with `params`, compiles it and returns the median kernel us,
// or a negative number when the output differs from `expected` (relative 1e-2 on
// 1 + |expected|: a different summation order, or a different kernel's rounding).
double timeVariant(const mf::Fusion& fusion, mf::SchedulerEntry& scheduler,
                   const HeuristicParams& params, const std::vector<Tensor>& inputs,
                   const Tensor* expected, Tensor* output = nullptr) {
  mf::Fusion copy(fusion);
  scheduler.schedule(&copy, &params);
  mf::KernelExecutor ke;
  ke.compile(&copy, inputs,
             {.index_type = params.index_type, .min_blocks_per_sm = params.min_blocks_per_sm});
  Tensor out = ke.run(inputs, {.poison_outputs = true}, &params.lparams)[0].toHost();
  if (expected != nullptr)
    for (int64_t i = 0; i < out.numel(); i += std::max<int64_t>(1, out.numel() / 100000))
      if (!(std::abs(out.item(i) - expected->item(i)) <= 1e-2 * (1 + std::abs(expected->item(i)))))
        return -1;
  if (output != nullptr) *output = out;
  const std::vector<float> ms = ke.benchmark(inputs, 5, 50);
  return 1000.0 * mf::bench::median(std::vector<double>(ms.begin(), ms.end()));
}

void report(const std::string& name, double us, int64_t bytes, const HeuristicParams& p,
            bool chosen) {
  if (us < 0) {
    fmt::print("tune {} WRONG {}\n", name, p.toString());
  } else {
    fmt::print("tune {} {:.1f} {:.0f} {}{}\n", name, us, bytes / us / 1e3, chosen ? "* " : "",
               p.toString());
  }
  std::fflush(stdout);
}

int64_t bytesOf(const std::vector<Tensor>& tensors) {
  int64_t b = 0;
  for (const Tensor& t : tensors) b += t.numel() * mf::dataTypeSize(t.dtype());
  return b;
}

std::unique_ptr<mf::Fusion> build(const std::function<void(mf::Fusion&)>& body) {
  auto fusion = std::make_unique<mf::Fusion>();
  mf::FusionGuard fg(fusion.get());
  body(*fusion);
  return fusion;
}

// The heuristics' own choice for `fusion`: its params, its output (what every variant must
// match), its bytes moved, reported first and marked.
template <typename Params>
struct Baseline {
  std::unique_ptr<HeuristicParams> owner;
  Params* params = nullptr;
  Tensor expected;
  int64_t bytes = 0;
};

template <typename Params>
Baseline<Params> runBaseline(const std::string& name, const mf::Fusion& fusion,
                             mf::SchedulerEntry& scheduler, const std::vector<Tensor>& inputs) {
  mf::Fusion info_fusion(fusion);
  mf::SchedulerRuntimeInfo info(&info_fusion, inputs);
  Baseline<Params> b;
  b.owner = scheduler.computeHeuristics(&info_fusion, info);
  b.params = &dynamic_cast<Params&>(*b.owner);
  const double us = timeVariant(fusion, scheduler, *b.params, inputs, nullptr, &b.expected);
  b.bytes = bytesOf(inputs) + bytesOf({b.expected});
  report(name, us, b.bytes, *b.params, true);
  return b;
}

// Inner or vector sums: block shapes x unroll (x grid split for the vector).
void tuneReduction(const std::string& name, const mf::Fusion& fusion,
                   const std::vector<Tensor>& inputs) {
  mf::ReductionScheduler scheduler;
  Baseline<mf::ReductionParams> b =
      runBaseline<mf::ReductionParams>(name, fusion, scheduler, inputs);
  const mf::ReductionParams& base = *b.params;
  const int64_t rows =
      base.lparams.getDimOrOne(ParallelType::BIDx) * base.lparams.getDimOrOne(ParallelType::TIDy);
  const bool vector = !base.lparams.hasDim(ParallelType::BIDx);
  for (int64_t bdimx : {32, 64, 128, 256, 512, 1024})
    for (int64_t bdimy : {1, 2, 4, 8})
      for (int64_t unroll : {1, 2, 4, 8})
        for (int64_t grid_y :
             vector ? std::vector<int64_t>{264, 528, 1056, 2112} : std::vector<int64_t>{1}) {
          if (bdimx * bdimy > 1024 || bdimx * bdimy < 64 || (vector && bdimy > 1)) continue;
          mf::ReductionParams p = base;
          p.bdimx = bdimx;
          p.bdimy = bdimy;
          p.unroll_factor = unroll;
          p.cross_block = grid_y > 1;
          p.grid_y = grid_y;
          p.lparams = {};
          p.lparams.bind(bdimx, ParallelType::TIDx);
          if (bdimy > 1) p.lparams.bind(bdimy, ParallelType::TIDy);
          if (!vector) p.lparams.bind(mf::ceilDiv(rows, bdimy), ParallelType::BIDx);
          if (grid_y > 1) p.lparams.bind(grid_y, ParallelType::BIDy);
          if (p.sameAs(&base) && p.lparams == base.lparams) continue;
          report(name, timeVariant(fusion, scheduler, p, inputs, &b.expected), b.bytes, p, false);
        }
}

// Normalizations: threads per row (the batch follows) x rows per block.
void tunePersistent(const std::string& name, const mf::Fusion& fusion,
                    const std::vector<Tensor>& inputs) {
  mf::InnerPersistentScheduler scheduler;
  Baseline<mf::PersistentParams> b =
      runBaseline<mf::PersistentParams>(name, fusion, scheduler, inputs);
  const mf::PersistentParams& base = *b.params;
  const int64_t rows = base.lparams.getDimOrOne(ParallelType::BIDx) * base.rows_per_block;
  const int64_t vectors = base.rowElements() / base.vectorization_factor;
  for (int64_t threads : {32, 64, 128, 256, 512, 1024})
    for (int64_t rows_per_block : {1, 2, 4, 8}) {
      if (threads * rows_per_block > 1024 || threads > vectors) continue;
      mf::PersistentParams p = base;
      p.threads_per_row = threads;
      p.persistent_batch = mf::ceilDiv(vectors, threads);
      p.rows_per_block = rows_per_block;
      p.lparams = {};
      p.lparams.bind(threads, ParallelType::TIDx);
      if (rows_per_block > 1) p.lparams.bind(rows_per_block, ParallelType::TIDy);
      p.lparams.bind(mf::ceilDiv(rows, rows_per_block), ParallelType::BIDx);
      if (p.sameAs(&base) && p.lparams == base.lparams) continue;
      report(name, timeVariant(fusion, scheduler, p, inputs, &b.expected), b.bytes, p, false);
    }
}

// Normalization backward (inner and outer sums in one kernel): threads per row (the batch
// follows) x rows per block x blocks along the rows.
void tuneInnerOuter(const std::string& name, const mf::Fusion& fusion,
                    const std::vector<Tensor>& inputs) {
  mf::InnerOuterPersistentScheduler scheduler;
  Baseline<mf::InnerOuterPersistentParams> b =
      runBaseline<mf::InnerOuterPersistentParams>(name, fusion, scheduler, inputs);
  const mf::InnerOuterPersistentParams& base = *b.params;
  const int64_t vectors = base.row_extent / base.vectorization_factor;
  for (int64_t threads : {128, 256, 512})
    for (int64_t rows_per_block : {1, 2})
      for (int64_t grid_blocks : {132, 264, 396, 528}) {
        if (threads * rows_per_block > 512 || threads > vectors) continue;
        mf::InnerOuterPersistentParams p = base;
        p.threads_per_row = threads;
        p.persistent_batch = mf::ceilDiv(vectors, threads);
        p.rows_per_block = rows_per_block;
        p.grid_blocks = grid_blocks;
        p.lparams = {};
        p.lparams.bind(threads, ParallelType::TIDx);
        p.lparams.bind(rows_per_block, ParallelType::TIDy);
        p.lparams.bind(grid_blocks, ParallelType::BIDy);
        if (p.sameAs(&base) && p.lparams == base.lparams) continue;
        report(name, timeVariant(fusion, scheduler, p, inputs, &b.expected), b.bytes, p, false);
      }
  // The register diet: the row's floats recomputed after its reductions (project_to_inputs),
  // the column sums in shared memory, and the blocks per SM the launch bounds ask for.
  for (bool project : {false, true})
    for (bool shared : {false, true})
      for (int64_t blocks_per_sm : {2, 3, 4}) {
        mf::InnerOuterPersistentParams p = base;
        p.project_to_inputs = project;
        p.sums_in_shared = shared;
        p.min_blocks_per_sm = blocks_per_sm;
        p.grid_blocks = 132 * blocks_per_sm;
        p.lparams.bind(p.grid_blocks, ParallelType::BIDy);
        report(name, timeVariant(fusion, scheduler, p, inputs, &b.expected), b.bytes, p, false);
      }
}

}  // namespace

int main(int argc, char** argv) {
  if (!mf::cuda::cudaAvailable()) {
    fmt::print(stderr, "reduction_tune: no GPU ({}); nothing to time\n",
               mf::cuda::noDeviceReason());
    return 0;
  }
  const std::string only = argc > 1 ? argv[1] : "";
  const int64_t m = 32 * 1024, n = 4 * 1024;
  auto sumOf = [](int64_t rank, int64_t axis) {
    return build([=](mf::Fusion& f) {
      mf::TensorView* x = mf::makeContigTensor(rank, DataType::Float);
      f.addInput(x);
      f.addOutput(mf::sum(x, {axis}));
    });
  };
  auto run = [&](const std::string& name) { return only.empty() || only == name; };
  if (run("sum_last_axis_fp32"))
    tuneReduction("sum_last_axis_fp32", *sumOf(2, 1),
                  {Tensor::random({m, n}, DataType::Float, 1).toDevice()});
  if (run("sum_vector_fp32"))
    tuneReduction("sum_vector_fp32", *sumOf(1, 0),
                  {Tensor::random({int64_t{128} << 20}, DataType::Float, 2).toDevice()});
  if (run("softmax_bf16"))
    tunePersistent("softmax_bf16",
                   *build([](mf::Fusion& f) { mf::testing::buildSoftmax(f, DataType::BFloat16); }),
                   {Tensor::random({m, n}, DataType::BFloat16, 3).toDevice()});
  if (run("rms_norm_bf16"))
    tunePersistent("rms_norm_bf16",
                   *build([](mf::Fusion& f) { mf::testing::buildRmsNorm(f, DataType::BFloat16); }),
                   {Tensor::random({m, n}, DataType::BFloat16, 4).toDevice(),
                    Tensor::random({n}, DataType::BFloat16, 5).toDevice()});
  if (run("layer_norm_bwd_bf16"))
    tuneInnerOuter("layer_norm_bwd_bf16", *build([](mf::Fusion& f) {
                     mf::testing::buildLayerNormBackward(f, DataType::BFloat16);
                   }),
                   {Tensor::random({m, n}, DataType::BFloat16, 6).toDevice(),
                    Tensor::random({m, n}, DataType::BFloat16, 7).toDevice(),
                    Tensor::random({m}, DataType::Float, 8).toDevice(),
                    Tensor::random({m}, DataType::Float, 9).toDevice(),
                    Tensor::random({n}, DataType::BFloat16, 10).toDevice()});
  return 0;
}
