// nvFuser's hand-scheduled reduction tests (tests/cpp/test_gpu1.cpp FusionGridReduction*,
// FusionReduction*, test_gpu_fused_reduction.cpp FusionGroupedReduction*, ...), their fusion
// definitions rewritten in minifuser's API: each builds and schedules a fusion and gives the
// input sizes nvFuser's test runs. The CPU suite (unit/lower/test_nvfuser_lowering_ports.cpp)
// runs them on the host kernel interpreter, the GPU suite (gpu/test_nvfuser_lowering_gpu.cpp)
// on the device; both compare with the CPU reference (checkAgainstReference).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "minifuser/minifuser.h"

namespace mf::testing {

//! One ported schedule: `build` defines and schedules the fusion in the current one (its
//! inputs take the sizes `sizes`).
struct LoweringPort {
  std::string name;
  std::function<void(Fusion&)> build;
  std::vector<std::vector<int64_t>> sizes;
};

//! Expects every element of `got` within the tolerance of a sum of `terms` float terms of
//! magnitude ~1 (random inputs in [-1, 1)) of the reference's `want`; NaN (unwritten) fails.
inline void checkAgainstReference(const Tensor& got, const Tensor& want, int64_t terms,
                                  const std::string& what) {
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  const double tol = 1e-5 * (std::sqrt(static_cast<double>(terms)) + 1) + 1e-6 * terms;
  for (int64_t i = 0; i < want.numel(); ++i)
    ASSERT_NEAR(got.item(i), want.item(i), tol) << what << " element " << i;
}

//! The last ported fusion as defined, before its schedule: the reference evaluator reads a
//! tensor rFactor'ed once, not twice (nvFuser's tests compare with ATen on the inputs).
inline std::unique_ptr<Fusion>& definedFusion() {
  static std::unique_ptr<Fusion> defined;
  return defined;
}
inline void keepDefinition(const Fusion& fusion) {
  definedFusion() = std::make_unique<Fusion>(fusion);
}

//! nvFuser's FusionGridReduction1 (gdimx 32, bdimx 128) and, with `dim` BIDy,
//! FusionGridReduction2: [I0, R1] split to [I0, R1oo, R1oi{32}, R1i{128}], R1oo rfactored,
//! I0 over the other block dimension, R1oi over `dim`, R1i over threadIdx.x. nvFuser's
//! computeAt(tv1, 1) is inlineAt(1) here, and the rfactor's axes are parallelized as the
//! output's (nvFuser propagates them through the inlined loop).
inline void gridReduction1(Fusion& fusion, ParallelType dim, int64_t gdim, int64_t bdimx) {
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = sum(tv0, {1});
  fusion.addOutput(tv1);
  keepDefinition(fusion);
  tv1->split(1, bdimx);
  tv1->split(1, gdim);
  TensorView* tv2 = tv1->rFactor({1});
  const ParallelType other = dim == ParallelType::BIDx ? ParallelType::BIDy : ParallelType::BIDx;
  for (TensorView* tv : {tv1, tv2}) {
    tv->axis(0)->parallelize(other);
    tv->axis(-2)->parallelize(dim);
    tv->axis(-1)->parallelize(ParallelType::TIDx);
  }
  tv2->inlineAt(1);
}

//! Parallelizes `axis` of each of `tvs` as `p`.
inline void parallelizeAll(const std::vector<TensorView*>& tvs, int64_t axis, ParallelType p) {
  for (TensorView* tv : tvs) tv->axis(axis)->parallelize(p);
}

//! nvFuser's FusionReduction1: [I0, R1] -> [I0, R1oo, R1oi{4}, R1i{128}], R1oo rfactored
//! (tv2, its R1oi unrolled), then R1oi (tv3): serial sums per thread, then a block reduction
//! over threadIdx.x; I0 over blockIdx.x.
inline void reduction1(Fusion& fusion) {
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = sum(tv0, {1});
  fusion.addOutput(tv1);
  keepDefinition(fusion);
  tv1->split(1, 128);
  tv1->split(1, 4);
  TensorView* tv2 = tv1->rFactor({1});
  TensorView* tv3 = tv1->rFactor({1});
  tv2->axis(2)->parallelize(ParallelType::Unroll);
  parallelizeAll({tv1, tv2, tv3}, 0, ParallelType::BIDx);
  parallelizeAll({tv1, tv2, tv3}, -1, ParallelType::TIDx);
  inlineMost();
}

//! nvFuser's FusionReduction2: threadIdx.x of 16 (not whole warps) and threadIdx.y of 8 rows:
//! [I0o, I0i{8}, R1oo, R1oi{4}, R1i{16}], R1oo then R1oi rfactored, R1oi unrolled.
inline void reduction2(Fusion& fusion) {
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = sum(tv0, {1});
  fusion.addOutput(tv1);
  keepDefinition(fusion);
  tv1->split(1, 16);
  tv1->split(1, 4);
  tv1->split(0, 8);
  TensorView* tv2 = tv1->rFactor({-3});
  TensorView* tv3 = tv1->rFactor({-2});
  tv2->axis(-2)->parallelize(ParallelType::Unroll);
  parallelizeAll({tv1, tv2, tv3}, 0, ParallelType::BIDx);
  parallelizeAll({tv1, tv2, tv3}, 1, ParallelType::TIDy);
  parallelizeAll({tv1, tv2, tv3}, -1, ParallelType::TIDx);
  inlineMost();
}

//! nvFuser's FusionReduction4: sum(tv0 + tv1, {1}) * tv4, the row split by 16 threads
//! (threadIdx.x of 16), R1o rfactored; rows over blockIdx.x.
inline void reduction4(Fusion& fusion) {
  TensorView* tv0 = makeSymbolicTensor(2);
  TensorView* tv1 = makeSymbolicTensor(2);
  TensorView* tv4 = makeSymbolicTensor(1);
  fusion.addInput(tv0);
  fusion.addInput(tv1);
  fusion.addInput(tv4);
  TensorView* tv2 = add(tv0, tv1);
  TensorView* tv3 = sum(tv2, {1});
  TensorView* tv5 = mul(tv3, tv4);
  fusion.addOutput(tv5);
  keepDefinition(fusion);
  tv3->split(1, 16);
  TensorView* tv6 = tv3->rFactor({-2});
  tv2->split(1, 16);
  parallelizeAll({tv2, tv3, tv5, tv6}, 0, ParallelType::BIDx);
  parallelizeAll({tv2, tv3, tv6}, -1, ParallelType::TIDx);
  inlineMost();
}

//! nvFuser's FusionReduction5: [I0, R1, I2] -> [I0, R1o, R1i{4}, I2], R1o rfactored: the
//! block reduction over threadIdx.y has an iteration axis after its reduction axis, bound to
//! threadIdx.x ([BIDy, rTIDy, TIDx]).
inline void reduction5(Fusion& fusion) {
  TensorView* tv0 = makeSymbolicTensor(3);
  fusion.addInput(tv0);
  TensorView* tv1 = sum(tv0, {1});
  fusion.addOutput(tv1);
  keepDefinition(fusion);
  tv1->split(-2, 4);
  TensorView* tv2 = tv1->rFactor({-3});
  parallelizeAll({tv1, tv2}, 0, ParallelType::BIDy);
  parallelizeAll({tv1, tv2}, -1, ParallelType::TIDx);
  parallelizeAll({tv1, tv2}, -2, ParallelType::TIDy);
  inlineMost();
}

//! nvFuser's FusionReduction6: sum over axes 1 and 2 of [I0, I1, I2], I2 split by 64
//! (threadIdx.x) and I1 by 8 (threadIdx.y); R2o rfactored (tv2), then R1o (tv3): serial,
//! then across threadIdx.y (tv4), then across threadIdx.x (tv1).
inline void reduction6(Fusion& fusion) {
  TensorView* tv0 = makeSymbolicTensor(3);
  fusion.addInput(tv0);
  TensorView* tv1 = sum(tv0, {1, 2});
  fusion.addOutput(tv1);
  keepDefinition(fusion);
  tv1->split(2, 64);
  tv1->split(1, 8);
  TensorView* tv2 = tv1->rFactor({3});
  TensorView* tv3 = tv1->rFactor({1});
  parallelizeAll({tv1, tv2, tv3}, 0, ParallelType::BIDx);
  parallelizeAll({tv1, tv2, tv3}, -1, ParallelType::TIDx);
  tv1->axis(-2)->parallelize(ParallelType::TIDy);
  tv3->axis(-2)->parallelize(ParallelType::TIDy);
  tv2->axis(-3)->parallelize(ParallelType::TIDy);
  // nvFuser reduces tv1 across threadIdx.y and .x in one call; minifuser's block reduction
  // reduces across one thread dimension, so threadIdx.y is rfactored first: tv4 = [BIDx,
  // rTIDy, TIDx] (a thread-bound iteration axis after its reduction axis), tv1 = [BIDx, rTIDx].
  tv1->rFactor({1});
  inlineMost();
}

//! A reduction axis bound to threadIdx.x as it is, of the input's symbolic extent (nvFuser's
//! `tv1->axis(-1)->parallelize(ParallelType::TIDx)` without a split): blockDim.x is the
//! row's length at launch, any number of threads.
inline void symbolicThreadReduction(Fusion& fusion) {
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = sum(tv0, {1});
  fusion.addOutput(tv1);
  keepDefinition(fusion);
  tv1->axis(0)->parallelize(ParallelType::BIDx);
  tv1->axis(-1)->parallelize(ParallelType::TIDx);
}

//! nvFuser's FusionGridReduction5: [I0, R1oo, R1oi{gdimx}, R1i{64}] with rows over
//! threadIdx.y, R1oi over blockIdx.x and R1i over threadIdx.x.
inline void gridReduction5(Fusion& fusion) {
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = sum(tv0, {1});
  fusion.addOutput(tv1);
  keepDefinition(fusion);
  tv1->split(1, 64);
  tv1->split(1, 4);
  TensorView* tv2 = tv1->rFactor({1});
  parallelizeAll({tv1, tv2}, -1, ParallelType::TIDx);
  parallelizeAll({tv1, tv2}, -2, ParallelType::BIDx);
  parallelizeAll({tv1, tv2}, 0, ParallelType::TIDy);
  inlineMost();
}

//! nvFuser's FusionGridReduction6: sum over axes 1 and 2 of [I0, I1, I2]; I2 split by 128
//! (threadIdx.x), I1 by 128 (blockIdx.x); R2o rfactored (tv2), then R1o (tv3); I0 over
//! blockIdx.y.
inline void gridReduction6(Fusion& fusion) {
  TensorView* tv0 = makeSymbolicTensor(3);
  fusion.addInput(tv0);
  TensorView* tv1 = sum(tv0, {1, 2});
  fusion.addOutput(tv1);
  keepDefinition(fusion);
  tv1->split(2, 128);
  tv1->split(1, 128);
  TensorView* tv2 = tv1->rFactor({3});
  TensorView* tv3 = tv1->rFactor({1});
  parallelizeAll({tv1, tv2, tv3}, 0, ParallelType::BIDy);
  parallelizeAll({tv1, tv2, tv3}, -1, ParallelType::TIDx);
  tv1->axis(-2)->parallelize(ParallelType::BIDx);
  tv2->axis(-3)->parallelize(ParallelType::BIDx);
  tv3->axis(-2)->parallelize(ParallelType::BIDx);
  inlineMost();
}

//! A manual pointwise schedule with an unswitched loop (nvFuser's Unswitch in hand-written
//! pointwise schedules): out = tv0 * 2 + tv1 over [I0 * I1] split to [BIDx, US{4}, TIDx{128}].
inline void unswitchPointwise(Fusion& fusion) {
  TensorView* tv0 = makeSymbolicTensor(2);
  TensorView* tv1 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  fusion.addInput(tv1);
  TensorView* tv2 = mul(tv0, constFloat(2.0));
  TensorView* tv3 = add(tv2, tv1);
  fusion.addOutput(tv3);
  keepDefinition(fusion);
  for (TensorView* tv : {tv2, tv3}) {
    tv->merge(0)->split(0, 128)->split(0, 4);
    tv->axis(0)->parallelize(ParallelType::BIDx);
    tv->axis(1)->parallelize(ParallelType::Unswitch);
    tv->axis(2)->parallelize(ParallelType::TIDx);
  }
  inlineMost();
}

//! nvFuser's FusionLoopUnswitch (test_gpu2.cpp): tv2 = (tv0 + 1) + 1 over [I0] split by 32,
//! tv1 computed at tv2's inner loop, which is unswitched: one check of the last element per
//! outer iteration (`i * 32 + 31 < I0`) instead of one per element.
inline void loopUnswitch(Fusion& fusion) {
  TensorView* tv0 = makeSymbolicTensor(1);
  TensorView* tv1 = add(tv0, constFloat(1.0));
  TensorView* tv2 = add(tv1, constFloat(1.0));
  fusion.addInput(tv0);
  fusion.addOutput(tv2);
  keepDefinition(fusion);
  tv2->split(0, 32);
  tv1->computeAt(tv2, -1);
  // nvFuser's producer shares the loop it is computed in; here it is parallelized alike
  // (a loop parallelized after computeAt is not bound in its producers: parallelizeAllLike).
  for (TensorView* tv : {tv1, tv2}) tv->axis(1)->parallelize(ParallelType::Unswitch);
}

//! nvFuser's FusionPredicateUnshare (test_gpu3.cpp): a shared-memory copy under an
//! unswitched loop, [BIDx, US{1}, TIDx] after split/reorder/merge; the nest keeps its
//! per-element guards (a barrier may not sit in a branch threads take apart).
inline void predicateUnshare(Fusion& fusion) {
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = set(tv0);
  TensorView* tv2 = set(tv1);
  fusion.addOutput(tv2);
  keepDefinition(fusion);
  tv1->setMemoryType(MemoryType::Shared);
  for (TensorView* tv : {tv1, tv2}) {
    tv->split(0, 4);
    tv->reorder({{1, -1}});
    tv->split(1, 8);
    tv->merge(0);
    tv->split(0, 1);
    tv->axis(0)->parallelize(ParallelType::BIDx);
    tv->axis(1)->parallelize(ParallelType::Unswitch);
  }
  tv1->merge(2);
  tv2->reorder({{2, 3}});
  tv2->merge(2);
  for (TensorView* tv : {tv1, tv2}) tv->axis(-1)->parallelize(ParallelType::TIDx);
  inlineMost();
}

//! A column sum whose block reduction (across threadIdx.y) groups 4 columns per thread with
//! ParallelType::Group (nvFuser's grouped reductions): [I1o: BIDx, R0: TIDy, I1i{4}: Group].
inline void groupedColumnSum(Fusion& fusion) {
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = sum(tv0, {0});
  fusion.addOutput(tv1);
  keepDefinition(fusion);
  tv1->split(1, 4)->reorder({{0, 1}});
  tv1->axis(0)->parallelize(ParallelType::BIDx);
  tv1->axis(1)->parallelize(ParallelType::TIDy);
  tv1->axis(2)->parallelize(ParallelType::Group);
}

//! nvFuser's FusionGroupedReduction-style pair: sum and max of one input over its rows,
//! scheduled alike ([BIDx, rTIDx{32}] after a serial rfactor) and grouped with
//! groupReductions.
inline void groupedSumMax(Fusion& fusion) {
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = sum(tv0, {1});
  TensorView* tv2 = max(tv0, {1});
  fusion.addOutput(tv1);
  fusion.addOutput(tv2);
  keepDefinition(fusion);
  std::vector<TensorView*> block;
  for (TensorView* tv : {tv1, tv2}) {
    tv->split(1, 32);
    TensorView* rf = tv->rFactor({1});
    parallelizeAll({tv, rf}, 0, ParallelType::BIDx);
    parallelizeAll({tv, rf}, -1, ParallelType::TIDx);
  }
  groupReductions({tv1, tv2});
  inlineMost();
}

//! nvFuser's ReductionTest.GroupedReduction1 (`members` 2: two sums of one input) and
//! GroupedReduction6 (3: sums of x + 1, x + 2, x + 3), added up into the output: grouped
//! before scheduling, one parallelized [BIDx, TIDx] and the others like it, not inlined (the
//! block all-reduces stand in sibling thread loops).
inline void groupedRowSums(Fusion& fusion, int members) {
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  std::vector<TensorView*> sums;
  TensorView* total = nullptr;
  for (int m = 0; m < members; ++m) {
    TensorView* in = members == 2 ? tv0 : add(tv0, IrBuilder::create<Val>(1.0 + m));
    sums.push_back(sum(in, {1}));
    total = total == nullptr ? sums.back() : add(total, sums.back());
  }
  fusion.addOutput(total);
  keepDefinition(fusion);
  groupReductions(sums);
  sums[0]->axis(0)->parallelize(ParallelType::BIDx);
  sums[0]->axis(1)->parallelize(ParallelType::TIDx);
  parallelizeAllLike(sums[0]);
}

//! nvFuser's GroupedReduction2 (`mixed_types` false: sum(x + 1) and max(x + 2), different ops)
//! and GroupedReduction3 (true: sum(x) in float and sum(double(x)), different types), added
//! into the output: grouped, split by 128, propagated, inlined (nvFuser's computeAt
//! MostInlined), [BIDy, BIDx, TIDx]: one grid reduction across blockIdx.x for both.
inline void groupedGridPair(Fusion& fusion, bool mixed_types) {
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  TensorView *a = nullptr, *b = nullptr, *out = nullptr;
  if (mixed_types) {
    a = sum(tv0, {1});
    b = sum(castOp(DataType::Double, tv0), {1});
    out = add(a, castOp(DataType::Float, b));
  } else {
    a = sum(add(tv0, IrBuilder::create<Val>(1.0)), {1});
    b = max(add(tv0, IrBuilder::create<Val>(2.0)), {1});
    out = add(a, b);
  }
  fusion.addOutput(out);
  keepDefinition(fusion);
  groupReductions({a, b});
  a->split(1, 128);
  propagateTransforms(a);
  inlineMost();
  a->axis(0)->parallelize(ParallelType::BIDy);
  a->axis(1)->parallelize(ParallelType::BIDx);
  a->axis(2)->parallelize(ParallelType::TIDx);
  parallelizeAllLike(a);
}

//! Outer reductions grouped as nvFuser's outer grouped reductions (test_outer_reduction.cpp):
//! the column sum and maximum, each [I1o: BIDx, R0: TIDy, I1i{4}: Group], in one call that
//! reduces both members' 4 values per thread (their group loops of the same extents).
inline void groupedColumnSumMax(Fusion& fusion) {
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = sum(tv0, {0});
  TensorView* tv2 = max(tv0, {0});
  fusion.addOutput(tv1);
  fusion.addOutput(tv2);
  keepDefinition(fusion);
  groupReductions({tv1, tv2});
  for (TensorView* tv : {tv1, tv2}) {
    tv->split(1, 4)->reorder({{0, 1}});
    tv->axis(0)->parallelize(ParallelType::BIDx);
    tv->axis(1)->parallelize(ParallelType::TIDy);
    tv->axis(2)->parallelize(ParallelType::Group);
  }
  inlineMost();
}

//! The ported schedules, with nvFuser's sizes scaled down for the host interpreter and sizes
//! 1, primes and non-divisible extents.
inline std::vector<LoweringPort> loweringPorts() {
  auto grid = [](ParallelType dim) { return [dim](Fusion& f) { gridReduction1(f, dim, 8, 32); }; };
  return {
      {"GridReduction1", grid(ParallelType::BIDx), {{3, 65000 / 16}}},
      {"GridReduction1_1x1", grid(ParallelType::BIDx), {{1, 1}}},
      {"GridReduction1_7x131", grid(ParallelType::BIDx), {{7, 131}}},
      {"GridReduction1_2x4097", grid(ParallelType::BIDx), {{2, 32 * 128 + 1}}},
      {"GridReduction2", grid(ParallelType::BIDy), {{3, 65000 / 16}}},
      {"GridReduction2_7x131", grid(ParallelType::BIDy), {{7, 131}}},
      {"GridReduction5", gridReduction5, {{16, 650}}},
      {"GridReduction5_3x257", gridReduction5, {{3, 257}}},
      {"GridReduction6", gridReduction6, {{5, 200, 200}}},
      {"GridReduction6_2x131x7", gridReduction6, {{2, 131, 7}}},
      {"Reduction1", reduction1, {{65, 1025}}},
      {"Reduction1_1x1", reduction1, {{1, 1}}},
      {"Reduction2", reduction2, {{1025 / 8, 129}}},
      {"Reduction2_13x1", reduction2, {{13, 1}}},
      {"Reduction4", reduction4, {{1025 / 8, 129}, {1025 / 8, 129}, {1025 / 8}}},
      {"Reduction5", reduction5, {{2, 11, 5}}},
      {"Reduction5_3x1x7", reduction5, {{3, 1, 7}}},
      {"Reduction6", reduction6, {{13, 250, 4}}},  // nvFuser's [65, 1000, 4]: too slow interpreted
      {"Reduction6_2x9x67", reduction6, {{2, 9, 67}}},
      {"SymbolicThreadReduction_5x7", symbolicThreadReduction, {{5, 7}}},
      {"SymbolicThreadReduction_3x100", symbolicThreadReduction, {{3, 100}}},
      {"SymbolicThreadReduction_2x1", symbolicThreadReduction, {{2, 1}}},
      {"SymbolicThreadReduction_2x64", symbolicThreadReduction, {{2, 64}}},
      {"UnswitchPointwise_7x131", unswitchPointwise, {{7, 131}, {7, 131}}},
      {"UnswitchPointwise_1x1", unswitchPointwise, {{1, 1}, {1, 1}}},
      {"UnswitchPointwise_3x1000", unswitchPointwise, {{3, 1000}, {3, 1000}}},
      {"UnswitchPointwise_4x128", unswitchPointwise, {{4, 128}, {4, 128}}},
      {"LoopUnswitch", loopUnswitch, {{1000}}},
      {"LoopUnswitch_1", loopUnswitch, {{1}}},
      {"LoopUnswitch_64", loopUnswitch, {{64}}},
      {"LoopUnswitch_97", loopUnswitch, {{97}}},
      {"PredicateUnshare", predicateUnshare, {{5, 5}}},
      {"PredicateUnshare_10x11", predicateUnshare, {{10, 11}}},
      {"GroupedColumnSum_13x10", groupedColumnSum, {{13, 10}}},
      {"GroupedColumnSum_1x3", groupedColumnSum, {{1, 3}}},
      {"GroupedSumMax_5x67", groupedSumMax, {{5, 67}}},
      {"GroupedSumMax_2x1", groupedSumMax, {{2, 1}}},
      {"GroupedReduction1", [](Fusion& f) { groupedRowSums(f, 2); }, {{9, 999}}},
      {"GroupedReduction1_1x1", [](Fusion& f) { groupedRowSums(f, 2); }, {{1, 1}}},
      {"GroupedReduction1_7x64", [](Fusion& f) { groupedRowSums(f, 2); }, {{7, 64}}},
      {"GroupedReduction6_5x131", [](Fusion& f) { groupedRowSums(f, 3); }, {{5, 131}}},
      {"GroupedReduction2", [](Fusion& f) { groupedGridPair(f, false); }, {{7, 999}}},
      {"GroupedReduction2_1x1", [](Fusion& f) { groupedGridPair(f, false); }, {{1, 1}}},
      {"GroupedReduction2_3x257", [](Fusion& f) { groupedGridPair(f, false); }, {{3, 257}}},
      {"GroupedReduction3", [](Fusion& f) { groupedGridPair(f, true); }, {{7, 999}}},
      {"GroupedReduction3_2x129", [](Fusion& f) { groupedGridPair(f, true); }, {{2, 129}}},
      {"GroupedColumnSumMax_13x10", groupedColumnSumMax, {{13, 10}}},
      {"GroupedColumnSumMax_1x3", groupedColumnSumMax, {{1, 3}}},
      {"GroupedColumnSumMax_33x17", groupedColumnSumMax, {{33, 17}}},
  };
}

}  // namespace mf::testing
