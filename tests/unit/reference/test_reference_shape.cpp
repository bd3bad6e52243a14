// The CPU reference of the shape ops: reshape (static, dynamic from its size Vals, of any
// input layout), squeeze, permute, expand and their chains, on random data with sizes 1,
// primes and non-divisible extents, and the errors only a run can find.
#include <fmt/format.h>
#include <gmock/gmock.h>

#include "reference_helpers.h"

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace reftest {
namespace {

Tensor scalarInt(int64_t v) {
  return Tensor::fromVector<int64_t>({v}, {});
}

// Element [i0, ..., in] of `t` for a row-major multi-index of `sizes` at `linear`.
std::vector<int64_t> unravel(int64_t linear, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> idx(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    idx[d] = linear % sizes[d];
    linear /= sizes[d];
  }
  return idx;
}

// What permute(t, new2old) holds, computed independently of the reference.
std::vector<double> permuted(const Tensor& t, const std::vector<int64_t>& new2old) {
  std::vector<int64_t> sizes;
  for (int64_t k : new2old) sizes.push_back(t.sizes()[k]);
  std::vector<double> out;
  for (int64_t i = 0; i < t.numel(); ++i) {
    std::vector<int64_t> o = unravel(i, sizes), in(o.size());
    for (size_t d = 0; d < o.size(); ++d) in[new2old[d]] = o[d];
    out.push_back(t.at(in));
  }
  return out;
}

struct ReshapeCase {
  std::vector<int64_t> in, mid, out;
};

class ReferenceReshapeChain : public ::testing::TestWithParam<ReshapeCase> {};

// Static chains keep the row-major order of the elements.
TEST_P(ReferenceReshapeChain, KeepsRowMajorOrder) {
  const ReshapeCase& c = GetParam();
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigConcreteTensor(c.in);
  fusion.addInput(tv0);
  TensorView* tv1 = reshape(tv0, c.in, c.mid);
  TensorView* tv2 = reshape(tv1, c.mid, c.out);
  fusion.addOutput(tv2);
  Tensor in = Tensor::random(c.in, DataType::Float, 7);
  Tensor out = runOne(fusion, {in});
  EXPECT_EQ(out.sizes(), c.out);
  EXPECT_EQ(values(out), values(in));
}

INSTANTIATE_TEST_SUITE_P(Chains, ReferenceReshapeChain,
                         ::testing::Values(ReshapeCase{{4, 3}, {3, 4}, {12}},
                                           ReshapeCase{{4, 3}, {3, 1, 4}, {12, 1}},
                                           ReshapeCase{{4, 3}, {1, 2, 1, 3, 2}, {3, 4}},
                                           ReshapeCase{{7, 5}, {5, 7}, {35}},
                                           ReshapeCase{{1, 11}, {11, 1}, {1, 1, 11}},
                                           ReshapeCase{{6, 10}, {4, 15}, {3, 20}}),
                         [](const auto& info) { return fmt::format("case{}", info.index); });

// Reshape is a contiguous copy of the logical elements whatever the input's strides.
TEST(ReferenceShape, ReshapeOfStridedInput) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  fusion.addOutput(reshape(tv0, {2, 3}, {3, 2}));
  Tensor in = Tensor::emptyStrided({2, 3}, {1, 2}, 6, DataType::Float);
  for (int i = 0; i < 6; ++i) in.data<float>()[i] = static_cast<float>(i + 1);  // column-major
  Tensor out = runOne(fusion, {in});
  EXPECT_TRUE(out.isContiguous());
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(values(out), (std::vector<double>{1, 3, 5, 2, 4, 6}));
}

// A dynamic reshape runs from its size Vals, without concretization.
TEST(ReferenceShape, DynamicReshapeFromScalarInputs) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  Val* s0 = newScalar(DataType::Int64);
  Val* s1 = newScalar(DataType::Int64);
  fusion.addInput(tv0);
  fusion.addInput(s0);
  fusion.addInput(s1);
  TensorView* tv1 = reshape(tv0, std::vector<Val*>{s0, s1});
  fusion.addOutput(mul(tv1, constFloat(2.0)));
  for (auto [a, b, x, y] : std::vector<std::array<int64_t, 4>>{
           {4, 3, 3, 4}, {7, 5, 35, 1}, {1, 13, 13, 1}, {6, 10, 4, 15}}) {
    Tensor in = Tensor::random({a, b}, DataType::Float, 3);
    Tensor out = runOne(fusion, {in, scalarInt(x), scalarInt(y)});
    ASSERT_EQ(out.sizes(), (std::vector<int64_t>{x, y}));
    std::vector<double> expect = values(in);
    for (double& v : expect) v = static_cast<float>(v * 2.0);
    EXPECT_EQ(values(out), expect);
  }
  EXPECT_THAT(
      [&] {
        runOne(fusion, {Tensor::random({4, 3}, DataType::Float, 1), scalarInt(5), scalarInt(2)});
      },
      ThrowsMessage<UserError>(
          AllOf(HasSubstr("Total element counts across view operation must match"),
                HasSubstr("the input [4, 3] has 12 elements, the output [5, 2] has 10"))));
  EXPECT_THAT(
      [&] {
        runOne(fusion, {Tensor::random({4, 3}, DataType::Float, 1), scalarInt(-1), scalarInt(4)});
      },
      ThrowsMessage<UserError>(
          HasSubstr("Values of -1 passed to reshape must be constant at definition")));
}

TEST(ReferenceShape, DynamicReshapeWithConstantMinusOne) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  Val* s0 = newScalar(DataType::Int64);
  fusion.addInput(tv0);
  fusion.addInput(s0);
  fusion.addOutput(reshape(tv0, std::vector<Val*>{constInt(-1), s0}));
  Tensor in = Tensor::random({5, 6}, DataType::Float, 5);
  Tensor out = runOne(fusion, {in, scalarInt(3)});
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{10, 3}));
  EXPECT_EQ(values(out), values(in));
}

TEST(ReferenceShape, SqueezeOfSizeOneAxisMadeByReshape) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigConcreteTensor({4, 3});
  fusion.addInput(tv0);
  TensorView* tv1 = reshape(tv0, {4, 3}, {3, 1, 4});
  ASSERT_TRUE(tv1->getLogicalDomain()[1]->isBroadcast());
  fusion.addOutput(squeeze(tv1, {1}));
  Tensor in = Tensor::random({4, 3}, DataType::Float, 9);
  Tensor out = runOne(fusion, {in});
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(values(out), values(in));
}

// A squeeze of a dynamic reshape's Symbolic axis is checked when it runs.
TEST(ReferenceShape, SqueezeOfSymbolicAxisChecksItsSize) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1);
  Val* s0 = newScalar(DataType::Int64);
  Val* s1 = newScalar(DataType::Int64);
  fusion.addInput(tv0);
  fusion.addInput(s0);
  fusion.addInput(s1);
  fusion.addOutput(squeeze(reshape(tv0, std::vector<Val*>{s0, s1}), {1}));
  Tensor in = Tensor::random({7}, DataType::Float, 2);
  Tensor out = runOne(fusion, {in, scalarInt(7), scalarInt(1)});
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{7}));
  EXPECT_EQ(values(out), values(in));
  EXPECT_THAT(
      [&] {
        runOne(fusion, {Tensor::random({6}, DataType::Float, 2), scalarInt(3), scalarInt(2)});
      },
      ThrowsMessage<UserError>(
          AllOf(HasSubstr("squeeze"), HasSubstr("axis 1 of the input [3, 2] has size 2; "
                                                "only size-1 axes can be squeezed"))));
}

class ReferencePermute : public ::testing::TestWithParam<std::vector<int64_t>> {};

TEST_P(ReferencePermute, MatchesIndependentPermutation) {
  const std::vector<int64_t> sizes{3, 1, 5, 2};
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(4);
  fusion.addInput(tv0);
  fusion.addOutput(permute(tv0, GetParam()));
  Tensor in = Tensor::random(sizes, DataType::Float, 11);
  Tensor out = runOne(fusion, {in});
  EXPECT_TRUE(out.isContiguous());
  EXPECT_EQ(values(out), permuted(in, GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Orders, ReferencePermute,
                         ::testing::Values(std::vector<int64_t>{3, 2, 1, 0},
                                           std::vector<int64_t>{0, 2, 1, 3},
                                           std::vector<int64_t>{1, 3, 0, 2},
                                           std::vector<int64_t>{2, 0, 3, 1}),
                         [](const auto& info) { return fmt::format("order{}", info.index); });

TEST(ReferenceShape, TransposeThenReshape) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigConcreteTensor({5, 7});
  fusion.addInput(tv0);
  fusion.addOutput(flatten(transpose(tv0, 0, 1)));
  Tensor in = Tensor::random({5, 7}, DataType::Float, 4);
  Tensor out = runOne(fusion, {in});
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{35}));
  EXPECT_EQ(values(out), permuted(in, {1, 0}));
}

TEST(ReferenceShape, ExpandBroadcastAxes) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigConcreteTensor({1, 3});
  Val* s0 = newScalar(DataType::Int64);
  fusion.addInput(tv0);
  fusion.addInput(s0);
  fusion.addOutput(expand(tv0, {s0, constInt(-1)}));
  Tensor in = Tensor::random({1, 3}, DataType::Float, 8);
  Tensor out = runOne(fusion, {in, scalarInt(5)});
  ASSERT_EQ(out.sizes(), (std::vector<int64_t>{5, 3}));
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(out.at({i, j}), in.at({0, j}));
}

TEST(ReferenceShape, ExpandAfterReshape) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigConcreteTensor({6});
  fusion.addInput(tv0);
  TensorView* tv1 = reshape(tv0, {6}, {2, 1, 3});
  TensorView* tv2 = expand(tv1, {constInt(-1), constInt(4), constInt(-1)});
  fusion.addOutput(tv2);
  Tensor in = Tensor::random({6}, DataType::Float, 6);
  Tensor out = runOne(fusion, {in});
  ASSERT_EQ(out.sizes(), (std::vector<int64_t>{2, 4, 3}));
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t k = 0; k < 4; ++k)
      for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(out.at({i, k, j}), in.at({i * 3 + j}));
}

TEST(ReferenceShape, ExpandOfNonBroadcastAxisMustMatch) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  Val* s0 = newScalar(DataType::Int64);
  fusion.addInput(tv0);
  fusion.addInput(s0);
  fusion.addOutput(expand(tv0, {s0, constInt(-1)}));
  Tensor in = Tensor::random({3, 2}, DataType::Float, 1);
  EXPECT_EQ(values(runOne(fusion, {in, scalarInt(3)})), values(in));
  EXPECT_THAT(
      [&] {
        runOne(fusion, {in, scalarInt(5)});
      },
      ThrowsMessage<UserError>(
          AllOf(HasSubstr("expand"), HasSubstr("axis 0 of the input [3, 2] has size 3 and "
                                               "is not a Broadcast axis; it cannot be "
                                               "expanded to 5"))));
}

}  // namespace
}  // namespace reftest
