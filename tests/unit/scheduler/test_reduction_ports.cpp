// nvFuser's reduction scheduler tests (tests/cpp/test_gpu1.cpp), ported for the parity issue
// (#21): FusionReductionKeepDimBasic, FusionReductionKeepDimScheduler, FusionReductionScheduler,
// FusionReductionWithTrivialReduction, FusionReductionSchedulerMultiDimNonFastest / Fastest and
// the ReductionNoODim / ReductionWithIterDim shmoos (a subset of their sizes), and from
// test_gpu2/3.cpp and test_reduction.cpp FusionReductionHalf, FusionTrivialReduction 1-3,
// Reduction3DWithBroadcast, Reduction3DConstantIterationDomain and GeluBwdReduction. Kernels run on
// the device with a GPU and on the host kernel interpreter without one; values against the
// CPU reference (nvFuser: ATen in double).
#include <gtest/gtest.h>

#include <cmath>
#include <deque>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cuda/driver.h"
#include "minifuser/minifuser.h"
#include "random/kernel_interpreter.h"
#include "unit/scheduler/port_test_utils.h"

namespace mf {
namespace {

//! Every element of `got` is within the rounding of a sum of `terms` values of `want`'s dtype.
void expectSums(const std::vector<Tensor>& got, const std::vector<Tensor>& want, int64_t terms) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < want.size(); ++o) {
    const Tensor g = got[o].toHost();
    ASSERT_EQ(g.sizes(), want[o].sizes()) << "output " << o;
    ASSERT_EQ(g.dtype(), want[o].dtype()) << "output " << o;
    const bool narrow = want[o].dtype() == DataType::Half || want[o].dtype() == DataType::BFloat16;
    const double tol = narrow ? 1e-2 : 1e-5 * std::sqrt(static_cast<double>(terms)) + 1e-6;
    for (int64_t i = 0; i < want[o].numel(); ++i)
      ASSERT_NEAR(g.item(i), want[o].item(i), tol * (1 + std::abs(want[o].item(i))))
          << "output " << o << ", element " << i;
  }
}

//! nvFuser's scheduleAndRun(fusion, Reduction, inputs), checked against the reference.
void scheduleAndRunReduction(Fusion& fusion, const std::vector<Tensor>& in, int64_t terms) {
  const std::vector<Tensor> want = ReferenceEvaluator(&fusion).run(in);
  std::unique_ptr<HeuristicParams> params =
      SchedulerEntry::scheduleWith(&fusion, SchedulerType::Reduction, in);
  KernelExecutor ke;
  ke.compile(&fusion, in, params->lparams);
  expectSums(testing::runCompiled(ke, in), want, terms);
}

TEST(NvfuserReductionPorts, ReductionKeepDimBasic) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeConcreteTensor({2, 3, 4, 5, 6});
  fusion.addInput(tv0);
  TensorView* tv1 = sum(tv0, {0, 2, -1}, /*keep_dim=*/true);
  fusion.addOutput(tv1);
  // keep_dim broadcasts the reduction's result back to the input's rank, as nvFuser's.
  EXPECT_EQ(tv1->toString(), "T2_g_float[bS10{1}, iS11{3}, bS12{1}, iS13{5}, bS14{1}]");
  const std::vector<Tensor> in = {Tensor::random({2, 3, 4, 5, 6}, DataType::Float, 1)};
  KernelExecutor ke;
  ke.compile(&fusion, in);
  expectSums(testing::runCompiled(ke, in), ReferenceEvaluator(&fusion).run(in), 48);
}

// FusionReductionScheduler and ...KeepDimScheduler: the generic reductionOp over the rows of
// [80, 4096] (symbolic, and concrete with keep_dim).
TEST(NvfuserReductionPorts, ReductionScheduler) {
  for (bool keep_dim : {false, true}) {
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* tv0 = keep_dim ? makeConcreteTensor({80, 4096}) : makeSymbolicTensor(2);
    fusion.addInput(tv0);
    fusion.addOutput(
        reductionOp(BinaryOpType::Add, {1}, IrBuilder::create<Val>(0.0), tv0, keep_dim));
    scheduleAndRunReduction(fusion, {Tensor::random({80, 4096}, DataType::Float, 2)}, 4096);
  }
}

// FusionReductionWithTrivialReduction: every set of axes of [80, 4096] with a size-1 axis
// (Broadcast) in each place, all as outputs of one fusion, through FusionExecutorCache
// (nvFuser's [80, 4096] as [37, 131]: the interpreter runs every kernel).
TEST(NvfuserReductionPorts, ReductionWithTrivialReduction) {
  for (std::vector<int64_t> shape :
       std::vector<std::vector<int64_t>>{{-1, -1, 1}, {-1, 1, -1}, {1, -1, -1}}) {
    auto fusion = std::make_unique<Fusion>();
    FusionGuard fg(fusion.get());
    TensorView* tv0 = makeConcreteTensor(shape);
    fusion->addInput(tv0);
    for (const std::vector<int64_t>& axes :
         std::vector<std::vector<int64_t>>{{0}, {1}, {2}, {0, 1}, {0, 2}, {1, 2}, {0, 1, 2}})
      fusion->addOutput(sum(tv0, axes));
    std::deque<int64_t> values = {37, 131};
    for (int64_t& s : shape)
      if (s == -1) {
        s = values.front();
        values.pop_front();
      }
    const std::vector<Tensor> in = {Tensor::random(shape, DataType::Float, 3)};
    const std::vector<Tensor> want = ReferenceEvaluator(fusion.get()).run(in);
    FusionExecutorCache fec(std::move(fusion));
    std::vector<Tensor> got = fec.runFusionWithInputs(in);
    if (!cuda::cudaAvailable())
      got = fec.getMostRecentKernelRuntime()->runOnHost(in, testing::interpretKernelOrThrow);
    SCOPED_TRACE(fmt::format("[{}]", fmt::join(shape, ", ")));
    expectSums(got, want, 37 * 131);
  }
}

// FusionReductionSchedulerMultiDimNonFastest ([5, 10, 15, 20] over axes 0 and 2, into a
// preallocated output with the heuristics' launch parameters) and ...Fastest (axes 1 and 3).
TEST(NvfuserReductionPorts, ReductionSchedulerMultiDim) {
  for (std::vector<int64_t> axes : std::vector<std::vector<int64_t>>{{0, 2}, {1, 3}}) {
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* tv0 = makeSymbolicTensor(4);
    fusion.addInput(tv0);
    fusion.addOutput(reductionOp(BinaryOpType::Add, axes, IrBuilder::create<Val>(0.0), tv0));
    const std::vector<Tensor> in = {Tensor::random({5, 10, 15, 20}, DataType::Float, 4)};
    const std::vector<Tensor> want = ReferenceEvaluator(&fusion).run(in);
    std::unique_ptr<HeuristicParams> params =
        SchedulerEntry::scheduleWith(&fusion, SchedulerType::Reduction, in);
    KernelExecutor ke;
    ke.compile(&fusion, in, params->lparams);
    std::vector<Tensor> got;
    if (cuda::cudaAvailable()) {
      Tensor out = Tensor::empty(want[0].sizes(), DataType::Float);
      got = ke.run({in[0]}, {out}, params->lparams);
      EXPECT_EQ(got.at(0).dataPtr(), out.dataPtr());  // written in place
    } else {
      got = testing::runCompiled(ke, in);
    }
    expectSums(got, want, 100);
  }
}

// ReductionNoODim (a 1-D sum, cast back for half and bf16) and ReductionWithIterDim (a 2-D sum
// over either axis) for each floating dtype, at some of nvFuser's power-of-two sizes.
TEST(NvfuserReductionPorts, ReductionShmoo) {
  for (DataType dtype : {DataType::Double, DataType::Float, DataType::Half, DataType::BFloat16}) {
    const bool narrow = dtype == DataType::Half || dtype == DataType::BFloat16;
    auto build = [&](Fusion& fusion, int64_t rank, int64_t axis) {
      TensorView* tv0 = makeSymbolicTensor(rank, dtype);
      fusion.addInput(tv0);
      TensorView* x = narrow ? castOp(DataType::Float, tv0) : tv0;
      TensorView* s = sum(x, {axis});
      fusion.addOutput(narrow ? castOp(dtype, s) : s);
    };
    for (int64_t rdim : {1, 2, 64, 1031, 8192}) {
      Fusion fusion;
      FusionGuard fg(&fusion);
      build(fusion, 1, 0);
      SCOPED_TRACE(fmt::format("{} [{}]", toString(dtype), rdim));
      scheduleAndRunReduction(fusion, {Tensor::random({rdim}, dtype, 5)}, rdim);
    }
    for (auto [rdim, odim] :
         std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {2, 257}, {257, 2}, {64, 33}}) {
      for (int64_t axis : {0, 1}) {
        Fusion fusion;
        FusionGuard fg(&fusion);
        build(fusion, 2, axis);
        const std::vector<int64_t> sizes =
            axis == 1 ? std::vector<int64_t>{odim, rdim} : std::vector<int64_t>{rdim, odim};
        SCOPED_TRACE(fmt::format("{} rdim {} odim {} axis {}", toString(dtype), rdim, odim, axis));
        scheduleAndRunReduction(fusion, {Tensor::random(sizes, dtype, 6)}, rdim);
      }
    }
  }
}

// FusionReductionHalf (test_gpu2.cpp): half in, float sum of x + 1, half out.
TEST(NvfuserReductionPorts, ReductionHalf) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(3, DataType::Half);
  fusion.addInput(tv0);
  TensorView* tv2 = add(castOp(DataType::Float, tv0), IrBuilder::create<Val>(1.0));
  fusion.addOutput(castOp(DataType::Half, sum(tv2, {2})));
  scheduleAndRunReduction(fusion, {Tensor::random({8, 8, 16}, DataType::Half, 7)}, 16);
}

// FusionTrivialReduction 1 to 3 (test_gpu2.cpp): sums over size-1 broadcast axes only are
// squeezes, no ReductionOp (as nvFuser's), unscheduled and through the pointwise scheduler.
TEST(NvfuserReductionPorts, TrivialReduction) {
  {
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* tv0 = makeConcreteTensor({10, 20, 1});
    fusion.addInput(tv0);
    fusion.addOutput(reductionOp(BinaryOpType::Add, {2}, IrBuilder::create<Val>(0.0), tv0));
    for (Expr* e : fusion.exprs()) EXPECT_FALSE(e->isA<ReductionOp>()) << e->toString();
    // A reduction with another initial value than the identity is kept (x + 5, not x).
    EXPECT_TRUE(reductionOp(BinaryOpType::Add, {2}, IrBuilder::create<Val>(5.0), tv0)
                    ->definition()
                    ->isA<ReductionOp>());
    const std::vector<Tensor> in = {Tensor::random({10, 20, 1}, DataType::Float, 8)};
    KernelExecutor ke;
    ke.compile(&fusion, in);
    expectSums(testing::runCompiled(ke, in), ReferenceEvaluator(&fusion).run(in), 1);
  }
  for (bool three_axes_at_once : {false, true}) {
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* tv0 = makeSymbolicTensor(2);
    TensorView* tv1 =
        three_axes_at_once ? makeConcreteTensor({1, 1, 1, 7, 8}) : makeConcreteTensor({1, 1, 7, 8});
    fusion.addInput(tv0);
    fusion.addInput(tv1);
    TensorView* reduced = three_axes_at_once ? sum(tv1, {0, 1, 2}) : sum(sum(tv1, {0}), {0});
    fusion.addOutput(add(reduced, tv0));
    const std::vector<Tensor> in = {
        Tensor::random({7, 8}, DataType::Float, 9),
        Tensor::random(three_axes_at_once ? std::vector<int64_t>{1, 1, 1, 7, 8}
                                          : std::vector<int64_t>{1, 1, 7, 8},
                       DataType::Float, 10)};
    const std::vector<Tensor> want = ReferenceEvaluator(&fusion).run(in);
    SchedulerEntry::scheduleWith(&fusion, SchedulerType::PointWise, in);
    KernelExecutor ke;
    ke.compile(&fusion, in);
    expectSums(testing::runCompiled(ke, in), want, 1);
  }
}

// Reduction3DWithBroadcast (test_gpu3.cpp): double [8, 7, 5, 1] summed over axes 2 and 0.
TEST(NvfuserReductionPorts, Reduction3DWithBroadcast) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = TensorViewBuilder()
                        .dtype(DataType::Double)
                        .contiguity({true, true, true, std::nullopt})
                        .shape({-1, -1, -1, 1})
                        .build();
  fusion.addInput(tv0);
  fusion.addOutput(sum(tv0, {2, 0}));
  scheduleAndRunReduction(fusion, {Tensor::random({8, 7, 5, 1}, DataType::Double, 11)}, 40);
}

// Reduction3DConstantIterationDomain (test_gpu3.cpp): a permuted 5-D input times full(1) of
// constant extents, summed over axes 2 and 4, through FusionExecutorCache.
TEST(NvfuserReductionPorts, Reduction3DConstantIterationDomain) {
  const int64_t x = 2, y = 8, z = 8, w = 16, h = 64;  // nvFuser: h = 512
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* tv0 = TensorViewBuilder()
                        .ndims(5)
                        .shape({-1, -1, -1, -1, -1})
                        .contiguity({true, true, true, true, true})
                        .strideOrder({4, 3, 2, 0, 1})
                        .build();
  fusion->addInput(tv0);
  TensorView* tv1 =
      full({IrBuilder::create<Val>(x), IrBuilder::create<Val>(y), IrBuilder::create<Val>(z),
            IrBuilder::create<Val>(w), IrBuilder::create<Val>(h)},
           fusion->oneVal(), DataType::Float);
  fusion->addOutput(sum(mul(tv0, tv1), {2, 4}));
  const std::vector<Tensor> in = {
      Tensor::random({x * y * z * w * h}, DataType::Float, 12)
          .asStrided({x, y, z, w, h}, {w * h * z * y, w * h * z, w * h, 1, w}, 0)};
  const std::vector<Tensor> want = ReferenceEvaluator(fusion.get()).run(in);
  FusionExecutorCache fec(std::move(fusion));
  std::vector<Tensor> got = fec.runFusionWithInputs(in);
  if (!cuda::cudaAvailable())
    got = fec.getMostRecentKernelRuntime()->runOnHost(in, testing::interpretKernelOrThrow);
  expectSums(got, want, z * h);
}

// GeluBwdReduction (test_reduction.cpp): tanh-GELU's backward and its column sum, both
// outputs, one Reduction kernel.
TEST(NvfuserReductionPorts, GeluBwdReduction) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* grad = makeSymbolicTensor(2);
  TensorView* xvar = makeSymbolicTensor(2);
  fusion.addInput(grad);
  fusion.addInput(xvar);
  const float k_079 = 0.79788456f, k_004 = 0.044715f, k_010 = 0.1070322243f;
  auto c = [](double v) { return IrBuilder::create<Val>(v); };
  TensorView* t8 = mul(xvar, c(k_079));
  TensorView* t11 = add(mul(mul(xvar, c(k_004)), xvar), IrBuilder::create<Val>(1L));
  TensorView* t13 = unaryOp(UnaryOpType::Tanh, mul(t8, t11));
  TensorView* t14 = mul(xvar, c(0.5));
  TensorView* t17 = add(unaryOp(UnaryOpType::Neg, mul(t13, t13)), IrBuilder::create<Val>(1L));
  TensorView* t20 = add(mul(mul(xvar, c(k_010)), xvar), c(k_079));
  TensorView* t22 = mul(t14, mul(t17, t20));
  TensorView* t24 = mul(add(t13, IrBuilder::create<Val>(1L)), c(0.5));
  TensorView* t26 = mul(add(t22, t24), grad);
  fusion.addOutput(t26);
  fusion.addOutput(sum(t26, {0}));
  scheduleAndRunReduction(fusion,
                          {Tensor::random({4, 128}, DataType::Float, 13),
                           Tensor::random({4, 128}, DataType::Float, 14)},
                          4);
}

}  // namespace
}  // namespace mf
