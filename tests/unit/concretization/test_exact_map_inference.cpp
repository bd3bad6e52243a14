// ExpressionEvaluator::propagateBoundValuesThroughExactMaps: extents not bound directly are
// inferred through exact maps, as DynamicTransformConcretizationInfo needs (a test binds the
// sizes it knows; the rest follows). Everything here is reachable from minifuser.h.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "minifuser.h"

namespace mf {
namespace {

// tv1 and tv2 meet in an add, so their axes are exactly mapped: binding tv2 binds tv1.
TEST(ExactMapInference, BindsMappedExtents) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  TensorView* tv1 = makeSymbolicTensor(2);
  TensorView* tv2 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  fusion.addInput(tv1);
  fusion.addInput(tv2);
  fusion.addOutput(add(tv1, tv2));
  fusion.addOutput(neg(tv0));
  ExpressionEvaluator ee;
  ee.bind(tv0->axis(0)->extent(), int64_t{4});
  ee.bind(tv0->axis(1)->extent(), int64_t{3});
  ee.bind(tv2->axis(0)->extent(), int64_t{7});
  ee.bind(tv2->axis(1)->extent(), int64_t{5});
  EXPECT_FALSE(ee.evaluate(tv1->axis(0)->extent()).has_value());
  ee.propagateBoundValuesThroughExactMaps(fusion);
  EXPECT_EQ(ee.evaluateInt(tv1->axis(0)->extent(), "tv1 axis 0"), 7);
  EXPECT_EQ(ee.evaluateInt(tv1->axis(1)->extent(), "tv1 axis 1"), 5);
}

// A broadcast axis is not exactly mapped to the axis it is broadcast to: its extent (1)
// never flows into the other operand's, and an unmapped extent stays unbound.
TEST(ExactMapInference, BroadcastAndUnmappedAxesStayUnbound) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1);
  TensorView* tv1 = makeSymbolicTensor(2);
  TensorView* tv2 = makeSymbolicTensor(1);
  fusion.addInput(tv0);
  fusion.addInput(tv1);
  fusion.addInput(tv2);
  fusion.addOutput(add(broadcast(tv0, {true, false}), tv1));
  fusion.addOutput(neg(tv2));
  ExpressionEvaluator ee;
  ee.bind(tv0->axis(0)->extent(), int64_t{6});
  ee.propagateBoundValuesThroughExactMaps(fusion);
  EXPECT_EQ(ee.evaluateInt(tv1->axis(1)->extent(), "tv1 axis 1"), 6);
  EXPECT_FALSE(ee.evaluate(tv1->axis(0)->extent()).has_value());
  EXPECT_FALSE(ee.evaluate(tv2->axis(0)->extent()).has_value());
}

// A fusion without Symbolic axes has no dynamic transform.
TEST(ExactMapInference, StaticFusionHasNoSymbolicAxis) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = exp(tv0);
  fusion.addOutput(tv1);
  EXPECT_FALSE(tv1->domain()->hasSymbolicAxis());
  EXPECT_FALSE(fusion.hasDynamicTransform());
}

}  // namespace
}  // namespace mf
