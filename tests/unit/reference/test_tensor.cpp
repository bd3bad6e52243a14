// mf::Tensor: factories, element access, dtype checks, the padded allocation of the layout
// op's output, and printing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "reference_helpers.h"

namespace {

using namespace mf;
using reftest::values;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// fromVector deduces the dtype from the element type and lays values out row-major.
TEST(Tensor, FromVectorIsContiguousRowMajor) {
  Tensor t = Tensor::fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(t.dtype(), DataType::Float);
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(t.dim(), 2);
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.nbytes(), 24);
  EXPECT_TRUE(t.isContiguous());
  EXPECT_EQ(t.at({1, 2}), 6.0);
  EXPECT_EQ(t.item(4), 5.0);
  EXPECT_EQ(t.data<float>()[3], 4.0f);
  EXPECT_EQ(t.allocationSizes(), t.sizes());
  EXPECT_FALSE(t.usedRows().has_value());
}

// Every host element type maps to its dtype; narrow floats read back exactly.
TEST(Tensor, FromVectorEveryElementType) {
  EXPECT_EQ(Tensor::fromVector<bool>({true, false}, {2}).dtype(), DataType::Bool);
  EXPECT_EQ(Tensor::fromVector<int32_t>({1}, {1}).dtype(), DataType::Int32);
  EXPECT_EQ(Tensor::fromVector<int64_t>({1}, {1}).dtype(), DataType::Int64);
  EXPECT_EQ(Tensor::fromVector<double>({1}, {1}).dtype(), DataType::Double);
  Tensor h = Tensor::fromVector<Half>({Half{0x3c00}, Half{0xc000}}, {2});
  EXPECT_EQ(h.dtype(), DataType::Half);
  EXPECT_EQ(values(h), (std::vector<double>{1.0, -2.0}));
  Tensor b = Tensor::fromVector<BFloat16>({BFloat16{0x3f81}}, {1});
  EXPECT_EQ(b.dtype(), DataType::BFloat16);
  EXPECT_EQ(b.item(0), 1.0078125);  // 1 + 2^-7
  Tensor f8 = Tensor::fromVector<Float8e4m3>({Float8e4m3{0x7e}, Float8e4m3{0x7f}}, {2});
  EXPECT_EQ(f8.dtype(), DataType::Float8_e4m3fn);
  EXPECT_EQ(f8.item(0), 448.0);
  EXPECT_TRUE(std::isnan(f8.item(1)));
  EXPECT_EQ(f8.nbytes(), 2);
  Tensor flags = Tensor::fromVector<bool>({true, false, true}, {3});
  EXPECT_EQ(values(flags), (std::vector<double>{1, 0, 1}));
  EXPECT_EQ(std::get<int64_t>(Tensor::fromVector<int64_t>({(int64_t{1} << 60) + 1}, {1}).value(0)),
            (int64_t{1} << 60) + 1);
}

TEST(Tensor, EmptyIsZeroFilledAndHandlesZeroAndRankZero) {
  Tensor t = Tensor::empty({2, 2}, DataType::Int64);
  EXPECT_EQ(values(t), (std::vector<double>{0, 0, 0, 0}));
  Tensor none = Tensor::empty({3, 0}, DataType::Float);
  EXPECT_EQ(none.numel(), 0);
  EXPECT_EQ(none.nbytes(), 0);
  Tensor scalar = Tensor::full({}, DataType::Double, 2.5);
  EXPECT_EQ(scalar.dim(), 0);
  EXPECT_EQ(scalar.numel(), 1);
  EXPECT_EQ(scalar.item(0), 2.5);
  EXPECT_EQ(scalar.at({}), 2.5);
}

// arange and full convert with the dtype's rounding (bf16: ties to even; fp8: saturation).
TEST(Tensor, ArangeAndFullRoundToTheDtype) {
  EXPECT_EQ(values(Tensor::arange({2, 3}, DataType::Int32)),
            (std::vector<double>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(values(Tensor::arange({3}, DataType::Bool)), (std::vector<double>{0, 1, 1}));
  Tensor bf = Tensor::full({2}, DataType::BFloat16, 1.00390625);  // 1 + 2^-8: a tie
  EXPECT_EQ(bf.data<BFloat16>()[0].bits, 0x3f80);                 // -> 1.0, the even one
  Tensor f8 = Tensor::full({1}, DataType::Float8_e4m3fn, 1000.0);
  EXPECT_EQ(f8.data<Float8e4m3>()[0].bits, 0x7e);  // saturates to 448
  EXPECT_EQ(Tensor::full({1}, DataType::Int32, -2.7).item(0), -2.0);
}

// Same seed, same values; values in the documented ranges; never all zeros.
TEST(Tensor, RandomIsSeededBoundedAndNeverAllZeros) {
  Tensor a = Tensor::random({1000}, DataType::Float, 7);
  Tensor b = Tensor::random({1000}, DataType::Float, 7);
  Tensor c = Tensor::random({1000}, DataType::Float, 8);
  EXPECT_EQ(values(a), values(b));
  EXPECT_NE(values(a), values(c));
  for (double v : values(a)) {
    EXPECT_GE(v, -2.0);
    EXPECT_LT(v, 2.0);
  }
  std::vector<double> ints = values(Tensor::random({1000}, DataType::Int32, 1));
  for (double v : ints) {
    EXPECT_GE(v, -100.0);
    EXPECT_LT(v, 100.0);
  }
  EXPECT_NE(std::count(ints.begin(), ints.end(), ints[0]), 1000);
  std::vector<double> flags = values(Tensor::random({1000}, DataType::Bool, 1));
  int64_t ones = std::count(flags.begin(), flags.end(), 1.0);
  EXPECT_GT(ones, 400);
  EXPECT_LT(ones, 600);
  for (uint64_t seed = 0; seed < 64; ++seed)
    EXPECT_NE(Tensor::random({1}, DataType::Bool, seed).item(0), 0.0) << "seed " << seed;
  // Narrow floats hold values of their own grid: bf16 has 8 significant bits.
  for (double v : values(Tensor::random({100}, DataType::BFloat16, 3))) {
    if (v == 0.0) continue;
    double significand = std::ldexp(v, 7 - std::ilogb(v));  // in [128, 256) or (-256, -128]
    EXPECT_EQ(significand, std::trunc(significand)) << v;
  }
}

// Copies share storage (cheap), as at::Tensor.
TEST(Tensor, CopiesShareStorage) {
  Tensor a = Tensor::fromVector<float>({1, 2}, {2});
  Tensor b = a;
  b.data<float>()[0] = 7.0f;
  EXPECT_EQ(a.item(0), 7.0);
}

// The layout op's output: logical [M, K] with strides [K, 1] over the start of a larger
// buffer; the whole buffer stays readable.
TEST(Tensor, WithAllocationViewsThePaddedBuffer) {
  Tensor t = Tensor::withAllocation({512, 9}, {893, 12}, DataType::Float);
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{512, 9}));
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{9, 1}));
  EXPECT_EQ(t.numel(), 512 * 9);
  EXPECT_EQ(t.allocationSizes(), (std::vector<int64_t>{893, 12}));
  EXPECT_EQ(t.allocationNumel(), 893 * 12);
  EXPECT_EQ(t.nbytes(), 893 * 12 * 4);
  EXPECT_EQ(t.allocationData<float>().size(), 893u * 12u);
  t.allocationData<float>()[9] = 3.0f;
  t.allocationData<float>()[893 * 12 - 1] = 4.0f;
  EXPECT_EQ(t.at({1, 0}), 3.0);
  EXPECT_EQ(t.allocationItem(893 * 12 - 1), 4.0);
  t.setUsedRows(768);
  EXPECT_EQ(t.usedRows(), 768);
}

TEST(Tensor, ToString) {
  EXPECT_EQ(Tensor::fromVector<int32_t>({1, -2, 3}, {3}).toString(), "int32[3] {1, -2, 3}");
  EXPECT_EQ(Tensor::arange({2, 5}, DataType::Float).toString(3),
            "float[2, 5] {0.0, 1.0, 2.0, ...}");
  EXPECT_EQ(Tensor::fromVector<bool>({true}, {}).toString(), "bool[] {true}");
  Tensor padded = Tensor::withAllocation({2, 3}, {129, 4}, DataType::Half);
  padded.setUsedRows(128);
  EXPECT_EQ(padded.toString(2), "half[2, 3] allocation [129, 4] used rows 128 {0.0, 0.0, ...}");
}

TEST(TensorErrors, SizeMismatchInFromVector) {
  EXPECT_THAT(
      [] {
        Tensor::fromVector<float>({1, 2, 3}, {2, 2});
      },
      ThrowsMessage<UserError>(
          HasSubstr("Tensor::fromVector: 3 values do not fill a float tensor of 4 elements")));
}

TEST(TensorErrors, DataWithTheWrongType) {
  Tensor t = Tensor::empty({2}, DataType::Float);
  EXPECT_THAT([&] { t.data<double>(); },
              ThrowsMessage<UserError>(
                  HasSubstr("Tensor::data: expected dtype double, but the tensor is float")));
  EXPECT_THAT([&] { t.allocationData<Half>(); },
              ThrowsMessage<UserError>(HasSubstr("expected dtype half, but the tensor is float")));
}

TEST(TensorErrors, NegativeSize) {
  EXPECT_THAT(
      [] {
        Tensor::empty({2, -1}, DataType::Float);
      },
      ThrowsMessage<UserError>(HasSubstr("Tensor: size -1 of axis 1 in [2, -1] is negative")));
}

TEST(TensorErrors, AllocationSmallerThanLogical) {
  EXPECT_THAT(
      [] {
        Tensor::withAllocation({4, 4}, {3, 4}, DataType::Float);
      },
      ThrowsMessage<UserError>(HasSubstr(
          "the allocation [3, 4] (12 elements) is smaller than the logical shape [4, 4]")));
}

TEST(TensorErrors, OutOfRangeAccess) {
  Tensor t = Tensor::empty({2, 3}, DataType::Float);
  EXPECT_THAT(
      [&] {
        t.at({2, 0});
      },
      ThrowsMessage<UserError>(
          HasSubstr("Tensor::at: index [2, 0] is out of range for shape [2, 3] on axis 0")));
  EXPECT_THAT([&] { t.at({0}); }, ThrowsMessage<UserError>(
                                      HasSubstr("Tensor::at: index [0] has 1 entries for rank 2")));
  EXPECT_THAT([&] { t.item(6); },
              ThrowsMessage<UserError>(
                  HasSubstr("Tensor: element 6 is out of range for shape [2, 3] (6 elements)")));
  EXPECT_THAT(
      [&] { t.allocationItem(-1); },
      ThrowsMessage<UserError>(HasSubstr("position -1 is out of range for allocation [2, 3]")));
}

}  // namespace
