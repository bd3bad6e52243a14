// The CPU reference of the layout op (docs/layout_op.md, "What it computes").
// Expected positions come from the tensor view of a group's slab, [T, Kp/4, 32, 4, 4]
// = (t, tile_c, b, a, cc) with row r = t*128 + a*32 + b, walked group by group: a
// derivation independent of the evaluator's per-element group search.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <span>

#include "reference_helpers.h"

namespace {

using namespace mf;
using reftest::values;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// inp [M, K] of `dtype` -> layout op, with both offsets of `offset_dtype`.
std::unique_ptr<Fusion> layoutFusion(DataType dtype = DataType::Float,
                                     DataType offset_dtype = DataType::Int32) {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* inp = makeSymbolicTensor(2, dtype);
  TensorView* in_off = makeSymbolicTensor(1, offset_dtype);
  TensorView* out_off = makeSymbolicTensor(1, offset_dtype);
  fusion->addInput(inp);
  fusion->addInput(in_off);
  fusion->addInput(out_off);
  fusion->addOutput(preprocessGroupedMatmulInputSf(inp, in_off, out_off));
  return fusion;
}

Tensor offsets(const std::vector<int64_t>& v, DataType dtype = DataType::Int32) {
  if (dtype == DataType::Int64) return Tensor::fromVector(v, {static_cast<int64_t>(v.size())});
  return Tensor::fromVector(std::vector<int32_t>(v.begin(), v.end()),
                            {static_cast<int64_t>(v.size())});
}

// Flat position of element (r, col) of a group whose slab starts at row `out_start`.
int64_t slabPosition(int64_t out_start, int64_t kp, int64_t r, int64_t col) {
  const int64_t t = r / 128, a = (r % 128) / 32, b = r % 32, tile_c = col / 4, cc = col % 4;
  // Row-major index into [T, Kp/4, 32, 4, 4].
  return out_start * kp + (((t * (kp / 4) + tile_c) * 32 + b) * 4 + a) * 4 + cc;
}

// The whole expected buffer (pads = `fill`) for groups of `tokens` rows of `in`.
std::vector<double> expectedBuffer(const Tensor& in, const std::vector<int64_t>& tokens,
                                   int64_t alloc_rows, double fill) {
  const int64_t k = in.sizes()[1], kp = (k + 3) / 4 * 4;
  std::vector<double> buffer(static_cast<size_t>(alloc_rows * kp), fill);
  int64_t in_start = 0, out_start = 0;
  for (int64_t m_g : tokens) {
    for (int64_t r = 0; r < m_g; ++r)
      for (int64_t col = 0; col < k; ++col)
        buffer[slabPosition(out_start, kp, r, col)] = in.at({in_start + r, col});
    in_start += m_g;
    out_start += (m_g + 127) / 128 * 128;
  }
  return buffer;
}

std::vector<double> wholeBuffer(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.allocationNumel(); ++i) v.push_back(t.allocationItem(i));
  return v;
}

// docs/layout_op.md: tokens [2, 3, 5], K = 4 -> in_off [0, 2, 5], out_off [0, 128, 256].
TEST(ReferenceLayout, SmallGroupsEveryPosition) {
  auto fusion = layoutFusion();
  Tensor in = Tensor::arange({10, 4}, DataType::Float);
  Tensor out =
      ReferenceEvaluator(fusion.get()).run({in, offsets({0, 2, 5}), offsets({0, 128, 256})}).at(0);
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{10, 4}));
  EXPECT_EQ(out.allocationSizes(), (std::vector<int64_t>{10 + 127 * 3, 4}));
  EXPECT_EQ(out.usedRows(), 256 + 128);
  EXPECT_EQ(wholeBuffer(out), expectedBuffer(in, {2, 3, 5}, 391, 0.0));
  // By hand: row 2 is row 0 of group 1 (slab at 128*4); row 3 col 1 is its r=1 (b=1 -> 16);
  // row 9 col 3 is r=4 of group 2: 256*4 + 4*16 + 3.
  EXPECT_EQ(out.allocationItem(512), in.at({2, 0}));
  EXPECT_EQ(out.allocationItem(529), in.at({3, 1}));
  EXPECT_EQ(out.allocationItem(1091), in.at({9, 3}));
}

// docs/layout_op.md's worked example: tokens [100, 150, 262], K = 9 (Kp = 12); (300, 5) -> 5413.
TEST(ReferenceLayout, SpecWorkedExample) {
  auto fusion = layoutFusion();
  Tensor in = Tensor::arange({512, 9}, DataType::Float);
  Tensor out = ReferenceEvaluator(fusion.get())
                   .run({in, offsets({0, 100, 250}), offsets({0, 128, 384})})
                   .at(0);
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{512, 9}));
  EXPECT_EQ(out.strides(), (std::vector<int64_t>{9, 1}));
  EXPECT_EQ(out.allocationSizes(), (std::vector<int64_t>{893, 12}));
  EXPECT_EQ(out.usedRows(), 768);
  EXPECT_EQ(out.allocationItem(5413), 300.0 * 9 + 5);
  EXPECT_EQ(wholeBuffer(out), expectedBuffer(in, {100, 150, 262}, 893, 0.0));
}

// Pads hold the requested value; nullopt leaves poison (NaN for floats, 0xAB bytes else).
TEST(ReferenceLayout, PadFill) {
  auto fusion = layoutFusion();
  Tensor in = Tensor::arange({10, 3}, DataType::Float);
  ReferenceOptions fill;
  fill.layout_pad_fill = -1.5;
  Tensor out = ReferenceEvaluator(fusion.get())
                   .run({in, offsets({0, 2, 5}), offsets({0, 128, 256})}, fill)
                   .at(0);
  EXPECT_EQ(wholeBuffer(out), expectedBuffer(in, {2, 3, 5}, 391, -1.5));

  ReferenceOptions poison;
  poison.layout_pad_fill = std::nullopt;
  out = ReferenceEvaluator(fusion.get())
            .run({in, offsets({0, 2, 5}), offsets({0, 128, 256})}, poison)
            .at(0);
  std::vector<double> buffer = wholeBuffer(out);
  EXPECT_TRUE(std::isnan(buffer[3]));  // column 3 is a pad column (K = 3, Kp = 4)
  EXPECT_TRUE(std::isnan(buffer.back()));
  EXPECT_EQ(buffer[slabPosition(128, 4, 2, 1)], in.at({4, 1}));

  auto ints = layoutFusion(DataType::Int32);
  Tensor iout =
      ReferenceEvaluator(ints.get())
          .run({Tensor::arange({2, 4}, DataType::Int32), offsets({0}), offsets({0})}, poison)
          .at(0);
  EXPECT_EQ(iout.allocationData<int32_t>()[1], 1);
  EXPECT_EQ(static_cast<uint32_t>(iout.allocationData<int32_t>()[4]), 0xababababu);  // r = 32's
}

// An empty group (equal consecutive offsets) is skipped by the group search.
TEST(ReferenceLayout, EmptyGroup) {
  auto fusion = layoutFusion();
  Tensor in = Tensor::arange({8, 5}, DataType::Float);
  Tensor out =
      ReferenceEvaluator(fusion.get()).run({in, offsets({0, 3, 3}), offsets({0, 128, 128})}).at(0);
  EXPECT_EQ(out.allocationSizes(), (std::vector<int64_t>{8 + 381, 8}));
  EXPECT_EQ(out.usedRows(), 256);
  EXPECT_EQ(out.allocationItem(128 * 8), in.at({3, 0}));  // row 3 starts group 2
  EXPECT_EQ(wholeBuffer(out), expectedBuffer(in, {3, 0, 5}, 389, 0.0));
}

// fp8 scale factors move byte for byte, NaN patterns included.
TEST(ReferenceLayout, Float8BytesMoveExactly) {
  auto fusion = layoutFusion(DataType::Float8_e4m3fn);
  std::vector<Float8e4m3> bytes;
  for (int i = 0; i < 10 * 4; ++i) bytes.push_back(Float8e4m3{static_cast<uint8_t>(i * 37 + 0x7f)});
  Tensor in = Tensor::fromVector(bytes, {10, 4});
  Tensor out =
      ReferenceEvaluator(fusion.get()).run({in, offsets({0, 2, 5}), offsets({0, 128, 256})}).at(0);
  std::span<const Float8e4m3> buffer = out.allocationData<Float8e4m3>();
  const std::vector<int64_t> tokens = {2, 3, 5}, out_starts = {0, 128, 256};
  int64_t row = 0, checked = 0;
  for (size_t g = 0; g < tokens.size(); ++g) {
    for (int64_t r = 0; r < tokens[g]; ++r, ++row) {
      for (int64_t col = 0; col < 4; ++col, ++checked)
        EXPECT_EQ(buffer[slabPosition(out_starts[g], 4, r, col)].bits, bytes[row * 4 + col].bits);
    }
  }
  EXPECT_EQ(checked, 40);
  EXPECT_EQ(buffer[0].bits, 0x7f);  // element (0, 0): a NaN pattern, kept
}

// Int64 offsets give the same result as Int32.
TEST(ReferenceLayout, Int64Offsets) {
  auto fusion = layoutFusion(DataType::Float, DataType::Int64);
  Tensor in = Tensor::random({512, 9}, DataType::Float, 5);
  Tensor out = ReferenceEvaluator(fusion.get())
                   .run({in, offsets({0, 100, 250}, DataType::Int64),
                         offsets({0, 128, 384}, DataType::Int64)})
                   .at(0);
  EXPECT_EQ(out.usedRows(), 768);
  EXPECT_EQ(wholeBuffer(out), expectedBuffer(in, {100, 150, 262}, 893, 0.0));
}

// nvFuser's SchedulerKernelWithOffsetsProducer: offsets computed in the fusion (+1), 4 groups with
// an empty last one; the input staged through set. Allocation [1020, 12].
TEST(ReferenceLayout, ComputedOffsetsAndStagedInput) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* inp = makeSymbolicTensor(2);
  TensorView* in_off = makeSymbolicTensor(1, DataType::Int32);
  TensorView* out_off = makeSymbolicTensor(1, DataType::Int32);
  fusion.addInput(inp);
  fusion.addInput(in_off);
  fusion.addInput(out_off);
  fusion.addOutput(preprocessGroupedMatmulInputSf(set(inp),
                                                  add(in_off, constInt(1, DataType::Int32)),
                                                  add(out_off, constInt(1, DataType::Int32))));
  Tensor in = Tensor::arange({512, 9}, DataType::Float);
  Tensor out = ReferenceEvaluator(&fusion)
                   .run({in, offsets({-1, 99, 249, 511}), offsets({-1, 127, 383, 767})})
                   .at(0);
  EXPECT_EQ(out.allocationSizes(), (std::vector<int64_t>{1020, 12}));
  EXPECT_EQ(out.usedRows(), 768);
  EXPECT_EQ(wholeBuffer(out), expectedBuffer(in, {100, 150, 262, 0}, 1020, 0.0));
}

// M = 0 is fine, with or without groups.
TEST(ReferenceLayout, NoRows) {
  auto fusion = layoutFusion();
  Tensor one = ReferenceEvaluator(fusion.get())
                   .run({Tensor::empty({0, 5}, DataType::Float), offsets({0}), offsets({0})})
                   .at(0);
  EXPECT_EQ(one.allocationSizes(), (std::vector<int64_t>{127, 8}));
  EXPECT_EQ(one.usedRows(), 0);
  Tensor none = ReferenceEvaluator(fusion.get())
                    .run({Tensor::empty({0, 5}, DataType::Float), offsets({}), offsets({})})
                    .at(0);
  EXPECT_EQ(none.allocationSizes(), (std::vector<int64_t>{0, 8}));
  EXPECT_EQ(none.usedRows(), 0);
}

// Every run-time precondition is checked, each with its own message.
TEST(ReferenceLayoutErrors, BadOffsets) {
  auto fusion = layoutFusion();
  Tensor in = Tensor::arange({10, 4}, DataType::Float);
  auto run = [&](std::vector<int64_t> in_off, std::vector<int64_t> out_off, Tensor x) {
    return [=, &fusion] {
      ReferenceEvaluator(fusion.get()).run({x, offsets(in_off), offsets(out_off)});
    };
  };
  const std::string op = "preprocessGroupedMatmulInputSf: ";
  EXPECT_THAT(run({0, 2, 5}, {0, 128, 256, 384}, in),
              ThrowsMessage<UserError>(
                  HasSubstr(op + "input_offsets T1 has 3 entries but output_offsets T2 has 4")));
  EXPECT_THAT(run({}, {}, in),
              ThrowsMessage<UserError>(
                  HasSubstr(op + "input_offsets T1 is empty (G = 0) but input T0 has 10 rows")));
  EXPECT_THAT(run({1, 2, 5}, {0, 128, 256}, in),
              ThrowsMessage<UserError>(HasSubstr(op + "input_offsets T1 must start at 0")));
  EXPECT_THAT(run({0, 5, 2}, {0, 128, 256}, in),
              ThrowsMessage<UserError>(HasSubstr(
                  op + "input_offsets T1 must be non-decreasing: entry 2 is 2 but entry 1 is 5")));
  EXPECT_THAT(run({0, 2, 11}, {0, 128, 256}, in),
              ThrowsMessage<UserError>(
                  HasSubstr(op + "input_offsets T1 entry 2 is 11, past the 10 rows of input T0")));
  EXPECT_THAT(run({0, 2, 5}, {1, 128, 256}, in),
              ThrowsMessage<UserError>(
                  HasSubstr(op + "output_offsets T2 entry 0 (start of group 0) must be 0, got 1")));
  EXPECT_THAT(run({0, 2, 5}, {0, 128, 200}, in),
              ThrowsMessage<UserError>(
                  HasSubstr(op + "output_offsets T2 entry 2 (start of group 2) must be 256 = 128 + "
                                 "roundup(3 rows of group 1, 128), got 200")));
  EXPECT_THAT(run({0, 200, 250}, {0, 256, 512}, Tensor::arange({512, 4}, DataType::Float)),
              ThrowsMessage<UserError>(
                  HasSubstr(op + "output_offsets T2 entry 2 (start of group 2) must be 384 = 256 + "
                                 "roundup(50 rows of group 1, 128), got 512")));
}

}  // namespace
