// Whole-graph traversal: every statement after its dependencies, and every domain of a tensor
// (root, logical, allocation, loop) with its extents' expressions treated as live, so an
// allocation-only extent is never missed (docs/ir.md, nvFuser #5384).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ir/builder.h"
#include "ir/fusion.h"
#include "ir/tensor_view.h"
#include "ir/traversal.h"
#include "ops/arith.h"
#include "ops/layout.h"
#include "ops/tensor_factories.h"

namespace mf {
namespace {

std::unordered_set<Statement*> asSet(const std::vector<Statement*>& stmts) {
  return {stmts.begin(), stmts.end()};
}

// Position of each statement in `order`; fails the test on a duplicate.
std::unordered_map<Statement*, size_t> positions(const std::vector<Statement*>& order) {
  std::unordered_map<Statement*, size_t> pos;
  for (size_t i = 0; i < order.size(); ++i)
    EXPECT_TRUE(pos.emplace(order[i], i).second) << order[i]->toString() << " listed twice";
  return pos;
}

struct LayoutFusion {
  TensorView* in;
  TensorView* in_off;
  TensorView* out_off;
  TensorView* out;
};

LayoutFusion makeLayoutFusion(Fusion& fusion) {
  LayoutFusion l;
  l.in = makeSymbolicTensor(2);
  l.in_off = makeSymbolicTensor(1, DataType::Int32);
  l.out_off = makeSymbolicTensor(1, DataType::Int32);
  fusion.addInput(l.in);
  fusion.addInput(l.in_off);
  fusion.addInput(l.out_off);
  l.out = preprocessGroupedMatmulInputSf(l.in, l.in_off, l.out_off);
  fusion.addOutput(l.out);
  return l;
}

// getStmts from the outputs reaches the layout op's allocation-only axes and every node of
// their extent expressions M + G*127 and ceilDiv(K, 4) * 4: the ops, the intermediate values,
// the constants 127 and 4, and M, K, G themselves.
TEST(Traversal, ReachesAllocationOnlyExtentExpressions) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  LayoutFusion l = makeLayoutFusion(fusion);
  const auto stmts = asSet(getStmts(fusion.outputs()));

  const std::vector<IterDomain*>& alloc = l.out->domain()->allocation();
  ASSERT_EQ(alloc.size(), 2u);
  Val* rows = alloc[0]->extent();
  Val* cols = alloc[1]->extent();
  ASSERT_EQ(rows->toInlineString(), "( i0 + ( i2 * 127 ) )");
  ASSERT_EQ(cols->toInlineString(), "( ceilDiv(i1, 4) * 4 )");

  // rows = add(M, mul(G, 127))
  auto* add = rows->definition()->as<BinaryOp>();
  Val* m = add->lhs();
  Val* g_times_127 = add->rhs();
  auto* mul = g_times_127->definition()->as<BinaryOp>();
  Val* g = mul->lhs();
  Val* c127 = mul->rhs();
  EXPECT_EQ(c127->constInt(), 127);
  // cols = mul(ceilDiv(K, 4), 4)
  auto* round_up = cols->definition()->as<BinaryOp>();
  Val* k_blocks = round_up->lhs();
  Val* c4_outer = round_up->rhs();
  auto* ceil_div = k_blocks->definition()->as<BinaryOp>();
  Val* k = ceil_div->lhs();
  Val* c4_inner = ceil_div->rhs();
  EXPECT_EQ(ceil_div->opType(), BinaryOpType::CeilDiv);
  EXPECT_EQ(c4_outer->constInt(), 4);
  EXPECT_EQ(c4_inner->constInt(), 4);

  for (Statement* s :
       std::vector<Statement*>{alloc[0], alloc[1], rows, cols, add, mul, round_up, ceil_div,
                               g_times_127, k_blocks, c127, c4_outer, c4_inner, m, g, k}) {
    EXPECT_TRUE(stmts.count(s)) << s->toString() << " is not reached";
  }
}

// Without members (definitions only) the allocation axes are not reached: member traversal is
// what keeps them live.
TEST(Traversal, DefinitionsOnlyWalkSkipsMembers) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  LayoutFusion l = makeLayoutFusion(fusion);
  const auto stmts = asSet(getStmts(fusion.outputs(), /*members=*/false));
  EXPECT_FALSE(stmts.count(l.out->domain()->allocation()[0]));
  EXPECT_FALSE(stmts.count(l.out->domain()));
  EXPECT_TRUE(stmts.count(l.out->definition()));
  EXPECT_TRUE(stmts.count(l.in));
  EXPECT_TRUE(stmts.count(l.in_off));
  EXPECT_TRUE(stmts.count(l.out_off));
}

// Every statement comes after all of its dependencies (definition, operands, members), and
// each statement is listed once.
TEST(Traversal, TopologicalOrder) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  TensorView* tv1 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  fusion.addInput(tv1);
  TensorView* tv2 = add(tv0, tv1);
  TensorView* tv3 = mul(exp(tv2), tv2);
  fusion.addOutput(tv3);
  tv3->merge(0)->split(0, 128)->parallelize(1, ParallelType::TIDx);
  LayoutFusion l = makeLayoutFusion(fusion);
  (void)l;

  std::vector<Statement*> order = getStmts(fusion.outputs());
  auto pos = positions(order);
  for (Statement* s : order) {
    for (Statement* dep : dependenciesOf(s)) {
      ASSERT_TRUE(pos.count(dep)) << dep->toString() << " (needed by " << s->toString()
                                  << ") is missing";
      EXPECT_LT(pos.at(dep), pos.at(s)) << dep->toString() << " comes after " << s->toString();
    }
  }
}

// Dependencies: an Expr depends on its inputs; a Val on its definition and members (a tensor
// on its domain, a domain on its axes, an axis on its extent).
TEST(Traversal, DependenciesOf) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1);
  TensorView* tv1 = neg(tv0);
  Expr* def = tv1->definition();
  EXPECT_EQ(dependenciesOf(def), std::vector<Statement*>{tv0});
  EXPECT_EQ(dependenciesOf(tv1), (std::vector<Statement*>{def, tv1->domain()}));
  EXPECT_EQ(dependenciesOf(tv1, /*members=*/false), std::vector<Statement*>{def});
  EXPECT_EQ(dependenciesOf(tv1->domain()), std::vector<Statement*>{tv1->axis(0)});
  EXPECT_EQ(dependenciesOf(tv1->axis(0)), std::vector<Statement*>{tv1->axis(0)->extent()});
}

// tensorExprs lists the tensor exprs the outputs need, producers first; scalar and
// split/merge exprs and dead branches are left out.
TEST(Traversal, TensorExprsOrder) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = relu(tv0);
  TensorView* tv2 = sigmoid(tv0);
  TensorView* dead = neg(tv1);
  TensorView* tv3 = add(tv1, tv2);
  TensorView* tv4 = mul(tv3, add(newScalar(DataType::Float), constFloat(1.0)));
  fusion.addOutput(tv4);
  tv4->split(0, 4);

  std::vector<Expr*> expected = {tv1->definition(), tv2->definition(), tv3->definition(),
                                 tv4->definition()};
  EXPECT_EQ(tensorExprs(fusion.outputs()), expected);
  EXPECT_EQ(fusion.exprs(), expected);
  std::vector<Expr*> all = fusion.exprs();
  EXPECT_EQ(std::count(all.begin(), all.end(), dead->definition()), 0);
}

// tensorViews and Fusion::allTvs list tensors producers first; allTvs also lists unused inputs.
TEST(Traversal, TensorViewsOrder) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1);
  TensorView* unused = makeSymbolicTensor(1);
  fusion.addInput(tv0);
  fusion.addInput(unused);
  TensorView* tv2 = exp(tv0);
  TensorView* tv3 = set(tv2);
  fusion.addOutput(tv3);
  EXPECT_EQ(tensorViews(fusion.outputs()), (std::vector<TensorView*>{tv0, tv2, tv3}));
  EXPECT_EQ(fusion.allTvs(), (std::vector<TensorView*>{tv0, unused, tv2, tv3}));
}

// The scheduling history is reached too: split outputs, the merge in between, and the split
// factor, even when the factor is a symbolic scalar used nowhere else.
TEST(Traversal, ReachesLoopTransformsAndFactors) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = set(tv0);
  fusion.addOutput(tv1);
  Val* factor = newScalar(DataType::Index);
  tv1->merge(0)->split(0, factor);
  const auto stmts = asSet(getStmts(fusion.outputs()));
  Expr* split = tv1->axis(0)->definition();
  Expr* merge = split->input(0)->definition();
  for (Statement* s : std::vector<Statement*>{split, merge, factor, tv1->axis(0), tv1->axis(1),
                                              split->input(0), tv1->getLogicalDomain()[0]}) {
    EXPECT_TRUE(stmts.count(s)) << s->toString() << " is not reached";
  }
}

}  // namespace
}  // namespace mf
