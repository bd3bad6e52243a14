// The shape ops (ops/shape.h): the IR each builds (root/logical domains, IterTypes, the
// exprs of a static reshape), analyzeView's decomposition, equality and hash, the errors at
// definition, printing, cloning and verification.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unordered_set>

#include "ir/builder.h"
#include "ir/fusion.h"
#include "ir/shape_exprs.h"
#include "ir/verifier.h"
#include "ir/view_analysis.h"
#include "ops/arith.h"
#include "ops/shape.h"
#include "ops/tensor_factories.h"

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace mf {
namespace {

std::vector<int64_t> constExtents(const std::vector<IterDomain*>& ids) {
  std::vector<int64_t> out;
  for (IterDomain* id : ids) out.push_back(id->extent()->constInt().value_or(-100));
  return out;
}

std::vector<IterType> iterTypes(const std::vector<IterDomain*>& ids) {
  std::vector<IterType> out;
  for (IterDomain* id : ids) out.push_back(id->iterType());
  return out;
}

TEST(ShapeOps, StaticReshapeBuildsViewOpWithSplitAndMerge) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* t0 = makeContigConcreteTensor({4, 3});
  f.addInput(t0);
  TensorView* t1 = reshape(t0, {4, 3}, {3, 4});
  f.addOutput(t1);
  ASSERT_TRUE(t1->definition()->isA<ViewOp>());
  EXPECT_FALSE(t1->definition()->as<ViewOp>()->isDynamic());
  ASSERT_TRUE(t1->domain()->hasRoot());
  EXPECT_EQ(constExtents(t1->domain()->root()), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(constExtents(t1->getLogicalDomain()), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(iterTypes(t1->getLogicalDomain()),
            (std::vector<IterType>{IterType::Iteration, IterType::Iteration}));
  // merge(0) then an outer split by 3.
  std::vector<Expr*> transforms = t1->domain()->allTransforms();
  ASSERT_EQ(transforms.size(), 2u);
  EXPECT_TRUE(transforms[0]->isA<Merge>());
  ASSERT_TRUE(transforms[1]->isA<Split>());
  EXPECT_FALSE(transforms[1]->as<Split>()->innerSplit());
  EXPECT_THAT(t1->definition()->toString(), HasSubstr("= reshape(T0, {3, 4})"));
  EXPECT_NO_THROW(verifyFusion(f));
}

TEST(ShapeOps, StaticReshapeSqueezesAndBroadcastsSizeOneAxes) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* t0 = makeContigConcreteTensor({4, 1, 3});
  f.addInput(t0);
  TensorView* t1 = reshape(t0, {4, 1, 3}, {2, 6, 1});
  f.addOutput(t1);
  ASSERT_TRUE(t1->definition()->isA<BroadcastOp>());
  auto* view_out = t1->definition()->input(0)->as<TensorView>();
  ASSERT_TRUE(view_out->definition()->isA<ViewOp>());
  auto* squeezed = view_out->definition()->input(0)->as<TensorView>();
  ASSERT_TRUE(squeezed->definition()->isA<SqueezeOp>());
  EXPECT_EQ(squeezed->definition()->as<SqueezeOp>()->isSqueezeDims(),
            (std::vector<bool>{false, true, false}));
  EXPECT_EQ(constExtents(t1->getLogicalDomain()), (std::vector<int64_t>{2, 6, 1}));
  EXPECT_EQ(iterTypes(t1->getLogicalDomain()),
            (std::vector<IterType>{IterType::Iteration, IterType::Iteration, IterType::Broadcast}));
  EXPECT_NO_THROW(verifyFusion(f));
}

TEST(ShapeOps, StaticReshapeInfersMinusOne) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* t0 = makeContigConcreteTensor({4, 3});
  TensorView* t1 = reshape(t0, {4, 3}, {-1, 2});
  EXPECT_EQ(constExtents(t1->getLogicalDomain()), (std::vector<int64_t>{6, 2}));
  TensorView* t2 = reshape(t0, std::vector<Val*>{constInt(2), constInt(-1)});
  EXPECT_EQ(constExtents(t2->getLogicalDomain()), (std::vector<int64_t>{2, 6}));
  EXPECT_FALSE(t2->definition()->as<ViewOp>()->isDynamic());
}

TEST(ShapeOps, StaticReshapeOfSymbolicInputKeepsExtentExpressions) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* t0 = makeContigTensor(2);
  TensorView* t1 = reshape(t0, {4, 3}, {3, 4});
  EXPECT_EQ(t1->getLogicalDomain()[0]->extent()->constInt(), 3);  // the outer split's factor
  EXPECT_FALSE(t1->getLogicalDomain()[1]->extent()->isConst());
  EXPECT_EQ(iterTypes(t1->getLogicalDomain()),
            (std::vector<IterType>{IterType::Iteration, IterType::Iteration}));
}

TEST(ShapeOps, ReshapeErrors) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* t0 = makeContigConcreteTensor({4, 3});
  EXPECT_THAT(
      [&] {
        reshape(t0, {4, 3}, {5, 2});
      },
      ThrowsMessage<UserError>(
          AllOf(HasSubstr("Total element counts across view operation must match"),
                HasSubstr("[4, 3] has 12 elements"), HasSubstr("[5, 2] has 10"))));
  EXPECT_THAT(
      [&] {
        reshape(t0, {4, 3}, {-1, 5});
      },
      ThrowsMessage<UserError>(
          AllOf(HasSubstr("Total element counts across view operation must match"),
                HasSubstr("[4, 3] (12 elements) cannot be viewed as [-1, 5]"))));
  EXPECT_THAT(
      [&] {
        reshape(t0, {4, 3}, {-1, -1});
      },
      ThrowsMessage<UserError>(HasSubstr("only one size of [-1, -1] may be -1")));
  EXPECT_THAT(
      [&] {
        reshape(t0, {4, 4}, {16});
      },
      ThrowsMessage<UserError>(
          HasSubstr("axis 1 of T0_l_float[iS0{4}, iS1{3}] (iS1{3}) has extent 3, but "
                    "original_sizes [4, 4] says 4")));
  EXPECT_THAT([&] { reshape(t0, {12}, {12}); },
              ThrowsMessage<UserError>(HasSubstr("has 2 axes but original_sizes [12] has 1")));
  EXPECT_THAT(
      [&] {
        reshape(t0, std::vector<Val*>{constInt(-3), constInt(-4)});
      },
      ThrowsMessage<UserError>(HasSubstr("size 0 of T0_l_float[iS0{4}, iS1{3}] is -3")));
  EXPECT_THAT(
      [&] {
        analyzeView({0, 3}, {3, 0});
      },
      ThrowsMessage<UserError>(HasSubstr("reshape of the empty shape [0, 3] to [3, 0]")));
}

TEST(ShapeOps, DynamicReshapeHasSymbolicAxesUntilAConcreteOperand) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* t0 = makeSymbolicTensor(2);
  Val* s0 = newScalar(DataType::Int64);
  Val* s1 = newScalar(DataType::Int64);
  f.addInput(t0);
  f.addInput(s0);
  f.addInput(s1);
  TensorView* t1 = reshape(t0, std::vector<Val*>{s0, s1});
  ASSERT_TRUE(t1->definition()->isA<ViewOp>());
  EXPECT_TRUE(t1->definition()->as<ViewOp>()->isDynamic());
  EXPECT_EQ(iterTypes(t1->getLogicalDomain()),
            (std::vector<IterType>{IterType::Symbolic, IterType::Symbolic}));
  EXPECT_EQ(iterTypes(t1->domain()->root()),
            (std::vector<IterType>{IterType::Iteration, IterType::Iteration}));
  EXPECT_EQ(t1->getLogicalDomain()[0]->extent(), s0);
  EXPECT_TRUE(t1->domain()->allTransforms().empty());  // logical not connected to root
  EXPECT_THAT(t1->definition()->toString(), HasSubstr("(dynamic)"));
  // Symbolic with Symbolic stays Symbolic; with a concrete Iteration axis it is Iteration.
  TensorView* t2 = add(t1, t1);
  EXPECT_EQ(iterTypes(t2->getLogicalDomain()),
            (std::vector<IterType>{IterType::Symbolic, IterType::Symbolic}));
  TensorView* t3 = makeSymbolicTensor(2);
  f.addInput(t3);
  TensorView* t4 = add(t1, t3);
  EXPECT_EQ(iterTypes(t4->getLogicalDomain()),
            (std::vector<IterType>{IterType::Iteration, IterType::Iteration}));
  TensorView* t5 = add(t3, t1);
  EXPECT_EQ(iterTypes(t5->getLogicalDomain()),
            (std::vector<IterType>{IterType::Iteration, IterType::Iteration}));
  f.addOutput(t4);
  f.addOutput(t5);
  f.addOutput(t2);
  EXPECT_NO_THROW(verifyFusion(f));
}

TEST(ShapeOps, DynamicReshapeInfersConstantMinusOne) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* t0 = makeSymbolicTensor(2);
  Val* s0 = newScalar(DataType::Int64);
  TensorView* t1 = reshape(t0, std::vector<Val*>{s0, constInt(-1)});
  EXPECT_TRUE(t1->definition()->as<ViewOp>()->isDynamic());
  // numel / s0
  EXPECT_THAT(t1->getLogicalDomain()[1]->extent()->toInlineString(), HasSubstr("/"));
}

TEST(ShapeOps, AnalyzeViewSteps) {
  EXPECT_EQ(analyzeView({4, 3}, {3, 4}).toString(),
            "squeeze {false, false} steps {merge(0), split(0, 3)} broadcast {false, false}");
  EXPECT_EQ(analyzeView({4, 1, 3}, {2, 6, 1}).toString(),
            "squeeze {false, true, false} steps {split(0, 2), merge(1)} broadcast {false, "
            "false, true}");
  EXPECT_EQ(analyzeView({4, 3}, {1, 2, 1, 3, 2}).toString(),
            "squeeze {false, false} steps {split(0, 2), merge(1), split(1, 3)} broadcast "
            "{true, false, true, false, false}");
  EXPECT_EQ(analyzeView({7}, {7}).steps.size(), 0u);
}

TEST(ShapeOps, AnalyzeViewEqualityIsStructure) {
  EXPECT_EQ(analyzeView({3, 4}, {4, 3}), analyzeView({2, 8}, {4, 4}));
  EXPECT_EQ(analyzeView({3, 4}, {4, 3}).hash(), analyzeView({2, 8}, {4, 4}).hash());
  EXPECT_NE(analyzeView({3, 4}, {4, 3}), analyzeView({3, 4}, {2, 6}));
  EXPECT_NE(analyzeView({4, 3}, {2, 2, 3}), analyzeView({4, 3}, {3, 2, 2}));
  EXPECT_NE(analyzeView({4, 3}, {2, 2, 3}).hash(), analyzeView({4, 3}, {3, 2, 2}).hash());
  std::unordered_set<size_t> hashes;
  for (auto [in, out] : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
           {{4, 3}, {3, 4}}, {{4, 3}, {12}}, {{4, 3}, {3, 1, 4}}, {{4, 3}, {2, 6}}})
    hashes.insert(analyzeView(in, out).hash());
  EXPECT_EQ(hashes.size(), 4u);
}

TEST(ShapeOps, ApplyViewTransformsTakesSplitFactorsFromSizeVals) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* t0 = makeSymbolicTensor(2);
  Val* s0 = newScalar(DataType::Int64);
  Val* s1 = newScalar(DataType::Int64);
  TensorView* t1 = applyViewTransforms(t0, analyzeView({4, 3}, {3, 4}), {s0, s1});
  EXPECT_EQ(t1->getLogicalDomain()[0]->extent(), s0);
  EXPECT_FALSE(t1->definition()->as<ViewOp>()->isDynamic());
  // Nothing to do is still a new tensor.
  TensorView* t2 = applyViewTransforms(t0, analyzeView({4, 3}, {4, 3}));
  EXPECT_NE(t2, t0);
  EXPECT_TRUE(t2->definition()->isA<LoadStoreOp>());
}

TEST(ShapeOps, Flatten) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* t0 = makeContigConcreteTensor({2, 3, 5});
  TensorView* t1 = flatten(t0, 1);
  EXPECT_EQ(constExtents(t1->getLogicalDomain()), (std::vector<int64_t>{2, 15}));
  ASSERT_TRUE(t1->definition()->isA<ViewOp>());
  TensorView* t2 = flatten(t0);
  EXPECT_EQ(constExtents(t2->getLogicalDomain()), (std::vector<int64_t>{30}));
  EXPECT_THAT([&] { flatten(t0, 2, 1); },
              ThrowsMessage<UserError>(HasSubstr("start_dim 2 is after end_dim 1")));
}

TEST(ShapeOps, SqueezeAndUnsqueeze) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* t0 = makeContigConcreteTensor({4, 1, 3});
  TensorView* t1 = squeeze(t0, {1});
  EXPECT_EQ(constExtents(t1->getLogicalDomain()), (std::vector<int64_t>{4, 3}));
  ASSERT_TRUE(t1->definition()->isA<SqueezeOp>());
  EXPECT_THAT(t1->definition()->toString(), HasSubstr("squeeze(T0, {false, true, false})"));
  EXPECT_THAT([&] { squeeze(t0, {0}); },
              ThrowsMessage<UserError>(
                  AllOf(HasSubstr("squeeze: cannot squeeze axis 0 of T0"), HasSubstr("iS0{4}"),
                        HasSubstr("has extent 4 and is not a Broadcast axis"))));
  EXPECT_THAT(
      [&] {
        squeeze(t0, {1, -2});
      },
      ThrowsMessage<UserError>(HasSubstr("axis -2 is named twice")));
  TensorView* t2 = unsqueeze(t1, -1);
  EXPECT_EQ(iterTypes(t2->getLogicalDomain()),
            (std::vector<IterType>{IterType::Iteration, IterType::Iteration, IterType::Broadcast}));
  TensorView* t3 = unsqueeze(t1, 0);
  EXPECT_TRUE(t3->getLogicalDomain()[0]->isBroadcast());
}

TEST(ShapeOps, PermuteAndTranspose) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* t0 = makeContigConcreteTensor({2, 3, 5});
  f.addInput(t0);
  TensorView* t1 = permute(t0, {2, 0, 1});
  f.addOutput(t1);
  ASSERT_TRUE(t1->definition()->isA<LoadStoreOp>());
  EXPECT_TRUE(isPermute(t1->definition()));
  const auto& root = t1->domain()->root();
  const auto& logical = t1->getLogicalDomain();
  EXPECT_EQ(constExtents(root), (std::vector<int64_t>{2, 3, 5}));
  EXPECT_EQ(logical, (std::vector<IterDomain*>{root[2], root[0], root[1]}));
  EXPECT_THAT(t1->definition()->toString(), HasSubstr("permute(T0, {2, 0, 1})"));
  TensorView* t2 = transpose(t0, 0, -1);
  EXPECT_EQ(constExtents(t2->getLogicalDomain()), (std::vector<int64_t>{5, 3, 2}));
  EXPECT_THAT(
      [&] {
        permute(t0, {0, 0, 1});
      },
      ThrowsMessage<UserError>(HasSubstr("names axis 0 twice; it must be a permutation")));
  EXPECT_THAT(
      [&] {
        permute(t0, {0, 1});
      },
      ThrowsMessage<UserError>(HasSubstr("has 3 axes but the permutation [0, 1] has 2")));
  EXPECT_NO_THROW(verifyFusion(f));
}

TEST(ShapeOps, Expand) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* t0 = makeContigConcreteTensor({1, 3, 1});
  Val* s = newScalar(DataType::Int64);
  TensorView* t1 = expand(t0, {constInt(5), constInt(-1), s});
  ASSERT_TRUE(t1->definition()->isA<ExpandOp>());
  EXPECT_EQ(iterTypes(t1->getLogicalDomain()),
            (std::vector<IterType>{IterType::Iteration, IterType::Iteration, IterType::Symbolic}));
  EXPECT_EQ(t1->getLogicalDomain()[0]->extent()->constInt(), 5);
  EXPECT_EQ(t1->getLogicalDomain()[2]->extent(), s);
  TensorView* t2 = expand(t0, {constInt(1), constInt(3), constInt(-1)});
  EXPECT_EQ(iterTypes(t2->getLogicalDomain()),
            (std::vector<IterType>{IterType::Broadcast, IterType::Iteration, IterType::Broadcast}));
  EXPECT_THAT(t1->definition()->toString(), HasSubstr("expand(T0, {5, -1, i"));
  EXPECT_THAT(
      [&] {
        expand(t0, {constInt(5), constInt(4), constInt(-1)});
      },
      ThrowsMessage<UserError>(AllOf(HasSubstr("expand: axis 1 of T0"),
                                     HasSubstr("is not a Broadcast axis; it keeps its "
                                               "extent 3 and cannot be expanded to 4"))));
  EXPECT_THAT([&] { expand(t0, {constInt(5)}); },
              ThrowsMessage<UserError>(HasSubstr("has 3 axes but 1 sizes were given")));
}

TEST(ShapeOps, CloneKeepsShapeOps) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* t0 = makeContigConcreteTensor({4, 1, 3});
  Val* s = newScalar(DataType::Int64);
  f.addInput(t0);
  f.addInput(s);
  TensorView* t1 = reshape(t0, {4, 1, 3}, {3, 4});
  TensorView* t2 = permute(t1, {1, 0});
  TensorView* t3 = squeeze(t0, {1});
  TensorView* t4 = expand(unsqueeze(t3, 0), {s, constInt(-1), constInt(-1)});
  TensorView* t5 = reshape(t2, std::vector<Val*>{s, constInt(-1)});
  f.addOutput(t2);
  f.addOutput(t4);
  f.addOutput(t5);
  Fusion copy(f);
  EXPECT_EQ(copy.mathString(), f.mathString());
  EXPECT_EQ(copy.transformsString(), f.transformsString());
  EXPECT_NO_THROW(verifyFusion(copy));
  for (TensorView* tv : copy.allTvs()) {
    if (tv->definition() != nullptr && tv->definition()->isA<ViewOp>()) {
      EXPECT_EQ(tv->definition()->as<ViewOp>()->isDynamic(),
                tv->getLogicalDomain()[0]->isSymbolic());
    }
  }
}

}  // namespace
}  // namespace mf
