// The transpose scheduler on the CPU: which fusions the registry gives it (and why it refuses
// the others), its heuristics for the benchmark shapes, and its kernels: lowered, compiled
// with NVRTC for sm_90 and run on the host kernel interpreter (which fails on a shared
// element read without a barrier after another thread wrote it), equal to the reference.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cuda/nvrtc.h"
#include "cuda/runtime_sources.h"
#include "minifuser.h"
#include "random/kernel_interpreter.h"
#include "unit/scheduler/scheduler_test_utils.h"
#include "unit/scheduler/transpose_fusions.h"

namespace mf {
namespace {

using schedtest::contiguous;
using schedtest::propose;
using ::testing::HasSubstr;
using testing::TransposeCase;

std::unique_ptr<Fusion> make(void (*build)(Fusion&, DataType), DataType t = DataType::Float) {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  build(*fusion, t);
  return fusion;
}

// The transpose parameters the registry chose; fails the test when it chose another.
TransposeParams transposeParams(Fusion& fusion, std::vector<TensorMetadata> inputs) {
  HeuristicsProposal p = propose(fusion, std::move(inputs));
  EXPECT_EQ(p.type, SchedulerType::Transpose) << p.rejectionsString();
  if (p.type != SchedulerType::Transpose) return {};
  return *static_cast<const TransposeParams*>(p.params.get());
}

// The reason the transpose scheduler gave, from the registry's rejections.
std::string transposeRejection(Fusion& fusion, std::vector<TensorMetadata> inputs) {
  HeuristicsProposal p = propose(fusion, std::move(inputs));
  for (const auto& [type, reason] : p.rejections)
    if (type == SchedulerType::Transpose) return reason;
  ADD_FAILURE() << "Transpose did not refuse; the registry chose " << toString(p.type);
  return {};
}

// fp32 x.t().contiguous() * 2 on [32Ki, 4Ki] (the first benchmark): 64x64 tiles of 256
// threads, 16-byte vectors on both sides, one tile per block.
TEST(TransposeScheduler, HeuristicsFp32Transpose) {
  auto f = make(testing::transpose2d);
  TransposeParams p = transposeParams(*f, {contiguous({32768, 4096})});
  EXPECT_EQ(p.tile_size1, 64);
  EXPECT_EQ(p.tile_size2, 64);
  EXPECT_EQ(p.vectorize_factor1, 4);
  EXPECT_EQ(p.vectorize_factor2, 4);
  EXPECT_EQ(p.elements_per_thread, 16);
  EXPECT_EQ(p.lparams.getDim(ParallelType::TIDx), 256);
  EXPECT_EQ(p.lparams.getDim(ParallelType::BIDx), 512 * 64);
  EXPECT_EQ(p.index_type, DataType::Int32);
  EXPECT_EQ(p.toString(),
            "TransposeParams(tile_size1 = 64, tile_size2 = 64, vectorize_factor1 = 4, "
            "vectorize_factor2 = 4, elements_per_thread = 16, split_grid_x = false, shared tile "
            "rows padded by one 4-byte bank, index_type = int32, LaunchParams(grid = [32768, "
            "-, -], block = [256, -, -]))");
}

// A transposed extent under 64 (or 64x64 tiles over the static shared memory) takes 32x32
// tiles of 128 threads; under 32 the pointwise scheduler takes the fusion.
TEST(TransposeScheduler, SmallExtentsTakeSmallTiles) {
  auto f = make(testing::transpose2d);
  TransposeParams p = transposeParams(*f, {contiguous({1000, 63})});
  EXPECT_EQ(p.tile_size1, 32);
  EXPECT_EQ(p.tile_size2, 32);
  EXPECT_EQ(p.elements_per_thread, 8);
  EXPECT_EQ(p.lparams.getDim(ParallelType::TIDx), 128);
  EXPECT_EQ(p.lparams.getDim(ParallelType::BIDx), 32 * 2);
}

// bf16 (q.permute(0, 2, 1, 3) * 0.5) on [8, 4096, 32, 128] (the second benchmark): the head
// dimension stays innermost, so nothing is transposed and the pointwise scheduler moves
// whole 16-byte vectors of it on both sides (coalesced 256-byte rows).
TEST(TransposeScheduler, Permute0213GoesToPointwise) {
  auto f = make(testing::permute0213, DataType::BFloat16);
  const std::vector<TensorMetadata> in = {contiguous({8, 4096, 32, 128}, DataType::BFloat16)};
  EXPECT_THAT(transposeRejection(*f, in),
              HasSubstr("nothing is transposed: every full-rank input and output has"));
  PointwiseParams p = schedtest::pointwiseParams(*f, in);
  EXPECT_EQ(p.vectorization_factor, 8);
}

// The 4-D permute(0, 3, 2, 1) of bf16 [8, 4096, 32, 128]: 64x64 tiles of 256 threads, the
// three other axes' tiles merged into the grid.
TEST(TransposeScheduler, HeuristicsBf16Permute4d) {
  auto f = make(testing::permute4d, DataType::BFloat16);
  TransposeParams p = transposeParams(*f, {contiguous({8, 4096, 32, 128}, DataType::BFloat16)});
  EXPECT_EQ(p.tile_size1, 64);
  EXPECT_EQ(p.tile_size2, 64);
  EXPECT_EQ(p.vectorize_factor1, 8);
  EXPECT_EQ(p.vectorize_factor2, 8);
  EXPECT_EQ(p.elements_per_thread, 16);
  EXPECT_EQ(p.lparams.getDim(ParallelType::TIDx), 256);
  EXPECT_EQ(p.lparams.getDim(ParallelType::BIDx), 8 * 64 * 32 * 2);
}

// Vectors as wide as every tensor of the group allows: an odd inner extent of the input
// leaves its side element by element, the output side keeps 4.
TEST(TransposeScheduler, VectorsPerSide) {
  auto f = make(testing::transpose2d);
  TransposeParams p = transposeParams(*f, {contiguous({1024, 1001})});
  EXPECT_EQ(p.vectorize_factor1, 4);
  EXPECT_EQ(p.vectorize_factor2, 1);
}

TEST(TransposeScheduler, RegistryPicksTransposeForPermutesAndPermutedOutputs) {
  for (auto build : {testing::transpose2d, testing::permutedAllocation, testing::bothLayouts}) {
    auto f = make(build);
    EXPECT_EQ(propose(*f, {contiguous({256, 512})}).type, SchedulerType::Transpose)
        << f->mathString();
  }
  auto f3 = make(testing::permute3d);
  EXPECT_EQ(propose(*f3, {contiguous({4, 256, 512})}).type, SchedulerType::Transpose);
}

// Small transposed extents go to the pointwise scheduler, with the reason.
TEST(TransposeScheduler, RefusesExtentsSmallerThanTheTile) {
  auto f = make(testing::transpose2d);
  EXPECT_THAT(transposeRejection(*f, {contiguous({31, 4096})}),
              HasSubstr("the transposed axes iS5{i0} and iS4{i1} have extents 31 and 4096, "
                        "smaller than the 32x32 tile; the pointwise scheduler takes them"));
  EXPECT_EQ(propose(*f, {contiguous({31, 4096})}).type, SchedulerType::PointWise);
}

TEST(TransposeScheduler, RefusesFusionsWithoutATranspose) {
  auto f = make([](Fusion& f, DataType) {
    TensorView* x = makeContigTensor(2);
    f.addInput(x);
    f.addOutput(mul(x, constFloat(2.0)));
  });
  EXPECT_THAT(transposeRejection(*f, {contiguous({256, 256})}),
              HasSubstr("nothing is transposed: every full-rank input and output has iS3{i1}, "
                        "the reference's innermost allocation axis, innermost"));
  // A column broadcast [M] -> [M, N] is no transpose: only full-rank tensors are grouped.
  auto col = make([](Fusion& f, DataType) {
    TensorView* x = makeContigTensor(2);
    TensorView* c = makeContigTensor(1);
    f.addInput(x);
    f.addInput(c);
    f.addOutput(mul(x, broadcast(c, {false, true})));
  });
  EXPECT_THAT(transposeRejection(*col, {contiguous({256, 256}), contiguous({256})}),
              HasSubstr("nothing is transposed"));
}

TEST(TransposeScheduler, RefusesReductionsAndThreeInnerAxes) {
  auto red = make([](Fusion& f, DataType) {
    TensorView* x = makeContigTensor(2);
    f.addInput(x);
    f.addOutput(sum(transpose(x, 0, 1), {1}));
  });
  EXPECT_THAT(transposeRejection(*red, {contiguous({256, 256})}),
              HasSubstr("is computed by ReductionOp; the transpose scheduler takes pointwise ops, "
                        "broadcasts and permutes only"));
  auto three = make([](Fusion& f, DataType) {
    TensorView* x = makeContigTensor(3);
    f.addInput(x);
    f.addOutput(permute(x, {1, 2, 0}));
    f.addOutput(permute(x, {2, 0, 1}));
  });
  EXPECT_THAT(transposeRejection(*three, {contiguous({64, 64, 64})}),
              HasSubstr("the transpose scheduler tiles two innermost axes"));
}

// Forcing the schedule on a fusion the scheduler refuses is a UserError with the reason.
TEST(TransposeScheduler, ForcedOnAnUnsuitableFusionIsAUserError) {
  auto f = make(testing::permute0213);
  SchedulerRuntimeInfo info(f.get(), {contiguous({2, 64, 4, 32})});
  TransposeScheduler s;
  EXPECT_THAT([&] { s.computeHeuristics(f.get(), info); },
              ::testing::ThrowsMessage<UserError>(HasSubstr(
                  "the transpose scheduler cannot schedule this fusion: nothing is transposed")));
}

TEST(TransposeScheduler, SameAsAndHash) {
  auto f = make(testing::transpose2d);
  TransposeParams a = transposeParams(*f, {contiguous({1024, 1024})});
  TransposeParams b = transposeParams(*f, {contiguous({2048, 4096})});
  EXPECT_TRUE(a.sameAs(&b));  // only the grid differs
  EXPECT_EQ(a.hash(), b.hash());
  TransposeParams c = transposeParams(*f, {contiguous({1024, 1001})});
  EXPECT_FALSE(a.sameAs(&c));
  EXPECT_NE(a.hash(), c.hash());
  EXPECT_TRUE(a.clone()->sameAs(&a));
}

// `tensors` equal `want` element for element (the kernel computes what the reference does,
// in the same order and precision).
void expectSame(const std::vector<Tensor>& got, const std::vector<Tensor>& want,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t o = 0; o < want.size(); ++o) {
    ASSERT_EQ(got[o].sizes(), want[o].sizes()) << what;
    for (int64_t i = 0; i < want[o].numel(); ++i)
      ASSERT_EQ(got[o].item(i), want[o].item(i)) << what << ", output " << o << " element " << i;
  }
}

std::string caseName(const TransposeCase& c, DataType t,
                     const std::vector<std::vector<int64_t>>& sizes) {
  std::string s = fmt::format("{} {}", c.name, t);
  for (const std::vector<int64_t>& in : sizes) s += fmt::format(" [{}]", fmt::join(in, ", "));
  return s;
}

class TransposeKernels : public ::testing::TestWithParam<TransposeCase> {};

// The transpose schedule applied whatever the sizes (sizes of 1, primes, extents that are not
// multiples of the tile, smaller than it): the kernel compiles with NVRTC, stages through
// padded shared memory with barriers, and computes the reference's values on the interpreter.
TEST_P(TransposeKernels, ForcedScheduleMatchesReference) {
  const TransposeCase& c = GetParam();
  for (DataType t : c.dtypes)
    for (size_t run = 0; run < c.sizes.size(); ++run) {
      auto fusion = make(c.build, t);
      std::vector<Tensor> in;
      for (size_t i = 0; i < c.sizes[run].size(); ++i)
        in.push_back(Tensor::random(c.sizes[run][i], t, 11 + run * 7 + i));
      const std::string what = caseName(c, t, c.sizes[run]);
      const std::vector<Tensor> want = ReferenceEvaluator(fusion.get()).run(in);
      SchedulerRuntimeInfo info(fusion.get(), in);
      TransposeScheduler s;
      ASSERT_TRUE(s.canScheduleCompileTime(fusion.get())) << s.rejectReason();
      std::unique_ptr<HeuristicParams> p = s.computeHeuristics(fusion.get(), info);
      s.schedule(fusion.get(), p.get());
      std::unique_ptr<Kernel> kernel =
          lowerFusion(*fusion, {.index_type = p->index_type, .verify = true});
      GeneratedKernel code = generateCuda(*kernel, cuda::runtimePrelude());
      cuda::CompiledKernel compiled =
          cuda::compileWithNvrtc(code.full_source, code.name, cuda::NvrtcOptions{});
      ASSERT_FALSE(compiled.cubin.empty()) << compiled.log << "\n" << code.kernel_code;
      EXPECT_THAT(code.kernel_code, HasSubstr("__syncthreads();")) << what;
      EXPECT_THAT(code.kernel_code, HasSubstr("__shared__")) << what;
      expectSame(testing::interpretKernelOrThrow(*kernel, in), want,
                 what + "\n" + code.kernel_code);
    }
}

// Through FusionExecutorCache at sizes the registry gives the transpose scheduler: one
// kernel, whose run on the host interpreter equals the reference.
TEST_P(TransposeKernels, FusionExecutorCacheMatchesReference) {
  const TransposeCase& c = GetParam();
  for (DataType t : c.dtypes) {
    auto fusion = make(c.build, t);
    std::vector<Tensor> in;
    for (const std::vector<int64_t>& sizes : c.registry_sizes)
      in.push_back(Tensor::random(sizes, t, 5 + in.size()));
    const std::vector<Tensor> want = ReferenceEvaluator(fusion.get()).run(in);
    FusionExecutorCache fec(std::move(fusion));
    fec.runFusionWithInputs(in);
    FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
    ASSERT_NE(rt, nullptr);
    ASSERT_FALSE(rt->isSegmented());
    EXPECT_EQ(rt->heuristics().at(0)->schedulerType(), SchedulerType::Transpose)
        << c.name << " " << toString(t);
    expectSame(rt->runOnHost(in, testing::interpretKernelOrThrow), want,
               fmt::format("{} {}\n{}", c.name, t, fec.getMostRecentCode()));
  }
}

INSTANTIATE_TEST_SUITE_P(Fusions, TransposeKernels, ::testing::ValuesIn(testing::transposeCases()),
                         [](const ::testing::TestParamInfo<TransposeCase>& info) {
                           return info.param.name;
                         });

// The generated kernel of the 2-D transpose: a padded 32 x 33 tile, written from 16-byte
// vector loads and read after a barrier.
TEST(TransposeScheduler, KernelStagesAPaddedTile) {
  auto fusion = make(testing::transpose2d);
  std::vector<Tensor> in = {Tensor::random({256, 512}, DataType::Float, 3)};
  FusionExecutorCache fec(std::move(fusion));
  fec.runFusionWithInputs(in);
  const std::string code = fec.getMostRecentCode();
  EXPECT_THAT(code, HasSubstr("__shared__ alignas(16) float"));
  EXPECT_THAT(code, HasSubstr("[4160];"));  // 64 rows of 64 + 1
  EXPECT_THAT(code, HasSubstr("__syncthreads();"));
  EXPECT_THAT(code, HasSubstr("mf_vectorCopy<float, 4>"));
}

}  // namespace
}  // namespace mf
