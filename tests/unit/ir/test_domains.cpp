// Scheduling verbs on a tensor's loop domain: split, merge, reorder, axis, parallelize, and the
// extents they build through the simplifying builder.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/builder.h"
#include "ir/fusion.h"
#include "ir/tensor_view.h"
#include "ops/tensor_factories.h"

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace mf {
namespace {

// A tensor with one reduction axis: [rS0{i0}, iS1{i1}].
TensorView* makeReductionTensor() {
  std::vector<IterDomain*> ids = {
      IterDomainBuilder(newScalar(DataType::Index)).iterType(IterType::Reduction).build(),
      IterDomainBuilder(newScalar(DataType::Index)).build()};
  return IrBuilder::create<TensorView>(IrBuilder::create<TensorDomain>(ids), DataType::Float);
}

// An inner split by a constant puts the factor on the inner axis and ceilDiv on the outer;
// only the loop domain changes.
TEST(Domains, InnerSplitByConstant) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeSymbolicTensor(2);
  tv->split(1, 4);
  EXPECT_EQ(tv->toString(), "T0_l_float[iS0{i0}, iS2{ceilDiv(i1, 4)}, iS3{4}]");
  EXPECT_EQ(tv->nDims(), 3);
  ASSERT_EQ(tv->getLogicalDomain().size(), 2u);
  EXPECT_EQ(tv->getLogicalDomain()[1]->toString(), "iS1{i1}");
  auto* split = tv->axis(1)->definition();
  ASSERT_NE(split, nullptr);
  ASSERT_TRUE(split->isA<Split>());
  EXPECT_TRUE(split->as<Split>()->innerSplit());
  EXPECT_EQ(split->as<Split>()->in(), tv->getLogicalDomain()[1]);
}

// An outer split puts the factor on the outer axis.
TEST(Domains, OuterSplitByConstant) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeSymbolicTensor(2);
  tv->split(0, 8, /*inner_split=*/false);
  EXPECT_EQ(tv->toString(), "T0_l_float[iS2{8}, iS3{ceilDiv(i0, 8)}, iS1{i1}]");
  EXPECT_FALSE(tv->axis(0)->definition()->as<Split>()->innerSplit());
}

// A symbolic factor Val is used as is: inner extent = the factor, outer = ceilDiv(in, factor).
TEST(Domains, SplitBySymbolicFactor) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeSymbolicTensor(2);
  Val* factor = newScalar(DataType::Index);
  tv->split(0, factor);
  EXPECT_EQ(tv->toString(), "T0_l_float[iS2{ceilDiv(i0, i2)}, iS3{i2}, iS1{i1}]");
  EXPECT_EQ(tv->axis(1)->extent(), factor);
}

// A negative axis counts from the end.
TEST(Domains, SplitNegativeAxis) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeSymbolicTensor(2);
  tv->split(-1, 16);
  EXPECT_EQ(tv->toString(), "T0_l_float[iS0{i0}, iS2{ceilDiv(i1, 16)}, iS3{16}]");
  tv->split(-3, 2);
  EXPECT_EQ(tv->toString(),
            "T0_l_float[iS4{ceilDiv(i0, 2)}, iS5{2}, iS2{ceilDiv(i1, 16)}, iS3{16}]");
}

// Splitting by 1 adds a unit axis; ceilDiv(x, 1) simplifies to x itself.
TEST(Domains, SplitByOneKeepsExtent) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeSymbolicTensor(1);
  Val* extent = tv->axis(0)->extent();
  tv->split(0, 1);
  EXPECT_EQ(tv->axis(0)->extent(), extent);
  EXPECT_EQ(tv->toString(), "T0_l_float[iS1{i0}, iS2{1}]");
}

// The factor of a split must be a positive integer.
TEST(Domains, SplitFactorErrors) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeSymbolicTensor(2);
  EXPECT_THAT([&] { tv->split(0, int64_t{0}); },
              ThrowsMessage<UserError>(HasSubstr(
                  "split of T0_l_float[iS0{i0}, iS1{i1}]: the factor must be positive, got 0")));
  EXPECT_THAT(
      [&] { tv->split(0, constInt(-2)); },
      ThrowsMessage<UserError>(HasSubstr("split of iS0{i0}: the factor must be positive, got -2")));
  EXPECT_THAT([&] { tv->split(1, newScalar(DataType::Double)); },
              ThrowsMessage<UserError>(
                  HasSubstr("split of iS1{i1}: the factor must be an integer, got double")));
  EXPECT_EQ(tv->nDims(), 2);
}

// A parallelized axis cannot be split: its hardware binding would be ambiguous.
TEST(Domains, SplitOfParallelizedAxisRejected) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeSymbolicTensor(1);
  tv->parallelize(0, ParallelType::TIDx);
  EXPECT_THAT([&] { tv->split(0, 32); },
              ThrowsMessage<UserError>(HasSubstr(
                  "split: axis 0 (ithreadIdx.x0{i0}) is already parallelized; split before "
                  "parallelizing")));
}

// Merging adjacent axes gives one axis of extent outer * inner.
TEST(Domains, MergeAdjacent) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeSymbolicTensor(3);
  tv->merge(1);
  EXPECT_EQ(tv->toString(), "T0_l_float[iS0{i0}, iS3{( i1 * i2 )}]");
  auto* merge = tv->axis(1)->definition()->as<Merge>();
  EXPECT_EQ(merge->outer(), tv->getLogicalDomain()[1]);
  EXPECT_EQ(merge->inner(), tv->getLogicalDomain()[2]);
}

// A non-adjacent merge puts the merged axis at the smaller position; the argument order
// decides which axis is outer.
TEST(Domains, MergeNonAdjacent) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(3);
  tv0->merge(0, 2);
  EXPECT_EQ(tv0->toString(), "T0_l_float[iS3{( i0 * i2 )}, iS1{i1}]");
  TensorView* tv1 = makeSymbolicTensor(3);
  tv1->merge(2, 0);
  EXPECT_EQ(tv1->toString(), "T1_l_float[iS7{( i6 * i4 )}, iS5{i5}]");
}

// Constant extents fold: merging 4 and 6 gives 24.
TEST(Domains, MergeConstantExtentsFold) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeConcreteTensor({4, 6});
  tv->merge(0);
  EXPECT_EQ(tv->toString(), "T0_l_float[iS2{24}]");
  EXPECT_EQ(tv->axis(0)->extent()->constInt(), 24);
}

// A broadcast axis merged with an iteration axis gives an iteration axis (1 * x is x).
TEST(Domains, MergeBroadcastWithIteration) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeConcreteTensor({1, -1});
  tv->merge(0);
  EXPECT_EQ(tv->toString(), "T0_l_float[iS2{i1}]");
  EXPECT_EQ(tv->axis(0)->iterType(), IterType::Iteration);
  EXPECT_EQ(tv->axis(0)->extent(), tv->getLogicalDomain()[1]->extent());
}

// A reduction axis cannot be merged with an iteration axis.
TEST(Domains, MergeReductionWithIterationRejected) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeReductionTensor();
  EXPECT_THAT([&] { tv->merge(0); },
              ThrowsMessage<UserError>(HasSubstr(
                  "merge: cannot merge reduction and iteration axes rS0{i0} and iS1{i1}")));
  EXPECT_EQ(tv->nDims(), 2);
}

// An axis cannot be merged with itself, even when named by a negative index.
TEST(Domains, MergeWithItselfRejected) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeSymbolicTensor(2);
  EXPECT_THAT([&] { tv->merge(1, -1); },
              ThrowsMessage<UserError>(HasSubstr("merge: cannot merge axis 1 with itself")));
}

// reorder moves the named axes; the others keep their relative order in the free slots.
TEST(Domains, ReorderPartialMaps) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeSymbolicTensor(3);
  tv->reorder({{0, 2}});
  EXPECT_EQ(tv->toString(), "T0_l_float[iS1{i1}, iS2{i2}, iS0{i0}]");
  tv->reorder({{-1, 0}});
  EXPECT_EQ(tv->toString(), "T0_l_float[iS0{i0}, iS1{i1}, iS2{i2}]");
  tv->reorder({{0, 1}, {1, 0}});
  EXPECT_EQ(tv->toString(), "T0_l_float[iS1{i1}, iS0{i0}, iS2{i2}]");
  tv->reorder({});
  EXPECT_EQ(tv->toString(), "T0_l_float[iS1{i1}, iS0{i0}, iS2{i2}]");
}

// Two axes cannot go to one position, one axis cannot move twice, positions must exist; a
// rejected reorder leaves the loop domain as it was.
TEST(Domains, ReorderErrors) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeSymbolicTensor(3);
  EXPECT_THAT(
      [&] {
        tv->reorder({{0, 1}, {2, 1}});
      },
      ThrowsMessage<UserError>(HasSubstr("reorder: two axes moved to position 1")));
  EXPECT_THAT(
      [&] {
        tv->reorder({{0, 1}, {0, 2}});
      },
      ThrowsMessage<UserError>(HasSubstr("reorder: axis 0 moved twice")));
  EXPECT_THAT(
      [&] {
        tv->reorder({{3, 0}});
      },
      ThrowsMessage<UserError>(HasSubstr("reorder: axis 3 is out of range for 3 axes")));
  EXPECT_THAT(
      [&] {
        tv->reorder({{0, -4}});
      },
      ThrowsMessage<UserError>(HasSubstr("reorder: axis -4 is out of range for 3 axes")));
  EXPECT_EQ(tv->toString(), "T0_l_float[iS0{i0}, iS1{i1}, iS2{i2}]");
}

// axis(i) accepts [-n, n) and rejects anything else.
TEST(Domains, AxisRange) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeSymbolicTensor(2);
  EXPECT_EQ(tv->axis(-2), tv->axis(0));
  EXPECT_EQ(tv->axis(-1), tv->axis(1));
  EXPECT_THAT([&] { tv->axis(2); },
              ThrowsMessage<UserError>(HasSubstr("axis: axis 2 is out of range for 2 axes")));
  EXPECT_THAT([&] { tv->axis(-3); },
              ThrowsMessage<UserError>(HasSubstr("axis: axis -3 is out of range for 2 axes")));
  EXPECT_THAT([&] { tv->merge(0, 5); },
              ThrowsMessage<UserError>(HasSubstr("merge: axis 5 is out of range for 2 axes")));
  EXPECT_THAT([&] { tv->split(2, 4); },
              ThrowsMessage<UserError>(HasSubstr("split: axis 2 is out of range for 2 axes")));
}

// parallelize binds a loop axis to a hardware dimension; a broadcast axis cannot be vectorized.
TEST(Domains, Parallelize) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeConcreteTensor({1, -1});
  tv->parallelize(1, ParallelType::BIDx)->parallelize(0, ParallelType::TIDy);
  EXPECT_EQ(tv->toString(), "T0_l_float[bthreadIdx.y0{1}, iblockIdx.x1{i1}]");
  EXPECT_TRUE(tv->axis(1)->isParallelized());
  EXPECT_TRUE(isBlockDim(tv->axis(1)->parallelType()));
  EXPECT_TRUE(isThreadDim(tv->axis(0)->parallelType()));
  EXPECT_THAT([&] { tv->parallelize(0, ParallelType::Vectorize); },
              ThrowsMessage<UserError>(
                  HasSubstr("parallelize: broadcast axis bthreadIdx.y0{1} cannot be vectorized")));
}

// merge, split by 128: the outer extent is built by the simplifying builder as
// ceilDiv(( i0 * i1 ), 128), with no redundant nodes.
TEST(Domains, ExtentsOfMergeThenSplit) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeSymbolicTensor(2);
  tv->merge(0)->split(0, 128);
  EXPECT_EQ(tv->axis(0)->extent()->toInlineString(), "ceilDiv(( i0 * i1 ), 128)");
  EXPECT_EQ(tv->axis(1)->extent()->toInlineString(), "128");
  EXPECT_EQ(tv->toString(), "T0_l_float[iS3{ceilDiv(( i0 * i1 ), 128)}, iS4{128}]");
}

// setLoopDomain accepts a domain derived from logical and rejects an unrelated one.
TEST(Domains, SetLoopDomain) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeSymbolicTensor(2);
  IterDomain* merged = IterDomain::merge(tv->getLogicalDomain()[0], tv->getLogicalDomain()[1]);
  tv->domain()->setLoopDomain({merged});
  EXPECT_EQ(tv->toString(), "T0_l_float[iS2{( i0 * i1 )}]");
  IterDomain* fresh = merged->freshCopy();
  EXPECT_THAT([&] { tv->domain()->setLoopDomain({fresh}); },
              ThrowsMessage<UserError>(HasSubstr(
                  "setLoopDomain of [iS2{( i0 * i1 )}]: axis iS3{( i0 * i1 )} is not derived "
                  "from [iS0{i0}, iS1{i1}]")));
  EXPECT_EQ(tv->toString(), "T0_l_float[iS2{( i0 * i1 )}]");
}

// A tensor's dtype must be a tensor data type (Index is for scalars only).
TEST(Domains, TensorDtypeIndexRejected) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  EXPECT_THAT([&] { makeSymbolicTensor(1, DataType::Index); },
              ThrowsMessage<UserError>(HasSubstr("a tensor cannot have dtype index")));
}

// The compute-at position lies in [0, nDims].
TEST(Domains, ComputeAtPositionRange) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeSymbolicTensor(2);
  tv->setComputeAtPosition(2);
  EXPECT_EQ(tv->computeAtPosition(), 2);
  EXPECT_THAT([&] { tv->setComputeAtPosition(3); },
              ThrowsMessage<UserError>(HasSubstr(
                  "compute-at position 3 of T0_l_float[iS0{i0}, iS1{i1}] ca_pos( 2 ) is out of "
                  "range [0, 2]")));
  EXPECT_THAT([&] { tv->setComputeAtPosition(-1); },
              ThrowsMessage<UserError>(HasSubstr("compute-at position -1")));
}

// Building IR needs an active fusion.
TEST(Domains, NoActiveFusion) {
  EXPECT_THAT([] { makeSymbolicTensor(1); },
              ThrowsMessage<UserError>(
                  HasSubstr("no active fusion: create a FusionGuard before building IR")));
}

}  // namespace
}  // namespace mf
