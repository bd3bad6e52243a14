// concretizeFusion on the other dynamic ops: resizes (extent 1 is a broadcast), expands
// (and the mismatch error), squeezes of axes made by a reshape (and the broadcast error),
// empty extents, and the layout op downstream of a dynamic reshape, whose declared padded
// allocation domain must follow the substitution as every other domain does (nvFuser
// #5384).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "minifuser.h"
#include "tensor/arguments.h"
#include "unit/concretization/concretization_test_utils.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// Concretizes `fusion` for `inputs` (bound as a run binds them) and returns the info.
std::string concretizeFor(Fusion& fusion, const std::vector<Tensor>& inputs) {
  ExpressionEvaluator ee;
  bindFusionInputs(fusion, inputs, ee, "test");
  DynamicTransformInitialInfo initial = DynamicTransform::getInitialInfo(&fusion);
  DynamicTransformConcretizationInfo info(&initial, &ee);
  std::string s = info.toString();
  DynamicTransform::concretizeFusion(&fusion, &info);
  return s;
}

// Every extent of every axis of every domain evaluates with only the fusion's inputs bound:
// nothing refers to a node the concretizer replaced.
void expectExtentsEvaluate(const Fusion& fusion, const std::vector<Tensor>& inputs) {
  ExpressionEvaluator ee;
  bindFusionInputs(fusion, inputs, ee, "test");
  for (TensorView* tv : fusion.allTvs())
    for (IterDomain* id : tv->domain()->allIds())
      EXPECT_TRUE(ee.evaluate(id->extent()).has_value())
          << id->toString() << " of " << tv->toString();
}

// pad by a scalar width: the resized axis is Symbolic, and concretizes to a Broadcast when
// its extent is 1, else to Iteration.
TEST(ConcretizeOps, ResizeToOneIsBroadcast) {
  for (int64_t width : {-1, 2}) {
    SCOPED_TRACE(width);
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* tv0 = makeSymbolicTensor(2);
    Val* w = newScalar(DataType::Index);
    fusion.addInput(tv0);
    fusion.addInput(w);
    TensorView* tv1 = pad(tv0, {w, w});
    fusion.addOutput(tv1);
    ASSERT_TRUE(tv1->domain()->hasSymbolicAxis()) << tv1->toString();
    const std::vector<Tensor> in = {Tensor::arange({5, 3}, DataType::Float), scalarTensor(width)};
    concretizeFor(fusion, in);
    expectConcrete(fusion);
    IterDomain* resized = fusion.outputs()[0]->as<TensorView>()->getLogicalDomain()[1];
    EXPECT_EQ(resized->iterType(), width == -1 ? IterType::Broadcast : IterType::Iteration);
    const Tensor out = ReferenceEvaluator(&fusion).run(in).at(0);
    ASSERT_EQ(out.sizes(), (std::vector<int64_t>{5, 3 + 2 * width}));
    EXPECT_EQ(out.item(3 + 2 * width + (width == -1 ? 0 : 2)), width == -1 ? 4.0 : 3.0);
  }
}

// expand of an axis a reshape made: size 1 expands (to Iteration of the expand size); any
// other size must equal the expanded one.
TEST(ConcretizeOps, ExpandAfterReshape) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1);
  Val* s0 = newScalar(DataType::Index);
  Val* s1 = newScalar(DataType::Index);
  Val* e0 = newScalar(DataType::Index);
  for (Val* v : std::vector<Val*>{tv0, s0, s1, e0}) fusion.addInput(v);
  TensorView* tv1 = reshape(tv0, {s0, s1});
  TensorView* tv2 = expand(tv1, {e0, constInt(-1)});
  fusion.addOutput(tv2);
  auto inputs = [](int64_t s0, int64_t s1, int64_t e0) {
    return std::vector<Tensor>{Tensor::arange({s0 * s1}, DataType::Float), scalarTensor(s0),
                               scalarTensor(s1), scalarTensor(e0)};
  };
  {
    Fusion copy(fusion);
    const std::vector<Tensor> in = inputs(1, 7, 6);
    concretizeFor(copy, in);
    expectConcrete(copy);
    IterDomain* expanded = copy.outputs()[0]->as<TensorView>()->getLogicalDomain()[0];
    EXPECT_EQ(expanded->iterType(), IterType::Iteration);
    const Tensor out = ReferenceEvaluator(&copy).run(in).at(0);
    ASSERT_EQ(out.sizes(), (std::vector<int64_t>{6, 7}));
    EXPECT_EQ(out.item(5 * 7 + 3), 3.0);
  }
  {
    Fusion copy(fusion);
    const std::vector<Tensor> in = inputs(4, 3, 4);  // same size: nothing to expand
    concretizeFor(copy, in);
    expectConcrete(copy);
    EXPECT_EQ(ReferenceEvaluator(&copy).run(in).at(0).item(11), 11.0);
  }
  Fusion copy(fusion);
  EXPECT_THAT([&] { concretizeFor(copy, inputs(4, 3, 6)); },
              ThrowsMessage<UserError>(
                  HasSubstr("Mismatch in sizes when concretizing expand. Axis 0 of T")));
}

// squeeze of a size-1 axis made by a reshape concretizes; of another size it is an error.
TEST(ConcretizeOps, SqueezeOfReshapedAxis) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1);
  Val* s0 = newScalar(DataType::Index);
  Val* s1 = newScalar(DataType::Index);
  for (Val* v : std::vector<Val*>{tv0, s0, s1}) fusion.addInput(v);
  TensorView* tv1 = reshape(tv0, {s0, s1});
  fusion.addOutput(squeeze(tv1, {0}));
  {
    Fusion copy(fusion);
    const std::vector<Tensor> in = {Tensor::arange({5}, DataType::Float), scalarTensor(1),
                                    scalarTensor(5)};
    concretizeFor(copy, in);
    expectConcrete(copy);
    const Tensor out = ReferenceEvaluator(&copy).run(in).at(0);
    ASSERT_EQ(out.sizes(), (std::vector<int64_t>{5}));
    EXPECT_EQ(out.item(4), 4.0);
  }
  Fusion copy(fusion);
  EXPECT_THAT(
      [&] {
        concretizeFor(copy,
                      {Tensor::arange({6}, DataType::Float), scalarTensor(2), scalarTensor(3)});
      },
      ThrowsMessage<UserError>(
          HasSubstr("must concretize to IterType::Broadcast but found IterType::Iteration")));
}

// An extent that is 0 in a run becomes the constant 0 in every domain and extent expression
// that uses it; the rest still evaluates from the inputs.
TEST(ConcretizeOps, EmptyExtentsBecomeZero) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = exp(tv0);
  tv1->split(0, 4);
  fusion.addOutput(tv1);
  const std::vector<Tensor> in = {Tensor::random({0, 9}, DataType::Float, 1)};
  const std::string info = concretizeFor(fusion, in);
  EXPECT_THAT(info, HasSubstr("empty extents: i0"));
  EXPECT_EQ(tv0->axis(0)->extent()->constInt(), 0);
  EXPECT_EQ(tv1->getLogicalDomain()[0]->extent()->constInt(), 0);
  EXPECT_FALSE(tv1->getLogicalDomain()[1]->extent()->isConst());
  expectExtentsEvaluate(fusion, in);
}

// A crop of a broadcast to nothing: cat([x[:, 0:1], x[:, 1:1]], 1) is one column (a
// broadcast), padded by (-1, 0) to zero columns. The empty slice's extent is substituted by
// 0, which rebuilds the pad's Resize; the rebuilt output still takes the info's IterType
// (Iteration, extent 0), not its input's (random fusion seed 4443 of `--shape-ops --small`:
// an empty output written as a broadcast, out of bounds).
TEST(ConcretizeOps, CropOfABroadcastToNothingIsEmpty) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  TensorView* a = slice(tv0, {Slice{}, Slice{constInt(0), constInt(1)}});
  TensorView* e = slice(tv0, {Slice{}, Slice{constInt(1), constInt(1)}});
  TensorView* tv1 = pad(cat({a, e}, 1), {constInt(-1), constInt(0)});
  fusion.addOutput(tv1);
  const std::vector<Tensor> in = {Tensor::random({7, 1}, DataType::Float, 2)};
  concretizeFor(fusion, in);
  expectConcrete(fusion);
  IterDomain* cropped = fusion.outputs()[0]->as<TensorView>()->getLogicalDomain()[1];
  EXPECT_EQ(cropped->iterType(), IterType::Iteration) << cropped->toString();
  EXPECT_EQ(ReferenceEvaluator(&fusion).run(in).at(0).sizes(), (std::vector<int64_t>{7, 0}));
}

// The layout op reads a dynamic reshape whose sizes are another input's extents. After
// concretization its logical axes are Iteration and its declared padded allocation domain
// [M + 127*G, ceilDiv(K, 4)*4] evaluates from the inputs alone, for a run with rows and for
// an empty one (M = 0: the extent M is replaced by 0 everywhere, the allocation's
// expressions included).
TEST(ConcretizeOps, LayoutOpAllocationFollowsConcretization) {
  for (int64_t m : {200, 0}) {
    SCOPED_TRACE(m);
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* tv0 = makeContigTensor(1);
    TensorView* like = makeContigTensor(2);
    TensorView* in_off = makeContigTensor(1, DataType::Int32);
    TensorView* out_off = makeContigTensor(1, DataType::Int32);
    for (TensorView* tv : {tv0, like, in_off, out_off}) fusion.addInput(tv);
    TensorView* tv1 = reshape(tv0, {like->axis(0)->extent(), like->axis(1)->extent()});
    TensorView* out = preprocessGroupedMatmulInputSf(tv1, in_off, out_off);
    fusion.addOutput(out);
    fusion.addOutput(neg(like));
    ASSERT_TRUE(out->domain()->hasSymbolicAxis());
    const int64_t k = 6;
    const std::vector<Tensor> in = {
        Tensor::random({m * k}, DataType::Float, 1), Tensor::random({m, k}, DataType::Float, 2),
        Tensor::fromVector<int32_t>({0, static_cast<int32_t>(m / 2)}, {2}),
        Tensor::fromVector<int32_t>({0, 128}, {2})};
    concretizeFor(fusion, in);
    expectConcrete(fusion);
    expectExtentsEvaluate(fusion, in);
    TensorView* concrete = fusion.outputs()[0]->as<TensorView>();
    EXPECT_EQ(concrete, out);  // concretized in place
    ASSERT_TRUE(concrete->domain()->allocationDeclared());
    ExpressionEvaluator ee;
    bindFusionInputs(fusion, in, ee, "test");
    const auto& alloc = concrete->domain()->allocation();
    EXPECT_EQ(ee.evaluateInt(alloc[0]->extent(), "padded rows"), m + 127 * 2);
    EXPECT_EQ(ee.evaluateInt(alloc[1]->extent(), "padded cols"), 8);
    for (IterDomain* id : concrete->getLogicalDomain()) EXPECT_FALSE(id->isSymbolic());
  }
}

}  // namespace
}  // namespace mf
