// Outputs that are views of inputs launch no kernel (segmenter/alias_analysis.h, nvFuser's
// alias analysis and expression-evaluator segment): the segmenter puts them in an ExprEval
// group, the runtime makes them as Tensors sharing the input's storage, on the CPU fallback
// path and the host-interpreter path as on the device. Each test checks the segmentation,
// that no kernel was compiled for the view, that the output shares the input's storage (the
// same first element, the view's strides) and that its values equal the reference.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "random/kernel_interpreter.h"
#include "segmenter/alias_analysis.h"
#include "unit/segmenter/segmentation_test_utils.h"

namespace mf {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// Runs `fusion` through a FusionExecutorCache (CPU fallback here) and the host-interpreter
// path, and checks each output against the reference; returns the cache's outputs.
std::vector<Tensor> runAndCompare(const Fusion& fusion, const std::vector<Tensor>& inputs,
                                  int64_t expected_kernels) {
  FusionExecutorCache fec(std::make_unique<Fusion>(fusion));
  const std::vector<Tensor> expected = ReferenceEvaluator(fec.fusion()).run(inputs);
  std::vector<Tensor> out = fec.runFusionWithInputs(inputs);
  FusionKernelRuntime* runtime = fec.getMostRecentKernelRuntime();
  EXPECT_EQ(runtime->kernelCount(), expected_kernels);
  EXPECT_EQ(fec.countKernelsCompiled(), expected_kernels);
  std::vector<Tensor> interpreted = runtime->runOnHost(inputs, testing::interpretKernelOrThrow);
  EXPECT_EQ(out.size(), expected.size());
  EXPECT_EQ(interpreted.size(), expected.size());
  for (size_t o = 0; o < std::min(out.size(), expected.size()); ++o) {
    SCOPED_TRACE("output " + std::to_string(o));
    segtest::expectSameTensor(out[o], expected[o]);
    segtest::expectSameTensor(interpreted[o], expected[o]);
    // Both paths make a view the same way.
    EXPECT_EQ(out[o].dataPtr() == inputs[0].dataPtr(),
              interpreted[o].dataPtr() == inputs[0].dataPtr());
  }
  return out;
}

// `out` shares `in`'s storage: the same first element, the strides of the view.
void expectViewOf(const Tensor& out, const Tensor& in, const std::vector<int64_t>& strides) {
  EXPECT_EQ(out.dataPtr(), in.dataPtr());
  EXPECT_EQ(out.storageOffset(), in.storageOffset());
  EXPECT_EQ(out.strides(), strides);
}

// The simplest view: `set` of an input is the input's storage, not a copy, and no kernel.
TEST(ViewOutputs, SetOfInputSharesItsStorage) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  fusion.addInput(t0);
  fusion.addOutput(set(t0));
  for (std::vector<int64_t> sizes : {std::vector<int64_t>{7, 13}, {1, 5}, {1, 1}}) {
    const std::vector<Tensor> inputs = {Tensor::random(sizes, DataType::Float, 3)};
    auto sf = SegmentCandidateFinder::segment(fusion, inputs);
    ASSERT_EQ(sf->groups().size(), 1u) << sf->toString();
    EXPECT_EQ(sf->groups()[0]->schedulerType(), SchedulerType::ExprEval);
    EXPECT_THAT(sf->toString(), HasSubstr("group 0 (expr_eval, view)\n"));
    EXPECT_THAT(sf->toString(), HasSubstr("  view: T1 of T0 (no kernel)\n"));
    std::vector<Tensor> out = runAndCompare(fusion, inputs, 0);
    expectViewOf(out[0], inputs[0], inputs[0].strides());
  }
}

// broadcast (unsqueeze) inserts a size-1 axis; the others keep the input's strides. A write
// through the input's storage is seen through the view: nothing was copied.
TEST(ViewOutputs, BroadcastOfInputSharesItsStorage) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  fusion.addInput(t0);
  fusion.addOutput(broadcast(t0, {false, true, false, true}));
  Tensor in = Tensor::random({7, 13}, DataType::Float, 5);
  std::vector<Tensor> out = runAndCompare(fusion, {in}, 0);
  EXPECT_EQ(out[0].sizes(), (std::vector<int64_t>{7, 1, 13, 1}));
  expectViewOf(out[0], in, {13, 13, 1, 1});
  in.data<float>()[14] = 42.0f;
  EXPECT_EQ(out[0].at({1, 0, 1, 0}), 42.0);
}

// A strided input (a transposed storage) gives a view with its strides, not a contiguous copy.
TEST(ViewOutputs, StridedInputKeepsItsStrides) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  fusion.addOutput(broadcast(set(t0), {true, false, false}));
  const Tensor storage = Tensor::random({7, 5}, DataType::Float, 7);
  const Tensor in = storage.asStrided({5, 7}, {1, 5}, 0);
  std::vector<Tensor> out = runAndCompare(fusion, {in}, 0);
  expectViewOf(out[0], in, {5, 1, 5});  // the new axis: the next one's extent in memory
}

// A view beside computed outputs: the view is a group of its own (no kernel), the rest is
// segmented as usual (one pointwise kernel).
TEST(ViewOutputs, ViewBesideComputedOutputs) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  TensorView* t1 = makeContigTensor(2);
  fusion.addInput(t0);
  fusion.addInput(t1);
  fusion.addOutput(mul(t0, t1));  // T2
  fusion.addOutput(set(t0));      // T3
  const std::vector<Tensor> inputs = {Tensor::random({11, 3}, DataType::Float, 1),
                                      Tensor::random({11, 3}, DataType::Float, 2)};
  auto sf = SegmentCandidateFinder::segment(fusion, inputs);
  ASSERT_EQ(sf->groups().size(), 2u) << sf->toString();
  EXPECT_EQ(sf->groups()[0]->schedulerType(), SchedulerType::ExprEval);
  EXPECT_THAT(segtest::names(sf->groups()[0]->outputs()), ElementsAre("T3"));
  EXPECT_EQ(sf->groups()[1]->schedulerType(), SchedulerType::PointWise);
  EXPECT_THAT(segtest::names(sf->groups()[1]->outputs()), ElementsAre("T2"));
  EXPECT_TRUE(sf->edges().empty());
  segtest::expectCacheMatchesReference(fusion, *sf, inputs);
  std::vector<Tensor> out = runAndCompare(fusion, inputs, 1);
  EXPECT_NE(out[0].dataPtr(), inputs[0].dataPtr());
  expectViewOf(out[1], inputs[0], {3, 1});
}

// The rest needs a tensor of the view's chain (T2): the chain is copied into the rest's
// segment, T2 stays inside it (it is no group's output), and only T3 is the view's output.
TEST(ViewOutputs, ChainSharedWithComputedOutput) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  TensorView* t1 = makeContigTensor(2);
  fusion.addInput(t0);
  fusion.addInput(t1);
  TensorView* t2 = broadcast(t0, {false, true});
  fusion.addOutput(set(t2));      // T3: a view of T0
  fusion.addOutput(add(t2, t1));  // T4: computed, reads T2
  const std::vector<Tensor> inputs = {Tensor::random({13}, DataType::Float, 1),
                                      Tensor::random({13, 6}, DataType::Float, 2)};
  auto sf = SegmentCandidateFinder::segment(fusion, inputs);
  ASSERT_EQ(sf->groups().size(), 2u) << sf->toString();
  EXPECT_THAT(segtest::names(sf->groups()[0]->outputs()), ElementsAre("T3"));
  EXPECT_THAT(segtest::computed(sf->groups()[0]), ElementsAre("T2", "T3"));
  EXPECT_THAT(segtest::names(sf->groups()[1]->outputs()), ElementsAre("T4"));
  EXPECT_THAT(segtest::computed(sf->groups()[1]), ElementsAre("T2", "T4"));
  segtest::expectCacheMatchesReference(fusion, *sf, inputs);
  std::vector<Tensor> out = runAndCompare(fusion, inputs, 1);
  expectViewOf(out[0], inputs[0], {1, 1});
}

// An output that a computed expr also reads is computed: the computing segment writes it
// (a later segment would read its producer's tensor as a contiguous copy, not a view).
TEST(ViewOutputs, ViewReadByComputedExprIsComputed) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = set(t0);
  fusion.addOutput(t1);
  fusion.addOutput(add(t1, constFloat(1.0)));
  const std::vector<Tensor> inputs = {Tensor::random({5, 3}, DataType::Float, 4)};
  auto sf = SegmentCandidateFinder::segment(fusion, inputs);
  ASSERT_EQ(sf->groups().size(), 1u) << sf->toString();
  EXPECT_EQ(sf->groups()[0]->schedulerType(), SchedulerType::PointWise);
  std::vector<Tensor> out = runAndCompare(fusion, inputs, 1);
  EXPECT_NE(out[0].dataPtr(), inputs[0].dataPtr());
}

// An output whose allocation domain asks for another layout than the view's gets it from a
// kernel; one asking for exactly the view's layout is a view.
TEST(ViewOutputs, AllocationDomainDecides) {
  for (bool matching : {false, true}) {
    SCOPED_TRACE(matching ? "the input's layout" : "another layout");
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* t0 = makeSymbolicTensor(2);
    fusion.addInput(t0);
    TensorView* t1 = set(t0);
    t1->setAllocationDomain({t1->axis(1), t1->axis(0)}, true);  // column-major
    fusion.addOutput(t1);
    const Tensor storage = Tensor::random({7, 5}, DataType::Float, 9);
    // Column-major [5, 7] (the layout asked for) or row-major.
    const Tensor in =
        matching ? storage.asStrided({5, 7}, {1, 5}, 0) : storage.asStrided({5, 7}, {7, 1}, 0);
    auto sf = SegmentCandidateFinder::segment(fusion, {in});
    ASSERT_EQ(sf->groups().size(), 1u);
    EXPECT_EQ(sf->groups()[0]->schedulerType(),
              matching ? SchedulerType::ExprEval : SchedulerType::PointWise);
    std::vector<Tensor> out = runAndCompare(fusion, {in}, matching ? 0 : 1);
    EXPECT_EQ(out[0].strides(), (std::vector<int64_t>{1, 5}));
    EXPECT_EQ(out[0].dataPtr() == in.dataPtr(), matching);
  }
}

// A segment_set asks for a segment boundary, a copy: never a view.
TEST(ViewOutputs, SegmentSetIsNotAView) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  fusion.addOutput(segment_set(t0));
  const std::vector<Tensor> inputs = {Tensor::random({9}, DataType::Float, 4)};
  std::vector<Tensor> out = runAndCompare(fusion, inputs, 1);
  EXPECT_NE(out[0].dataPtr(), inputs[0].dataPtr());
}

// reshape of a contiguous input (splits and merges of dense axes), permute (permuted
// strides), squeeze, unsqueeze and expand (stride 0): each a view, no kernel.
TEST(ViewOutputs, ShapeOpsOfInputsAreViews) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigConcreteTensor({6, 35});
  TensorView* t1 = makeContigConcreteTensor({5, 1, 7});
  fusion.addInput(t0);
  fusion.addInput(t1);
  fusion.addOutput(reshape(t0, {6, 35}, {2, 3, 5, 7}));                      // 0
  fusion.addOutput(reshape(t0, {6, 35}, {210}));                             // 1
  fusion.addOutput(permute(t1, {2, 0, 1}));                                  // 2
  fusion.addOutput(squeeze(t1, {1}));                                        // 3
  fusion.addOutput(unsqueeze(t1, 3));                                        // 4
  fusion.addOutput(expand(t1, {constInt(-1), constInt(13), constInt(-1)}));  // 5
  fusion.addOutput(transpose(reshape(t0, {6, 35}, {6, 5, 7}), 0, 2));        // 6
  const std::vector<Tensor> inputs = {Tensor::random({6, 35}, DataType::Float, 1),
                                      Tensor::random({5, 1, 7}, DataType::Float, 2)};
  auto sf = SegmentCandidateFinder::segment(fusion, inputs);
  ASSERT_EQ(sf->groups().size(), 1u) << sf->toString();
  EXPECT_EQ(sf->groups()[0]->schedulerType(), SchedulerType::ExprEval);
  std::vector<Tensor> out = runAndCompare(fusion, inputs, 0);
  ASSERT_EQ(out.size(), 7u);
  expectViewOf(out[0], inputs[0], {105, 35, 7, 1});
  expectViewOf(out[1], inputs[0], {1});
  expectViewOf(out[2], inputs[1], {1, 7, 7});
  expectViewOf(out[3], inputs[1], {7, 1});
  expectViewOf(out[4], inputs[1], {7, 7, 1, 1});
  expectViewOf(out[5], inputs[1], {7, 0, 1});
  expectViewOf(out[6], inputs[0], {1, 7, 35});
}

// A dynamic reshape of an input (sizes given as scalar inputs): the cache concretizes a copy,
// whose static reshape is a view. One runtime per concretization, none compiles a kernel.
TEST(ViewOutputs, DynamicReshapeOfInputIsAView) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* x = makeContigTensor(1);
    Val* m = newScalar(DataType::Int64);
    Val* k = newScalar(DataType::Int64);
    fusion->addInput(x);
    fusion->addInput(m);
    fusion->addInput(k);
    fusion->addOutput(reshape(x, std::vector<Val*>{m, k}));
  }
  FusionExecutorCache fec(std::move(fusion));
  for (auto [m, k] : std::vector<std::pair<int64_t, int64_t>>{{5, 13}, {7, 3}, {1, 11}}) {
    SCOPED_TRACE(fmt::format("[{}, {}]", m, k));
    const std::vector<Tensor> inputs = {Tensor::random({m * k}, DataType::Float, 3),
                                        Tensor::fromVector<int64_t>({m}, {}),
                                        Tensor::fromVector<int64_t>({k}, {})};
    std::vector<Tensor> out = fec.runFusionWithInputs(inputs);
    segtest::expectSameTensor(out[0], ReferenceEvaluator(fec.fusion()).run(inputs)[0]);
    expectViewOf(out[0], inputs[0], {k, 1});
    EXPECT_EQ(fec.getMostRecentKernelRuntime()->kernelCount(), 0);
  }
  EXPECT_EQ(fec.countKernelsCompiled(), 0);
}

// The alias analysis on its own (no scheduler involved): a reshape merging axes that are not
// dense with each other (a transposed storage) is no view; splitting one is.
TEST(ViewOutputs, ReshapeMergingNonDenseAxesIsNoView) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* merged = reshape(t0, {constInt(35)});
  TensorView* split = reshape(t0, {constInt(5), constInt(7), constInt(1)});
  fusion.addOutput(merged);
  fusion.addOutput(split);
  const Tensor storage = Tensor::random({7, 5}, DataType::Float, 3);
  for (bool transposed : {false, true}) {
    SCOPED_TRACE(transposed ? "transposed" : "contiguous");
    const Tensor in =
        transposed ? storage.asStrided({5, 7}, {1, 5}, 0) : storage.asStrided({5, 7}, {7, 1}, 0);
    SchedulerRuntimeInfo info(&fusion, std::vector<Tensor>{in});
    std::vector<TensorView*> views;
    for (const AliasedOutput& a : findAliasedOutputs(fusion, info)) views.push_back(a.output);
    if (transposed)
      EXPECT_THAT(views, ElementsAre(split));
    else
      EXPECT_THAT(views, ElementsAre(merged, split));
  }
}

// MINIFUSER_DUMP=fusion_segments shows the view group and what it is a view of;
// scheduler_params shows its heuristics as expr_eval, and no kernel is compiled.
TEST(ViewOutputs, DumpsShowTheView) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  fusion.addInput(t0);
  fusion.addOutput(broadcast(t0, {true, false, false}));
  fusion.addOutput(exp(t0));
  OptionsGuard guard;
  guard.enableDump(DumpOption::FusionSegments);
  guard.enableDump(DumpOption::SchedulerParams);
  ::testing::internal::CaptureStdout();
  FusionExecutorCache fec(std::make_unique<Fusion>(fusion));
  fec.runFusionWithInputs({Tensor::random({4, 3}, DataType::Float, 2)});
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_THAT(out, HasSubstr("Segmented fusion: 2 groups\ngroup 0 (expr_eval, view)\n"
                             "  inputs: T0\n  outputs: T1\n  view: T1 of T0 (no kernel)\n"));
  EXPECT_THAT(out, HasSubstr("group 1 (pointwise)\n"));
  EXPECT_THAT(out, HasSubstr("=== scheduler_params (group 0, expr_eval) ===\n"));
  EXPECT_EQ(fec.countKernelsCompiled(), 1);
  EXPECT_THAT(fec.getMostRecentCode(), Not(HasSubstr("T1")));
}

}  // namespace
}  // namespace mf
