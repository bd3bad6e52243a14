// What FusionExecutorCache accepts, and what a new user tripped over (issue 15, section 9):
// an edited fusion never runs a stale runtime; a hand-scheduled fusion, a fusion without
// outputs and a tensor never added as an input are UserErrors naming the tensor; inputs
// whose operands disagree read as every entry point reports them. CPU only (the outputs
// come from the reference without a device).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "minifuser.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

std::unique_ptr<Fusion> addOf2d() {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* x = makeContigTensor(2);
  TensorView* y = makeContigTensor(2);
  fusion->addInput(x);
  fusion->addInput(y);
  fusion->addOutput(add(x, y));
  return fusion;
}

std::vector<Tensor> twoInputs(std::vector<int64_t> a, std::vector<int64_t> b) {
  return {Tensor::random(std::move(a), DataType::Float, 1),
          Tensor::random(std::move(b), DataType::Float, 2)};
}

// Adding an output after a run: the same inputs (their signature cached) return both
// outputs, from a new runtime; the new output holds neg(x).
TEST(CacheOwnsItsFusion, AnOutputAddedAfterARunIsComputed) {
  FusionExecutorCache fec(addOf2d());
  const std::vector<Tensor> in = twoInputs({4, 6}, {4, 6});
  ASSERT_EQ(fec.runFusionWithInputs(in).size(), 1u);
  const uint64_t version = fec.fusion()->version();
  {
    FusionGuard fg(fec.fusion());
    fec.fusion()->addOutput(neg(fec.fusion()->inputs()[0]->as<TensorView>()));
  }
  EXPECT_GT(fec.fusion()->version(), version);
  const std::vector<Tensor> out = fec.runFusionWithInputs(in);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].item(5), -in[0].item(5));
  EXPECT_EQ(fec.countRuntimes(), 2);
  // No edit since: the new runtime is reused.
  EXPECT_EQ(fec.runFusionWithInputs(in).size(), 2u);
  EXPECT_EQ(fec.countRuntimes(), 2);
}

// Every scheduling verb counts as an edit (the next run then rejects the schedule).
TEST(CacheOwnsItsFusion, InPlaceEditsRaiseTheVersion) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* x = makeContigTensor(2);
  fusion.addInput(x);
  TensorView* y = neg(x);
  fusion.addOutput(y);
  uint64_t v = fusion.version();
  y->split(0, 2);
  EXPECT_GT(fusion.version(), v) << "split";
  v = fusion.version();
  auto raised = [&] {
    const bool r = fusion.version() > v;
    v = fusion.version();
    return r;
  };
  y->reorder({{0, 1}});
  EXPECT_TRUE(raised()) << "reorder";
  y->axis(0)->parallelize(ParallelType::TIDx);
  EXPECT_TRUE(raised()) << "parallelize";
  y->setMemoryType(MemoryType::Global);
  EXPECT_TRUE(raised()) << "setMemoryType";
  y->setComputeAtPosition(0);
  EXPECT_TRUE(raised()) << "setComputeAtPosition";
}

// A split (or merged) tensor is rejected before any scheduler sees it (it used to fail
// inside the scheduler with "reorder: axis 2 is out of range for 2 axes").
TEST(CacheAccepts, SplitTensorIsAUserErrorNamingIt) {
  auto fusion = addOf2d();
  fusion->outputs()[0]->as<TensorView>()->split(1, 2);
  FusionExecutorCache fec(std::move(fusion));
  EXPECT_THAT(
      [&] {
        fec.runFusionWithInputs(twoInputs({4, 6}, {4, 6}));
      },
      ThrowsMessage<UserError>(
          HasSubstr("FusionExecutorCache: T2_g_float[iS4{i0}, iS6{ceilDiv(i1, 2)}, iS7{2}] "
                    "is scheduled (its loop domain is not its logical domain); the cache "
                    "schedules fusions itself, so give it an unscheduled fusion, or run a hand "
                    "schedule with KernelExecutor")));
}

// The other hand schedules are rejected too, not silently redone: a parallelized axis, an
// inlined tensor, an intermediate placed in shared memory.
TEST(CacheAccepts, OtherHandSchedulesAreUserErrorsNamingTheTensor) {
  auto build = [](auto&& schedule) {
    auto fusion = std::make_unique<Fusion>();
    FusionGuard fg(fusion.get());
    TensorView* x = makeContigTensor(1);
    fusion->addInput(x);
    TensorView* t1 = exp(x);
    fusion->addOutput(neg(t1));
    schedule(t1);
    return std::make_unique<FusionExecutorCache>(std::move(fusion));
  };
  const std::vector<Tensor> in = {Tensor::random({8}, DataType::Float, 3)};
  auto parallel = build([](TensorView* t) { t->axis(0)->parallelize(ParallelType::TIDx); });
  EXPECT_THAT([&] { parallel->runFusionWithInputs(in); },
              ThrowsMessage<UserError>(
                  HasSubstr("FusionExecutorCache: T1_l_float[ithreadIdx.x1{i0}] is scheduled (axis "
                            "ithreadIdx.x1{i0} is parallelized)")));
  auto inlined = build([](TensorView* t) { t->setComputeAtPosition(1); });
  EXPECT_THAT([&] { inlined->runFusionWithInputs(in); },
              ThrowsMessage<UserError>(HasSubstr("is scheduled (inlined at position 1)")));
  auto shared = build([](TensorView* t) { t->setMemoryType(MemoryType::Shared); });
  EXPECT_THAT([&] { shared->runFusionWithInputs(in); },
              ThrowsMessage<UserError>(
                  HasSubstr("is scheduled (an intermediate placed in shared memory)")));
}

// A fusion without outputs would run and return nothing.
TEST(CacheAccepts, NoOutputsIsAUserError) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    fusion->addInput(makeContigTensor(1));
  }
  FusionExecutorCache fec(std::move(fusion));
  EXPECT_THAT([&] { fec.runFusionWithInputs({Tensor::random({3}, DataType::Float, 1)}); },
              ThrowsMessage<UserError>(HasSubstr(
                  "FusionExecutorCache: the fusion has no outputs, so a run computes nothing; "
                  "add one with fusion.addOutput(tv)")));
}

// A tensor never added with addInput is named (it used to read "cannot evaluate extent ...
// depends on an unbound value").
TEST(CacheAccepts, TensorNeverAddedAsInputIsNamed) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* x = makeContigTensor(1);
    TensorView* forgotten = makeContigTensor(1);
    fusion->addInput(x);
    fusion->addOutput(add(x, forgotten));
  }
  FusionExecutorCache fec(std::move(fusion));
  EXPECT_THAT([&] { fec.runFusionWithInputs({Tensor::random({3}, DataType::Float, 1)}); },
              ThrowsMessage<UserError>(HasSubstr(
                  "FusionExecutorCache: T1_l_float[iS1{i1}] is neither a fusion input nor "
                  "computed by an expr; add it with fusion.addInput(T1)")));
}

// add of [2, 3] and [2, 4]: the cache names itself before the operands' disagreement, as
// KernelExecutor, the reference and segment() do (test_segment_inputs.cpp,
// test_reference_errors.cpp).
TEST(CacheAccepts, OperandsThatDisagreeReadAsEveryEntryPointSaysIt) {
  FusionExecutorCache fec(addOf2d());
  EXPECT_THAT(
      [&] {
        fec.runFusionWithInputs(twoInputs({2, 3}, {2, 4}));
      },
      ThrowsMessage<UserError>(
          HasSubstr("FusionExecutorCache: `T2_g_float[iS4{i0}, iS5{i1}] = T0 + T1`: operands T0 "
                    "and T1 disagree on axis 1: 3 vs 4")));
}

}  // namespace
}  // namespace mf
