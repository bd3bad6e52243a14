// DynamicTransform (ir/dynamic_transform.h), in the style of nvFuser's
// test_dynamic_transform.cpp: which axes are symbolic after definition, what the
// concretization info records for given sizes (and its errors), and that concretizeFusion
// leaves no dynamic transform. Everything is reachable from minifuser.h.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unordered_set>

#include "minifuser.h"
#include "unit/concretization/concretization_test_utils.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// A dynamic reshape's output axes are Symbolic; its consumer added to a concrete tensor is
// not (the concrete operand gives the axis its type), on either side of the add.
TEST(DynamicTransform, SymbolicAxesAfterDefinition) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  TensorView* tv1 = makeSymbolicTensor(2);
  Val* s0 = newScalar(DataType::Index);
  Val* s1 = newScalar(DataType::Index);
  fusion.addInput(tv0);
  fusion.addInput(tv1);
  fusion.addInput(s0);
  fusion.addInput(s1);
  TensorView* tv2 = reshape(tv0, {s0, s1});
  TensorView* tv3 = add(tv1, tv2);
  TensorView* tv4 = add(tv2, tv1);
  TensorView* tv5 = set(tv2);
  fusion.addOutput(tv3);
  fusion.addOutput(tv4);
  fusion.addOutput(tv5);
  EXPECT_TRUE(tv2->domain()->hasSymbolicAxis()) << tv2->toString();
  EXPECT_FALSE(tv3->domain()->hasSymbolicAxis()) << tv3->toString();
  EXPECT_FALSE(tv4->domain()->hasSymbolicAxis()) << tv4->toString();
  EXPECT_TRUE(tv5->domain()->hasSymbolicAxis()) << tv5->toString();
  EXPECT_TRUE(fusion.hasDynamicTransform());

  DynamicTransformInitialInfo info = DynamicTransform::getInitialInfo(&fusion);
  EXPECT_TRUE(info.isDynamic());
  EXPECT_EQ(info.getDynamicReshapedTensorViews(), (std::vector<TensorView*>{tv2}));
  EXPECT_EQ(info.scalarInputsAffectingConcretization(), (std::vector<Val*>{s0, s1}));
}

// A reshape whose sizes are all constants is static: nothing is symbolic.
TEST(DynamicTransform, ConstantSizesMakeAStaticReshape) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeConcreteTensor({3, 4});
  fusion.addInput(tv0);
  TensorView* tv1 = reshape(tv0, {constInt(4), constInt(3)});
  fusion.addOutput(tv1);
  EXPECT_FALSE(tv1->domain()->hasSymbolicAxis());
  EXPECT_FALSE(fusion.hasDynamicTransform());
  EXPECT_TRUE(DynamicTransform::getInitialInfo(&fusion).getDynamicReshapedTensorViews().empty());
}

// One dynamic reshape, one transform; a -1 from a scalar and element counts that differ
// are the pinned errors.
TEST(DynamicTransform, ReshapeInfoAndErrors) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  TensorView* tv1 = makeSymbolicTensor(2);
  Val* s0 = newScalar(DataType::Index);
  Val* s1 = newScalar(DataType::Index);
  fusion.addInput(tv0);
  fusion.addInput(tv1);
  fusion.addInput(s0);
  fusion.addInput(s1);
  fusion.addOutput(add(tv1, reshape(tv0, {s0, s1})));
  DynamicTransformInitialInfo initial = DynamicTransform::getInitialInfo(&fusion);
  auto infoFor = [&](std::vector<int64_t> in, std::vector<int64_t> out) {
    ExpressionEvaluator ee;
    bindSizes(ee, tv0, in);
    bindSizes(ee, tv1, out);
    ee.bind(s0, out[0]);
    ee.bind(s1, out[1]);
    return DynamicTransformConcretizationInfo(&initial, &ee);
  };
  DynamicTransformConcretizationInfo info = infoFor({4, 3}, {3, 4});
  ASSERT_EQ(info.getReshapeTransforms().size(), 1u) << info.toString();
  EXPECT_EQ(info.getReshapeTransforms()[0].first, 0);
  EXPECT_THAT(info.toString(), HasSubstr("reshape T"));

  EXPECT_THAT(
      [&] {
        infoFor({4, 3}, {3, -1});
      },
      ThrowsMessage<UserError>(
          HasSubstr("Values of -1 passed to reshape must be constant at definition")));
  EXPECT_THAT(
      [&] {
        infoFor({4, 3}, {5, 4});
      },
      ThrowsMessage<UserError>(
          HasSubstr("Total element counts across view operation must match:")));
}

// Binding tv0 and tv2 suffices: tv1's extents (the reshape's sizes) map exactly to tv2's.
TEST(DynamicTransform, SizesInferredThroughExactMaps) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  TensorView* tv1 = makeSymbolicTensor(2);
  TensorView* tv2 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  fusion.addInput(tv1);
  fusion.addInput(tv2);
  TensorView* tv3 = reshape(tv0, {tv1->axis(0)->extent(), tv1->axis(1)->extent()});
  fusion.addOutput(add(tv3, add(tv1, tv2)));
  ExpressionEvaluator ee;
  bindSizes(ee, tv0, {4, 3});
  bindSizes(ee, tv2, {3, 4});
  DynamicTransformInitialInfo initial = DynamicTransform::getInitialInfo(&fusion);
  DynamicTransformConcretizationInfo info(&initial, &ee);
  EXPECT_EQ(info.getReshapeTransforms().size(), 1u) << info.toString();
}

// Chains of dynamic reshapes concretize to static reshapes: no Symbolic axis is left, in
// any domain, and the result is the input's data in the last shape.
TEST(DynamicTransform, ReshapeChainsConcretize) {
  const std::vector<std::vector<std::vector<int64_t>>> chains = {
      {{4, 3}, {3, 4}},
      {{4, 3}, {3, 4}, {12}},
      {{4, 3}, {3, 1, 4}, {12, 1}},
      {{4, 3}, {12}, {3, 4}},
      {{4, 3}, {1, 2, 1, 3, 2}, {3, 4}},
  };
  for (const auto& chain : chains) {
    SCOPED_TRACE(shapesString(chain));
    ReshapeChain f(chain);
    ExpressionEvaluator ee;
    f.bind(ee, chain);
    DynamicTransformInitialInfo initial = DynamicTransform::getInitialInfo(f.fusion.get());
    EXPECT_EQ(initial.getDynamicReshapedTensorViews().size(), chain.size() - 1);
    DynamicTransformConcretizationInfo info(&initial, &ee);
    DynamicTransform::concretizeFusion(f.fusion.get(), &info);
    expectConcrete(*f.fusion);
    const Tensor in = Tensor::random(chain[0], DataType::Float, 7);
    const Tensor out = ReferenceEvaluator(f.fusion.get()).run(f.inputs(in, chain)).at(0);
    EXPECT_EQ(out.sizes(), chain.back());
    for (int64_t i = 0; i < in.numel(); ++i) ASSERT_EQ(out.item(i), in.item(i)) << i;
  }
}

// A size-1 axis of a symbolic input is an Iteration axis: the analysis merges it into a
// neighbour (a squeeze of an Iteration axis is no pointwise op). A Broadcast axis is squeezed.
TEST(DynamicTransform, SizeOneIterationAxisIsMergedNotSqueezed) {
  for (bool broadcast : {false, true}) {
    SCOPED_TRACE(broadcast ? "broadcast" : "iteration");
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* tv0 = broadcast ? makeConcreteTensor({-1, 1, -1}) : makeSymbolicTensor(3);
    Val* s0 = newScalar(DataType::Index);
    fusion.addInput(tv0);
    fusion.addInput(s0);
    fusion.addOutput(reshape(tv0, {s0}));
    ExpressionEvaluator ee;
    bindSizes(ee, tv0, {5, 1, 7});
    ee.bind(s0, int64_t{35});
    DynamicTransformInitialInfo initial = DynamicTransform::getInitialInfo(&fusion);
    DynamicTransformConcretizationInfo info(&initial, &ee);
    ASSERT_EQ(info.getReshapeTransforms().size(), 1u);
    EXPECT_EQ(info.getReshapeTransforms()[0].second.toString(),
              broadcast
                  ? "squeeze {false, true, false} steps {merge(0)} broadcast {false}"
                  : "squeeze {false, false, false} steps {merge(0), merge(0)} broadcast {false}");
    DynamicTransform::concretizeFusion(&fusion, &info);
    expectConcrete(fusion);
    const Tensor in = Tensor::arange({5, 1, 7}, DataType::Float);
    const Tensor out = ReferenceEvaluator(&fusion).run({in, scalarTensor(35)}).at(0);
    ASSERT_EQ(out.sizes(), (std::vector<int64_t>{35}));
    EXPECT_EQ(out.item(34), 34.0);
  }
}

// Concretization info compares structure, not sizes: the view steps with their split
// factors (the static sizes of the output), not the input's sizes. [3,4]->[4,3] and
// [2,8]->[4,4] merge and split with outer extent 4; [3,4]->[2,6] splits by 2.
TEST(DynamicTransform, InfoEqualityComparesStructure) {
  struct Pattern {
    std::vector<std::vector<int64_t>> ref;
    std::vector<std::vector<std::vector<int64_t>>> equal, different;
  };
  const std::vector<Pattern> patterns = {
      {{{3, 4}, {4, 3}},
       {{{2, 8}, {4, 4}}, {{3, 8}, {4, 6}}},
       {{{3, 4}, {2, 6}}, {{5, 7}, {7, 5}}}},
      {{{3, 4}, {12}, {1, 4, 3}},
       {{{5, 8}, {40}, {1, 4, 10}}},
       {{{3, 4}, {12}, {4, 1, 3}}, {{3, 4}, {12}, {4, 3, 1}}}},
  };
  for (const Pattern& p : patterns) {
    SCOPED_TRACE(shapesString(p.ref));
    ReshapeChain f(p.ref);
    DynamicTransformInitialInfo initial = DynamicTransform::getInitialInfo(f.fusion.get());
    auto infoFor = [&](const std::vector<std::vector<int64_t>>& shapes) {
      ExpressionEvaluator ee;
      f.bind(ee, shapes);
      return DynamicTransformConcretizationInfo(&initial, &ee);
    };
    const DynamicTransformConcretizationInfo ref = infoFor(p.ref);
    for (const auto& shapes : p.equal) {
      const DynamicTransformConcretizationInfo info = infoFor(shapes);
      EXPECT_EQ(ref, info) << shapesString(shapes) << "\n" << ref.toString() << info.toString();
      EXPECT_EQ(ref.hash(), info.hash());
    }
    for (const auto& shapes : p.different) EXPECT_NE(ref, infoFor(shapes)) << shapesString(shapes);
  }
}

// A hash table of infos keeps one entry per structure; [4,3]->[2,2,3] and [4,3]->[3,2,2]
// hash differently.
TEST(DynamicTransform, InfoHashTable) {
  ReshapeChain f({{4, 3}, {2, 2, 3}});
  DynamicTransformInitialInfo initial = DynamicTransform::getInitialInfo(f.fusion.get());
  auto infoFor = [&](std::vector<std::vector<int64_t>> shapes) {
    ExpressionEvaluator ee;
    f.bind(ee, shapes);
    return DynamicTransformConcretizationInfo(&initial, &ee);
  };
  const auto a = infoFor({{4, 3}, {2, 2, 3}});
  const auto b = infoFor({{4, 3}, {3, 2, 2}});
  EXPECT_NE(a, b);
  EXPECT_NE(std::hash<DynamicTransformConcretizationInfo>{}(a),
            std::hash<DynamicTransformConcretizationInfo>{}(b))
      << a.toString() << b.toString();
  std::unordered_set<DynamicTransformConcretizationInfo> infos;
  for (auto shapes : std::vector<std::vector<std::vector<int64_t>>>{{{4, 3}, {2, 2, 3}},
                                                                    {{4, 3}, {3, 2, 2}},
                                                                    {{4, 5}, {2, 2, 5}},
                                                                    {{4, 7}, {2, 2, 7}},
                                                                    {{4, 3}, {2, 2, 3}}})
    infos.insert(infoFor(shapes));
  EXPECT_EQ(infos.size(), 2u);
}

// A reshape then a pad, and a reshape then a slice: no dynamic transform left.
TEST(DynamicTransform, ReshapeThenResizeConcretizes) {
  for (bool use_pad : {true, false}) {
    SCOPED_TRACE(use_pad ? "pad" : "slice");
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* tv0 = makeSymbolicTensor(2);
    Val* s0 = newScalar(DataType::Index);
    Val* s1 = newScalar(DataType::Index);
    fusion.addInput(tv0);
    fusion.addInput(s0);
    fusion.addInput(s1);
    TensorView* tv1 = reshape(tv0, {s0, s1});
    TensorView* tv2 =
        use_pad
            ? pad(tv1, {constInt(1), constInt(2), constInt(1), constInt(1)})
            : slice(tv1, {Slice{}, Slice{constInt(1), sub(tv1->axis(1)->extent(), constInt(1))}});
    fusion.addOutput(set(tv2));
    ExpressionEvaluator ee;
    bindSizes(ee, tv0, {4, 3});
    ee.bind(s0, int64_t{3});
    ee.bind(s1, int64_t{4});
    DynamicTransformInitialInfo initial = DynamicTransform::getInitialInfo(&fusion);
    DynamicTransformConcretizationInfo info(&initial, &ee);
    DynamicTransform::concretizeFusion(&fusion, &info);
    expectConcrete(fusion);
    const Tensor in = Tensor::arange({4, 3}, DataType::Float);
    const Tensor out =
        ReferenceEvaluator(&fusion).run({in, scalarTensor(3), scalarTensor(4)}).at(0);
    if (use_pad) {
      ASSERT_EQ(out.sizes(), (std::vector<int64_t>{5, 7}));
      EXPECT_EQ(out.item(0), 0.0);           // padding
      EXPECT_EQ(out.item(1 * 7 + 2), 1.0);   // reshaped [0][1]
      EXPECT_EQ(out.item(2 * 7 + 1), 4.0);   // reshaped [1][0]
      EXPECT_EQ(out.item(3 * 7 + 4), 11.0);  // reshaped [2][3]
      EXPECT_EQ(out.item(3 * 7 + 5), 0.0);   // padding
    } else {
      ASSERT_EQ(out.sizes(), (std::vector<int64_t>{3, 2}));
      EXPECT_EQ(out.item(0), 1.0);
      EXPECT_EQ(out.item(5), 10.0);
    }
  }
}

}  // namespace
}  // namespace mf
