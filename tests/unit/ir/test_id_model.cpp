// ID maps (ir/logical_domain_map.h, ir/id_model.h): the per-expr producer-to-consumer map of
// logical axes, and the fusion-wide exact and permissive groups of IterDomains.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/id_model.h"
#include "ir/logical_domain_map.h"
#include "minifuser/minifuser.h"

namespace mf {
namespace {

using Pairs = std::vector<std::pair<IterDomain*, IterDomain*>>;

// A pointwise op maps each operand's logical axis i to the output's axis i.
TEST(PairwiseLogicalDomainMap, PointwiseMapsByPosition) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  TensorView* t1 = makeSymbolicTensor(2);
  TensorView* t2 = add(t0, t1);
  const auto& c = t2->getLogicalDomain();
  EXPECT_EQ(PairwiseLogicalDomainMap(t0, t2).pairs(),
            (Pairs{{t0->getLogicalDomain()[0], c[0]}, {t0->getLogicalDomain()[1], c[1]}}));
  IdMap c2p = PairwiseLogicalDomainMap(t1, t2).mapConsumerToProducer();
  EXPECT_EQ(c2p.size(), 2u);
  EXPECT_EQ(c2p.at(c[1]), t1->getLogicalDomain()[1]);
}

// A BroadcastOp's new axes have no producer axis: [N] maps to the second axis of [1, N].
TEST(PairwiseLogicalDomainMap, BroadcastSkipsNewAxes) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(1);
  TensorView* t1 = broadcast(t0, {true, false});
  IdMap p2c = PairwiseLogicalDomainMap(t0, t1).mapProducerToConsumer();
  ASSERT_EQ(p2c.size(), 1u);
  EXPECT_EQ(p2c.at(t0->axis(0)), t1->axis(1));
  EXPECT_FALSE(PairwiseLogicalDomainMap(t0, t1).mapConsumerToProducer().count(t1->axis(0)));
}

// A producer's broadcast axis maps to the consumer's iteration axis at its position, unless
// mapBroadcast(false) (the exact graph's rule).
TEST(PairwiseLogicalDomainMap, BroadcastProducerAxis) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  TensorView* t2 = broadcast(makeSymbolicTensor(1), {true, false});
  TensorView* t3 = add(t0, t2);
  EXPECT_EQ(PairwiseLogicalDomainMap(t2, t3).mapProducerToConsumer().at(t2->axis(0)), t3->axis(0));
  EXPECT_EQ(PairwiseLogicalDomainMap(t2, t3).mapBroadcast(false).pairs(),
            (Pairs{{t2->axis(1), t3->axis(1)}}));
}

// The layout op is pointwise between `in` and `out`; its offsets map to nothing.
TEST(PairwiseLogicalDomainMap, LayoutOpOffsetsMapToNothing) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* in = makeSymbolicTensor(2);
  TensorView* in_off = makeSymbolicTensor(1, DataType::Int32);
  TensorView* out_off = makeSymbolicTensor(1, DataType::Int32);
  TensorView* out = preprocessGroupedMatmulInputSf(in, in_off, out_off);
  EXPECT_EQ(PairwiseLogicalDomainMap(in, out).pairs(),
            (Pairs{{in->getLogicalDomain()[0], out->getLogicalDomain()[0]},
                   {in->getLogicalDomain()[1], out->getLogicalDomain()[1]}}));
  EXPECT_TRUE(PairwiseLogicalDomainMap(in_off, out).pairs().empty());
  EXPECT_TRUE(PairwiseLogicalDomainMap(out_off, out).pairs().empty());
}

// The exact groups of a pointwise chain are its columns; printing is ordered by name.
TEST(IdModel, ExactGroupsOfAChain) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  fusion.addOutput(exp(t1));
  IdModel model(fusion);
  EXPECT_EQ(model.toString(IdMappingMode::Exact),
            "{iS0{i0}, iS2{i0}, iS4{i0}}\n"
            "{iS1{i1}, iS3{i1}, iS5{i1}}\n");
  EXPECT_EQ(model.group(t1->axis(1), IdMappingMode::Exact).size(), 3u);
  EXPECT_FALSE(model.areMapped(t0->axis(0), t1->axis(1), IdMappingMode::Exact));
}

// Splits by equal constant factors of mapped axes give mapped outputs (outer with outer);
// a different factor, or an outer split by the same factor, does not.
TEST(IdModel, SplitsByEqualFactorsMap) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t1);
  TensorView* t3 = abs(t2);
  TensorView* t4 = relu(t3);
  fusion.addOutput(t4);
  t1->split(0, 4);
  t2->split(0, 4);
  t3->split(0, 8);
  t4->split(0, 4, /*inner_split=*/false);
  IdModel model(fusion);
  constexpr auto kExact = IdMappingMode::Exact;
  EXPECT_TRUE(model.areMapped(t1->axis(0), t2->axis(0), kExact));
  EXPECT_TRUE(model.areMapped(t1->axis(1), t2->axis(1), kExact));
  EXPECT_FALSE(model.areMapped(t1->axis(0), t2->axis(1), kExact));
  EXPECT_FALSE(model.areMapped(t1->axis(1), t3->axis(1), kExact));
  EXPECT_FALSE(model.areMapped(t1->axis(1), t4->axis(1), kExact));
  EXPECT_FALSE(model.areMapped(t1->axis(0), t4->axis(0), kExact));
}

// A reshape's merged axis split by the merge's inner extent gives back the merge's inputs (an
// index a * nb + b split by nb is (a, b)), so the reshape's loop maps to its producer's axes;
// split by another factor it does not. (The rule is for a reshape's logical merge: on a loop
// merge it bound two loop axes of one tensor alike, random shape-ops fusion 226.)
TEST(IdModel, ReshapesMergedAxisSplitByItsInnerExtentIsItsInputs) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = reshape(t0, {4, 8}, {32});
  TensorView* t2 = reshape(t0, {4, 8}, {32});
  fusion.addOutput(t1);
  fusion.addOutput(t2);
  IterDomain* merged = t1->getLogicalDomain()[0];
  auto* m = dynamic_cast<Merge*>(merged->definition());
  ASSERT_NE(m, nullptr);
  t1->split(0, m->inner()->extent());
  t2->split(0, constInt(4));
  IdModel model(fusion);
  constexpr auto kExact = IdMappingMode::Exact;
  EXPECT_TRUE(model.areMapped(t1->axis(0), t0->axis(0), kExact));
  EXPECT_TRUE(model.areMapped(t1->axis(1), t0->axis(1), kExact));
  EXPECT_FALSE(model.areMapped(t2->axis(1), t0->axis(1), kExact));
}

// A symbolic factor maps only to itself: the same Val splits alike, another one may not.
TEST(IdModel, SymbolicFactorsMapWhenTheSameVal) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(1);
  Val* f = newScalar(DataType::Int64);
  Val* g = newScalar(DataType::Int64);
  fusion.addInput(t0);
  fusion.addInput(f);
  fusion.addInput(g);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t1);
  TensorView* t3 = abs(t2);
  fusion.addOutput(t3);
  t1->split(0, f);
  t2->split(0, f);
  t3->split(0, g);
  IdModel model(fusion);
  EXPECT_TRUE(model.areMapped(t1->axis(1), t2->axis(1), IdMappingMode::Exact));
  EXPECT_FALSE(model.areMapped(t2->axis(1), t3->axis(1), IdMappingMode::Exact));
}

// Merges of mapped axes map, and so do the splits of the merged axes (propagation runs to a
// fixpoint): two tensors scheduled merge(0, 1).split(0, 128) share both loop axes.
TEST(IdModel, MergeThenSplitPropagates) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t1);
  fusion.addOutput(t2);
  t1->merge(0, 1);
  IterDomain* merged = t1->axis(0);
  t1->split(0, 128);
  t2->merge(0, 1)->split(0, 128);
  t0->merge(1, 0);  // merge(inner, outer): not the same axis as merge(outer, inner)
  IdModel model(fusion);
  constexpr auto kExact = IdMappingMode::Exact;
  EXPECT_TRUE(model.areMapped(t1->axis(0), t2->axis(0), kExact));
  EXPECT_TRUE(model.areMapped(t1->axis(1), t2->axis(1), kExact));
  EXPECT_FALSE(model.areMapped(t0->axis(0), merged, kExact));
}

// Columns: M = {T0.0, T3.0}, N = {T0.1, T1.0, T2.1, T3.1}; T2's broadcast axis bS3 and the
// merges it enters are alone in the exact graph. A broadcast producer axis joins the consumer's
// iteration axis only in the permissive graph; through it, the permissive graph also maps merges
// that involve it.
TEST(IdModel, BroadcastMapsPermissively) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  TensorView* t1 = makeSymbolicTensor(1);
  fusion.addInput(t0);
  fusion.addInput(t1);
  TensorView* t2 = broadcast(t1, {true, false});
  TensorView* t3 = add(t0, t2);
  fusion.addOutput(t3);
  t2->merge(0, 1);
  t3->merge(0, 1);
  IdModel model(fusion);
  EXPECT_FALSE(
      model.areMapped(t2->getLogicalDomain()[0], t3->getLogicalDomain()[0], IdMappingMode::Exact));
  EXPECT_FALSE(model.areMapped(t2->axis(0), t3->axis(0), IdMappingMode::Exact));
  EXPECT_TRUE(model.areMapped(t2->axis(0), t3->axis(0), IdMappingMode::Permissive));
  EXPECT_EQ(model.toString(IdMappingMode::Exact),
            "{iS0{i0}, iS5{i0}}\n"
            "{iS1{i1}, iS2{i2}, iS4{i2}, iS6{i1}}\n");
  EXPECT_EQ(model.toString(IdMappingMode::Permissive),
            "{iS0{i0}, bS3{1}, iS5{i0}}\n"
            "{iS1{i1}, iS2{i2}, iS4{i2}, iS6{i1}}\n"
            "{iS7{i2}, iS8{( i0 * i1 )}}\n");
}

// [i1] split by 128 and [i1, b] merged then split by 128 are different loops (other extents),
// but, the merge with a broadcast forwarded, they may take the same thread bindings as the
// reference [i0, i1] merged then split.
TEST(IdModel, BroadcastMergesForwardOnlyInPermissiveForwarded) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  TensorView* t1 = makeSymbolicTensor(1);
  fusion.addInput(t0);
  fusion.addInput(t1);
  TensorView* t2 = broadcast(t1, {false, true});
  TensorView* t3 = add(t0, t2);
  fusion.addOutput(t3);
  fusion.addOutput(neg(t1));
  t3->merge(0, 1)->split(0, 128);
  t2->merge(0, 1)->split(0, 128);
  t1->split(0, 128);
  IdModel model(fusion);
  for (int64_t i : {0, 1}) {
    EXPECT_TRUE(model.areMapped(t2->axis(i), t3->axis(i), IdMappingMode::Permissive));
    EXPECT_FALSE(model.areMapped(t1->axis(i), t3->axis(i), IdMappingMode::Permissive));
    EXPECT_TRUE(model.areMapped(t1->axis(i), t3->axis(i), IdMappingMode::PermissiveForwarded));
  }
  EXPECT_FALSE(model.areMapped(t1->axis(0), t3->axis(1), IdMappingMode::PermissiveForwarded));
}

// A broadcast no tensor iterates (here squeezed) is index 0: `[i0, b]` merged is the axis
// i0, so the squeeze's `[i0]` split by 128 shares its loop and bindings (Permissive).
TEST(IdModel, MergeWithASqueezedBroadcastIsItsOtherInput) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = broadcast(t0, {false, true});
  TensorView* t2 = neg(t1);
  TensorView* t3 = squeeze(t2, std::vector<int64_t>{1});
  fusion.addOutput(t3);
  t2->merge(0, 1)->split(0, 128);
  t3->split(0, 128);
  IdModel model(fusion);
  EXPECT_TRUE(model.areMapped(t2->axis(0), t3->axis(0), IdMappingMode::Permissive));
  EXPECT_TRUE(model.areMapped(t2->axis(1), t3->axis(1), IdMappingMode::Permissive));
  EXPECT_FALSE(model.areMapped(t2->axis(0), t3->axis(0), IdMappingMode::Exact));
}

// The same broadcast also added to [i0, i1]: its group holds i1, so the merge stays the merge
// of two axes (forwarding it would map i0 to i0 * i1 through the broadcast's group).
TEST(IdModel, MergeWithAnIteratedBroadcastIsNotForwarded) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(1);
  TensorView* t4 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  fusion.addInput(t4);
  TensorView* t1 = broadcast(t0, {false, true});
  TensorView* t2 = neg(t1);
  TensorView* t3 = squeeze(t2, std::vector<int64_t>{1});
  TensorView* t5 = add(t2, t4);
  fusion.addOutput(t3);
  fusion.addOutput(t5);
  t2->merge(0, 1)->split(0, 128);
  t3->split(0, 128);
  t5->merge(0, 1)->split(0, 128);
  IdModel model(fusion);
  EXPECT_FALSE(model.areMapped(t2->axis(0), t3->axis(0), IdMappingMode::Permissive));
  EXPECT_TRUE(model.areMapped(t2->axis(0), t5->axis(0), IdMappingMode::Permissive));
  EXPECT_FALSE(model.areMapped(t3->axis(0), t5->axis(0), IdMappingMode::Permissive));
}

}  // namespace
}  // namespace mf
