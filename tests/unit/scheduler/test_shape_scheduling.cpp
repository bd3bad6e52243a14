// The shape ops through lowering, codegen and the pointwise scheduler: each fusion is lowered
// (unscheduled, and as the pointwise scheduler schedules it, in one kernel), the CUDA source
// compiles with NVRTC, and the host kernel interpreter's results equal the CPU reference's
// bit for bit; FusionExecutorCache runs the same fusions on the CPU (reference fallback and
// lowered kernels on the interpreter). Fusions the scheduler cannot replay are refused with a
// reason.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "cuda/driver.h"
#include "cuda/nvrtc.h"
#include "cuda/runtime_sources.h"
#include "minifuser.h"
#include "random/kernel_interpreter.h"
#include "unit/scheduler/shape_fusions.h"

using ::testing::HasSubstr;

namespace mf {
namespace {

// Output `o` of `got` equals `want` element for element (same sizes, same bits as doubles).
void expectSame(const std::vector<Tensor>& got, const std::vector<Tensor>& want,
                const std::string& code) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < want.size(); ++o) {
    ASSERT_EQ(got[o].sizes(), want[o].sizes()) << "output " << o;
    for (int64_t i = 0; i < want[o].numel(); ++i)
      ASSERT_EQ(got[o].item(i), want[o].item(i)) << "output " << o << " element " << i << "\n"
                                                 << code;
  }
}

// Lowers `fusion` (as it is), compiles its CUDA with NVRTC, runs it on the interpreter and
// compares with `want`; returns the kernel source.
std::string lowerCompileInterpret(Fusion& fusion, DataType index_type,
                                  const std::vector<Tensor>& inputs,
                                  const std::vector<Tensor>& want) {
  std::unique_ptr<Kernel> kernel = lowerFusion(fusion, {.index_type = index_type, .verify = true});
  GeneratedKernel code = generateCuda(*kernel, cuda::runtimePrelude());
  cuda::CompiledKernel compiled =
      cuda::compileWithNvrtc(code.full_source, code.name, cuda::NvrtcOptions{});
  EXPECT_FALSE(compiled.cubin.empty()) << compiled.log << "\n" << code.kernel_code;
  std::optional<std::vector<Tensor>> got = testing::interpretKernel(*kernel, inputs);
  EXPECT_TRUE(got.has_value()) << "the interpreter does not model this kernel";
  if (got) expectSame(*got, want, code.kernel_code);
  return code.kernel_code;
}

// `fusion` through FusionExecutorCache: one kernel whose run on the host interpreter equals
// the reference; returns the kernel's source (empty when no runtime was made).
std::string oneKernelOnInterpreter(std::unique_ptr<Fusion> fusion,
                                   const std::vector<Tensor>& inputs) {
  const std::vector<Tensor> want = ReferenceEvaluator(fusion.get()).run(inputs);
  FusionExecutorCache fec(std::move(fusion));
  fec.runFusionWithInputs(inputs);
  FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
  EXPECT_NE(rt, nullptr);
  if (rt == nullptr) return "";
  EXPECT_FALSE(rt->isSegmented());
  expectSame(rt->runOnHost(inputs, testing::interpretKernelOrThrow), want, fec.getMostRecentCode());
  return fec.getMostRecentCode();
}

class ShapeScheduling : public ::testing::TestWithParam<ShapeCase> {};

// Unscheduled: one serial loop nest per expr, indexed through root -> logical.
TEST_P(ShapeScheduling, UnscheduledKernelMatchesReference) {
  const ShapeCase& c = GetParam();
  if (!c.constant_sizes) GTEST_SKIP() << "symbolic sizes need a schedule (registers)";
  Fusion fusion;
  {
    FusionGuard fg(&fusion);
    c.build(fusion);
  }
  std::vector<Tensor> inputs = randomInputs(c, 1);
  std::vector<Tensor> want = ReferenceEvaluator(&fusion).run(inputs);
  Fusion copy(fusion);
  lowerCompileInterpret(copy, DataType::Int64, inputs, want);
}

// The pointwise scheduler takes the fusion whole and its kernel computes the reference.
TEST_P(ShapeScheduling, PointwiseKernelMatchesReference) {
  const ShapeCase& c = GetParam();
  Fusion fusion;
  {
    FusionGuard fg(&fusion);
    c.build(fusion);
  }
  std::vector<Tensor> inputs = randomInputs(c, 2);
  std::vector<Tensor> want = ReferenceEvaluator(&fusion).run(inputs);
  Fusion copy(fusion);
  SchedulerRuntimeInfo info(&copy, inputs);
  HeuristicsProposal p = proposeHeuristics(&copy, info);
  if (!c.refused.empty()) {
    EXPECT_NE(p.type, SchedulerType::PointWise);
    EXPECT_THAT(p.rejectionsString(), HasSubstr(c.refused));
    return;
  }
  ASSERT_EQ(p.type, SchedulerType::PointWise) << p.rejectionsString();
  SchedulerEntry::makeSchedulerInstance(p.type)->schedule(&copy, p.params.get());
  lowerCompileInterpret(copy, p.params->index_type, inputs, want);
}

// Through FusionExecutorCache: one unsegmented kernel, on the reference fallback and on the
// interpreter.
TEST_P(ShapeScheduling, FusionExecutorCacheRunsOneKernel) {
  const ShapeCase& c = GetParam();
  if (!c.refused.empty()) GTEST_SKIP() << "segmented (the segmenter's tests)";
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    c.build(*fusion);
  }
  std::vector<Tensor> inputs = randomInputs(c, 3);
  std::vector<Tensor> want = ReferenceEvaluator(fusion.get()).run(inputs);
  FusionExecutorCache fec(std::move(fusion));
  if (!cuda::cudaAvailable()) {
    std::vector<Tensor> got = fec.runFusionWithInputs(inputs);
    expectSame(got, want, "");
  }
  FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
  ASSERT_NE(rt, nullptr);
  EXPECT_FALSE(rt->isSegmented());
  expectSame(rt->runOnHost(inputs, testing::interpretKernelOrThrow), want, fec.getMostRecentCode());
}

INSTANTIATE_TEST_SUITE_P(Fusions, ShapeScheduling, ::testing::ValuesIn(shapeCases()),
                         [](const auto& info) { return info.param.name; });

// The benchmark fusion reshape(x * 2, [M, N] -> [4M, N/4]) + bias, small: one pointwise
// kernel whose bias read and output write are whole vectors.
TEST(ShapeSchedulingBenchmark, ReshapeBiasIsOneVectorizedKernel) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* x = makeContigTensor(2);
    TensorView* bias = makeContigTensor(1);
    fusion->addInput(x);
    fusion->addInput(bias);
    TensorView* y = reshape(mul(x, constFloat(2.0)), {2048, 128}, {8192, 32});
    fusion->addOutput(add(y, broadcast(bias, {true, false})));
  }
  std::vector<Tensor> inputs = {Tensor::random({2048, 128}, DataType::Float, 5),
                                Tensor::random({32}, DataType::Float, 6)};
  std::vector<Tensor> want = ReferenceEvaluator(fusion.get()).run(inputs);
  FusionExecutorCache fec(std::move(fusion));
  if (!cuda::cudaAvailable()) expectSame(fec.runFusionWithInputs(inputs), want, "");
  FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
  ASSERT_NE(rt, nullptr);
  EXPECT_FALSE(rt->isSegmented());
  ASSERT_EQ(rt->heuristics().size(), 1u);
  auto* params = dynamic_cast<const PointwiseParams*>(rt->heuristics()[0]);
  ASSERT_NE(params, nullptr);
  EXPECT_GT(params->vectorization_factor, 1);
  EXPECT_THAT(fec.getMostRecentCode(), HasSubstr("mf_vectorCopy"));
  expectSame(rt->runOnHost(inputs, testing::interpretKernelOrThrow), want, fec.getMostRecentCode());
}

// The first output, permuted, is the reference and the only tensor whose innermost axis is
// the reference's; it is forked (the second output reads it), so its copy is written element
// by element and nothing is vectorized: no other tensor may take the vector axis (H200 fuzz
// seed 142: validateSchedule refused a vectorized read of an input along its outer axis).
TEST(ShapeSchedulingBenchmark, ForkedPermutedReferenceVectorizesNothingElse) {
  for (const std::vector<int64_t>& mn : {std::vector<int64_t>{1, 1}, {2, 62}, {142, 127}}) {
    SCOPED_TRACE(fmt::format("[{}, {}]", mn[0], mn[1]));
    auto fusion = std::make_unique<Fusion>();
    {
      FusionGuard fg(fusion.get());
      TensorView* t0 = makeContigConcreteTensor(mn);
      TensorView* t1 = makeContigConcreteTensor(mn);
      fusion->addInput(t0);
      fusion->addInput(t1);
      TensorView* p = permute(mul(t0, constFloat(-1.25)), {1, 0});
      fusion->addOutput(p);
      fusion->addOutput(add(permute(p, {1, 0}), t1));
    }
    std::vector<Tensor> inputs = {Tensor::random(mn, DataType::Float, 11),
                                  Tensor::random(mn, DataType::Float, 12)};
    EXPECT_THAT(oneKernelOnInterpreter(std::move(fusion), inputs),
                ::testing::Not(HasSubstr("mf_vectorCopy")));
  }
}

// A reference of broadcast axes only ([1, 1] from a 0-dim input) is one element: the kernel
// binds no thread, so the 0-dim squeeze of its producer reads what its own thread computed
// (H200 fuzz seed 1433: validateSchedule refused T6 bound to blockIdx.x and read by a 0-dim
// consumer).
TEST(ShapeSchedulingBenchmark, BroadcastOnlyReferenceRunsOnOneThread) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* t0 = makeContigConcreteTensor({}, DataType::Bool);
    fusion->addInput(t0);
    TensorView* b = broadcast(t0, {true, true});
    fusion->addOutput(b);
    fusion->addOutput(squeeze(logicalNot(b), std::vector<int64_t>{0, 1}));
  }
  std::vector<Tensor> inputs = {Tensor::random({}, DataType::Bool, 13)};
  EXPECT_THAT(oneKernelOnInterpreter(std::move(fusion), inputs),
              ::testing::Not(HasSubstr("threadIdx")));
}

// A vector along [m, n, 1] merged (the broadcast innermost) runs along n: a merge with a
// broadcast inner input keeps the outer's elements adjacent (runsAlong; H200 fuzz seed 1653).
TEST(ShapeSchedulingBenchmark, VectorAcrossATrailingBroadcast) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* t0 = makeContigConcreteTensor({127, 142, 1});
    fusion->addInput(t0);
    fusion->addOutput(exp(t0));
  }
  std::vector<Tensor> inputs = {Tensor::random({127, 142, 1}, DataType::Float, 14)};
  EXPECT_THAT(oneKernelOnInterpreter(std::move(fusion), inputs), HasSubstr("mf_vectorCopy"));
}

// The reference [m, n] is a squeeze; the other output keeps two broadcast axes the
// reference does not have, which its replayed loop puts after the vector axis: the vector
// axis goes innermost past them (extent-1 loops; H200 fuzz seeds 3184, 3305).
TEST(ShapeSchedulingBenchmark, VectorAxisMovesPastTrailingBroadcasts) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* t0 = makeContigConcreteTensor({146, 128});
    fusion->addInput(t0);
    TensorView* b = broadcast(t0, {false, true, false, true});
    fusion->addOutput(exp(squeeze(b, std::vector<int64_t>{1, 3})));
    fusion->addOutput(relu(b));
  }
  std::vector<Tensor> inputs = {Tensor::random({146, 128}, DataType::Float, 15)};
  EXPECT_THAT(oneKernelOnInterpreter(std::move(fusion), inputs), HasSubstr("mf_vectorCopy"));
}

// Refusals that name the reason, so the segmenter cuts there.
TEST(ShapeSchedulingRefusals, ReasonsNameTheOp) {
  auto reasons = [](const BuildFn& build, std::vector<Tensor> inputs) {
    Fusion f;
    FusionGuard fg(&f);
    build(f);
    SchedulerRuntimeInfo info(&f, inputs);
    HeuristicsProposal p = proposeHeuristics(&f, info);
    EXPECT_NE(p.type, SchedulerType::PointWise);
    return p.rejectionsString();
  };
  // A tensor reshaped and also read as it is.
  EXPECT_THAT(reasons(
                  [](Fusion& f) {
                    TensorView* t0 = makeContigConcreteTensor({4, 3});
                    f.addInput(t0);
                    TensorView* t1 = neg(t0);
                    f.addOutput(reshape(t1, {4, 3}, {12}));
                    f.addOutput(add(t1, constFloat(1.0)));
                  },
                  {Tensor::random({4, 3}, DataType::Float, 1)}),
              HasSubstr("is read by the reshape"));
  // A dynamic reshape: concretize first.
  EXPECT_THAT(
      reasons(
          [](Fusion& f) {
            TensorView* t0 = makeContigTensor(2);
            Val* s0 = newScalar(DataType::Int64);
            f.addInput(t0);
            f.addInput(s0);
            f.addOutput(reshape(t0, std::vector<Val*>{s0, constInt(-1)}));
          },
          {Tensor::random({4, 3}, DataType::Float, 1), Tensor::fromVector<int64_t>({2}, {})}),
      HasSubstr("concretize the fusion first"));
  // The reductions and the persistent scheduler do not take shape ops.
  EXPECT_THAT(reasons(
                  [](Fusion& f) {
                    TensorView* t0 = makeContigConcreteTensor({4, 6});
                    f.addInput(t0);
                    f.addOutput(sum(permute(t0, {1, 0}), {1}));
                  },
                  {Tensor::random({4, 6}, DataType::Float, 1)}),
              HasSubstr("permute(T0, {1, 0})` is neither a pointwise op"));
}

}  // namespace
}  // namespace mf
