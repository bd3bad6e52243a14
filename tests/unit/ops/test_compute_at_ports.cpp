// TensorView::computeAt (nvFuser parity #21): ports of nvFuser's test_gpu1.cpp computeAt tests.
// Each fusion is scheduled by hand as nvFuser's test does (split/merge on the consumer,
// computeAt, parallelize), compiled by KernelExecutor and run on the host interpreter (on the
// device with a GPU), compared with the CPU reference at sizes no split divides. computeAt
// gives the shared loops the consumer's parallel types; a loop parallelized after computeAt
// (as nvFuser's tests do) is copied to the producers with parallelizeAllLike, since
// minifuser's lowering wants a shared loop bound alike in each tensor.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cuda/driver.h"
#include "ir/id_model.h"
#include "minifuser.h"
#include "random/kernel_interpreter.h"
#include "scheduler/tools/transform_propagator.h"

namespace mf {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// Compiles the scheduled fusion, runs its kernel and compares every output with the CPU
// reference (computed on a copy taken before scheduling would not differ: the reference
// ignores loop domains).
void expectMatchesReference(Fusion& fusion, const std::vector<Tensor>& in) {
  const std::vector<Tensor> want = ReferenceEvaluator(&fusion).run(in);
  KernelExecutor ke;
  ke.compile(&fusion, in);
  std::vector<Tensor> got;
  if (cuda::cudaAvailable()) {
    for (const Tensor& t : ke.run(in)) got.push_back(t.toHost());
  } else {
    got = testing::interpretKernelOrThrow(ke.kernel(), in);
  }
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < want.size(); ++o) {
    ASSERT_EQ(got[o].numel(), want[o].numel());
    for (int64_t i = 0; i < want[o].numel(); ++i)
      ASSERT_NEAR(got[o].item(i), want[o].item(i), 1e-5 * (1 + std::abs(want[o].item(i))))
          << "output " << o << ", element " << i;
  }
}

// Unroll on axis 1 and TIDx on the last axis of every tensor but the inputs, as nvFuser's
// AdvancedComputeAt tests do after computeAt.
void parallelizeInner(Fusion& fusion) {
  for (TensorView* tv : fusion.allTvs()) {
    if (tv->isFusionInput()) continue;
    tv->axis(1)->parallelize(ParallelType::Unroll);
    tv->axis(-1)->parallelize(ParallelType::TIDx);
  }
}

// FusionAdvancedComputeAt1: tv0 has no common consumer, so every tensor depending on it that
// has consumers (tv1..tv5) is replayed like tv7 and computed at 1; the outputs stay at 0.
TEST(ComputeAtPorts, AdvancedComputeAt1) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = mul(tv0, constFloat(0.5));
  TensorView* tv2 = mul(tv1, constFloat(-1.0));
  TensorView* tv3 = add(tv1, constFloat(3.0));
  TensorView* tv4 = mul(tv1, constFloat(2.0));
  TensorView* tv5 = add(tv3, tv2);
  TensorView* tv6 = add(tv5, tv4);
  TensorView* tv7 = add(tv1, tv4);
  fusion.addOutput(tv6);
  fusion.addOutput(tv7);

  tv7->merge(0);
  tv7->split(0, 128);
  tv7->split(0, 4);
  tv7->axis(0)->parallelize(ParallelType::BIDx);
  EXPECT_EQ(tv0->computeAt(tv7, 1), tv0);

  EXPECT_EQ(tv7->getComputeAtPosition(), 0);
  EXPECT_EQ(tv6->getComputeAtPosition(), 0);
  EXPECT_EQ(tv6->nDims(), 3);
  const IdModel model(fusion);
  for (TensorView* tv : {tv1, tv2, tv3, tv4, tv5}) {
    EXPECT_EQ(tv->nDims(), 3) << tv->toString();
    EXPECT_EQ(tv->getComputeAtPosition(), 1) << tv->toString();
    EXPECT_TRUE(model.areMapped(tv7->axis(0), tv->axis(0), IdMappingMode::Permissive))
        << tv->toString();
  }
  parallelizeInner(fusion);
  expectMatchesReference(fusion, {Tensor::random({129, 127}, DataType::Float, 1)});
}

// FusionAdvancedComputeAt2: tv0 -> tv6 where tv5 is both an output and tv6's producer.
TEST(ComputeAtPorts, AdvancedComputeAt2) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = mul(tv0, constFloat(-1.0));
  TensorView* tv2 = add(tv0, constFloat(3.0));
  TensorView* tv3 = mul(tv0, constFloat(2.0));
  TensorView* tv4 = add(tv2, tv1);
  TensorView* tv5 = add(tv4, tv3);
  TensorView* tv6 = add(tv5, tv3);
  fusion.addOutput(tv5);
  fusion.addOutput(tv6);

  tv6->merge(0);
  tv6->split(0, 128);
  tv6->split(0, 4);
  tv6->axis(0)->parallelize(ParallelType::BIDx);
  tv0->computeAt(tv6, 1);
  for (TensorView* tv : {tv1, tv2, tv3, tv4, tv5})
    EXPECT_EQ(tv->getComputeAtPosition(), 1) << tv->toString();
  EXPECT_EQ(tv6->getComputeAtPosition(), 0);
  parallelizeInner(fusion);
  expectMatchesReference(fusion, {Tensor::random({129, 127}, DataType::Float, 2)});
}

// FusionAdvancedComputeAt3: two 4-D inputs, both computed at the merged and split output.
TEST(ComputeAtPorts, AdvancedComputeAt3) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(4);
  TensorView* tv1 = makeSymbolicTensor(4);
  fusion.addInput(tv0);
  fusion.addInput(tv1);
  TensorView* tv2 = mul(tv1, constFloat(.979361));
  TensorView* tv3 = mul(tv2, tv0);
  fusion.addOutput(tv3);

  while (tv3->nDims() > 1) tv3->merge(0);
  tv3->split(0, 128);
  tv3->split(0, 4);
  tv0->computeAt(tv3, 1);
  tv1->computeAt(tv3, 1);
  tv3->axis(0)->parallelize(ParallelType::BIDx);
  EXPECT_EQ(tv2->nDims(), 3);
  EXPECT_EQ(tv2->getComputeAtPosition(), 1);
  parallelizeInner(fusion);
  parallelizeAllLike(tv3);  // a loop parallelized after computeAt: see the ports' header
  expectMatchesReference(fusion, {Tensor::random({7, 13, 5, 11}, DataType::Float, 3),
                                  Tensor::random({7, 13, 5, 11}, DataType::Float, 4)});
}

// FusionComputeAtMultiConsumers: computing tv1 at tv3 replays tv2, tv1's other consumer, too,
// so tv1 is computed inside the loop both outputs share.
TEST(ComputeAtPorts, ComputeAtMultiConsumers) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1);
  fusion.addInput(tv0);
  TensorView* tv1 = mul(tv0, constFloat(0.5));
  TensorView* tv2 = mul(tv1, constFloat(-1.0));
  TensorView* tv3 = mul(tv1, constFloat(-2.0));
  fusion.addOutput(tv2);
  fusion.addOutput(tv3);

  tv3->split(0, 128);
  tv1->computeAt(tv3, 1);
  for (TensorView* tv : {tv1, tv2, tv3}) EXPECT_EQ(tv->nDims(), 2) << tv->toString();
  EXPECT_EQ(tv1->getComputeAtPosition(), 1);
  EXPECT_EQ(tv2->getComputeAtPosition(), 0);
  EXPECT_EQ(tv3->getComputeAtPosition(), 0);
  const IdModel model(fusion);
  for (TensorView* tv : {tv1, tv2})
    EXPECT_TRUE(model.areMapped(tv->axis(0), tv3->axis(0), IdMappingMode::Permissive));
  tv3->axis(0)->parallelize(ParallelType::BIDx);
  for (TensorView* tv : {tv1, tv2, tv3}) tv->axis(-1)->parallelize(ParallelType::TIDx);
  parallelizeAllLike(tv3);
  for (int64_t n : {1, 1000, 1009})
    expectMatchesReference(fusion, {Tensor::random({n}, DataType::Float, 5)});
}

// FusionAdvancedComputeAt4: four inputs computed at the output one after the other; each
// call replays the tensors between again.
TEST(ComputeAtPorts, AdvancedComputeAt4) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  std::vector<TensorView*> in;
  for (int i = 0; i < 4; ++i) {
    in.push_back(makeSymbolicTensor(4));
    fusion.addInput(in.back());
  }
  TensorView* tv4 = sub(in[2], in[3]);
  TensorView* tv5 = add(in[1], tv4);
  TensorView* tv6 = sub(tv5, in[0]);
  fusion.addOutput(tv6);

  while (tv6->nDims() > 1) tv6->merge(0);
  tv6->split(0, 128);
  tv6->split(0, 4);
  for (TensorView* tv : in) tv->computeAt(tv6, 1);
  tv6->axis(0)->parallelize(ParallelType::BIDx);
  for (TensorView* tv : {tv4, tv5}) EXPECT_EQ(tv->getComputeAtPosition(), 1) << tv->toString();
  parallelizeInner(fusion);
  parallelizeAllLike(tv6);
  std::vector<Tensor> inputs;
  for (uint64_t seed = 10; seed < 14; ++seed)
    inputs.push_back(Tensor::random({5, 7, 11, 3}, DataType::Float, seed));
  expectMatchesReference(fusion, inputs);
}

// FusionAdvancedComputeAt5: an intermediate computed at an output split twice on its inner
// side.
TEST(ComputeAtPorts, AdvancedComputeAt5) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  TensorView* tv1 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  fusion.addInput(tv1);
  TensorView* tv2 = add(tv0, constFloat(2.0));
  TensorView* tv3 = mul(tv1, tv2);
  fusion.addOutput(tv3);
  tv3->merge(0);
  tv3->split(-1, 8);
  tv3->split(-1, 4);
  tv2->computeAt(tv3, 1);
  tv3->axis(0)->parallelize(ParallelType::BIDx);
  EXPECT_EQ(tv2->nDims(), 2);  // replayed up to position 1: the merge and the split by 8
  EXPECT_EQ(tv2->getComputeAtPosition(), 1);
  parallelizeAllLike(tv3);
  expectMatchesReference(fusion, {Tensor::random({63, 65}, DataType::Float, 20),
                                  Tensor::random({63, 65}, DataType::Float, 21)});
}

// FusionComputeAtCommonConsumer1: tv4 is the common consumer of tv1's uses, so the selected
// tensors are tv1, tv2 and tv3 (the consumer itself), computed at 1; tv4 is replayed (its
// producers are inlined into it) but stays at 0, and nothing propagates past it to tv5.
TEST(ComputeAtPorts, ComputeAtCommonConsumer1) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1);
  fusion.addInput(tv0);
  TensorView* tv1 = mul(tv0, constFloat(0.5));
  TensorView* tv2 = mul(tv1, constFloat(-1.0));
  TensorView* tv3 = mul(tv1, constFloat(-2.0));
  TensorView* tv4 = add(tv2, tv3);
  TensorView* tv5 = mul(tv4, constFloat(5.0));
  fusion.addOutput(tv3);
  fusion.addOutput(tv4);
  fusion.addOutput(tv5);

  tv3->split(0, 128);
  tv1->computeAt(tv3, 1);
  for (TensorView* tv : {tv1, tv2, tv3, tv4}) EXPECT_EQ(tv->nDims(), 2) << tv->toString();
  EXPECT_EQ(tv5->nDims(), 1);
  EXPECT_EQ(tv1->getComputeAtPosition(), 1);
  EXPECT_EQ(tv2->getComputeAtPosition(), 1);
  EXPECT_EQ(tv3->getComputeAtPosition(), 1);
  EXPECT_EQ(tv4->getComputeAtPosition(), 0);
  EXPECT_EQ(tv5->getComputeAtPosition(), 0);

  tv3->axis(0)->parallelize(ParallelType::BIDx);
  for (TensorView* tv : {tv1, tv2, tv3, tv4}) tv->axis(-1)->parallelize(ParallelType::TIDx);
  tv5->split(0, 128);
  tv5->axis(1)->parallelize(ParallelType::TIDx);
  tv5->axis(0)->parallelize(ParallelType::BIDx);
  parallelizeAllLike(tv3);
  for (int64_t n : {1, 1000, 1021})
    expectMatchesReference(fusion, {Tensor::random({n}, DataType::Float, 30)});
}

// Negative positions wrap (-1 is every axis), and MostInlined inlines as deep as legal
// whatever the position given.
TEST(ComputeAt, NegativePositionAndMostInlined) {
  for (ComputeAtMode mode : {ComputeAtMode::Standard, ComputeAtMode::MostInlined}) {
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* tv0 = makeSymbolicTensor(2);
    fusion.addInput(tv0);
    TensorView* tv1 = add(tv0, constFloat(1.0));
    TensorView* tv2 = mul(tv1, tv1);
    TensorView* tv3 = sub(tv2, tv0);
    fusion.addOutput(tv3);
    tv3->merge(0);
    tv3->split(0, 32);
    tv3->axis(0)->parallelize(ParallelType::BIDx);
    tv3->axis(1)->parallelize(ParallelType::TIDx);
    tv0->computeAt(tv3, mode == ComputeAtMode::Standard ? -1 : 0, mode);
    for (TensorView* tv : {tv1, tv2}) {
      EXPECT_EQ(tv->nDims(), 2);
      EXPECT_EQ(tv->getComputeAtPosition(), 2) << tv->toString();
      EXPECT_EQ(tv->axis(1)->getParallelType(), ParallelType::TIDx);  // the shared loops'
    }
    expectMatchesReference(fusion, {Tensor::random({37, 53}, DataType::Float, 6)});
  }
}

// A vectorized axis of the consumer cannot be shared (the producer's buffer must hold the whole
// vector): Standard refuses position -1 naming the tensors, BestEffort clamps to the axes
// before it.
TEST(ComputeAt, VectorizedAxisStandardRefusesBestEffortClamps) {
  for (ComputeAtMode mode : {ComputeAtMode::Standard, ComputeAtMode::BestEffort}) {
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* tv0 = makeContigTensor(2);
    fusion.addInput(tv0);
    TensorView* tv1 = add(tv0, constFloat(1.0));
    TensorView* tv2 = set(tv1);
    fusion.addOutput(tv2);
    tv2->split(1, 4);
    tv2->axis(0)->parallelize(ParallelType::BIDx);
    tv2->axis(1)->parallelize(ParallelType::TIDx);
    tv2->axis(2)->parallelize(ParallelType::Vectorize);
    if (mode == ComputeAtMode::Standard) {
      EXPECT_THAT(
          [&] { tv1->computeAt(tv2, -1); },
          ThrowsMessage<UserError>(AllOf(
              HasSubstr("computeAt(T2_g_float[iblockIdx.x4{i0}, ithreadIdx.x6{ceilDiv(i1, "
                        "4)}, iV7{4}], -1) of T1_l_float"),
              HasSubstr(
                  "can be computed inside at most 2 of its consumers' loops, not 3 (axis 2 (iS"),
              HasSubstr("{4}) does not map to axis 2 (iV7{4}) of its consumer T2_g_float"),
              HasSubstr("use ComputeAtMode::BestEffort to clamp"))));
      continue;
    }
    tv1->computeAt(tv2, -1, mode);
    EXPECT_EQ(tv1->getComputeAtPosition(), 2);
    EXPECT_EQ(tv1->axis(1)->getParallelType(), ParallelType::TIDx);
    EXPECT_EQ(tv1->axis(2)->getParallelType(), ParallelType::Serial);
    expectMatchesReference(fusion, {Tensor::random({37, 64}, DataType::Float, 7)});
  }
}

// Bad input: a consumer that does not depend on the tensor, a position out of range.
TEST(ComputeAt, BadInputRejected) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  TensorView* tv1 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  fusion.addInput(tv1);
  TensorView* tv2 = add(tv0, constFloat(1.0));
  TensorView* tv3 = add(tv1, constFloat(1.0));
  fusion.addOutput(tv2);
  fusion.addOutput(tv3);
  EXPECT_THAT([&] { tv2->computeAt(tv3, 1); },
              ThrowsMessage<UserError>(HasSubstr(
                  "computeAt: T2_g_float[iS4{i0}, iS5{i1}] is not a producer of T3_g_float")));
  EXPECT_THAT([&] { tv1->computeAt(tv3, 3); },
              ThrowsMessage<UserError>(HasSubstr("computeAt: position 3 of T3_g_float")));
  EXPECT_THAT([&] { tv1->computeAt(tv3, -4); },
              ThrowsMessage<UserError>(HasSubstr("is out of range [-3, 2]")));
}

}  // namespace
}  // namespace mf
