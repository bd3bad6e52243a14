// nvFuser's pointwise scheduler tests (tests/cpp/test_pointwise.cpp), ported for the parity
// issue (#21): the vectorization factor the heuristics choose for strided, misaligned and
// permuted inputs (VectorizeStrideContiguity3D / 5D, VectorizeStrideMisalignedBase,
// VectorizeAllocationDomain, Issue1567*), with nvFuser's fusions and expectations. nvFuser
// runs a million rows; fewer are enough here (the heuristics vectorize from one wave of
// blocks on), with the strides' divisibility kept. The values are the reference's: the
// kernels on the device with a GPU, on the host kernel interpreter without one (small cases).
#include <gtest/gtest.h>

#include <cmath>

#include "cuda/driver.h"
#include "minifuser/minifuser.h"
#include "random/kernel_interpreter.h"
#include "unit/scheduler/port_test_utils.h"

namespace mf {
namespace {

//! nvFuser's getVecSizeForPointwise: the last run was one PointWise kernel; its factor.
int64_t vecSize(FusionExecutorCache& fec) {
  FusionKernelRuntime* runtime = fec.getMostRecentKernelRuntime();
  EXPECT_FALSE(runtime->isSegmented());
  return runtime->schedulerHeuristics()
      ->heuristicsList()
      .at(0)
      ->as<PointwiseParams>()
      ->vectorization_factor;
}

//! nvFuser's hasVectorizationCache: `tv` (a fusion input) is read by one Set whose output has
//! a vectorized loop axis.
bool hasVectorizationCache(TensorView* tv) {
  EXPECT_TRUE(tv->isFusionInput());
  if (tv->uses().size() != 1) return false;
  auto* set = dynamic_cast<LoadStoreOp*>(tv->uses().at(0));
  if (set == nullptr || set->opType() != LoadStoreOpType::Set) return false;
  for (IterDomain* id : set->out()->as<TensorView>()->getLoopDomain())
    if (id->getParallelType() == ParallelType::Vectorize) return true;
  return false;
}

void expectEqualValues(const std::vector<Tensor>& got, const std::vector<Tensor>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < want.size(); ++o) {
    const Tensor g = got[o].toHost();
    ASSERT_EQ(g.sizes(), want[o].sizes());
    for (int64_t i = 0; i < want[o].numel(); ++i)
      ASSERT_EQ(g.item(i), want[o].item(i)) << "output " << o << ", element " << i;
  }
}

//! Runs `fusion` through FusionExecutorCache and returns the chosen vectorization factor; the
//! outputs (the kernel's: device, or host interpreter when `interpret`) equal the reference's.
int64_t runAndVecSize(FusionExecutorCache& fec, const std::vector<Tensor>& in, bool interpret) {
  const std::vector<Tensor> want = ReferenceEvaluator(fec.fusion()).run(in);
  std::vector<Tensor> got = fec.runFusionWithInputs(in);
  const int64_t vec = vecSize(fec);
  if (!cuda::cudaAvailable() && interpret)
    got = fec.getMostRecentKernelRuntime()->runOnHost(in, testing::interpretKernelOrThrow);
  expectEqualValues(got, want);
  return vec;
}

//! A random float tensor viewed with `sizes`, `strides` and `offset` in fresh storage.
Tensor strided(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
               int64_t offset, uint64_t seed) {
  int64_t numel = offset + 1;
  for (size_t i = 0; i < sizes.size(); ++i) numel += (sizes[i] - 1) * strides[i];
  return Tensor::random({numel}, DataType::Float, seed).asStrided(sizes, strides, offset);
}

//! nvFuser's VectorizeStride* fusion: tv0 + tv0 for an input of `contiguity`, in a cache.
std::unique_ptr<FusionExecutorCache> selfAddCache(Contiguity contiguity) {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  const auto rank = static_cast<int64_t>(contiguity.size());
  TensorView* tv0 = TensorViewBuilder().ndims(rank).contiguity(std::move(contiguity)).build();
  fusion->addInput(tv0);
  fusion->addOutput(add(tv0, tv0));
  return std::make_unique<FusionExecutorCache>(std::move(fusion));
}

TEST(NvfuserPointwisePorts, VectorizeStrideContiguity3D) {
  const std::unique_ptr<FusionExecutorCache> cache = selfAddCache({false, true, true});
  FusionExecutorCache& fec = *cache;
  const int64_t rows = 709;  // 709 x 8 x 3: just past a wave of 128-element blocks
  for (auto [size, vec] : std::vector<std::pair<int64_t, int64_t>>{{17, 1}, {10, 2}, {16, 4}}) {
    const Tensor t0 = strided({rows, 8, 3}, {size * 3, 3, 1}, 0, 200 + size);
    EXPECT_EQ(runAndVecSize(fec, {t0}, true), vec) << size;
  }
}

TEST(NvfuserPointwisePorts, VectorizeStrideContiguity5D) {
  const std::unique_ptr<FusionExecutorCache> cache = selfAddCache({false, true, false, true, true});
  FusionExecutorCache& fec = *cache;
  const int64_t n = 1235;  // nvFuser: 12345 (odd, as here)
  for (auto [size1, size2, vec] :
       std::vector<std::tuple<int64_t, int64_t, int64_t>>{{9, 17, 1}, {9, 10, 2}, {9, 16, 4}}) {
    // randn({4, size1, n, size2, 3}).narrow(1, 0, 8).narrow(3, 0, 4)
    const Tensor t0 = strided(
        {4, 8, n, 4, 3}, {size1 * n * size2 * 3, n * size2 * 3, size2 * 3, 3, 1}, 0, 300 + size2);
    EXPECT_EQ(runAndVecSize(fec, {t0}, false), vec) << size2;
  }
}

// The storage offset (the base's alignment) limits the factor as the strides do.
TEST(NvfuserPointwisePorts, VectorizeStrideMisalignedBase) {
  const std::unique_ptr<FusionExecutorCache> cache = selfAddCache({false, true, false, true, true});
  FusionExecutorCache& fec = *cache;
  const int64_t n = 1235;
  // {size, stride1, stride2, align, vec}
  for (auto [size, stride1, stride2, align, vec] :
       std::vector<std::array<int64_t, 5>>{{4, 4, 4, 4, 4},
                                           {4, 4, 4, 2, 2},
                                           {4, 4, 4, 1, 1},
                                           {4, 4, 2, 4, 2},
                                           {4, 4, 2, 1, 1},
                                           {4, 2, 4, 4, 2},
                                           {4, 2, 4, 1, 1},
                                           {2, 4, 4, 4, 2},
                                           {2, 4, 4, 1, 1},
                                           {2, 2, 2, 4, 2},
                                           {2, 2, 2, 1, 1}}) {
    const Tensor t0 =
        strided({4, 4, n, size, 3}, {stride1, stride2 * n, stride2, 3, 1}, align, 400 + align);
    EXPECT_EQ(runAndVecSize(fec, {t0}, false), vec)
        << size << " " << stride1 << " " << stride2 << " " << align;
  }
}

// An input allocated [0, 2, 1] and an output given the same allocation domain: the factor
// follows the allocation's innermost axis.
TEST(NvfuserPointwisePorts, VectorizeAllocationDomain) {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* tv0 =
      TensorViewBuilder().ndims(3).contiguity({true, true, true}).strideOrder({2, 0, 1}).build();
  fusion->addInput(tv0);
  TensorView* tv1 = add(tv0, IrBuilder::create<Val>(1.0, DataType::Float));
  tv1->setAllocationDomain({tv1->axis(0), tv1->axis(2), tv1->axis(1)}, true);
  fusion->addOutput(tv1);
  FusionExecutorCache fec(std::move(fusion));
  const Tensor t0 = strided({1024, 128, 25}, {128 * 25, 1, 128}, 0, 5);
  EXPECT_EQ(runAndVecSize(fec, {t0}, false), 4);
  const Tensor small = strided({3, 8, 5}, {8 * 5, 1, 8}, 0, 6);
  runAndVecSize(fec, {small}, true);
}

//! nvFuser's scheduleAndRun(fusion, PointWise, inputs): the factor the heuristics chose; the
//! kernel's values (device, or host interpreter) equal the reference's.
int64_t scheduleAndRunPointwise(Fusion* fusion, const std::vector<Tensor>& in) {
  const std::vector<Tensor> want = ReferenceEvaluator(fusion).run(in);
  std::unique_ptr<HeuristicParams> params =
      SchedulerEntry::scheduleWith(fusion, SchedulerType::PointWise, in);
  KernelExecutor ke;
  ke.compile(fusion, in);
  expectEqualValues(testing::runCompiled(ke, in), want);
  return params->as<PointwiseParams>()->vectorization_factor;
}

// Issue 1567: a broadcast input [1, i, 1] allocated [0, 2, 1] beside a permuted input.
TEST(NvfuserPointwisePorts, Issue1567VectorizeAllocationDomain) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 =
      TensorViewBuilder().ndims(3).contiguity({true, true, true}).strideOrder({2, 0, 1}).build();
  TensorView* tv1 = TensorViewBuilder()
                        .ndims(3)
                        .shape({1, -1, 1})
                        .contiguity({std::nullopt, std::nullopt, true})
                        .strideOrder({2, 0, 1})
                        .build();
  fusion.addInput(tv0);
  fusion.addInput(tv1);
  TensorView* tv3 = add(add(tv0, tv1), IrBuilder::create<Val>(1.0, DataType::Float));
  tv3->setAllocationDomain({tv3->axis(0), tv3->axis(2), tv3->axis(1)}, true);
  fusion.addOutput(tv3);
  const Tensor t0 = strided({8, 128, 25}, {128 * 25, 1, 128}, 0, 7);
  const Tensor t1 = strided({1, 128, 1}, {128, 1, 128}, 0, 8);
  EXPECT_EQ(scheduleAndRunPointwise(&fusion, {t0, t1}), 4);
  EXPECT_TRUE(hasVectorizationCache(tv0));
  EXPECT_TRUE(hasVectorizationCache(tv1));
}

// Issue 1567, cases 0 to 3: which inputs a broadcast axis leaves out of vectorization, and
// the factor a broadcast or a transposed output allows.
TEST(NvfuserPointwisePorts, Issue1567VectorizationFactorAnalysis) {
  {  // Case 0: [i, i, b] + [i, i, i]: the broadcast input has no vectorizable axis.
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* tv0 = TensorViewBuilder()
                          .ndims(3)
                          .contiguity({true, true, std::nullopt})
                          .shape({-1, -1, 1})
                          .build();
    TensorView* tv1 = TensorViewBuilder().ndims(3).contiguity({true, true, true}).build();
    fusion.addInput(tv0);
    fusion.addInput(tv1);
    fusion.addOutput(add(tv0, tv1));
    EXPECT_EQ(scheduleAndRunPointwise(&fusion, {Tensor::random({32, 2, 1}, DataType::Float, 9),
                                                Tensor::random({32, 2, 512}, DataType::Float, 10)}),
              4);
    EXPECT_FALSE(hasVectorizationCache(tv0));
    EXPECT_TRUE(hasVectorizationCache(tv1));
  }
  {  // Case 1: [i, b, i] + [i, i, i]: the inner extent 2 bounds the factor.
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* tv0 = TensorViewBuilder()
                          .ndims(3)
                          .contiguity({true, std::nullopt, true})
                          .shape({-1, 1, -1})
                          .build();
    TensorView* tv1 = TensorViewBuilder().ndims(3).contiguity({true, true, true}).build();
    fusion.addInput(tv0);
    fusion.addInput(tv1);
    fusion.addOutput(add(tv0, tv1));
    EXPECT_EQ(scheduleAndRunPointwise(&fusion, {Tensor::random({32, 1, 2}, DataType::Float, 11),
                                                Tensor::random({32, 512, 2}, DataType::Float, 12)}),
              2);
    EXPECT_TRUE(hasVectorizationCache(tv0));
    EXPECT_TRUE(hasVectorizationCache(tv1));
  }
  {  // Case 2: as case 1, the second input allocated [1, 0, 2] and the output transposed.
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* tv0 = TensorViewBuilder()
                          .ndims(3)
                          .contiguity({true, std::nullopt, true})
                          .shape({-1, 1, -1})
                          .build();
    TensorView* tv1 =
        TensorViewBuilder().ndims(3).contiguity({true, true, true}).strideOrder({1, 2, 0}).build();
    fusion.addInput(tv0);
    fusion.addInput(tv1);
    fusion.addOutput(transpose(add(tv0, tv1), 0, 1));
    EXPECT_EQ(scheduleAndRunPointwise(&fusion, {Tensor::random({32, 1, 2}, DataType::Float, 13),
                                                strided({32, 512, 2}, {2, 64, 1}, 0, 14)}),
              4);
    EXPECT_TRUE(hasVectorizationCache(tv0));
    EXPECT_TRUE(hasVectorizationCache(tv1));
  }
  {  // Case 3: [b, i, i] + [i, i, i], the output transposed: the inner extent 2 bounds it.
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* tv0 = TensorViewBuilder()
                          .ndims(3)
                          .contiguity({std::nullopt, true, true})
                          .shape({1, -1, -1})
                          .build();
    TensorView* tv1 = TensorViewBuilder().ndims(3).contiguity({true, true, true}).build();
    fusion.addInput(tv0);
    fusion.addInput(tv1);
    fusion.addOutput(transpose(add(tv0, tv1), 0, 1));
    EXPECT_EQ(scheduleAndRunPointwise(&fusion, {Tensor::random({1, 96, 2}, DataType::Float, 15),
                                                Tensor::random({128, 96, 2}, DataType::Float, 16)}),
              2);
    EXPECT_TRUE(hasVectorizationCache(tv0));
    EXPECT_TRUE(hasVectorizationCache(tv1));
  }
}

// VectorizeWithBroadcastAndReshape1 and 2: an input broadcast along a new inner axis of 4 is
// an output too, and the sum is reshaped flat: the factor is still 4 (nvFuser: 1024 x 1024
// x 4; the allocation of the broadcast output does not limit it).
TEST(NvfuserPointwisePorts, VectorizeWithBroadcastAndReshape) {
  const std::vector<int64_t> shape1{256, 256}, shape2{256, 256, 4}, shape3{256 * 256 * 4};
  for (bool second : {false, true}) {
    auto fusion = std::make_unique<Fusion>();
    FusionGuard fg(fusion.get());
    TensorView* tv0 = makeContigConcreteTensor(shape1);
    fusion->addInput(tv0);
    TensorView* tv1 = second ? makeContigConcreteTensor(shape1) : nullptr;
    if (second) fusion->addInput(tv1);
    TensorView* tv2 = makeContigConcreteTensor(shape2);
    fusion->addInput(tv2);
    TensorView* tv3 = broadcast(tv0, {false, false, true});
    fusion->addOutput(tv3);
    TensorView* sum = add(tv3, tv2);
    if (second) sum = add(sum, broadcast(tv1, {false, false, true}));
    fusion->addOutput(reshape(sum, shape2, shape3));
    FusionExecutorCache fec(std::move(fusion));
    std::vector<Tensor> in = {Tensor::random(shape1, DataType::Float, 17)};
    if (second) in.push_back(Tensor::random(shape1, DataType::Float, 18));
    in.push_back(Tensor::random(shape2, DataType::Float, 19));
    EXPECT_EQ(runAndVecSize(fec, in, false), 4) << second;
  }
}

// VectorizeWithExpandedBroadcast: a half input [2, 65536] expanded from one row (stride 0),
// allocated [1, 0]: the inner axis is still vectorized. nvFuser writes
// setAllocationDomain(..., true), which would make the expanded axis contiguous here (its
// stride 0 then refused); the allocation's contiguity is spelled out instead: neither the
// expanded axis nor the one outside it is contiguous.
TEST(NvfuserPointwisePorts, VectorizeWithExpandedBroadcast) {
  constexpr int64_t kTensorSize = 65536;
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* in = TensorViewBuilder()
                       .dtype(DataType::Half)
                       .shape({2, kTensorSize})
                       .expanded({true, false})
                       .build();
  in->setAllocationDomain({in->axis(1), in->axis(0)}, Contiguity{false, false});
  fusion->addInput(in);
  fusion->addOutput(add(in, in));
  FusionExecutorCache fec(std::move(fusion));
  const Tensor t =
      Tensor::random({kTensorSize}, DataType::Half, 20).asStrided({2, kTensorSize}, {0, 1}, 0);
  EXPECT_GT(runAndVecSize(fec, {t}, false), 1);
}

// VectorizePadLoweringPermuted: a column-major input padded by 4 on each side of its inner
// axis and written column-major: the output's loop has a vectorized axis of 4.
TEST(NvfuserPointwisePorts, VectorizePadLoweringPermuted) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = TensorViewBuilder()
                        .shape({256, 256})
                        .dtype(DataType::Float)
                        .contiguity(true)
                        .strideOrder({0, 1})
                        .build();
  fusion.addInput(tv0);
  TensorView* tv1 = pad(tv0, {IrBuilder::create<Val>(4L), IrBuilder::create<Val>(4L)});
  TensorView* tv2 = relu(tv1);
  fusion.addOutput(tv2);
  tv2->setAllocationDomain({tv2->axis(1), tv2->axis(0)}, true);
  const Tensor t0 =
      Tensor::random({256 * 256}, DataType::Float, 21).asStrided({256, 256}, {1, 256}, 0);
  scheduleAndRunPointwise(&fusion, {t0});
  bool found_vectorize = false;
  for (IterDomain* id : fusion.outputs().at(0)->as<TensorView>()->getLoopDomain())
    if (id->getParallelType() == ParallelType::Vectorize) {
      EXPECT_EQ(id->extent()->constInt(), 4);
      found_vectorize = true;
    }
  EXPECT_TRUE(found_vectorize);
}

}  // namespace
}  // namespace mf
