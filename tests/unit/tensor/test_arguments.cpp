// The argument layer (tensor/arguments.h): the reference evaluator and the KernelExecutor
// bind inputs with one function, so they accept and reject the same tensors with the same
// messages, and lay outputs out by the same rule. The executor's checks run before any
// device work, so they are testable here.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/expr_evaluator.h"
#include "minifuser.h"
#include "tensor/arguments.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// `message` from both the reference and the executor, each with its own prefix.
void expectBothReject(Fusion& fusion, const std::vector<Tensor>& inputs,
                      const std::string& message) {
  EXPECT_THAT([&] { ReferenceEvaluator(&fusion).run(inputs); },
              ThrowsMessage<UserError>(HasSubstr("ReferenceEvaluator: " + message)));
  KernelExecutor ke;
  CompileOptions options;
  options.index_type = DataType::Int64;
  ke.compile(&fusion, {}, options);
  EXPECT_THAT([&] { ke.run(inputs); },
              ThrowsMessage<UserError>(HasSubstr("KernelExecutor: " + message)));
}

// Non-contiguous data for an input declared contiguous: the reference used to accept it.
TEST(Arguments, ContiguityIsCheckedByBoth) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2);
  fusion.addInput(t0);
  fusion.addOutput(neg(t0));
  Tensor transposed = Tensor::random({2, 3}, DataType::Float, 5).asStrided({3, 2}, {1, 3}, 0);
  expectBothReject(fusion, {transposed},
                   "input 0 T0_g_float[iS0{i0}, iS1{i1}]: axis 1 is declared contiguous, so its "
                   "stride must be 1, got 3");
  // An offset view that is dense is contiguous: both accept it.
  Tensor offset = Tensor::random({20}, DataType::Float, 6).asStrided({3, 4}, {4, 1}, 5);
  std::vector<Tensor> out = ReferenceEvaluator(&fusion).run({offset});
  for (int64_t i = 0; i < 12; ++i) EXPECT_EQ(out[0].item(i), -offset.item(i));
}

// A size-1 axis is never stepped along: its stride is arbitrary and the axis outside it must
// be dense with the axes inside it, as PyTorch's is_contiguous says. A merged loop index
// addresses contiguous axes directly, so [3, 1, 4] with strides [8, 8, 1] (a slice) would be
// read at a * 4 + c instead of a * 8 + c: it is not contiguous.
TEST(Arguments, SizeOneAxisStrideDoesNotCount) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(3);
  fusion.addInput(t0);
  fusion.addOutput(neg(t0));
  Tensor odd_unit_stride =
      Tensor::random({12}, DataType::Float, 7).asStrided({3, 1, 4}, {4, 99, 1}, 0);
  std::vector<Tensor> out = ReferenceEvaluator(&fusion).run({odd_unit_stride});
  for (int64_t i = 0; i < 12; ++i) EXPECT_EQ(out[0].item(i), -odd_unit_stride.item(i));
  Tensor slice = Tensor::random({24}, DataType::Float, 8).asStrided({3, 1, 4}, {8, 8, 1}, 0);
  expectBothReject(fusion, {slice},
                   "input 0 T0_g_float[iS0{i0}, iS1{i1}, iS2{i2}]: axis 0 is declared contiguous, "
                   "so its stride must be 4, got 8");
}

// Input count, rank and dtype: one message each, whoever runs the fusion.
TEST(Arguments, CountRankDtypeAreCheckedByBoth) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  fusion.addOutput(neg(t0));
  expectBothReject(fusion, {}, "expected 1 inputs (T0), got 0");
  expectBothReject(fusion, {Tensor::random({2, 3}, DataType::Double, 1)},
                   "input 0 T0_g_float[iS0{i0}, iS1{i1}]: expected dtype float, got double");
  expectBothReject(fusion, {Tensor::random({6}, DataType::Float, 1)},
                   "input 0 T0_g_float[iS0{i0}, iS1{i1}]: expected rank 2, got a tensor of rank 1");
}

// An input with an allocation domain is not supported by either path yet.
TEST(Arguments, InputAllocationDomainIsCheckedByBoth) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  fusion.addOutput(neg(t0));
  t0->setAllocationDomain({t0->axis(1), t0->axis(0)}, true);
  // Column-major is what the permuted, contiguous allocation domain declares.
  Tensor column_major = Tensor::random({3, 2}, DataType::Float, 1).asStrided({2, 3}, {1, 2}, 0);
  EXPECT_NO_THROW(ReferenceEvaluator(&fusion).run({column_major}));
  expectBothReject(fusion, {Tensor::random({2, 3}, DataType::Float, 1)},
                   "input 0 T0_g_float[iS0{i0}, iS1{i1}]: axis 0 is declared contiguous, so its "
                   "stride must be 1, got 3");
}

TEST(Arguments, SplitInputAllocationDomainIsUserError) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigConcreteTensor({8});
  fusion.addInput(t0);
  fusion.addOutput(neg(t0));
  t0->split(0, 4);
  t0->setAllocationDomain(t0->getLoopDomain(), true);
  expectBothReject(fusion, {Tensor::random({8}, DataType::Float, 1)},
                   "input T0_g_float[iS2{2}, iS3{4}]: its allocation domain must be a permutation "
                   "of its logical domain; iS2{2} is not a logical axis");
}

// An output whose allocation domain permutes its axes comes back with permuted strides
// from the reference, as from the executor (both use layoutOf): [3, 5] with allocation
// (1, 0) is column-major, strides [1, 3]. Values are the logical ones either way.
TEST(Arguments, ReferenceHonoursThePermutedOutputAllocation) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  TensorView* t1 = abs(t0);
  fusion.addOutput(t1);
  t1->setAllocationDomain({t1->axis(1), t1->axis(0)}, true);
  Tensor in = Tensor::random({3, 5}, DataType::Float, 11);
  Tensor out = ReferenceEvaluator(&fusion).run({in})[0];
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{3, 5}));
  EXPECT_EQ(out.strides(), (std::vector<int64_t>{1, 3}));
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 5; ++j) {
      EXPECT_EQ(out.at({i, j}), std::abs(in.at({i, j})));
      // Column-major storage: element (i, j) at i + 3j.
      EXPECT_EQ(out.allocationItem(i + 3 * j), std::abs(in.at({i, j})));
    }
  ExpressionEvaluator ee;
  bindFusionInputs(fusion, {in}, ee, "test");
  EXPECT_EQ(layoutOf(t1, ee).logical_strides, out.strides());
}

// Each input is representable, but the output of broadcasting [2^40, 1] against [1, 2^40]
// has 2^80 elements: both paths name the sizes instead of wrapping.
TEST(Arguments, OutputElementCountOverflowIsUserError) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeConcreteTensor({-1, 1});
  TensorView* t1 = makeConcreteTensor({1, -1});
  fusion.addInput(t0);
  fusion.addInput(t1);
  fusion.addOutput(add(t0, t1));
  const int64_t big = int64_t{1} << 40;
  Tensor one = Tensor::random({1}, DataType::Float, 2);
  std::vector<Tensor> inputs = {one.asStrided({big, 1}, {0, 0}, 0),
                                one.asStrided({1, big}, {0, 0}, 0)};
  EXPECT_THAT([&] { ReferenceEvaluator(&fusion).run(inputs); },
              ThrowsMessage<UserError>(HasSubstr(
                  "sizes [1099511627776, 1099511627776] hold more than 2^63-1 elements")));
  KernelExecutor ke;
  CompileOptions options;
  options.index_type = DataType::Int64;
  ke.compile(&fusion, {}, options);
  EXPECT_THAT([&] { ke.run(inputs); },
              ThrowsMessage<UserError>(HasSubstr(
                  "output T2_g_float[iS4{i0}, iS5{i3}]: sizes [1099511627776, 1099511627776] "
                  "hold more than 2^63-1 elements")));
}

// A misaligned view of a vectorized input is a clear error before any device work.
TEST(Arguments, MisalignedVectorizedInputIsUserError) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = set(t0);
  fusion.addOutput(t1);
  t1->split(0, 4);
  t1->axis(1)->parallelize(ParallelType::Vectorize);
  Tensor base = Tensor::random({20}, DataType::Float, 4);
  KernelExecutor ke;
  ke.compile(&fusion, {base});
  EXPECT_THAT([&] { ke.run({base.asStrided({16}, {1}, 1)}); },
              ThrowsMessage<UserError>(HasSubstr(
                  "vectorized access of T0_g_float[iS0{i0}] by 4 elements needs its first element "
                  "aligned to 16 bytes; got a tensor at storage offset 1, 4 bytes past an aligned "
                  "address")));
}

}  // namespace
}  // namespace mf
