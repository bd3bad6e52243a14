// The resize ops through the pointwise scheduler, lowering and codegen: each fusion is
// scheduled as one kernel, compiles with NVRTC, and runs on the host kernel interpreter
// (which fails on any access outside a buffer) matching the CPU reference bit for bit at
// sizes 1, primes and non-divisible extents. Also: the pad's guarded read in the generated
// code, vectorization when the widths keep vectors whole, and the schedulers' refusals.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <functional>

#include "codegen/codegen.h"
#include "cuda/nvrtc.h"
#include "cuda/runtime_sources.h"
#include "ir/builder.h"
#include "ir/dynamic_transform.h"
#include "ir/expr_evaluator.h"
#include "ir/fusion.h"
#include "lower/pipeline.h"
#include "ops/arith.h"
#include "ops/reduction.h"
#include "ops/resize.h"
#include "ops/tensor_factories.h"
#include "random/kernel_interpreter.h"
#include "reference/reference_evaluator.h"
#include "scheduler/pointwise.h"
#include "scheduler/registry.h"
#include "tensor/arguments.h"

using ::testing::HasSubstr;

namespace mf {
namespace {

using Build = std::function<void(Fusion&)>;

// Schedules `fusion` for `inputs` with the scheduler registry, after concretizing it for them
// (a pad by a symbolic width has a Symbolic axis, as FusionExecutorCache would concretize it);
// the proposal is returned.
void concretizeFor(Fusion& fusion, const std::vector<Tensor>& inputs) {
  if (DynamicTransformInitialInfo initial = DynamicTransform::getInitialInfo(&fusion);
      initial.isDynamic()) {
    ExpressionEvaluator ee;
    bindFusionInputs(fusion, inputs, ee, "test");
    DynamicTransformConcretizationInfo info(&initial, &ee);
    DynamicTransform::concretizeFusion(&fusion, &info);
  }
}

HeuristicsProposal autoSchedule(Fusion& fusion, const std::vector<Tensor>& inputs) {
  concretizeFor(fusion, inputs);
  SchedulerRuntimeInfo info(&fusion, inputs);
  HeuristicsProposal p = proposeHeuristics(&fusion, info);
  EXPECT_EQ(p.type, SchedulerType::PointWise) << p.rejectionsString();
  if (p.accepted())
    SchedulerEntry::makeSchedulerInstance(p.type)->schedule(&fusion, p.params.get());
  return p;
}

void expectBitEqual(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  Tensor g = got, w = want;
  for (int64_t i = 0; i < want.numel(); ++i) {
    ScalarValue a = g.value(i), b = w.value(i);
    ASSERT_EQ(toString(a), toString(b)) << what << " element " << i;
  }
}

// Builds the fusion, runs the reference, schedules it for these inputs, lowers, compiles
// with NVRTC and interprets: every output equals the reference's bit for bit. Returns the
// kernel's code.
std::string checkKernel(const Build& build, const std::vector<Tensor>& inputs) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  build(fusion);
  std::vector<Tensor> reference = ReferenceEvaluator(&fusion).run(inputs);
  HeuristicsProposal p = autoSchedule(fusion, inputs);
  if (!p.accepted()) return "";
  std::unique_ptr<Kernel> kernel =
      lowerFusion(fusion, {.index_type = DataType::Int64, .verify = true});
  GeneratedKernel code = generateCuda(*kernel, cuda::runtimePrelude());
  cuda::CompiledKernel compiled = cuda::compileWithNvrtc(code.full_source, code.name, {});
  EXPECT_FALSE(compiled.cubin.empty()) << compiled.log << code.kernel_code;
  std::optional<std::vector<Tensor>> outputs = testing::interpretKernel(*kernel, inputs);
  EXPECT_TRUE(outputs.has_value());
  if (!outputs) return code.kernel_code;
  EXPECT_EQ(outputs->size(), reference.size());
  for (size_t o = 0; o < reference.size(); ++o)
    expectBitEqual((*outputs)[o], reference[o],
                   "output " + std::to_string(o) + "\n" + code.kernel_code);
  return code.kernel_code;
}

std::vector<std::pair<int64_t, int64_t>> shapes() {
  return {{1, 1}, {1, 7}, {5, 13}, {3, 64}, {37, 129}};
}

// pad(x + 1) of the last axis, widths positive, negative and mixed: the producer runs over
// the padded loop, its reads predicated below and above.
TEST(ResizeLowering, PadOfAComputedTensor) {
  for (auto [l, r] :
       std::vector<std::pair<int64_t, int64_t>>{{2, 3}, {0, 4}, {-1, 2}, {1, -1}, {-1, -1}}) {
    for (auto [rows, cols] : shapes()) {
      if (cols + l + r < 0) continue;
      SCOPED_TRACE(::testing::Message()
                   << "widths " << l << "," << r << " shape " << rows << "x" << cols);
      std::string code = checkKernel(
          [l = l, r = r](Fusion& f) {
            TensorView* x = makeContigTensor(2);
            f.addInput(x);
            f.addOutput(pad(add(x, constFloat(1.0)), {constInt(l), constInt(r)}, constFloat(-3.5)));
          },
          {Tensor::random({rows, cols}, DataType::Float, 3)});
      if (l > 0) {
        EXPECT_THAT(code, HasSubstr("(0 <= "));
      }
    }
  }
}

// pad of both axes of an input read directly, then a pointwise op on the padded tensor.
TEST(ResizeLowering, PadBothAxesThenAdd) {
  for (auto [rows, cols] : shapes()) {
    SCOPED_TRACE(::testing::Message() << rows << "x" << cols);
    checkKernel(
        [](Fusion& f) {
          TensorView* x = makeContigTensor(2);
          f.addInput(x);
          TensorView* p = pad(x, {constInt(1), constInt(2), constInt(3), constInt(0)});
          f.addOutput(mul(p, constFloat(2.0)));
        },
        {Tensor::random({rows, cols}, DataType::Float, 5)});
  }
}

// Widths from the shape's constants: an input of constant extents (no Symbolic axis).
TEST(ResizeLowering, PadShmooConstantShapes) {
  for (int64_t n : {1, 2, 7, 31}) {
    for (auto [l, r] :
         std::vector<std::pair<int64_t, int64_t>>{{-1, 0}, {3, -2}, {0, -n}, {5, 5}}) {
      if (n + l + r <= 0) continue;  // empty outputs: no kernel (the NoOp scheduler's)
      SCOPED_TRACE(::testing::Message() << n << " widths " << l << "," << r);
      checkKernel(
          [n = n, l = l, r = r](Fusion& f) {
            TensorView* x = makeContigConcreteTensor({3, n});
            f.addInput(x);
            f.addOutput(neg(pad(x, {constInt(l), constInt(r)})));
          },
          {Tensor::random({3, n}, DataType::Float, 9)});
    }
  }
}

TEST(ResizeLowering, Slice) {
  for (auto [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{{4, 9}, {7, 20}, {37, 129}}) {
    SCOPED_TRACE(::testing::Message() << rows << "x" << cols);
    std::string code = checkKernel(
        [rows = rows, cols = cols](Fusion& f) {
          TensorView* x = makeContigConcreteTensor({rows, cols});
          f.addInput(x);
          f.addOutput(add(slice(x, {1, 3}, {rows, cols - 2}), constFloat(0.5)));
        },
        {Tensor::random({rows, cols}, DataType::Float, 4)});
    // A crop reads inside its input: no lower bound is checked.
    EXPECT_THAT(code, ::testing::Not(HasSubstr("(0 <= ")));
  }
}

// A slice to one element along an axis: an Iteration axis of constant extent 1.
TEST(ResizeLowering, SliceToOneElement) {
  checkKernel(
      [](Fusion& f) {
        TensorView* x = makeContigConcreteTensor({5, 6});
        f.addInput(x);
        TensorView* s = slice(x, {2, 0}, {3, 6});
        ASSERT_EQ(s->getLogicalDomain()[0]->iterType(), IterType::Iteration);
        f.addOutput(add(s, constFloat(1.0)));
      },
      {Tensor::random({5, 6}, DataType::Float, 6)});
}

TEST(ResizeLowering, CatAlongEachAxis) {
  for (int64_t dim : {0, 1}) {
    for (auto [rows, cols] : shapes()) {
      SCOPED_TRACE(::testing::Message() << "dim " << dim << " " << rows << "x" << cols);
      std::vector<int64_t> a = {rows, cols}, b = {rows, cols}, c = {rows, cols};
      b[dim] = 3;
      c[dim] = 1;
      checkKernel(
          [dim = dim](Fusion& f) {
            std::vector<TensorView*> tvs;
            for (int i = 0; i < 3; ++i) {
              tvs.push_back(makeContigTensor(2));
              f.addInput(tvs.back());
            }
            f.addOutput(mul(cat(tvs, dim), constFloat(2.0)));
          },
          {Tensor::random(a, DataType::Float, 1), Tensor::random(b, DataType::Float, 2),
           Tensor::random(c, DataType::Float, 3)});
    }
  }
}

// pad(x, last axis 4096 -> 4160) + 1 (the benchmark's shape, fewer rows) vectorizes 4-wide.
TEST(ResizeLowering, PadVectorizesWhenWidthsKeepVectorsWhole) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* x = makeContigTensor(2);
  fusion.addInput(x);
  fusion.addOutput(add(pad(x, {constInt(32), constInt(32)}), constFloat(1.0)));
  std::vector<Tensor> inputs = {Tensor::random({8, 4096}, DataType::Float, 1)};
  HeuristicsProposal p = autoSchedule(fusion, inputs);
  ASSERT_TRUE(p.accepted());
  EXPECT_EQ(dynamic_cast<PointwiseParams*>(p.params.get())->vectorization_factor, 4);
}

// cat([u, v], 1) * 2 of [rows, 2048] each (the benchmark's inner extent) vectorizes 4-wide.
TEST(ResizeLowering, CatVectorizes) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* u = makeContigTensor(2);
  TensorView* v = makeContigTensor(2);
  fusion.addInput(u);
  fusion.addInput(v);
  fusion.addOutput(mul(cat({u, v}, 1), constFloat(2.0)));
  std::vector<Tensor> inputs = {Tensor::random({8, 2048}, DataType::Float, 1),
                                Tensor::random({8, 2048}, DataType::Float, 2)};
  HeuristicsProposal p = autoSchedule(fusion, inputs);
  ASSERT_TRUE(p.accepted());
  EXPECT_EQ(dynamic_cast<PointwiseParams*>(p.params.get())->vectorization_factor, 4);
}

// A width that splits vectors (odd) turns vectorization off rather than reading across the
// pad's edge; the kernel is still right.
TEST(ResizeLowering, OddWidthDoesNotVectorize) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* x = makeContigTensor(2);
  fusion.addInput(x);
  fusion.addOutput(add(pad(x, {constInt(1), constInt(3)}), constFloat(1.0)));
  std::vector<Tensor> inputs = {Tensor::random({8, 4096}, DataType::Float, 1)};
  HeuristicsProposal p = autoSchedule(fusion, inputs);
  ASSERT_TRUE(p.accepted());
  EXPECT_EQ(dynamic_cast<PointwiseParams*>(p.params.get())->vectorization_factor, 1);
}

// The vectorized pad kernel runs right on the interpreter too.
TEST(ResizeLowering, VectorizedPadAndCatRunRight) {
  checkKernel(
      [](Fusion& f) {
        TensorView* x = makeContigTensor(2);
        f.addInput(x);
        f.addOutput(add(pad(x, {constInt(4), constInt(8)}), constFloat(1.0)));
      },
      {Tensor::random({3, 64}, DataType::Float, 2)});
  checkKernel(
      [](Fusion& f) {
        TensorView* u = makeContigTensor(2);
        TensorView* v = makeContigTensor(2);
        f.addInput(u);
        f.addInput(v);
        f.addOutput(mul(cat({u, v}, 1), constFloat(2.0)));
      },
      {Tensor::random({3, 64}, DataType::Float, 2), Tensor::random({3, 32}, DataType::Float, 3)});
}

// Fusions a one-kernel schedule cannot take are refused with the reason.
TEST(ResizeLowering, SchedulersRefuseWithReason) {
  {
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* x = makeContigTensor(2);
    fusion.addInput(x);
    fusion.addOutput(sum(pad(x, {constInt(1), constInt(1)}), {1}));
    SchedulerRuntimeInfo info(&fusion, {Tensor::random({4, 8}, DataType::Float, 1)});
    HeuristicsProposal p = proposeHeuristics(&fusion, info);
    EXPECT_FALSE(p.accepted());
    EXPECT_THAT(
        p.rejectionsString(),
        HasSubstr("the reduction scheduler does not schedule resize ops (pad, slice, cat)"));
  }
  {
    // Two outputs over different loops: x + 1 over x's, pad(x) over the padded one.
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* x = makeContigTensor(2);
    fusion.addInput(x);
    TensorView* y = add(x, constFloat(1.0));
    fusion.addOutput(mul(pad(y, {constInt(1), constInt(1)}), constFloat(2.0)));
    fusion.addOutput(slice(y, {Slice{}, Slice{constInt(1), nullptr}}));
    const std::vector<Tensor> inputs = {Tensor::random({4, 8}, DataType::Float, 1)};
    concretizeFor(fusion, inputs);
    SchedulerRuntimeInfo info(&fusion, inputs);
    HeuristicsProposal p = proposeHeuristics(&fusion, info);
    EXPECT_FALSE(p.accepted());
    EXPECT_THAT(p.rejectionsString(), HasSubstr("pointwise: the resize op"));
    EXPECT_THAT(p.rejectionsString(), HasSubstr("does not lead to the reference"));
  }
}

}  // namespace
}  // namespace mf
