// nvFuser's tutorial (tests/cpp/test_tutorial.cpp), ported for the parity issue (#21): Memcpy,
// Reduction, ReductionRFactor and Reshape, with nvFuser's fusion definitions, schedules and
// structural assertions. nvFuser compares with ATen; here the values are compared with the
// CPU reference, the kernels running on the device with a GPU and on the host kernel
// interpreter without one. The TMA lessons are not ported (docs/porting_from_nvfuser.md).
#include <fmt/format.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "cuda/driver.h"
#include "minifuser/minifuser.h"
#include "unit/scheduler/port_test_utils.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

//! Compiles `fusion` (as scheduled) and runs it on `inputs` (testing::runCompiled).
std::vector<Tensor> compileAndRun(Fusion& fusion, const std::vector<Tensor>& inputs) {
  KernelExecutor ke;
  ke.compile(&fusion, inputs);
  return testing::runCompiled(ke, inputs);
}

//! Every element of `got` is within a sum of `terms` floats' rounding of `want`.
void expectSum(const Tensor& got, const Tensor& want, int64_t terms) {
  ASSERT_EQ(got.sizes(), want.sizes());
  const Tensor g = got.toHost();
  const double tol = 1e-5 * std::sqrt(static_cast<double>(terms)) + 1e-6 * terms;
  for (int64_t i = 0; i < want.numel(); ++i)
    ASSERT_NEAR(g.item(i), want.item(i), tol * (1 + std::abs(want.item(i)))) << "element " << i;
}

//! Every element of `got` equals `want`'s, bit for bit.
bool equal(const Tensor& got, const Tensor& want) {
  const Tensor g = got.toHost();
  if (g.sizes() != want.sizes() || g.dtype() != want.dtype()) return false;
  for (int64_t i = 0; i < want.numel(); ++i)
    if (g.item(i) != want.item(i)) return false;
  return true;
}

std::vector<Tensor> reference(Fusion& fusion, const std::vector<Tensor>& inputs) {
  return ReferenceEvaluator(&fusion).run(inputs);
}

// Tutorial.Memcpy: a copy, first unscheduled (one thread, serial loops), then merged, split
// by 256 and bound to blockIdx.x / threadIdx.x. The copy is exact.
TEST(NvfuserTutorial, Memcpy) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = set(tv0);
  fusion.addOutput(tv1);

  for (auto sizes : std::vector<std::vector<int64_t>>{{32, 32}, {1, 1}, {7, 37}}) {
    const Tensor t0 = Tensor::random(sizes, DataType::Float, 1);
    EXPECT_TRUE(equal(compileAndRun(fusion, {t0}).at(0), t0));
  }

  tv1->merge(0, 1);
  tv1->split(0, 256);
  EXPECT_EQ(tv1->toString(), "T1_g_float[iS5{ceilDiv(( i0 * i1 ), 256)}, iS6{256}]");
  tv1->axis(1)->parallelize(ParallelType::TIDx);
  tv1->axis(0)->parallelize(ParallelType::BIDx);
  for (auto sizes : std::vector<std::vector<int64_t>>{{32, 32}, {1, 1}, {7, 37}, {3, 257}}) {
    const Tensor t0 = Tensor::random(sizes, DataType::Float, 2);
    EXPECT_TRUE(equal(compileAndRun(fusion, {t0}).at(0), t0));
  }
}

// Tutorial.Reduction: a row sum over threadIdx.x (block reduction), over blockIdx.x (grid
// reduction, one thread a block; the rows over blockIdx.y), with the rows over threadIdx.y (1024 x
// 10 threads do not fit a block: refused at launch; 32 x 10 do), and rows over blockIdx.x.
TEST(NvfuserTutorial, Reduction) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = sum(tv0, {1});
  fusion.addOutput(tv1);

  const Tensor t0 = Tensor::random({10, 1024}, DataType::Float, 3);
  const Tensor ref = reference(fusion, {t0}).at(0);
  expectSum(compileAndRun(fusion, {t0}).at(0), ref, 1024);  // unscheduled: serial

  tv1->axis(1)->parallelize(ParallelType::TIDx);
  expectSum(compileAndRun(fusion, {t0}).at(0), ref, 1024);

  // The rows a serial loop, the reduction across blockIdx.x: nvFuser runs it; minifuser
  // refuses a loop around a grid reduction (its work slots and semaphores are per call site,
  // not per iteration). Bound to blockIdx.y, the rows are no loop.
  tv1->axis(1)->parallelize(ParallelType::BIDx);
  EXPECT_THAT(
      [&] { compileAndRun(fusion, {t0}); },
      ThrowsMessage<UserError>(HasSubstr(
          "T1_g_float[iS2{i0}, rblockIdx.x3{i1}]: iteration axis iS2{i0} of a grid "
          "reduction is a loop; bind every iteration axis to a thread or block dimension")));
  tv1->axis(0)->parallelize(ParallelType::BIDy);
  expectSum(compileAndRun(fusion, {t0}).at(0), ref, 1024);

  tv1->axis(0)->parallelize(ParallelType::TIDy);
  tv1->axis(1)->parallelize(ParallelType::TIDx);
  {
    KernelExecutor ke;
    ke.compile(&fusion);
    EXPECT_THAT([&] { ke.prepareLaunch({t0}); },
                ThrowsMessage<UserError>(HasSubstr(
                    "these inputs launch 10240 threads per block, past the limit of 1024")));
    const Tensor t1 = Tensor::random({10, 32}, DataType::Float, 4);
    expectSum(compileAndRun(fusion, {t1}).at(0), reference(fusion, {t1}).at(0), 32);
  }

  tv1->axis(0)->parallelize(ParallelType::BIDx);
  tv1->axis(1)->parallelize(ParallelType::TIDx);
  expectSum(compileAndRun(fusion, {t0}).at(0), ref, 1024);
}

// Tutorial.ReductionRFactor: a 1-D sum split by 1024 and rFactor'ed into a per-thread serial
// sum and a block reduction; then split again by 100 and rFactor'ed twice: a per-thread sum,
// a block reduction per block, and a grid reduction across blockIdx.x. Each schedule works
// on a copy of the fusion (Fusion's copy constructor, outputs found by position).
TEST(NvfuserTutorial, ReductionRFactor) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1);
  fusion.addInput(tv0);
  TensorView* tv1 = sum(tv0, {0});
  fusion.addOutput(tv1);

  {
    Fusion fusion_copy = fusion;
    FusionGuard fg_copy(&fusion_copy);
    auto* tv1_copy = fusion_copy.outputs().at(0)->as<TensorView>();
    tv1_copy->split(0, 1024);
    TensorView* tv2 = tv1_copy->rFactor({0});
    EXPECT_EQ(tv2->toString(), "T2_l_float[rS5{ceilDiv(i0, 1024)}, iS6{1024}]");
    EXPECT_EQ(tv1_copy->toString(), "T1_g_float[rS7{1024}]");
    tv1_copy->axis(0)->parallelize(ParallelType::TIDx);
    tv2->axis(1)->parallelize(ParallelType::TIDx);
    for (int64_t n : {10000, 1, 1023, 1025}) {
      const Tensor t0 = Tensor::random({n}, DataType::Float, 5);
      expectSum(compileAndRun(fusion_copy, {t0}).at(0), reference(fusion, {t0}).at(0), n);
    }
  }
  {
    Fusion fusion_copy = fusion;
    FusionGuard fg_copy(&fusion_copy);
    auto* tv1_copy = fusion_copy.outputs().at(0)->as<TensorView>();
    tv1_copy->split(0, 1024);
    tv1_copy->split(0, 100);
    TensorView* tv2 = tv1_copy->rFactor({1});  // [i0/1024/100, r100, i1024]
    TensorView* tv3 = tv1_copy->rFactor({1});  // [i0/1024/100, r1024]
    EXPECT_EQ(tv2->nDims(), 3);
    EXPECT_TRUE(tv2->axis(1)->isReduction());
    EXPECT_EQ(tv3->nDims(), 2);
    EXPECT_TRUE(tv3->axis(1)->isReduction());
    EXPECT_EQ(tv1_copy->nDims(), 1);
    for (TensorView* tv : {tv2, tv3, tv1_copy}) tv->axis(0)->parallelize(ParallelType::BIDx);
    tv2->axis(2)->parallelize(ParallelType::TIDx);
    tv3->axis(1)->parallelize(ParallelType::TIDx);
    // nvFuser runs 10,000,000 elements (98 blocks); the interpreter runs fewer.
    const int64_t big = cuda::cudaAvailable() ? 10000000 : 3 * 102400 + 17;
    for (int64_t n : {big, int64_t{1}, int64_t{102400}}) {
      const Tensor t0 = Tensor::random({n}, DataType::Float, 6);
      expectSum(compileAndRun(fusion_copy, {t0}).at(0), reference(fusion, {t0}).at(0), n);
    }
  }
}

// Tutorial.Reshape: a static reshape [4, 8] -> [32] is one Merge from root to logical; one
// [1, 2, 3] -> [3, 2, 1] is squeeze -> reshape -> broadcast, the reshape a merge then a split.
// Scheduling the reshape's output and propagating it replays the split and merge on the
// squeeze's output (which has no root) before its own merge and split.
TEST(NvfuserTutorial, Reshape) {
  {
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* tv0 = makeSymbolicTensor(2);
    fusion.addInput(tv0);
    TensorView* tv1 = reshape(tv0, {4, 8}, {32});
    fusion.addOutput(tv1);
    ASSERT_TRUE(tv1->hasRoot());
    ASSERT_EQ(tv1->getLogicalDomain().size(), 1);
    ASSERT_TRUE(tv1->getLogicalDomain().at(0)->definition()->isA<Merge>());
    auto* merge = tv1->getLogicalDomain().at(0)->definition()->as<Merge>();
    EXPECT_EQ(merge->inner(), tv1->getRootDomain().at(1));
    EXPECT_EQ(merge->outer(), tv1->getRootDomain().at(0));
  }
  {
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* tv0 = makeConcreteTensor({1, -1, -1});
    fusion.addInput(tv0);
    TensorView* tv1 = reshape(tv0, {1, 2, 3}, {3, 2, 1});
    fusion.addOutput(tv1);

    ASSERT_TRUE(tv1->definition()->isA<BroadcastOp>());
    auto* reshape_output = tv1->definition()->input(0)->as<TensorView>();
    ASSERT_TRUE(reshape_output->definition()->isA<ReshapeOp>());
    auto* squeeze_output = reshape_output->definition()->input(0)->as<TensorView>();
    ASSERT_TRUE(squeeze_output->definition()->isA<SqueezeOp>());

    ASSERT_TRUE(reshape_output->hasRoot());
    ASSERT_EQ(reshape_output->getLogicalDomain().size(), 2);
    ASSERT_TRUE(reshape_output->getLogicalDomain().at(0)->definition()->isA<Split>());
    auto* split = reshape_output->getLogicalDomain().at(0)->definition()->as<Split>();
    EXPECT_EQ(split->outer(), reshape_output->getLogicalDomain().at(0));
    EXPECT_EQ(split->inner(), reshape_output->getLogicalDomain().at(1));
    ASSERT_TRUE(split->in()->definition()->isA<Merge>());
    auto* merge = split->in()->definition()->as<Merge>();
    EXPECT_EQ(merge->outer(), reshape_output->getRootDomain().at(0));
    EXPECT_EQ(merge->inner(), reshape_output->getRootDomain().at(1));

    reshape_output->merge(0, 1);
    reshape_output->split(0, 128);
    auto* loop_split = reshape_output->getLoopDomain().at(0)->definition()->as<Split>();
    EXPECT_EQ(loop_split->inner(), reshape_output->getLoopDomain().at(1));
    ASSERT_TRUE(loop_split->in()->definition()->isA<Merge>());
    EXPECT_EQ(loop_split->in()->definition()->as<Merge>()->outer(),
              reshape_output->getLogicalDomain().at(0));
    EXPECT_EQ(loop_split->in()->definition()->as<Merge>()->inner(),
              reshape_output->getLogicalDomain().at(1));

    TransformPropagator propagator(reshape_output);
    MaxLogicalDomainInfoSpanningTree(reshape_output).traverse(&propagator);

    ASSERT_TRUE(squeeze_output->getLoopDomain().at(0)->definition()->isA<Split>());
    auto* second_split = squeeze_output->getLoopDomain().at(0)->definition()->as<Split>();
    EXPECT_EQ(second_split->outer(), squeeze_output->getLoopDomain().at(0));
    EXPECT_EQ(second_split->inner(), squeeze_output->getLoopDomain().at(1));
    ASSERT_TRUE(second_split->in()->definition()->isA<Merge>());
    auto* second_merge = second_split->in()->definition()->as<Merge>();
    ASSERT_TRUE(second_merge->outer()->definition()->isA<Split>());
    auto* first_split = second_merge->outer()->definition()->as<Split>();
    EXPECT_EQ(first_split->outer(), second_merge->outer());
    EXPECT_EQ(first_split->inner(), second_merge->inner());
    ASSERT_TRUE(first_split->in()->definition()->isA<Merge>());
    auto* first_merge = first_split->in()->definition()->as<Merge>();
    EXPECT_EQ(first_merge->outer(), squeeze_output->getLogicalDomain().at(0));
    EXPECT_EQ(first_merge->inner(), squeeze_output->getLogicalDomain().at(1));
    EXPECT_FALSE(squeeze_output->hasRoot());

    // The scheduled fusion computes the reshape (nvFuser's test stops at the structure).
    reshape_output->axis(0)->parallelize(ParallelType::BIDx);
    reshape_output->axis(1)->parallelize(ParallelType::TIDx);
    parallelizeAllLike(reshape_output);
    const Tensor t0 = Tensor::random({1, 2, 3}, DataType::Float, 7);
    const Tensor got = compileAndRun(fusion, {t0}).at(0).toHost();
    EXPECT_EQ(got.sizes(), (std::vector<int64_t>{3, 2, 1}));
    for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(got.item(i), t0.item(i)) << i;
  }
}

// Tutorial.IdModelReshapeAnalysis: two reshapes of unrelated inputs share no exact axis; once
// the inputs' axes are mapped (ValGraph::mapVals), the reshapes' roots, merges and splits are
// mapped too.
TEST(NvfuserTutorial, IdModelReshapeAnalysis) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = makeSymbolicTensor(2);
  fusion.addInput(tv1);
  TensorView* tv2 = reshape(tv0, {10, 20}, {20, 10});
  TensorView* tv3 = reshape(tv1, {10, 20}, {20, 10});
  fusion.addOutput(tv2);
  fusion.addOutput(tv3);

  IdModel id_model(&fusion);
  id_model.buildExactGraph();
  ValGraph& exact_graph = id_model.idGraph(IdMappingMode::EXACT);
  for (size_t i = 0; i < tv0->getLogicalDomain().size(); ++i)
    EXPECT_FALSE(exact_graph.disjointValSets().strictAreMapped(tv0->getLogicalDomain().at(i),
                                                               tv1->getLogicalDomain().at(i)));
  for (int64_t i = 0; i < tv2->nDims(); ++i)
    EXPECT_FALSE(exact_graph.disjointValSets().strictAreMapped(tv2->axis(i), tv3->axis(i)));

  for (size_t i = 0; i < tv0->getLogicalDomain().size(); ++i)
    exact_graph.mapVals(tv0->getLogicalDomain().at(i), tv1->getLogicalDomain().at(i));

  for (size_t i = 0; i < tv2->getRootDomain().size(); ++i)
    EXPECT_TRUE(exact_graph.disjointValSets().strictAreMapped(tv2->getRootDomain().at(i),
                                                              tv3->getRootDomain().at(i)));
  EXPECT_TRUE(exact_graph.disjointValSets().strictAreMapped(
      tv2->getRootDomain().at(0)->uses().at(0)->as<Merge>()->out(),
      tv3->getRootDomain().at(0)->uses().at(0)->as<Merge>()->out()));
  for (int64_t i = 0; i < tv2->nDims(); ++i)
    EXPECT_TRUE(exact_graph.disjointValSets().strictAreMapped(tv2->axis(i), tv3->axis(i)));
  // The model's own question sees the same graph; the permissive one is unchanged.
  EXPECT_TRUE(id_model.areMapped(tv2->axis(0), tv3->axis(0), IdMappingMode::Exact));
  EXPECT_FALSE(id_model.areMapped(tv2->axis(0), tv3->axis(0), IdMappingMode::PERMISSIVE));
}

}  // namespace
}  // namespace mf
