// The pointwise scheduler's heuristics from run-time metadata (no data, no device):
// vectorization (nvFuser's test_pointwise.cpp vectorization cases are the model), the 2-D
// break point for broadcasts, unroll, the grid, the index type.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "scheduler/vectorize_helper.h"
#include "unit/scheduler/scheduler_test_utils.h"

namespace mf::schedtest {
namespace {

// ---------------------------------------------------------------- contiguous inputs

struct ContigCase {
  std::string name;
  DataType dtype;
  std::vector<int64_t> sizes;
  int64_t vect;
};

class ContiguousVectorization : public ::testing::TestWithParam<ContigCase> {};

// The factor is the largest power of two up to 16 bytes dividing the merged contiguous
// extent: 1024*1024 allows anything, so the dtype's 16-byte width wins; 1001*17 is odd.
TEST_P(ContiguousVectorization, LargestPowerOfTwoOfMergedExtent) {
  const ContigCase& c = GetParam();
  Fusion f;
  FusionGuard fg(&f);
  TensorView* tv0 = makeContigTensor(static_cast<int64_t>(c.sizes.size()), c.dtype);
  f.addInput(tv0);
  f.addOutput(set(tv0));
  PointwiseParams p = pointwiseParams(f, {contiguous(c.sizes, c.dtype)});
  EXPECT_EQ(p.vectorization_factor, c.vect);
  EXPECT_EQ(p.break_point, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Pointwise, ContiguousVectorization,
    ::testing::Values(ContigCase{"float_1024x1024", DataType::Float, {1024, 1024}, 4},
                      ContigCase{"bf16_1024x1024", DataType::BFloat16, {1024, 1024}, 8},
                      ContigCase{"half_1024x1024", DataType::Half, {1024, 1024}, 8},
                      ContigCase{"double_1024x1024", DataType::Double, {1024, 1024}, 2},
                      ContigCase{"fp8_1024x1024", DataType::Float8_e4m3fn, {1024, 1024}, 16},
                      ContigCase{"float_1001x17", DataType::Float, {1001, 17}, 1},
                      ContigCase{"float_1000x17", DataType::Float, {1000, 17}, 4},
                      ContigCase{"float_1000x18", DataType::Float, {1000, 18}, 4},
                      ContigCase{"float_1003x18", DataType::Float, {1003, 18}, 2},
                      ContigCase{"float_3d_250x2x34", DataType::Float, {250, 2, 34}, 4}),
    [](const auto& info) { return info.param.name; });

// A bf16 input cast to a float output: the widest vectorized dtype sets the 16-byte cap.
TEST(PointwiseHeuristics, MixedDtypesCapAtWidest) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* tv0 = makeContigTensor(2, DataType::BFloat16);
  f.addInput(tv0);
  f.addOutput(castOp(DataType::Float, tv0));
  EXPECT_EQ(pointwiseParams(f, {contiguous({1024, 1024}, DataType::BFloat16)}).vectorization_factor,
            4);
}

// Less than one wave of blocks (132 SMs x 128 threads): no vectorization.
TEST(PointwiseHeuristics, NoVectorizationBelowOneWave) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* tv0 = makeContigTensor(1);
  f.addInput(tv0);
  f.addOutput(neg(tv0));
  EXPECT_EQ(pointwiseParams(f, {contiguous({132 * 128 - 4})}).vectorization_factor, 1);
  EXPECT_EQ(pointwiseParams(f, {contiguous({132 * 128})}).vectorization_factor, 4);
}

// ---------------------------------------------------------------- strided inputs

// nvFuser's VectorizeStrideContiguity2D: [1000000, 16] narrowed from rows of `row_stride`
// elements (inner axis declared contiguous, outer not): the factor divides the row stride.
class StridedRows : public ::testing::TestWithParam<std::pair<int64_t, int64_t>> {};

TEST_P(StridedRows, FactorDividesOuterStride) {
  auto [row_stride, vect] = GetParam();
  Fusion f;
  FusionGuard fg(&f);
  TensorView* tv0 = TensorViewBuilder().ndims(2).contiguity(Contiguity{false, true}).build();
  f.addInput(tv0);
  f.addOutput(set(tv0));
  PointwiseParams p = pointwiseParams(f, {strided({1000000, 16}, {row_stride, 1})});
  EXPECT_EQ(p.vectorization_factor, vect);
}

INSTANTIATE_TEST_SUITE_P(
    Pointwise, StridedRows,
    ::testing::Values(std::pair<int64_t, int64_t>{17, 1}, std::pair<int64_t, int64_t>{18, 2},
                      std::pair<int64_t, int64_t>{32, 4}, std::pair<int64_t, int64_t>{16, 4}),
    [](const auto& info) { return fmt::format("stride{}", info.param.first); });

// Declared contiguity is compile-time: a tensor declared non-contiguous is read through
// run-time strides, so it is never vectorized, even when its strides are dense.
TEST(PointwiseHeuristics, DeclaredNonContiguousIsNotVectorized) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* tv0 = makeSymbolicTensor(2);
  f.addInput(tv0);
  f.addOutput(set(tv0));
  EXPECT_EQ(pointwiseParams(f, {contiguous({1024, 1024})}).vectorization_factor, 1);
}

// nvFuser's VectorizeStrideContiguitySelfOverlapping: [1000000, 4, 4] with strides
// (s0, s1, 1), only the inner axis declared contiguous; a stride-0 (expanded) axis never
// limits the factor.
struct OverlapCase {
  int64_t s0, s1, vect;
};
class SelfOverlapping : public ::testing::TestWithParam<OverlapCase> {};

TEST_P(SelfOverlapping, FactorDividesEveryOuterStride) {
  const OverlapCase& c = GetParam();
  Fusion f;
  FusionGuard fg(&f);
  TensorView* tv0 = TensorViewBuilder().ndims(3).contiguity(Contiguity{false, false, true}).build();
  f.addInput(tv0);
  f.addOutput(set(tv0));
  PointwiseParams p = pointwiseParams(f, {strided({1000000, 4, 4}, {c.s0, c.s1, 1})});
  EXPECT_EQ(p.vectorization_factor, c.vect);
}

INSTANTIATE_TEST_SUITE_P(Pointwise, SelfOverlapping,
                         ::testing::Values(OverlapCase{16, 4, 4}, OverlapCase{4, 2, 2},
                                           OverlapCase{2, 4, 2}, OverlapCase{4, 1, 1},
                                           OverlapCase{0, 4, 4}, OverlapCase{4, 0, 4},
                                           OverlapCase{0, 0, 4}),
                         [](const auto& info) {
                           return fmt::format("s{}_{}", info.param.s0, info.param.s1);
                         });

// ---------------------------------------------------------------- misaligned base

// A view whose element 0 is `offset` elements past a 256-byte-aligned base: the factor
// divides the offset (in elements).
class MisalignedBase : public ::testing::TestWithParam<std::tuple<DataType, int64_t, int64_t>> {};

TEST_P(MisalignedBase, FactorDividesStorageOffset) {
  auto [dtype, offset, vect] = GetParam();
  Fusion f;
  FusionGuard fg(&f);
  TensorView* tv0 = makeContigTensor(1, dtype);
  f.addInput(tv0);
  f.addOutput(set(tv0));
  PointwiseParams p = pointwiseParams(f, {strided({1 << 20}, {1}, dtype, offset)});
  EXPECT_EQ(p.vectorization_factor, vect);
}

INSTANTIATE_TEST_SUITE_P(
    Pointwise, MisalignedBase,
    ::testing::Values(std::tuple{DataType::Float, 0, 4}, std::tuple{DataType::Float, 1, 1},
                      std::tuple{DataType::Float, 2, 2}, std::tuple{DataType::Float, 6, 2},
                      std::tuple{DataType::Float, 4, 4}, std::tuple{DataType::BFloat16, 4, 4},
                      std::tuple{DataType::BFloat16, 12, 4}, std::tuple{DataType::BFloat16, 8, 8}),
    [](const auto& info) {
      return fmt::format("{}_offset{}", toString(std::get<0>(info.param)), std::get<1>(info.param));
    });

// A base pointer aligned to 8 bytes only limits fp32 to 2 elements.
TEST(PointwiseHeuristics, BaseAlignmentLimitsFactor) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* tv0 = makeContigTensor(1);
  f.addInput(tv0);
  f.addOutput(set(tv0));
  TensorMetadata m = contiguous({1 << 20});
  m.base_alignment = 8;
  EXPECT_EQ(pointwiseParams(f, {m}).vectorization_factor, 2);
}

// ---------------------------------------------------------------- permuted allocation

// An input stored column-major ([M, N] logical, [N, M] allocation) next to a row-major
// output: its innermost axis is M, not the reference's N, so it is read per element and
// does not limit the factor (nvFuser: getInputsOutputsWithInnerDim).
TEST(PointwiseHeuristics, PermutedInputIsNotVectorized) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* tv0 = makeContigTensor(2);
  tv0->setAllocationDomain({tv0->axis(1), tv0->axis(0)}, true);
  TensorView* tv1 = makeContigTensor(2);
  f.addInput(tv0);
  f.addInput(tv1);
  TensorView* out = add(tv0, tv1);
  f.addOutput(out);
  PointwiseDomainMap map(&f);
  EXPECT_EQ(vectorizableInputsOutputs(map, out), (std::vector<TensorView*>{tv1, out}));
  // M = 1001 is odd: it would force 1 if tv0 were vectorized. The registry gives this fusion
  // (inputs of two layouts) to the transpose scheduler; the pointwise heuristics are asked
  // directly.
  const std::vector<TensorMetadata> in = {strided({1001, 1024}, {1, 1001}),
                                          contiguous({1001, 1024})};
  EXPECT_EQ(propose(f, in).type, SchedulerType::Transpose);
  SchedulerRuntimeInfo info(&f, in);
  std::unique_ptr<HeuristicParams> p = PointWiseScheduler().computeHeuristics(&f, info);
  ASSERT_NE(dynamic_cast<PointwiseParams*>(p.get()), nullptr);
  EXPECT_EQ(dynamic_cast<PointwiseParams*>(p.get())->vectorization_factor, 4);
}

// Input and output both column-major: the reference's allocation order decides what is
// inner, so both merge [N, M] and the factor divides N*M.
TEST(PointwiseHeuristics, PermutedInputAndOutputVectorizeAlongAllocation) {
  for (auto [m, n, vect] : {std::tuple<int64_t, int64_t, int64_t>{1000, 17, 4}, {1001, 17, 1}}) {
    Fusion f;
    FusionGuard fg(&f);
    TensorView* tv0 = makeContigTensor(2);
    tv0->setAllocationDomain({tv0->axis(1), tv0->axis(0)}, true);
    f.addInput(tv0);
    TensorView* out = neg(tv0);
    out->setAllocationDomain({out->axis(1), out->axis(0)}, true);
    f.addOutput(out);
    PointwiseDomainMap map(&f);
    EXPECT_EQ(vectorizableInputsOutputs(map, out), (std::vector<TensorView*>{tv0, out}));
    EXPECT_EQ(pointwiseParams(f, {strided({m, n}, {1, m})}).vectorization_factor, vect)
        << m << "x" << n;
  }
}

// ---------------------------------------------------------------- 2-D break point

// X[M, N] + bias[N] (an outer broadcast): break after M; 128 threads along N; the bias is
// vectorized too; unroll (when there is enough work) goes to the outer side.
TEST(PointwiseHeuristics, OuterBroadcastBreaksAfterOuterAxis) {
  Fusion f;
  FusionGuard fg(&f);
  auto [x, bias, out] = biasAdd(f);
  PointwiseDomainMap map(&f);
  EXPECT_EQ(vectorizableInputsOutputs(map, out), (std::vector<TensorView*>{x, bias, out}));

  // 1024 x 1024: 1024 rows x 2 blocks of 128 threads x 4 elements; 2048 blocks are less
  // than two waves of 2112 resident blocks, so no unroll.
  PointwiseParams p = pointwiseParams(f, {contiguous({1024, 1024}), contiguous({1024})});
  EXPECT_EQ(p.break_point, 1);
  EXPECT_EQ(p.vectorization_factor, 4);
  EXPECT_EQ(p.unroll_factor_inner, 1);
  EXPECT_EQ(p.unroll_factor_outer, 1);
  EXPECT_FALSE(p.split_block);
  EXPECT_FALSE(p.flip_grid_binding);
  EXPECT_EQ(p.lparams.getDim(ParallelType::TIDx), 128);
  EXPECT_EQ(p.lparams.getDim(ParallelType::BIDx), 2);
  EXPECT_EQ(p.lparams.getDim(ParallelType::BIDy), 1024);

  // 32Ki x 4Ki: 262144 blocks; unroll 2 along M (16 bytes x 2 in flight per thread).
  p = pointwiseParams(f, {contiguous({32768, 4096}), contiguous({4096})});
  EXPECT_EQ(p.break_point, 1);
  EXPECT_EQ(p.unroll_factor_outer, 2);
  EXPECT_EQ(p.unroll_factor_inner, 1);
  EXPECT_EQ(p.lparams.getDim(ParallelType::BIDx), 8);
  EXPECT_EQ(p.lparams.getDim(ParallelType::BIDy), 16384);
  EXPECT_FALSE(p.split_grid_y);

  // An odd bias length N = 1023 limits every vectorized tensor to 1.
  p = pointwiseParams(f, {contiguous({1024, 1023}), contiguous({1023})});
  EXPECT_EQ(p.break_point, 1);
  EXPECT_EQ(p.vectorization_factor, 1);
}

// X[M, N] * col[M, 1] (an inner broadcast): break after M; col is read once per row and
// not vectorized; unroll goes to the inner side.
TEST(PointwiseHeuristics, InnerBroadcastBreaksAfterOuterAxis) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* x = makeContigTensor(2);
  TensorView* col = makeConcreteTensor({-1, 1});
  f.addInput(x);
  f.addInput(col);
  TensorView* out = mul(x, col);
  f.addOutput(out);
  PointwiseDomainMap map(&f);
  EXPECT_EQ(vectorizableInputsOutputs(map, out), (std::vector<TensorView*>{x, out}));

  PointwiseParams p = pointwiseParams(f, {contiguous({1024, 1024}), strided({1024, 1}, {1, 1})});
  EXPECT_EQ(p.break_point, 1);
  EXPECT_EQ(p.vectorization_factor, 4);
  EXPECT_EQ(p.lparams.getDim(ParallelType::BIDx), 2);
  EXPECT_EQ(p.lparams.getDim(ParallelType::BIDy), 1024);

  p = pointwiseParams(f, {contiguous({32768, 4096}), strided({32768, 1}, {1, 1})});
  EXPECT_EQ(p.unroll_factor_inner, 2);
  EXPECT_EQ(p.unroll_factor_outer, 1);
  EXPECT_EQ(p.lparams.getDim(ParallelType::BIDx), 4);
  EXPECT_EQ(p.lparams.getDim(ParallelType::BIDy), 32768);
}

// A right side of 128 floats (32 vectors: no more than a warp) keeps a 1-D schedule; a right side
// of 256 floats gives 64 threads across and TIDy = 2.
TEST(PointwiseHeuristics, NarrowRightSideSplitsTheBlock) {
  Fusion f;
  FusionGuard fg(&f);
  biasAdd(f);

  PointwiseParams p = pointwiseParams(f, {contiguous({65536, 128}), contiguous({128})});
  EXPECT_EQ(p.break_point, 0) << "128 / 4 = 32 vectors: not more than a warp";

  p = pointwiseParams(f, {contiguous({65536, 256}), contiguous({256})});
  EXPECT_EQ(p.break_point, 1);
  EXPECT_TRUE(p.split_block);
  EXPECT_EQ(p.lparams.getDim(ParallelType::TIDx), 64);
  EXPECT_EQ(p.lparams.getDim(ParallelType::TIDy), 2);
  EXPECT_EQ(p.lparams.nThreads(), 128);
}

// Without broadcasts, or with little work (n * 2 <= SMs * 128), the schedule is 1-D.
TEST(PointwiseHeuristics, OneDimensionalWithoutBroadcastOrWork) {
  Fusion f;
  FusionGuard fg(&f);
  biasAdd(f);
  PointwiseParams p = pointwiseParams(f, {contiguous({64, 64}), contiguous({64})});
  EXPECT_EQ(p.break_point, 0);
  EXPECT_EQ(p.vectorization_factor, 1);
  EXPECT_EQ(p.lparams.getDim(ParallelType::BIDx), 32);
}

// More than 65535 blocks on the side bound to BIDy: split_grid_y, BIDy = 65535.
TEST(PointwiseHeuristics, SplitGridYBeyond65535Blocks) {
  Fusion f;
  FusionGuard fg(&f);
  biasAdd(f);
  // 131072 rows, unrolled by 2: 65536 row blocks.
  PointwiseParams p = pointwiseParams(f, {contiguous({131072, 1024}), contiguous({1024})});
  EXPECT_EQ(p.break_point, 1);
  EXPECT_EQ(p.unroll_factor_outer, 2);
  EXPECT_TRUE(p.split_grid_y);
  EXPECT_EQ(p.lparams.getDim(ParallelType::BIDy), 65535);

  p = pointwiseParams(f, {contiguous({131070, 1024}), contiguous({1024})});
  EXPECT_FALSE(p.split_grid_y);
  EXPECT_EQ(p.lparams.getDim(ParallelType::BIDy), 65535);
}

// ---------------------------------------------------------------- unroll (1-D)

// Unroll doubles (up to 4) while the grid keeps a full wave of 2112 resident blocks and a
// thread keeps at most 32 bytes of each tensor in flight.
TEST(PointwiseHeuristics, UnrollFromWorkPerSm) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* tv0 = makeContigTensor(1);
  f.addInput(tv0);
  f.addOutput(neg(tv0));
  struct Case {
    int64_t n, vect, unroll, blocks;
  };
  for (Case c : {Case{1 << 24, 4, 2, 16384},        // 32768 blocks; 16 B x 2
                 Case{(1 << 24) + 1, 1, 4, 32769},  // 131073 blocks; 4 B x 4
                 Case{1 << 20, 4, 1, 2048},         // 2048 blocks < 2 waves
                 Case{1081346, 2, 2, 2113}}) {      // 4225 blocks: 2113 >= 2112
    PointwiseParams p = pointwiseParams(f, {contiguous({c.n})});
    EXPECT_EQ(p.vectorization_factor, c.vect) << c.n;
    EXPECT_EQ(p.unroll_factor_inner, c.unroll) << c.n;
    EXPECT_EQ(p.lparams.getDim(ParallelType::BIDx), c.blocks) << c.n;
    EXPECT_EQ(p.lparams.getDim(ParallelType::TIDx), 128);
  }
}

// ---------------------------------------------------------------- index type

TEST(PointwiseHeuristics, IndexTypeFromSizesAndStrides) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* tv0 = makeSymbolicTensor(2);
  f.addInput(tv0);
  f.addOutput(neg(tv0));
  EXPECT_EQ(pointwiseParams(f, {contiguous({1 << 15, 1 << 15})}).index_type, DataType::Int32);
  EXPECT_EQ(pointwiseParams(f, {contiguous({1 << 16, 1 << 15})}).index_type, DataType::Int64);
  // Few elements, but the last one lies 2^31 elements past the first.
  EXPECT_EQ(pointwiseParams(f, {strided({2, 4}, {int64_t{1} << 31, 1})}).index_type,
            DataType::Int64);
  // A storage offset does not count (the kernel indexes from the view's first element):
  // the executor's rule, fitsInt32Index in tensor/tensor.h.
  EXPECT_EQ(pointwiseParams(f, {strided({2, 4}, {4, 1}, DataType::Float, (int64_t{1} << 31) - 8)})
                .index_type,
            DataType::Int32);
}

// ---------------------------------------------------------------- the layout op

// The layout op's output is the reference; its offsets are ignored and it is written by
// its runtime function (never vectorized), while its data input is.
TEST(PointwiseHeuristics, LayoutOpOutputIsReferenceNotVectorized) {
  Fusion f;
  FusionGuard fg(&f);
  auto [in, in_off, out_off] = layoutInputs(f, DataType::Float8_e4m3fn);
  TensorView* out = preprocessGroupedMatmulInputSf(in, in_off, out_off);
  f.addOutput(out);
  PointwiseDomainMap map(&f);
  EXPECT_EQ(map.inputsAndOutputs(), (std::vector<TensorView*>{in, out}));
  EXPECT_EQ(findReferenceTensor(&f, map), out);
  EXPECT_EQ(vectorizableInputsOutputs(map, out), (std::vector<TensorView*>{in}));
  PointwiseParams p =
      pointwiseParams(f, {contiguous({4096, 64}, DataType::Float8_e4m3fn),
                          contiguous({4}, DataType::Int32), contiguous({4}, DataType::Int32)});
  EXPECT_EQ(p.vectorization_factor, 16);
  EXPECT_EQ(p.break_point, 0);
}

// ---------------------------------------------------------------- PointwiseParams

TEST(PointwiseParamsTest, ToStringHashSameAs) {
  PointwiseParams a;
  a.vectorization_factor = 4;
  a.unroll_factor_outer = 2;
  a.break_point = 1;
  a.index_type = DataType::Int32;
  a.lparams.bind(128, ParallelType::TIDx);
  a.lparams.bind(8, ParallelType::BIDx);
  EXPECT_EQ(a.toString(),
            "PointwiseParams(vectorization_factor = 4, unroll_factor_inner = 1, "
            "unroll_factor_outer = 2, break_point = 1, split_block = false, split_grid_y = "
            "false, flip_grid_binding = false, block_size = 128, index_type = int32, "
            "LaunchParams(grid = [8, -, -], block = [128, -, -]))");

  // Another grid only: the same kernel, reused with new launch sizes.
  std::unique_ptr<HeuristicParams> b = a.clone();
  b->lparams.bind(4096, ParallelType::BIDx);
  b->lparams.bind(7, ParallelType::BIDy);
  EXPECT_TRUE(a.sameAs(b.get()));
  EXPECT_EQ(a.hash(), b->hash());

  auto differs = [&](auto change) {
    PointwiseParams c = a;
    change(c);
    return !a.sameAs(&c) && a.hash() != c.hash();
  };
  EXPECT_TRUE(differs([](PointwiseParams& c) { c.vectorization_factor = 2; }));
  EXPECT_TRUE(differs([](PointwiseParams& c) { c.unroll_factor_inner = 2; }));
  EXPECT_TRUE(differs([](PointwiseParams& c) { c.unroll_factor_outer = 1; }));
  EXPECT_TRUE(differs([](PointwiseParams& c) { c.break_point = 0; }));
  EXPECT_TRUE(differs([](PointwiseParams& c) { c.split_block = true; }));
  EXPECT_TRUE(differs([](PointwiseParams& c) { c.split_grid_y = true; }));
  EXPECT_TRUE(differs([](PointwiseParams& c) { c.flip_grid_binding = true; }));
  EXPECT_TRUE(differs([](PointwiseParams& c) { c.index_type = DataType::Int64; }));
  EXPECT_TRUE(differs([](PointwiseParams& c) { c.lparams.bind(64, ParallelType::TIDx); }));

  HeuristicParams no_op(SchedulerType::NoOp);
  no_op.index_type = DataType::Int32;
  EXPECT_FALSE(a.sameAs(&no_op));
  EXPECT_FALSE(no_op.sameAs(&a));
  EXPECT_FALSE(a.sameAs(nullptr));
}

}  // namespace
}  // namespace mf::schedtest
