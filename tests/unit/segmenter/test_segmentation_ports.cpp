// nvFuser's segmentation tests (tests/cpp/test_segmentation.cpp), ported for the parity issue
// (#21): the number of segments FusionExecutorCache makes for nvFuser's fusions, and the
// values (each kernel on the device with a GPU, on the host kernel interpreter without one)
// against the CPU reference.
#include <gtest/gtest.h>

#include <cmath>

#include "cuda/driver.h"
#include "minifuser/minifuser.h"
#include "random/kernel_interpreter.h"

namespace mf {
namespace {

//! Runs `fusion` through FusionExecutorCache on `in`: the values equal the reference's; returns
//! the runtime's segments.
size_t runAndCountSegments(std::unique_ptr<Fusion> fusion, const std::vector<Tensor>& in) {
  const std::vector<Tensor> want = ReferenceEvaluator(fusion.get()).run(in);
  FusionExecutorCache fec(std::move(fusion));
  std::vector<Tensor> got = fec.runFusionWithInputs(in);
  FusionKernelRuntime* runtime = fec.getMostRecentKernelRuntime();
  if (!cuda::cudaAvailable()) got = runtime->runOnHost(in, testing::interpretKernelOrThrow);
  EXPECT_EQ(got.size(), want.size());
  for (size_t o = 0; o < want.size() && o < got.size(); ++o) {
    const Tensor g = got[o].toHost();
    EXPECT_EQ(g.sizes(), want[o].sizes()) << "output " << o;
    if (g.sizes() != want[o].sizes()) continue;
    for (int64_t i = 0; i < want[o].numel(); ++i)
      EXPECT_NEAR(g.item(i), want[o].item(i), 1e-5 * (1 + std::abs(want[o].item(i))))
          << "output " << o << ", element " << i;
  }
  return runtime->fusionSegments()->groups().size();
}

// Issue1284_Repro1 and 2: outputs that share no axis (or only some) are separate segments.
TEST(NvfuserSegmentationPorts, Issue1284) {
  {
    auto fusion = std::make_unique<Fusion>();
    FusionGuard fg(fusion.get());
    TensorView* in_0 = makeSymbolicTensor(2);
    TensorView* in_1 = makeSymbolicTensor(1);
    fusion->addInput(in_0);
    fusion->addInput(in_1);
    fusion->addOutput(add(in_0, IrBuilder::create<Val>(0.0, DataType::Float)));
    fusion->addOutput(add(in_1, IrBuilder::create<Val>(2.0, DataType::Float)));
    EXPECT_EQ(runAndCountSegments(std::move(fusion), {Tensor::random({10, 20}, DataType::Float, 1),
                                                      Tensor::random({15}, DataType::Float, 2)}),
              2u);
  }
  {
    auto fusion = std::make_unique<Fusion>();
    FusionGuard fg(fusion.get());
    TensorView* in_0 = makeSymbolicTensor(2);
    TensorView* in_1 = makeSymbolicTensor(3);
    TensorView* in_2 = makeSymbolicTensor(4);
    fusion->addInput(in_0);
    fusion->addInput(in_1);
    fusion->addInput(in_2);
    fusion->addOutput(add(in_0, in_1));  // implicit broadcasting
    fusion->addOutput(add(in_0, in_2));
    EXPECT_EQ(
        runAndCountSegments(std::move(fusion), {Tensor::random({4, 4}, DataType::Float, 3),
                                                Tensor::random({3, 4, 4}, DataType::Float, 4),
                                                Tensor::random({2, 8, 4, 4}, DataType::Float, 5)}),
        2u);
  }
}

// SegmenterHint and SegmentHintOnNonTerminatingOutput: segment_set cuts the fusion in two,
// the second segment holding the neg alone; also when the cut tensor is an output too.
TEST(NvfuserSegmentationPorts, SegmenterHint) {
  {
    auto fusion = std::make_unique<Fusion>();
    FusionGuard fg(fusion.get());
    TensorView* tv0 = TensorViewBuilder().ndims(4).dtype(DataType::Double).build();
    fusion->addInput(tv0);
    fusion->addOutput(neg(segment_set(relu(tv0))));
    const std::vector<Tensor> in = {Tensor::random({4, 6, 8, 16}, DataType::Double, 6)};
    const std::vector<Tensor> want = ReferenceEvaluator(fusion.get()).run(in);
    FusionExecutorCache fec(std::move(fusion));
    fec.runFusionWithInputs(in);
    const auto& groups = fec.getMostRecentKernelRuntime()->fusionSegments()->groups();
    ASSERT_EQ(groups.size(), 2u);
    for (SegmentedGroup* group : groups)
      if (group->exprs().size() == 1) {
        Expr* e = group->exprs()[0];
        EXPECT_TRUE(e->isA<UnaryOp>() && e->as<UnaryOp>()->getUnaryOpType() == UnaryOpType::Neg)
            << e->toString();
      }
  }
  {
    auto fusion = std::make_unique<Fusion>();
    FusionGuard fg(fusion.get());
    TensorView* in = makeContigConcreteTensor({2, 3});
    TensorView* add_out = segment_set(add(in, in));
    fusion->addInput(in);
    fusion->addOutput(add_out);
    fusion->addOutput(mul(add_out, add_out));
    EXPECT_EQ(runAndCountSegments(std::move(fusion), {Tensor::random({2, 3}, DataType::Float, 7)}),
              2u);
  }
}

// EnforceSegmentationByCachingBeforeAndAfter: the reduction's inputs cached before and its
// outputs cached after with LoadStoreOpType::SegmenterSet: the copies are segment boundaries.
TEST(NvfuserSegmentationPorts, EnforceSegmentationByCachingBeforeAndAfter) {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* tv0 = makeContigTensor(2);
  TensorView* tv1 = sum(tv0, {0});
  TensorView* tv2 = div(tv0, tv1);  // implicit broadcasting of the column sums
  fusion->addInput(tv0);
  fusion->addOutput(tv2);
  std::vector<Expr*> reductions;
  for (Expr* e : fusion->exprs())
    if (e->isA<ReductionOp>()) reductions.push_back(e);
  for (Expr* e : reductions) {
    for (Val* v : e->inputs())
      if (auto* in = dynamic_cast<TensorView*>(v); in != nullptr && !in->isFusionInput())
        in->cacheBefore(LoadStoreOpType::SegmenterSet);
    for (Val* v : e->outputs())
      if (auto* out = dynamic_cast<TensorView*>(v); out != nullptr && !out->isFusionOutput())
        out->cacheAfter(LoadStoreOpType::SegmenterSet);
  }
  int64_t segment_sets = 0;
  for (Expr* e : fusion->exprs())
    if (auto* set = dynamic_cast<LoadStoreOp*>(e))
      segment_sets += set->opType() == LoadStoreOpType::SegmenterSet;
  EXPECT_EQ(segment_sets, 1);
  EXPECT_EQ(runAndCountSegments(std::move(fusion), {Tensor::random({2, 3}, DataType::Float, 8)}),
            2u);
}

// SetAllocationDomainOnSegmentBoundary: a segment_set output given a (non-contiguous)
// allocation domain, then reshaped in the next segment.
TEST(NvfuserSegmentationPorts, SetAllocationDomainOnSegmentBoundary) {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* in = makeContigConcreteTensor({2, 3, 5});
  TensorView* add_out = segment_set(add(in, in));
  fusion->addInput(in);
  fusion->addOutput(reshape(add_out, {2, 3, 5}, {6, 5}));
  add_out->setAllocationDomain({add_out->axis(0), add_out->axis(1), add_out->axis(2)}, false);
  runAndCountSegments(std::move(fusion), {Tensor::random({2, 3, 5}, DataType::Float, 9)});
}

// InputForwardingUntilBinary / UntilOutput: unary chains from the inputs are forwarded into
// the one segment that reads them (one segment).
TEST(NvfuserSegmentationPorts, InputForwarding) {
  {
    auto fusion = std::make_unique<Fusion>();
    FusionGuard fg(fusion.get());
    TensorView* x = makeContigConcreteTensor({2, 3}, DataType::Half);
    TensorView* y = makeContigConcreteTensor({2, 3}, DataType::Half);
    fusion->addInput(x);
    fusion->addInput(y);
    TensorView* xs = sin(neg(castOp(DataType::Float, x)));
    TensorView* ys = neg(sin(castOp(DataType::Float, y)));
    fusion->addOutput(segment_set(add(xs, ys)));
    const Tensor t = Tensor::random({2, 3}, DataType::Half, 10);
    EXPECT_EQ(runAndCountSegments(std::move(fusion), {t, t}), 1u);
  }
  {
    auto fusion = std::make_unique<Fusion>();
    FusionGuard fg(fusion.get());
    TensorView* in0 = makeContigTensor(2);
    TensorView* in1 = makeContigTensor(2);
    fusion->addInput(in0);
    fusion->addInput(in1);
    fusion->addOutput(sin(tanh(in0)));
    fusion->addOutput(tanh(sin(in1)));
    const Tensor t = Tensor::random({2, 3}, DataType::Float, 11);
    runAndCountSegments(std::move(fusion), {t, t});
  }
}

// ForwardedExprsAreNotMergeable (a neg then a slice) and ForwardedExprsAreReplicated (a neg
// read by two reductions over different axes).
TEST(NvfuserSegmentationPorts, ForwardedExprs) {
  {
    auto fusion = std::make_unique<Fusion>();
    FusionGuard fg(fusion.get());
    TensorView* tv0 = makeSymbolicTensor(1);
    fusion->addInput(tv0);
    fusion->addOutput(slice(neg(tv0), std::vector<int64_t>{0}, std::vector<int64_t>{5}));
    runAndCountSegments(std::move(fusion), {Tensor::random({10}, DataType::Float, 12)});
  }
  {
    auto fusion = std::make_unique<Fusion>();
    FusionGuard fg(fusion.get());
    TensorView* tv0 = makeSymbolicTensor(2);
    fusion->addInput(tv0);
    TensorView* tv1 = neg(tv0);
    fusion->addOutput(sum(tv1, {0}));
    fusion->addOutput(sum(tv1, {1}));
    EXPECT_EQ(
        runAndCountSegments(std::move(fusion), {Tensor::random({10, 20}, DataType::Float, 13)}),
        2u);
  }
}

}  // namespace
}  // namespace mf
