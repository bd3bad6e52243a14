// 200 fixed-seed random pointwise fusions through the scheduler registry and the CPU
// reference: each is scheduled by NoOp (every output empty) or PointWise, or, when the
// generator made it disconnected, refused with the no-reference reason; the heuristics'
// launch covers the reference; the reference evaluator computes every output.
// Each accepted one then goes through FusionExecutorCache: scheduled, lowered and compiled
// with NVRTC (tests/random/run_random_fusions runs them on a GPU against the reference),
// and its kernel's launch is prepared with the heuristics' launch parameters.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <iostream>
#include <map>

#include "cuda/driver.h"
#include "random/inexact_steps.h"
#include "random/kernel_interpreter.h"
#include "random/random_fusion.h"

using ::testing::HasSubstr;

namespace mf::testing {
namespace {

constexpr uint64_t kFusions = 200;

int64_t ceilDiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// The launch of `p` reaches every element of `ref` (sizes in its allocation order, which
// for the generator's outputs is the logical order).
void expectLaunchCovers(const PointwiseParams& p, const std::vector<int64_t>& ref_sizes) {
  int64_t n = 1, right = 1;
  for (size_t i = 0; i < ref_sizes.size(); ++i) {
    n *= ref_sizes[i];
    if (static_cast<int64_t>(i) >= p.break_point) right *= ref_sizes[i];
  }
  EXPECT_TRUE(std::has_single_bit(static_cast<uint64_t>(p.vectorization_factor)));
  EXPECT_LE(p.vectorization_factor, 16);
  EXPECT_EQ(p.lparams.nThreads(), 128);
  const LaunchParams& lp = p.lparams;
  const int64_t tidx = lp.getDim(ParallelType::TIDx), tidy = lp.getDimOrOne(ParallelType::TIDy);
  if (p.break_point == 0) {
    EXPECT_GE(lp.getDim(ParallelType::BIDx) * tidx * p.vectorization_factor * p.unroll_factor_inner,
              n);
    return;
  }
  const int64_t left = n / right;
  const int64_t gdim_right = ceilDiv(right, tidx * p.vectorization_factor * p.unroll_factor_inner);
  const int64_t gdim_left = ceilDiv(left, tidy * p.unroll_factor_outer);
  EXPECT_EQ(lp.getDim(ParallelType::BIDx), p.flip_grid_binding ? gdim_left : gdim_right);
  EXPECT_EQ(lp.getDim(ParallelType::BIDy),
            std::min<int64_t>(p.flip_grid_binding ? gdim_right : gdim_left, 65535));
}

class RandomPointwise : public ::testing::TestWithParam<uint64_t> {};

TEST_P(RandomPointwise, SchedulesOrRefusesWithReason) {
  RandomFusion rf = makeRandomPointwiseFusion(GetParam());
  SCOPED_TRACE(rf.toString());
  Fusion* fusion = rf.fusion.get();

  std::vector<Tensor> outputs = ReferenceEvaluator(fusion).run(rf.inputs);
  ASSERT_EQ(outputs.size(), fusion->outputs().size());
  bool all_empty = true;
  for (const Tensor& t : outputs) all_empty = all_empty && t.numel() == 0;

  SchedulerRuntimeInfo info(fusion, rf.inputs);
  HeuristicsProposal p = proposeHeuristics(fusion, info);
  if (all_empty) {
    EXPECT_EQ(p.type, SchedulerType::NoOp) << p.rejectionsString();
    return;
  }
  if (!rf.connected) {
    EXPECT_EQ(p.type, SchedulerType::None);
    EXPECT_THAT(p.rejectionsString(),
                HasSubstr("pointwise: no output covers every input and output axis"));
    return;
  }
  // Inputs of different layouts (a permuted one) with both transposed extents of at least a
  // tile go to the transpose scheduler; everything else to the pointwise scheduler.
  ASSERT_TRUE(p.type == SchedulerType::PointWise || p.type == SchedulerType::Transpose)
      << p.rejectionsString();
  EXPECT_EQ(p.params->index_type, DataType::Int32);
  // Output 0 depends on every input, so it is the reference.
  if (p.type == SchedulerType::PointWise)
    expectLaunchCovers(*static_cast<const PointwiseParams*>(p.params.get()), outputs[0].sizes());

  // The whole automatic path: schedule, lower, NVRTC (and on a GPU, run; here the outputs
  // come from the reference). A schedule lowering rejects is a bug, not a skip.
  FusionExecutorCache fec(std::make_unique<Fusion>(*fusion));
  fec.runFusionWithInputs(rf.inputs);
  EXPECT_EQ(fec.countKernelsCompiled(), 1);
  EXPECT_FALSE(fec.getMostRecentCode().empty());

  // The kernel launches as its heuristics say: KernelExecutor asserts that every dimension
  // they bind equals the kernel's parallel extent while it prepares the launch, before it
  // needs a device.
  FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
  const std::vector<LaunchParams> lparams = {rt->heuristics().at(0)->lparams};
  if (cuda::cudaAvailable())
    rt->run(rf.inputs, {}, lparams);
  else
    EXPECT_THAT([&] { rt->run(rf.inputs, {}, lparams); },
                ::testing::ThrowsMessage<UserError>(HasSubstr("no CUDA device available")));
  const cuda::LaunchDims& dims = rt->executor()->lastLaunch();
  EXPECT_EQ(dims.grid_x, lparams[0].getDimOrOne(ParallelType::BIDx));
  EXPECT_EQ(dims.grid_y, lparams[0].getDimOrOne(ParallelType::BIDy));
  EXPECT_EQ(dims.block_x, lparams[0].getDimOrOne(ParallelType::TIDx));
  EXPECT_EQ(dims.block_y, lparams[0].getDimOrOne(ParallelType::TIDy));
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomPointwise, ::testing::Range<uint64_t>(0, kFusions),
                         [](const auto& info) { return fmt::format("seed{}", info.param); });

// The same seeds on the host kernel interpreter (in a sanitizer build only the small ones:
// random_fusion.h, interpretedSeeds).
class RandomPointwiseInterpreted : public ::testing::TestWithParam<uint64_t> {};

// The kernel lowering makes of the pointwise schedule, run on the host by the kernel
// interpreter (every launch position, guards, register arrays, vector copies), computes what
// the reference computes: indexing (merged contiguous indices, strided and permuted layouts,
// broadcasts, size-0/1 extents) and predicates (vector guards, unguarded register math) are
// checked without a GPU. An access outside a buffer fails.
TEST_P(RandomPointwiseInterpreted, LoweredKernelMatchesReference) {
  RandomFusion rf = makeRandomPointwiseFusion(GetParam());
  SCOPED_TRACE(rf.toString());
  std::vector<Tensor> reference = ReferenceEvaluator(rf.fusion.get()).run(rf.inputs);
  Fusion fusion(*rf.fusion);
  SchedulerRuntimeInfo info(&fusion, rf.inputs);
  HeuristicsProposal p = proposeHeuristics(&fusion, info);
  if (p.type != SchedulerType::PointWise) {
    // Not one pointwise kernel (size-0 extents: a NoOp group, or several segments): the
    // kernels FusionExecutorCache makes, on the interpreter, compared as on the GPU.
    FusionExecutorCache fec(std::make_unique<Fusion>(*rf.fusion));
    fec.runFusionWithInputs(rf.inputs);
    std::vector<Tensor> got =
        fec.getMostRecentKernelRuntime()->runOnHost(rf.inputs, interpretKernelOrThrow);
    std::optional<std::string> mismatch = firstMismatch(rf, reference, got);
    EXPECT_FALSE(mismatch.has_value()) << mismatch.value_or("");
    return;
  }
  SchedulerEntry::makeSchedulerInstance(p.type)->schedule(&fusion, p.params.get());
  std::unique_ptr<Kernel> kernel =
      lowerFusion(fusion, {.index_type = p.params->index_type, .verify = true});
  std::optional<std::vector<Tensor>> outputs = interpretKernel(*kernel, rf.inputs);
  ASSERT_TRUE(outputs.has_value()) << "the interpreter does not support this kernel";
  ASSERT_EQ(outputs->size(), reference.size());
  for (size_t o = 0; o < reference.size(); ++o) {
    if (rf.fusion->outputs()[o]->isFusionInput()) continue;
    ASSERT_EQ((*outputs)[o].sizes(), reference[o].sizes());
    for (int64_t i = 0; i < reference[o].numel(); ++i)
      ASSERT_TRUE(
          closeToReference((*outputs)[o].item(i), reference[o].item(i), reference[o].dtype()))
          << "output " << o << " element " << i << ": got " << (*outputs)[o].item(i)
          << ", reference " << reference[o].item(i) << "\n"
          << generateCuda(*kernel, "").kernel_code;
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomPointwiseInterpreted,
                         ::testing::ValuesIn(interpretedSeeds(seedRange(0, kFusions))),
                         [](const auto& info) { return fmt::format("seed{}", info.param); });

// A seed is a reproducible fusion.
TEST(RandomPointwiseGenerator, Deterministic) {
  for (uint64_t seed : {3u, 17u, 99u}) {
    RandomFusion a = makeRandomPointwiseFusion(seed), b = makeRandomPointwiseFusion(seed);
    EXPECT_EQ(a.toString(), b.toString());
    ASSERT_EQ(a.inputs.size(), b.inputs.size());
    for (size_t i = 0; i < a.inputs.size(); ++i)
      EXPECT_EQ(a.inputs[i].toString(), b.inputs[i].toString());
  }
}

// randomFusionShape, which picks the sanitizer build's interpreted seeds, draws the shape
// makeRandomFusion draws: input 0's sizes.
TEST(RandomPointwiseGenerator, ShapeWithoutBuildingTheFusion) {
  for (uint64_t seed = 0; seed < 40; ++seed)
    for (RandomFusionOptions options :
         {RandomFusionOptions{}, RandomFusionOptions{.reductions = true},
          RandomFusionOptions{.view_ops = true, .resize_ops = true, .small = true}})
      EXPECT_EQ(randomFusionShape(seed, options), makeRandomFusion(seed, options).inputs[0].sizes())
          << "seed " << seed;
  EXPECT_EQ(interpretedSeeds({42, 44}).size(),
            kSanitizerBuild ? 1u : 2u);  // 42: 1100009 elements, 44: 1
}

// The 200 fusions exercise what the generator promises (every op kind, every layout, every
// dtype, broadcasts, size-0 and size-1 extents, some disconnected fusions) and every outcome
// of the registry: pointwise (1-D and 2-D, vectorized, unrolled), no_op and refusal.
TEST(RandomPointwiseGenerator, Coverage) {
  std::set<std::string> ops;
  std::set<InputLayout> layouts;
  std::set<DataType> dtypes;
  std::map<SchedulerType, int64_t> chosen;
  int64_t two_d = 0, vectorized = 0, unrolled = 0;
  int64_t casts = 0, zero = 0, one = 0, disconnected = 0, stride0 = 0, large = 0;
  int64_t implicit = 0;
  for (uint64_t seed = 0; seed < kFusions; ++seed) {
    RandomFusion rf = makeRandomPointwiseFusion(seed);
    for (Expr* e : rf.fusion->exprs()) {
      ops.insert(std::string(e->opName()));
      auto* u = dynamic_cast<UnaryOp*>(e);
      casts += u != nullptr && u->opType() == UnaryOpType::Cast;
    }
    layouts.insert(rf.layouts.begin(), rf.layouts.end());
    for (const Tensor& t : rf.inputs) {
      dtypes.insert(t.dtype());
      for (int64_t s : t.sizes()) zero += s == 0, one += s == 1;
      for (int64_t s : t.strides()) stride0 += s == 0;
      large += t.numel() > (1 << 17);
    }
    disconnected += !rf.connected;
    implicit += rf.implicit_broadcasts > 0;
    SchedulerRuntimeInfo info(rf.fusion.get(), rf.inputs);
    HeuristicsProposal p = proposeHeuristics(rf.fusion.get(), info);
    ++chosen[p.type];
    if (p.type == SchedulerType::PointWise) {
      auto* pw = static_cast<const PointwiseParams*>(p.params.get());
      two_d += pw->break_point > 0;
      vectorized += pw->vectorization_factor > 1;
      unrolled += pw->unroll_factor_inner * pw->unroll_factor_outer > 1;
    }
  }
  std::cout << fmt::format(
      "{} fusions: {} pointwise ({} 2-D, {} vectorized, {} unrolled), {} no_op, {} refused; {} "
      "with implicit broadcasts\n",
      kFusions, chosen[SchedulerType::PointWise], two_d, vectorized, unrolled,
      chosen[SchedulerType::NoOp], chosen[SchedulerType::None], implicit);
  EXPECT_GT(chosen[SchedulerType::NoOp], 0);
  EXPECT_GT(chosen[SchedulerType::None], 0);
  EXPECT_GT(two_d, 0);
  EXPECT_GT(vectorized, 0);
  EXPECT_GT(unrolled, 0);
  EXPECT_EQ(ops, (std::set<std::string>{"BinaryOp", "BroadcastOp", "TernaryOp", "UnaryOp"}));
  EXPECT_GT(casts, 0);
  EXPECT_EQ(layouts.size(), 3u);
  EXPECT_EQ(dtypes.size(), 8u);
  EXPECT_GT(zero, 0);
  EXPECT_GT(one, 0);
  EXPECT_GT(stride0, 0);
  EXPECT_GT(large, 0);
  EXPECT_GT(disconnected, 0);
  EXPECT_GT(implicit, kFusions / 40);
}

}  // namespace
}  // namespace mf::testing
