// nvFuser's API spellings (the parity issue #21; docs/porting_from_nvfuser.md): IrBuilder values,
// plain-number arguments and KernelArgumentHolder, TensorViewBuilder's strideOrder / expanded,
// scheduleWith and the scheduler tools' names, segments and executors, and ports of nvFuser
// tests that use them. Without a GPU, kernels run on the host interpreter and results are
// compared with the CPU reference; with one, on the device.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <cmath>

#include "cuda/driver.h"
#include "random/kernel_interpreter.h"
#include "scheduler/tools/domain_map.h"
#include "unit/scheduler/scheduler_test_utils.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

//! Every element of `got` equals `want`'s (exact: same kernels, same rounding) or lies within
//! `tol` of it.
void expectClose(const Tensor& got, const Tensor& want, double tol = 0) {
  ASSERT_EQ(got.sizes(), want.sizes());
  ASSERT_EQ(got.dtype(), want.dtype());
  const Tensor g = got.toHost();
  for (int64_t i = 0; i < want.numel(); ++i)
    ASSERT_NEAR(g.item(i), want.item(i), tol + tol * std::abs(want.item(i))) << "element " << i;
}

//! Runs `ke`'s kernel for `inputs`: on the device with a GPU, else on the host interpreter.
std::vector<Tensor> runKernel(KernelExecutor& ke, const std::vector<Tensor>& inputs) {
  if (cuda::cudaAvailable()) return ke.run(inputs);
  return testing::interpretKernelOrThrow(ke.kernel(), inputs);
}

//! The last run of `fec` again, each kernel on the device with a GPU or on the host
//! interpreter without one (FusionKernelRuntime::runOnHost).
std::vector<Tensor> rerunKernels(FusionExecutorCache& fec, const std::vector<Tensor>& inputs) {
  if (cuda::cudaAvailable()) return fec.runFusionWithInputs(inputs);
  return fec.getMostRecentKernelRuntime()->runOnHost(
      inputs, [](Kernel& k, const std::vector<Tensor>& in) {
        return testing::interpretKernelOrThrow(k, in);
      });
}

//! nvFuser's scheduleAndRun(fusion, type, inputs): scheduleWith, then a KernelExecutor's
//! kernel (device or host interpreter). The values are compared with `want`.
void scheduleAndRun(Fusion* fusion, SchedulerType type, const std::vector<Tensor>& inputs,
                    const std::vector<Tensor>& want) {
  SchedulerEntry::scheduleWith(fusion, type, inputs);
  KernelExecutor ke;
  ke.compile(fusion, inputs);
  const std::vector<Tensor> got = runKernel(ke, inputs);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) expectClose(got[i], want[i], 1e-6);
}

//! nvFuser's DomainMapUnitTest: reaches the protected coverage question.
class DomainMapUnitTest : public scheduler_tools::DomainMap {
 public:
  explicit DomainMapUnitTest(Fusion* fusion) : scheduler_tools::DomainMap(fusion) {}
  bool testTargetCoverage(TensorView* target_tv, TensorView* reference_tv) const {
    return areAllTargetIdsCoveredBy(target_tv, reference_tv);
  }
};

TEST(NvfuserApi, IrBuilderCreateVal) {
  Fusion f;
  FusionGuard fg(&f);
  Val* d = IrBuilder::create<Val>(1.5);
  Val* i = IrBuilder::create<Val>(7L);
  Val* b = IrBuilder::create<Val>(true);
  Val* fl = IrBuilder::create<Val>(2.5, DataType::Float);
  Val* sym = IrBuilder::create<Val>(DataType::Double);
  Val* sym_int = IrBuilder::create<Val>(DataType::Int);
  EXPECT_EQ(d->dtype(), DataType::Double);
  EXPECT_EQ(std::get<double>(*d->constValue()), 1.5);
  EXPECT_EQ(i->dtype(), DataType::Int64);
  EXPECT_EQ(i->constInt(), 7);
  EXPECT_EQ(b->dtype(), DataType::Bool);
  EXPECT_TRUE(std::get<bool>(*b->constValue()));
  EXPECT_EQ(fl->dtype(), DataType::Float);
  EXPECT_EQ(std::get<double>(*fl->constValue()), 2.5);
  EXPECT_FALSE(sym->isConst());
  EXPECT_EQ(sym->dtype(), DataType::Double);
  EXPECT_EQ(sym_int->dtype(), DataType::Int64);
  EXPECT_EQ(DataType::Int, DataType::Int64);
  EXPECT_TRUE(i->isA<Scalar>());
}

// A symbolic scalar from IrBuilder::create<Val>(DataType::Double) is a fusion input, given as a
// plain number (nvFuser's `runFusionWithInputs({t0, 2.0})`), as an int64_t, or in a
// KernelArgumentHolder; the std::vector<Tensor> forms keep working beside them.
TEST(NvfuserApi, ScalarInputsAsPlainNumbers) {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* tv0 = makeSymbolicTensor(2);
  Val* s0 = IrBuilder::create<Val>(DataType::Double);
  Val* s1 = IrBuilder::create<Val>(DataType::Int);
  TensorView* tv1 = makeSymbolicTensor(2);
  fusion->addInput(tv0);
  fusion->addInput(s0);
  fusion->addInput(s1);
  fusion->addInput(tv1);
  fusion->addOutput(add(mul(tv0, s0), mul(tv1, s1)));
  Fusion copy(*fusion);

  const Tensor t0 = Tensor::random({7, 13}, DataType::Float, 11);
  const Tensor t1 = Tensor::random({7, 13}, DataType::Float, 12);
  const std::vector<Tensor> as_tensors = {t0, Tensor::full({}, DataType::Double, 2.5),
                                          Tensor::full({}, DataType::Int64, -3), t1};
  const Tensor want = ReferenceEvaluator(&copy).run(as_tensors).at(0);
  for (int64_t i = 0; i < want.numel(); ++i)
    ASSERT_NEAR(want.item(i), t0.item(i) * 2.5 - 3 * t1.item(i), 1e-5);

  FusionExecutorCache fec(std::move(fusion));
  expectClose(fec.runFusionWithInputs(as_tensors).at(0), want);
  expectClose(fec.runFusionWithInputs({t0, 2.5, int64_t(-3), t1}).at(0), want);
  expectClose(fec.runFusionWithInputs({t0, 2.5, -3, t1}).at(0), want);
  KernelArgumentHolder args({t0, 2.5});
  args.push(int64_t{-3});
  args.push(t1);
  EXPECT_EQ(args.size(), 4u);
  EXPECT_TRUE(args[1].isNumber());
  EXPECT_EQ(args[3].as<Tensor>().sizes(), t1.sizes());
  expectClose(fec.runFusionWithInputs(args).at(0), want);

  // A number is the 0-dim tensor of its input's dtype; a tensor where a scalar goes is the
  // usual message.
  EXPECT_THAT(
      [&] {
        fec.runFusionWithInputs({t0, t1, -3, t1});
      },
      ThrowsMessage<UserError>(HasSubstr("is a double scalar: expected a 0-dim double "
                                         "tensor holding its value, got float[7, 13]")));

  // The same forms through KernelExecutor::compile / run (nvFuser's LaunchParams and
  // CompileParams; the host interpreter without a GPU).
  Fusion scheduled(copy);
  auto params = SchedulerEntry::scheduleWith(&scheduled, SchedulerType::PointWise,
                                             {t0, 2.5, int64_t(-3), t1});
  EXPECT_EQ(params->scheduler_type, SchedulerType::PointWise);
  KernelExecutor ke;
  ke.compile(&scheduled, {t0, 2.5, int64_t(-3), t1}, LaunchParams(), CompileParams());
  expectClose(runKernel(ke, args.toTensors(scheduled)).at(0), want);
  if (!cuda::cudaAvailable()) {
    EXPECT_THAT(
        [&] {
          ke.run({t0, 2.5, -3, t1});
        },
        ThrowsMessage<UserError>(HasSubstr("no CUDA device available")));
  }
}

// strideOrder({0, 1}) makes a column-major input (allocation [i1, i0]), which runs through
// FusionExecutorCache and a kernel scheduled with scheduleWith; a stride order that is not a
// permutation is a UserError.
TEST(NvfuserApi, TensorViewBuilderStrideOrder) {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* tv0 = TensorViewBuilder()
                        .ndims(2)
                        .dtype(DataType::Float)
                        .contiguity({true, true})
                        .strideOrder({0, 1})
                        .build();
  ASSERT_EQ(tv0->domain()->allocation().size(), 2u);
  EXPECT_EQ(tv0->domain()->allocation()[0], tv0->getLogicalDomain()[1]);
  EXPECT_EQ(tv0->domain()->allocation()[1], tv0->getLogicalDomain()[0]);
  fusion->addInput(tv0);
  fusion->addOutput(mul(add(tv0, tv0), tv0));
  Fusion copy(*fusion);

  // Logical [7, 13], column-major: element (i, j) at i + 7 * j.
  const Tensor storage = Tensor::random({13, 7}, DataType::Float, 21);
  const Tensor t0 = storage.asStrided({7, 13}, {1, 7}, 0);
  const Tensor want = ReferenceEvaluator(&copy).run({t0}).at(0);
  for (int64_t i = 0; i < 7; ++i)
    for (int64_t j = 0; j < 13; ++j) {
      const double x = storage.item(i + 7 * j);
      ASSERT_NEAR(want.at({i, j}), 2 * x * x, 1e-5);
    }
  FusionExecutorCache fec(std::move(fusion));
  expectClose(fec.runFusionWithInputs({t0}).at(0), want);
  expectClose(rerunKernels(fec, {t0}).at(0), want);

  SchedulerEntry::scheduleWith(&copy, SchedulerType::PointWise, {t0});
  KernelExecutor ke;
  ke.compile(&copy, {t0});
  expectClose(runKernel(ke, {t0}).at(0), want);

  EXPECT_THAT(
      [] {
        TensorViewBuilder().ndims(2).strideOrder({1, 1}).build();
      },
      ThrowsMessage<UserError>(
          HasSubstr("TensorViewBuilder: strideOrder [1, 1] is not a permutation of 0..1")));
}

// expanded({false, true}) with shape {-1, 5}: axis 1 has extent 5 and is read with stride 0
// (a tensor expanded from [n, 1]); it runs through FusionExecutorCache and the kernels.
TEST(NvfuserApi, TensorViewBuilderExpanded) {
  for (const int64_t rows : {1, 7}) {
    auto fusion = std::make_unique<Fusion>();
    FusionGuard fg(fusion.get());
    TensorView* tv0 = TensorViewBuilder()
                          .ndims(2)
                          .shape({-1, 5})
                          .contiguity({true, std::nullopt})
                          .expanded({false, true})
                          .build();
    TensorView* tv1 = makeContigTensor(2);
    fusion->addInput(tv0);
    fusion->addInput(tv1);
    EXPECT_EQ(tv0->axis(1)->extent()->constInt(), 5);
    fusion->addOutput(add(tv0, tv1));
    fusion->addOutput(sum(tv0, {1}));
    Fusion copy(*fusion);

    const Tensor column = Tensor::random({rows, 1}, DataType::Float, 31);
    const Tensor t0 = column.asStrided({rows, 5}, {1, 0}, 0);
    const Tensor t1 = Tensor::random({rows, 5}, DataType::Float, 32);
    const std::vector<Tensor> want = ReferenceEvaluator(&copy).run({t0, t1});
    for (int64_t i = 0; i < rows; ++i) {
      ASSERT_NEAR(want[1].item(i), 5 * column.item(i), 1e-5);
      for (int64_t j = 0; j < 5; ++j)
        ASSERT_NEAR(want[0].at({i, j}), column.item(i) + t1.at({i, j}), 1e-6);
    }
    FusionExecutorCache fec(std::move(fusion));
    const std::vector<Tensor> got = fec.runFusionWithInputs({t0, t1});
    const std::vector<Tensor> kernels = rerunKernels(fec, {t0, t1});
    for (size_t o = 0; o < 2; ++o) {
      expectClose(got.at(o), want[o]);
      expectClose(kernels.at(o), want[o], 1e-6);
    }
  }
}

// A hand schedule in nvFuser's words: TransformPropagator over a
// MaxLogicalDomainInfoSpanningTree, scheduler_utils::parallelizeAllLike, cacheAfter /
// cacheBefore(LoadStoreOpType::Set); the kernel computes the reference's values.
TEST(NvfuserApi, HandScheduleSpellings) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigTensor(2);
  TensorView* tv1 = makeContigTensor(2);
  fusion.addInput(tv0);
  fusion.addInput(tv1);
  TensorView* tv2 = add(tv0, tv1);
  TensorView* tv3 = mul(tv2, tv0);
  fusion.addOutput(tv3);
  Fusion unscheduled(fusion);

  TensorView* cache0 = tv0->cacheAfter(LoadStoreOpType::Set);
  TensorView* cache3 = tv3->cacheBefore(LoadStoreOpType::Set);
  EXPECT_EQ(cache0->definition()->as<LoadStoreOp>()->in(), tv0);
  EXPECT_EQ(tv3->definition()->input(0), cache3);
  tv3->merge(0);
  tv3->split(0, 128);
  TransformPropagator propagator(tv3);
  MaxLogicalDomainInfoSpanningTree(tv3).traverse(&propagator);
  EXPECT_EQ(tv2->nDims(), 2);
  tv3->axis(0)->parallelize(ParallelType::BIDx);
  tv3->axis(1)->parallelize(ParallelType::TIDx);
  scheduler_utils::parallelizeAllLike(tv3);
  EXPECT_EQ(tv2->axis(1)->getParallelType(), ParallelType::TIDx);
  inlineMost();

  const std::vector<Tensor> in = {Tensor::random({3, 97}, DataType::Float, 41),
                                  Tensor::random({3, 97}, DataType::Float, 42)};
  const Tensor want = ReferenceEvaluator(&unscheduled).run(in).at(0);
  KernelExecutor ke;
  ke.compile(&fusion, in);
  expectClose(runKernel(ke, in).at(0), want);

  TransformPropagator other(tv2);
  EXPECT_THAT([&] { MaxLogicalDomainInfoSpanningTree(tv3).traverse(&other); },
              ThrowsMessage<UserError>(HasSubstr("the tree is rooted at T3")));
}

// reductionOp(BinaryOpType, axes, init, tv, keep_dim) as sum / max / min / prod.
TEST(NvfuserApi, GenericReductionOp) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(3);
  fusion.addInput(tv0);
  fusion.addOutput(reductionOp(BinaryOpType::Add, {1}, IrBuilder::create<Val>(0.0), tv0));
  fusion.addOutput(reductionOp(BinaryOpType::Max, {0, 2}, IrBuilder::create<Val>(-INFINITY), tv0,
                               /*keep_dim=*/true));
  fusion.addOutput(reductionOp(BinaryOpType::Min, {-1}, IrBuilder::create<Val>(INFINITY), tv0));
  fusion.addOutput(reductionOp(BinaryOpType::Mul, {2}, IrBuilder::create<Val>(1.0), tv0));
  EXPECT_EQ(fusion.outputs()[1]->as<TensorView>()->nDims(), 3);

  const Tensor t0 = Tensor::random({5, 3, 11}, DataType::Float, 51);
  const std::vector<Tensor> got = ReferenceEvaluator(&fusion).run({t0});
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t k = 0; k < 11; ++k) {
      double s = 0;
      for (int64_t j = 0; j < 3; ++j) s += t0.at({i, j, k});
      ASSERT_NEAR(got[0].at({i, k}), s, 1e-5);
    }
  for (int64_t j = 0; j < 3; ++j) {
    double m = -INFINITY;
    for (int64_t i = 0; i < 5; ++i)
      for (int64_t k = 0; k < 11; ++k) m = std::max(m, t0.at({i, j, k}));
    ASSERT_EQ(got[1].at({0, j, 0}), m);
  }
  for (int64_t i = 0; i < 5; ++i) {
    double m = INFINITY, p = 1;
    for (int64_t k = 0; k < 11; ++k) m = std::min(m, t0.at({i, 2, k})), p *= t0.at({i, 2, k});
    ASSERT_EQ(got[2].at({i, 2}), m);
    ASSERT_NEAR(got[3].at({i, 2}), p, 1e-5 * std::abs(p) + 1e-6);
  }
  FusionExecutorCache fec(std::make_unique<Fusion>(fusion));
  fec.runFusionWithInputs({t0});
  const std::vector<Tensor> kernels = rerunKernels(fec, {t0});
  for (size_t o = 0; o < got.size(); ++o) expectClose(kernels.at(o), got[o], 1e-5);

  EXPECT_THAT(
      [&] { reductionOp(BinaryOpType::Sub, {0}, IrBuilder::create<Val>(0.0), tv0); },
      ThrowsMessage<UserError>("reductionOp: - is not a reduction op (Add, Mul, Max or Min)"));
  Val* symbolic = IrBuilder::create<Val>(DataType::Double);
  EXPECT_THAT([&] { reductionOp(BinaryOpType::Add, {0}, symbolic, tv0); },
              ThrowsMessage<UserError>(
                  HasSubstr("reductionOp: the initial value must be a constant scalar, got")));
}

// A runtime's parts as nvFuser's tests reach them: schedulerHeuristics()->heuristicsList(),
// executors().at(0)->as<KernelExecutor>(), compiledKernel()->kernel(), lastLaunchParams().
TEST(NvfuserApi, RuntimeHeuristicsAndExecutors) {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* tv0 = makeContigTensor(2);
  fusion->addInput(tv0);
  fusion->addOutput(neg(tv0));
  FusionExecutorCache fec(std::move(fusion));
  const Tensor t0 = Tensor::random({31, 129}, DataType::Float, 61);
  fec.runFusionWithInputs({t0});
  FusionKernelRuntime* runtime = fec.getMostRecentKernelRuntime();
  const auto& heuristics = runtime->schedulerHeuristics()->heuristicsList();
  ASSERT_EQ(heuristics.size(), 1u);
  EXPECT_EQ(heuristics.at(0)->scheduler_type, SchedulerType::PointWise);
  EXPECT_EQ(heuristics.front()->as<PointwiseParams>(), runtime->heuristics().at(0));
  ASSERT_EQ(runtime->executors().size(), 1u);
  KernelExecutor* ke = runtime->executors().at(0)->as<KernelExecutor>();
  EXPECT_EQ(ke, runtime->executor());
  const Kernel* kernel = ke->compiledKernel()->kernel();
  EXPECT_EQ(kernel, &ke->kernel());
  EXPECT_FALSE(kernel->summary().params.empty());
  // The launch prepared for these inputs (also without a GPU: prepareLaunch).
  const LaunchParams last = ke->lastLaunchParams();
  EXPECT_EQ(last.gdimx(), ke->lastLaunch().grid_x);
  EXPECT_EQ(last.bdimx(), ke->lastLaunch().block_x);
  EXPECT_EQ(last.nThreads(), int64_t{ke->lastLaunch().block_x} * ke->lastLaunch().block_y *
                                 ke->lastLaunch().block_z);
}

// KernelExecutor::compile(fusion, inputs, LaunchParams, CompileParams) and run(inputs, outputs,
// LaunchParams) into preallocated outputs, checked against the fusion's outputs.
TEST(NvfuserApi, KernelExecutorLaunchParamsAndOutputs) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = add(tv0, IrBuilder::create<Val>(1.0));
  fusion.addOutput(tv1);
  Fusion unscheduled(fusion);
  tv1->axis(0)->parallelize(ParallelType::BIDx);
  tv1->axis(1)->parallelize(ParallelType::TIDx);

  const Tensor t0 = Tensor::random({5, 13}, DataType::Float, 71);
  const Tensor want = ReferenceEvaluator(&unscheduled).run({t0}).at(0);
  for (int64_t i = 0; i < want.numel(); ++i)
    ASSERT_EQ(want.item(i), static_cast<float>(t0.item(i) + 1.0));
  KernelExecutor ke;
  ke.compile(&fusion, {t0}, LaunchParams(5, -1, -1, 13, -1, -1),
             CompileParams{.index_type = DataType::Int32});
  EXPECT_EQ(ke.kernel().indexType(), DataType::Int32);
  expectClose(runKernel(ke, {t0}).at(0), want);

  EXPECT_THAT(
      [&] {
        ke.run({t0}, {Tensor::empty({5, 12}, DataType::Float)});
      },
      ThrowsMessage<UserError>(
          "KernelExecutor::run: preallocated output 0 for T1_g_float[iblockIdx.x2{i0}, "
          "ithreadIdx.x3{i1}] must be a float[5, 13] tensor, got float[5, 12]"));
  EXPECT_THAT(
      [&] {
        ke.run({t0}, {want, want});
      },
      ThrowsMessage<UserError>("KernelExecutor::run: 2 preallocated outputs given, but "
                               "the fusion has 1 outputs"));
  const Tensor strided = Tensor::empty({13, 5}, DataType::Float).asStrided({5, 13}, {1, 5}, 0);
  EXPECT_THAT(
      [&] { ke.run({t0}, {strided}); },
      ThrowsMessage<UserError>(
          "KernelExecutor::run: preallocated output 0 for T1_g_float[iblockIdx.x2{i0}, "
          "ithreadIdx.x3{i1}] must have strides [13, 1] (the kernel's layout; not a padded or "
          "aliased output), got [1, 5]"));
  Tensor out = Tensor::empty({5, 13}, DataType::Float);
  if (cuda::cudaAvailable()) {
    const std::vector<Tensor> got = ke.run({t0}, {out});
    EXPECT_EQ(got.at(0).rawData(), out.rawData());
    expectClose(out, want);
    // With a device input the outputs are the device's: written in place, no copy.
    Tensor device_out = Tensor::emptyDevice({5, 13}, DataType::Float);
    const std::vector<Tensor> on_device = ke.run({t0.toDevice()}, {device_out});
    EXPECT_EQ(on_device.at(0).devicePtr(), device_out.devicePtr());
    expectClose(device_out.toHost(), want);
    EXPECT_THAT(
        [&] { ke.run({t0}, {device_out}); },
        ThrowsMessage<UserError>(HasSubstr(
            "must be on the host, where the run puts its outputs (every input is on the host)")));
  } else {
    EXPECT_THAT([&] { ke.run({t0}, {out}); },
                ThrowsMessage<UserError>(HasSubstr("no CUDA device available")));
  }
  // The launch follows the compile-time LaunchParams (prepared without a GPU as well).
  EXPECT_EQ(ke.lastLaunchParams().gdimx(), 5);
  EXPECT_EQ(ke.lastLaunchParams().bdimx(), 13);
  EXPECT_EQ(ke.lastLaunchParams().bdimy(), 1);
  EXPECT_THAT([] { LaunchParams(0); },
              ThrowsMessage<UserError>(
                  "LaunchParams: blockIdx.x must be >= 1, or -1 to leave it unbound; got 0"));

  ::testing::internal::CaptureStdout();
  fusion.print();
  const std::string printed = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(printed, fusion.mathString() + fusion.transformsString());
  ::testing::internal::CaptureStdout();
  fusion.printKernel();
  EXPECT_THAT(::testing::internal::GetCapturedStdout(), HasSubstr("__global__"));
}

// nvFuser's Gpu2Test.FusionDAGMerging_CUDA, ported: fusion.segment({t0, t1}) and each group's
// getFusion().
TEST(NvfuserPorts, FusionDAGMerging) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(5);
  TensorView* tv1 = makeSymbolicTensor(1);
  fusion.addInput(tv0);
  fusion.addInput(tv1);
  TensorView* tv5 = sum(sum(sum(sum(tv0, {0}), {0}), {0}), {0});
  TensorView* tv6 = add(tv1, IrBuilder::create<Val>(1.0));
  fusion.addOutput(add(tv6, tv5));
  const Tensor t0 = Tensor::random({2, 2, 2, 2, 2}, DataType::Float, 81);
  const Tensor t1 = Tensor::random({2}, DataType::Float, 82);
  std::unique_ptr<SegmentedFusion> fusion_segments = fusion.segment({t0, t1});
  EXPECT_LE(fusion_segments->groups().size(), 4u);
  for (SegmentedGroup* group : fusion_segments->groups()) {
    Fusion* group_fusion = group->getFusion();
    EXPECT_EQ(group_fusion, group->getFusion());
    EXPECT_EQ(group_fusion->outputs().size(), group->outputs().size());
  }
}

// nvFuser's Gpu2Test.FusionDAGScalarMerging_CUDA, ported: a Double scalar input given as a
// plain number; two segments.
TEST(NvfuserPorts, FusionDAGScalarMerging) {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* tv0 = makeSymbolicTensor(3);
  Val* i0 = IrBuilder::create<Val>(DataType::Double);
  fusion->addInput(tv0);
  fusion->addInput(i0);
  Val* i1 = add(i0, IrBuilder::create<Val>(1.0));
  Val* i2 = mul(i1, i1);
  Val* i3 = add(i2, i1);
  TensorView* tv2 = add(sum(tv0, {0}), i2);
  TensorView* tv4 = add(sum(tv2, {0}), i3);
  fusion->addOutput(add(tv4, i0));
  Fusion copy(*fusion);
  FusionExecutorCache executor_cache(std::move(fusion));
  const Tensor t0 = Tensor::random({16, 16, 16}, DataType::Float, 91);
  const double s0 = 0.5;
  const std::vector<Tensor> outputs = executor_cache.runFusionWithInputs({t0, s0});
  EXPECT_TRUE(executor_cache.getMostRecentKernelRuntime()->isSegmented());
  EXPECT_EQ(executor_cache.getMostRecentKernelRuntime()->fusionSegments()->groups().size(), 2u);
  const std::vector<Tensor> as_tensors = KernelArgumentHolder({t0, s0}).toTensors(copy);
  const Tensor want = ReferenceEvaluator(&copy).run(as_tensors).at(0);
  expectClose(outputs.at(0), want);
  expectClose(rerunKernels(executor_cache, as_tensors).at(0), want, 1e-5);
}

// The case: a reduction result with an allocation domain (permuted) is read by another
// segment (segment_set), as a plain output too, for sizes with 1s and primes.
TEST(NvfuserApi, ReductionWithAllocationDomainAcrossSegments) {
  for (const bool keep_dim : {false, true}) {
    auto fusion = std::make_unique<Fusion>();
    FusionGuard fg(fusion.get());
    TensorView* tv0 = makeContigTensor(3);
    fusion->addInput(tv0);
    TensorView* tv1 = sum(tv0, {1});  // [i0, r1, i2]
    tv1->setAllocationDomain({tv1->axis(2), tv1->axis(1), tv1->axis(0)}, true);
    TensorView* tv2 = segment_set(tv1);
    if (keep_dim) tv2 = broadcast(tv2, {false, true, false});
    TensorView* tv3 = mul(tv2, tv2);
    fusion->addOutput(tv3);
    fusion->addOutput(tv1);
    Fusion copy(*fusion);
    FusionExecutorCache fec(std::move(fusion));
    for (const std::vector<int64_t>& sizes :
         {std::vector<int64_t>{5, 3, 7}, {1, 4, 1}, {6, 17, 1}, {1, 1, 13}}) {
      SCOPED_TRACE(fmt::format("keep_dim {} sizes [{}]", keep_dim, fmt::join(sizes, ", ")));
      const Tensor t0 = Tensor::random(sizes, DataType::Float, 101);
      const std::vector<Tensor> want = ReferenceEvaluator(&copy).run({t0});
      for (int64_t i = 0; i < sizes[0]; ++i)
        for (int64_t k = 0; k < sizes[2]; ++k) {
          double s = 0;
          for (int64_t j = 0; j < sizes[1]; ++j) s += t0.at({i, j, k});
          ASSERT_NEAR(want[1].at({i, k}), s, 1e-5);
        }
      const std::vector<Tensor> got = fec.runFusionWithInputs({t0});
      EXPECT_TRUE(fec.getMostRecentKernelRuntime()->isSegmented());
      const std::vector<Tensor> kernels = rerunKernels(fec, {t0});
      for (size_t o = 0; o < 2; ++o) {
        expectClose(got.at(o), want[o]);
        expectClose(kernels.at(o), want[o], 1e-5);
      }
    }
  }
}

// nvFuser's PointwiseTest.DomainMapTestEg2, ported: an expanded broadcast is covered.
TEST(NvfuserPorts, DomainMapTestEg2) {
  auto fusion_ptr = std::make_unique<Fusion>();
  Fusion* fusion = fusion_ptr.get();
  FusionGuard fg(fusion);
  TensorView* tv0 = makeContigTensor(2);
  fusion->addInput(tv0);
  TensorView* tv1 = relu(tv0);
  fusion->addOutput(tv1);
  TensorView* tv2 = broadcast(tv1, {false, true, false});
  TensorView* tv3 =
      expand(tv2, {tv2->axis(0)->extent(), IrBuilder::create<Val>(4L), tv2->axis(2)->extent()});
  fusion->addOutput(tv3);

  DomainMapUnitTest domain_map(fusion);
  // Differs from nvFuser, which answers true twice: minifuser's expand makes an Iteration
  // axis of extent 4 (no expanded-extent Broadcast axis), which tv1 lacks.
  EXPECT_FALSE(domain_map.testTargetCoverage(tv3, tv1));
  EXPECT_TRUE(domain_map.testTargetCoverage(tv1, tv3));
  EXPECT_FALSE(domain_map.isValidReference(tv1));
  EXPECT_TRUE(domain_map.isValidReference(tv3));
  EXPECT_EQ(scheduler_tools::PointwiseDomainMap(fusion).findReferenceTensor(), tv3);
  EXPECT_EQ(scheduler_tools::PointwiseDomainMap(fusion).findReferenceTensor(4), nullptr);

  const std::vector<Tensor> in = {Tensor::random({4, 7}, DataType::Float, 121)};
  const std::vector<Tensor> want = ReferenceEvaluator(fusion).run(in);
  for (int64_t j = 0; j < 4; ++j)
    for (int64_t k = 0; k < 7; ++k)
      ASSERT_EQ(want[1].at({3, j, k}), std::max(0.0, in[0].at({3, k})));
  scheduleAndRun(fusion, SchedulerType::PointWise, in, want);
}

// nvFuser's PointwiseTest.VectorizeStrideContiguity2D, ported: the vector width follows the
// row stride. nvFuser takes 1,000,000 rows; 2,003 rows are enough here (the pointwise
// heuristics vectorize from one wave of blocks, SMs x 128 elements, on) and keep the test
// short under the sanitizers. Values from FusionExecutorCache against the reference.
TEST(NvfuserPorts, VectorizeStrideContiguity2D) {
  const int64_t kRows = 2003;
  auto fusion_ptr = std::make_unique<Fusion>();
  Fusion* fusion = fusion_ptr.get();
  FusionGuard fg(fusion);
  TensorView* tv0 = TensorViewBuilder().ndims(2).contiguity({false, true}).build();
  fusion->addInput(tv0);
  fusion->addOutput(add(tv0, tv0));
  Fusion copy(*fusion);
  FusionExecutorCache executor_cache(std::move(fusion_ptr));
  for (auto [size, vec] : std::vector<std::pair<int64_t, int64_t>>{{17, 1}, {18, 2}, {32, 4}}) {
    const Tensor t0 = Tensor::random({kRows, size}, DataType::Float, 130 + size)
                          .asStrided({kRows, 16}, {size, 1}, 0);
    const std::vector<Tensor> cg_outputs = executor_cache.runFusionWithInputs({t0});
    const auto& heuristics =
        executor_cache.getMostRecentKernelRuntime()->schedulerHeuristics()->heuristicsList();
    EXPECT_EQ(heuristics.at(0)->as<PointwiseParams>()->vectorization_factor, vec);
    const Tensor want = ReferenceEvaluator(&copy).run({t0}).at(0);
    expectClose(cg_outputs.at(0), want);
  }
}

}  // namespace
}  // namespace mf
