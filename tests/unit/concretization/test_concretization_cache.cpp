// FusionExecutorCache keyed by concretization (CPU: kernels compile with NVRTC, outputs come
// from the reference): a reshape shmoo through one cache with the expected hit or miss of
// countConcretizations() per call, empty tensors included, each result against the
// reference of the user's (still symbolic) fusion; the hot path of a dynamic fusion; the
// fusion_ir_concretized dump.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "minifuser.h"
#include "unit/concretization/concretization_test_utils.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

void expectEqual(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.sizes(), b.sizes());
  for (int64_t i = 0; i < a.numel(); ++i) ASSERT_EQ(a.item(i), b.item(i)) << "element " << i;
}

// reshape(x + bias, {s0, s1, s2, s3}) * 2, the sizes scalar inputs.
std::unique_ptr<Fusion> reshapeAddFusion() {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* x = makeSymbolicTensor(4);
  TensorView* bias = makeSymbolicTensor(4);
  fusion->addInput(x);
  fusion->addInput(bias);
  std::vector<Val*> sizes;
  for (int i = 0; i < 4; ++i) {
    sizes.push_back(newScalar(DataType::Index));
    fusion->addInput(sizes.back());
  }
  fusion->addOutput(mul(reshape(add(x, bias), sizes), constFloat(2.0)));
  return fusion;
}

struct Invocation {
  std::vector<int64_t> in, out;
  bool expect_miss;
};

// The concretization is a miss exactly when the structure (the view analysis, which
// extents are 0) is new; sizes alone reuse it.
TEST(ConcretizationCache, ReshapeShmoo) {
  const std::vector<Invocation> invocations = {
      {{8, 12, 7, 9}, {8, 12, 7, 9}, true},   // no transform
      {{8, 12, 7, 5}, {8, 12, 7, 5}, false},  // the same, other sizes
      {{8, 12, 7, 9}, {8, 3, 4, 63}, true},   // split 12, merge 4 * 7 * 9
      {{8, 12, 7, 9}, {8, 3, 28, 9}, true},   // split 12, merge 4 * 7
      {{8, 12, 7, 5}, {8, 3, 28, 5}, false},  // the same structure
      {{8, 15, 7, 9}, {8, 3, 35, 9}, false},  // the same: split 15 by 3, merge 5 * 7
      {{5, 12, 1, 7}, {5, 3, 4, 7}, true},    // the size-1 Iteration axis merged, not squeezed
      {{8, 0, 7, 9}, {7, 8, 0, 9}, true},     // empty: x's axis 1 and s2 are 0
      {{8, 0, 5, 9}, {5, 8, 0, 9}, false},    // the same extents are 0
      {{8, 0, 7, 9}, {7, 8, 0, 0}, true},     // s3 is 0 too
      {{8, 0, 7, 9}, {47, 0, 13, 0}, true},   // s1 and s3
      {{3, 5, 7, 11}, {3, 5, 7, 11}, false},  // back to the first structure
  };
  FusionExecutorCache fec(reshapeAddFusion());
  int64_t concretizations = 0;
  uint64_t seed = 1;
  for (const Invocation& inv : invocations) {
    SCOPED_TRACE(shapesString({inv.in, inv.out}));
    std::vector<Tensor> inputs = {Tensor::random(inv.in, DataType::Float, seed++),
                                  Tensor::random(inv.in, DataType::Float, seed++)};
    for (int64_t s : inv.out) inputs.push_back(scalarTensor(s));
    const std::vector<Tensor> out = fec.runFusionWithInputs(inputs);
    EXPECT_EQ(fec.countConcretizations(), concretizations + (inv.expect_miss ? 1 : 0));
    concretizations = fec.countConcretizations();
    EXPECT_EQ(out.at(0).sizes(), inv.out);
    expectEqual(out.at(0), ReferenceEvaluator(fec.fusion()).run(inputs).at(0));
    // The same inputs again: the hot path, no new concretization.
    fec.runFusionWithInputs(inputs);
    EXPECT_EQ(fec.countConcretizations(), concretizations);
  }
  // The user's fusion stays symbolic: only copies are concretized.
  EXPECT_TRUE(fec.fusion()->hasDynamicTransform());
}

// Inputs seen before skip concretization altogether: the lookup of exact input metadata
// (sizes, strides, scalar values) comes first, as for a static fusion.
TEST(ConcretizationCache, HotPathSkipsConcretization) {
  OptionsGuard guard;
  guard.enableDump(DumpOption::FecCache);
  FusionExecutorCache fec(reshapeAddFusion());
  std::vector<Tensor> inputs = {Tensor::random({2, 6, 1, 5}, DataType::Float, 1),
                                Tensor::random({2, 6, 1, 5}, DataType::Float, 2)};
  for (int64_t s : {2, 2, 3, 5}) inputs.push_back(scalarTensor(s));
  const std::string first = capturedStdout([&] { fec.runFusionWithInputs(inputs); });
  EXPECT_THAT(first, HasSubstr("fec_cache: new concretization (a concretized copy)"));
  const std::string again = capturedStdout([&] {
    for (int i = 0; i < 3; ++i) fec.runFusionWithInputs(inputs);
  });
  EXPECT_THAT(again, HasSubstr("fec_cache: hit"));
  EXPECT_THAT(again, Not(HasSubstr("concretization")));
  EXPECT_EQ(fec.countConcretizations(), 1);
  EXPECT_EQ(fec.countRuntimes(), 1);
}

// A fusion that is not dynamic has one concretization: itself, never copied.
TEST(ConcretizationCache, StaticFusionHasOneConcretization) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* x = makeConcreteTensor({4, 3});
    fusion->addInput(x);
    fusion->addOutput(reshape(x, {4, 3}, {3, 4}));
  }
  FusionExecutorCache fec(std::move(fusion));
  const std::vector<Tensor> in = {Tensor::random({4, 3}, DataType::Float, 3)};
  fec.runFusionWithInputs(in);
  fec.runFusionWithInputs({Tensor::random({4, 3}, DataType::Float, 4)});
  EXPECT_EQ(fec.countConcretizations(), 1);
}

// MINIFUSER_DUMP=fusion_ir_concretized prints the fusion before (Symbolic axes) and after.
TEST(ConcretizationCache, DumpShowsBothForms) {
  OptionsGuard guard;
  guard.enableDump(DumpOption::FusionIrConcretized);
  FusionExecutorCache fec(reshapeAddFusion());
  std::vector<Tensor> inputs = {Tensor::random({2, 6, 1, 5}, DataType::Float, 1),
                                Tensor::random({2, 6, 1, 5}, DataType::Float, 2)};
  for (int64_t s : {2, 2, 3, 5}) inputs.push_back(scalarTensor(s));
  const std::string out = capturedStdout([&] { fec.runFusionWithInputs(inputs); });
  const size_t before = out.find("=== fusion_ir_concretized: before ===");
  const size_t after = out.find("=== fusion_ir_concretized: after ===");
  ASSERT_NE(before, std::string::npos) << out;
  ASSERT_NE(after, std::string::npos) << out;
  EXPECT_NE(out.substr(before, after - before).find("?S"), std::string::npos) << out;
  EXPECT_EQ(out.substr(after).find("?S"), std::string::npos) << out;
  EXPECT_THAT(out, HasSubstr("DynamicTransformConcretizationInfo"));
}

}  // namespace
}  // namespace mf
