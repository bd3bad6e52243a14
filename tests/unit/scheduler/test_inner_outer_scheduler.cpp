// The inner-outer persistent scheduler on the CPU: which fusions it takes (layer norm and RMS
// norm backward) and why it refuses the others, the heuristics for the benchmark's shape, the
// segmenter's fallback when a row does not fit, and the kernels through FusionExecutorCache
// (scheduled, lowered, compiled with NVRTC for sm_90) run on the host kernel interpreter
// against the reference evaluator.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "minifuser.h"
#include "random/kernel_interpreter.h"
#include "unit/scheduler/normalization_fusions.h"
#include "unit/scheduler/scheduler_test_utils.h"

namespace mf {
namespace {

using schedtest::contiguous;
using schedtest::propose;
using ::testing::HasSubstr;
using ::testing::Not;

using BuildFn = void (*)(Fusion&, DataType);

std::unique_ptr<Fusion> make(BuildFn build, DataType t) {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  build(*fusion, t);
  return fusion;
}

bool isLayerNorm(BuildFn build) {
  return build == testing::buildLayerNormBackward;
}

// Input metadata of the backward fusions: dy, x [m, n] of `t`, (mean,) rstd [m] float, w [n].
std::vector<TensorMetadata> backwardMetadata(BuildFn build, int64_t m, int64_t n, DataType t) {
  std::vector<TensorMetadata> in = {contiguous({m, n}, t), contiguous({m, n}, t)};
  if (isLayerNorm(build)) in.push_back(contiguous({m}));
  in.push_back(contiguous({m}));
  in.push_back(contiguous({n}, t));
  return in;
}

// Fresh random inputs of the same shapes (never zeros).
std::vector<Tensor> backwardInputs(BuildFn build, int64_t m, int64_t n, DataType t, uint64_t seed) {
  std::vector<Tensor> in = {Tensor::random({m, n}, t, seed), Tensor::random({m, n}, t, seed + 1)};
  if (isLayerNorm(build)) in.push_back(Tensor::random({m}, DataType::Float, seed + 2));
  in.push_back(Tensor::random({m}, DataType::Float, seed + 3));
  in.push_back(Tensor::random({n}, t, seed + 4));
  return in;
}

InnerOuterPersistentParams innerOuterParams(Fusion& fusion, std::vector<TensorMetadata> inputs) {
  HeuristicsProposal p = propose(fusion, std::move(inputs));
  EXPECT_EQ(p.type, SchedulerType::InnerOuterPersistent) << p.rejectionsString();
  if (p.type != SchedulerType::InnerOuterPersistent) return {};
  return *static_cast<const InnerOuterPersistentParams*>(p.params.get());
}

// Why the inner-outer scheduler refuses `fusion` before seeing sizes (a scheduler earlier in
// the registry's order may take it).
std::string compileTimeRejection(Fusion& fusion) {
  InnerOuterPersistentScheduler s;
  EXPECT_FALSE(s.canScheduleCompileTime(&fusion)) << fusion.mathString();
  return s.rejectReason();
}

// The inner-outer scheduler's reason, from the registry's rejections.
std::string innerOuterRejection(Fusion& fusion, std::vector<TensorMetadata> inputs) {
  HeuristicsProposal p = propose(fusion, std::move(inputs));
  for (const auto& [type, reason] : p.rejections)
    if (type == SchedulerType::InnerOuterPersistent) return reason;
  ADD_FAILURE() << "InnerOuterPersistent did not refuse; the registry chose " << toString(p.type);
  return {};
}

// The registry gives both backward fusions to InnerOuterPersistent, and the forward
// normalizations still to InnerPersistent.
TEST(InnerOuterScheduler, RegistryPicksIt) {
  for (BuildFn build : {testing::buildLayerNormBackward, testing::buildRmsNormBackward})
    for (DataType t : {DataType::Float, DataType::BFloat16}) {
      auto f = make(build, t);
      innerOuterParams(*f, backwardMetadata(build, 32768, 4096, t));
    }
  auto ln = make([](Fusion& f, DataType t) { testing::buildLayerNorm(f, t); }, DataType::BFloat16);
  EXPECT_EQ(
      propose(*ln, {contiguous({32768, 4096}, DataType::BFloat16),
                    contiguous({4096}, DataType::BFloat16), contiguous({4096}, DataType::BFloat16)})
          .type,
      SchedulerType::InnerPersistent);
  auto softmax = make([](Fusion& f, DataType t) { testing::buildSoftmax(f, t); }, DataType::Float);
  EXPECT_EQ(propose(*softmax, {contiguous({32768, 4096})}).type, SchedulerType::InnerPersistent);
  // Residual add + RMS norm (the benchmark's second case) is one inner persistent kernel.
  FusionExecutorCache fec(
      make([](Fusion& f, DataType t) { testing::buildResidualRmsNorm(f, t); }, DataType::BFloat16));
  fec.runFusionWithInputs({Tensor::random({3, 4096}, DataType::BFloat16, 1),
                           Tensor::random({3, 4096}, DataType::BFloat16, 2),
                           Tensor::random({4096}, DataType::BFloat16, 3)});
  FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
  EXPECT_FALSE(rt->isSegmented());
  EXPECT_EQ(rt->heuristics().at(0)->schedulerType(), SchedulerType::InnerPersistent);
  // Every global access is a 16-byte vector: the loads of x, r and w and the stores of the
  // normalized output and of h, which the norm also reads (its copy from the register
  // buffer was stored element by element: 0.47x a device copy on the H100).
  const std::string code = fec.getMostRecentCode();
  size_t vectors = 0;
  for (size_t at = code.find("mf_vectorCopy<mf_bfloat16, 8>"); at != std::string::npos;
       at = code.find("mf_vectorCopy<mf_bfloat16, 8>", at + 1))
    ++vectors;
  EXPECT_EQ(vectors, 5u) << code;
}

// The benchmark's shape: vectors of 16 bytes, about two per thread over a power of two of
// threads, one row per block at a time, one block per SM walking 248 rows.
TEST(InnerOuterScheduler, HeuristicsFor32KiBy4Ki) {
  auto bf16 = make(testing::buildLayerNormBackward, DataType::BFloat16);
  InnerOuterPersistentParams p = innerOuterParams(
      *bf16, backwardMetadata(testing::buildLayerNormBackward, 32768, 4096, DataType::BFloat16));
  EXPECT_EQ(p.toString(),
            "InnerOuterPersistentParams(row_extent = 4096, vectorization_factor = 8, "
            "persistent_batch = 2, threads_per_row = 256, rows_per_block = 1, grid_blocks = "
            "264, project_to_inputs = false, sums_in_shared = false, index_type = int32, "
            "LaunchParams(grid = [-, 264, -], block = [256, 1, -]))");
  auto fp32 = make(testing::buildRmsNormBackward, DataType::Float);
  p = innerOuterParams(
      *fp32, backwardMetadata(testing::buildRmsNormBackward, 32768, 4096, DataType::Float));
  EXPECT_EQ(p.vectorization_factor, 4);
  EXPECT_EQ(p.threads_per_row, 512);
  EXPECT_EQ(p.persistent_batch, 2);
  EXPECT_EQ(p.grid_blocks, 132);
  // Short rows share a block (TIDy) and blocks are smaller, so four per SM.
  p = innerOuterParams(*fp32,
                       backwardMetadata(testing::buildRmsNormBackward, 1100, 7, DataType::Float));
  EXPECT_EQ(p.vectorization_factor, 1);
  EXPECT_EQ(p.threads_per_row, 32);
  EXPECT_EQ(p.rows_per_block, 4);
  EXPECT_EQ(p.grid_blocks, 275);
}

TEST(InnerOuterScheduler, ParamsHashAndCompare) {
  InnerOuterPersistentParams a;
  a.row_extent = 4096;
  a.grid_blocks = 132;
  InnerOuterPersistentParams b = a;
  EXPECT_TRUE(a.sameAs(&b));
  EXPECT_EQ(a.hash(), b.hash());
  b.grid_blocks = 264;  // a constant of the kernel's split
  EXPECT_FALSE(a.sameAs(&b));
  EXPECT_TRUE(a.sameAs(a.clone().get()));
  // Each switch of the register diet makes another kernel.
  for (void (*edit)(InnerOuterPersistentParams&) :
       {+[](InnerOuterPersistentParams& p) { p.project_to_inputs = true; },
        +[](InnerOuterPersistentParams& p) { p.sums_in_shared = true; },
        +[](InnerOuterPersistentParams& p) { p.min_blocks_per_sm = 3; }}) {
    InnerOuterPersistentParams c = a;
    edit(c);
    EXPECT_FALSE(a.sameAs(&c));
    EXPECT_NE(a.hash(), c.hash());
    EXPECT_TRUE(c.sameAs(c.clone().get()));
  }
}

// Layer norm backward keeps dy, xhat and w * dy (float) in registers across its inner
// reductions, w as float, and a running sum per outer reduction: 24 bytes per element.
TEST(InnerOuterScheduler, RegisterBytesPerElement) {
  auto ln = make(testing::buildLayerNormBackward, DataType::BFloat16);
  auto analysis = analyzeInnerOuterNormalization(ln.get());
  ASSERT_TRUE(std::holds_alternative<InnerOuterNormalization>(analysis))
      << std::get<std::string>(analysis);
  const auto& norm = std::get<InnerOuterNormalization>(analysis);
  EXPECT_EQ(norm.inner_reductions.size(), 2u);
  EXPECT_EQ(norm.outer_reductions.size(), 2u);
  EXPECT_EQ(norm.bytes_per_element, 24);
}

TEST(InnerOuterScheduler, RefusalsSayWhy) {
  auto softmax = make([](Fusion& f, DataType t) { testing::buildSoftmax(f, t); }, DataType::Float);
  EXPECT_EQ(compileTimeRejection(*softmax),
            "not an inner-outer pattern: no reduction over the rows (axis 0) of a 2-D tensor (an "
            "inner normalization alone is the inner persistent scheduler's)");
  {
    Fusion f;  // a column sum alone
    FusionGuard fg(&f);
    TensorView* x = makeContigTensor(2);
    f.addInput(x);
    f.addOutput(sum(x, {0}));
    EXPECT_EQ(compileTimeRejection(f),
              "not an inner-outer pattern: no reduction over the row (axis 1) of a 2-D tensor");
  }
  {
    Fusion f;  // the column sums read again in the fusion
    FusionGuard fg(&f);
    TensorView* x = makeContigTensor(2);
    f.addInput(x);
    f.addOutput(div(x, testing::backOverRow(sum(x, {1}), 2)));
    f.addOutput(neg(sum(x, {0})));
    EXPECT_THAT(innerOuterRejection(f, {contiguous({8, 64})}),
                HasSubstr("is not an output; the last block of the grid reduction finishes the "
                          "column sums, so an outer reduction's result must be a fusion output "
                          "nothing reads"));
  }
  {
    Fusion f;  // a reduction of both axes
    FusionGuard fg(&f);
    TensorView* x = makeContigTensor(2);
    f.addInput(x);
    f.addOutput(div(x, testing::backOverRow(sum(x, {1}), 2)));
    f.addOutput(sum(x, {0}));
    f.addOutput(sum(x, {0, 1}));
    EXPECT_THAT(innerOuterRejection(f, {contiguous({8, 64})}),
                HasSubstr("reduces neither axis 1 (the row) nor axis 0 (the rows) of a 2-D "
                          "tensor alone"));
  }
  {
    Fusion f;  // an input of another shape
    FusionGuard fg(&f);
    TensorView* x = makeContigTensor(2);
    TensorView* y = makeContigTensor(3);
    f.addInput(x);
    f.addInput(y);
    f.addOutput(div(x, testing::backOverRow(sum(x, {1}), 2)));
    f.addOutput(sum(x, {0}));
    f.addOutput(neg(y));
    EXPECT_THAT(innerOuterRejection(f, {contiguous({8, 64}), contiguous({2, 8, 64})}),
                HasSubstr("has neither the shape of"));
  }
  auto ln = make(testing::buildLayerNormBackward, DataType::Float);
  EXPECT_THAT(innerOuterRejection(
                  *ln, backwardMetadata(testing::buildLayerNormBackward, 0, 64, DataType::Float)),
              HasSubstr("is empty (0 rows of 64)"));
  EXPECT_EQ(innerOuterRejection(
                *ln, backwardMetadata(testing::buildLayerNormBackward, 64, 16384, DataType::Float)),
            "a row of 16384 elements needs 393216 bytes of registers (24 per element: "
            "persistent buffers, weights and outer sums), more than the 131072 bytes a row may "
            "take");
}

void expectNear(const std::vector<Tensor>& got, const std::vector<Tensor>& ref, DataType t,
                int64_t m, const std::string& what) {
  ASSERT_EQ(got.size(), ref.size());
  for (size_t o = 0; o < ref.size(); ++o) {
    // dx in `t` (bf16: a few ulps of 2^-8); the column sums add m float products.
    const double tol = o == 0 && t == DataType::BFloat16 ? 2.0 / 128 : 1e-5 * (1 + m);
    for (int64_t i = 0; i < ref[o].numel(); ++i)
      ASSERT_NEAR(got[o].item(i), ref[o].item(i), tol * (1 + std::abs(ref[o].item(i))))
          << what << ", output " << o << ", element " << i;
  }
}

struct BackwardCase {
  std::string name;
  BuildFn build;
  DataType dtype;
};

class InnerOuterInterpreted : public ::testing::TestWithParam<BackwardCase> {};

// One kernel, compiled with NVRTC; on the host interpreter its values equal the reference's
// for one row and one column, primes, a row that is no multiple of the vector, rows of a
// block's vectors, and more rows than the grid's blocks take at once (serial rows, the last
// chunk partial).
TEST_P(InnerOuterInterpreted, MatchesReference) {
  const BackwardCase& c = GetParam();
  FusionExecutorCache fec(make(c.build, c.dtype));
  uint64_t seed = 21;
  for (auto [m, n] : std::vector<std::pair<int64_t, int64_t>>{
           {1, 1}, {7, 31}, {67, 129}, {5, 1000}, {3, 4100}, {1100, 7}}) {
    const std::vector<Tensor> in = backwardInputs(c.build, m, n, c.dtype, seed += 10);
    fec.runFusionWithInputs(in);
    FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
    ASSERT_FALSE(rt->isSegmented()) << rt->fusionSegments()->toString();
    ASSERT_EQ(rt->heuristics().at(0)->schedulerType(), SchedulerType::InnerOuterPersistent);
    ASSERT_FALSE(rt->executor()->ptx().empty());
    const std::vector<Tensor> got = rt->runOnHost(in, testing::interpretKernelOrThrow);
    expectNear(got, ReferenceEvaluator(fec.fusion()).run(in), c.dtype, m,
               fmt::format("{} x {}", m, n));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Backward, InnerOuterInterpreted,
    ::testing::Values(
        BackwardCase{"layer_norm_float", testing::buildLayerNormBackward, DataType::Float},
        BackwardCase{"layer_norm_bf16", testing::buildLayerNormBackward, DataType::BFloat16},
        BackwardCase{"rms_norm_float", testing::buildRmsNormBackward, DataType::Float},
        BackwardCase{"rms_norm_bf16", testing::buildRmsNormBackward, DataType::BFloat16}),
    [](const ::testing::TestParamInfo<BackwardCase>& info) { return info.param.name; });

// The benchmark's kernel: one kernel reading dy and x once each with vector loads, two inner
// block all-reduces per row, the column sums finished in place by two grid reductions (each
// with its own part of the work buffer), and no local memory in the PTX.
TEST(InnerOuterScheduler, LayerNormBackwardKernel) {
  FusionExecutorCache fec(make(testing::buildLayerNormBackward, DataType::BFloat16));
  fec.runFusionWithInputs(
      backwardInputs(testing::buildLayerNormBackward, 3, 4096, DataType::BFloat16, 5));
  const std::string code = fec.getMostRecentCode();
  EXPECT_THAT(code, HasSubstr("mf_vectorCopy<mf_bfloat16, 8>"));
  EXPECT_THAT(code, Not(HasSubstr("return;")));
  EXPECT_THAT(code, HasSubstr("const bool grid_last = mf_gridReduceInPlaceY<float, 16>"));
  EXPECT_THAT(code, HasSubstr("mf_grid_semaphores, 16, 1);"));
  // The row's two inner sums, sum(w * dy) and sum(w * dy * xhat), read none of each other's
  // results: one grouped block reduction (one barrier pair per row), no single ones.
  EXPECT_THAT(code, Not(HasSubstr("mf_blockAllReduceX")));
  // Both row inputs (dy is T0, x is T1) are read before the row's block reduction, so their
  // loads are in flight together (generateLoopNests puts loop groups that read global memory
  // first).
  const size_t first_reduce = code.find("mf_blockAllReduceTupleX(mf_reduceMember(");
  EXPECT_EQ(code.find("mf_blockAllReduceTupleX", first_reduce + 1), std::string::npos);
  ASSERT_NE(first_reduce, std::string::npos);
  EXPECT_LT(code.find("&T0["), first_reduce);
  EXPECT_LT(code.find("&T1["), first_reduce);
  FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
  EXPECT_EQ(rt->executor()->kernel().summary().grid_reductions, 2);
  EXPECT_THAT(rt->executor()->ptx(), Not(HasSubstr(".local")));
}

// The kernel of `build` scheduled with the heuristics' params, edited by `edit`, compiled with
// NVRTC (with the params' launch bounds).
std::unique_ptr<KernelExecutor> compileEdited(BuildFn build, DataType t, int64_t m, int64_t n,
                                              const std::vector<Tensor>& in,
                                              void (*edit)(InnerOuterPersistentParams&)) {
  std::unique_ptr<Fusion> fusion = make(build, t);
  InnerOuterPersistentParams params = innerOuterParams(*fusion, backwardMetadata(build, m, n, t));
  edit(params);
  InnerOuterPersistentScheduler().schedule(fusion.get(), &params);
  auto ke = std::make_unique<KernelExecutor>();
  ke->compile(fusion.get(), in,
              {.index_type = params.index_type, .min_blocks_per_sm = params.min_blocks_per_sm});
  return ke;
}

// The register diet for more blocks per SM (reduction_tune times it; off by default): the
// column sums in shared memory, one row per thread padded by a word; the launch bounds asking
// ptxas for 3 blocks of 256 threads; the block reductions' scratch cut to 8 KiB so the static
// shared memory stays under 48 KiB. On the host interpreter (which checks shared-memory races)
// the values equal the reference's.
TEST(InnerOuterScheduler, SumsInSharedMemory) {
  const BuildFn build = testing::buildLayerNormBackward;
  uint64_t seed = 40;
  for (auto [m, n] : std::vector<std::pair<int64_t, int64_t>>{{3, 4096}, {7, 129}, {1100, 7}}) {
    const std::vector<Tensor> in = backwardInputs(build, m, n, DataType::BFloat16, seed += 10);
    std::unique_ptr<KernelExecutor> ke =
        compileEdited(build, DataType::BFloat16, m, n, in, [](InnerOuterPersistentParams& p) {
          p.project_to_inputs = true;
          p.sums_in_shared = true;
          p.min_blocks_per_sm = 3;
        });
    std::unique_ptr<Fusion> fusion = make(build, DataType::BFloat16);
    expectNear(testing::interpretKernelOrThrow(ke->kernel(), in),
               ReferenceEvaluator(fusion.get()).run(in), DataType::BFloat16, m,
               fmt::format("{} x {}", m, n));
    const std::string& code = ke->kernelCode();
    EXPECT_THAT(code, HasSubstr(", 3) kernel_"));
    EXPECT_THAT(code, HasSubstr("__shared__ alignas(16) float"));
    if (n == 4096) {  // 2 x 256 threads x (16 + 1) floats: 34 KiB
      EXPECT_THAT(code, HasSubstr("__launch_bounds__(256, 3)"));
      EXPECT_THAT(ke->fullSource(), HasSubstr("#define MF_BLOCK_REDUCE_Y_BYTES 8192"));
      EXPECT_EQ(ke->kernel().summary().static_smem_bytes, 2 * 256 * 17 * 4);
    } else {
      EXPECT_THAT(ke->fullSource(), Not(HasSubstr("#define MF_BLOCK_REDUCE_Y_BYTES 8192")));
    }
  }
}

// With the projection the row's floats are recomputed after its reductions from the inputs'
// register copies, which are then the only row buffers; the values are the same.
TEST(InnerOuterScheduler, ProjectionToInputs) {
  const BuildFn build = testing::buildLayerNormBackward;
  const std::vector<Tensor> in = backwardInputs(build, 67, 129, DataType::Float, 77);
  std::unique_ptr<KernelExecutor> ke =
      compileEdited(build, DataType::Float, 67, 129, in,
                    [](InnerOuterPersistentParams& p) { p.project_to_inputs = true; });
  std::unique_ptr<Fusion> fusion = make(build, DataType::Float);
  expectNear(testing::interpretKernelOrThrow(ke->kernel(), in),
             ReferenceEvaluator(fusion.get()).run(in), DataType::Float, 67, "67 x 129");
}

// Column sums that do not fit the static shared memory are refused with the sizes.
TEST(InnerOuterScheduler, SumsInSharedMemoryThatDoNotFit) {
  const BuildFn build = testing::buildLayerNormBackward;
  const std::vector<Tensor> in = backwardInputs(build, 3, 5000, DataType::Float, 3);
  EXPECT_THAT(
      [&] {
        compileEdited(build, DataType::Float, 3, 5000, in,
                      [](InnerOuterPersistentParams& p) { p.sums_in_shared = true; });
      },
      ::testing::ThrowsMessage<UserError>(HasSubstr(
          "InnerOuterPersistentParams::sums_in_shared: 2 column sums of rows of 5000 elements (512 "
          "threads of 12 values) take 53248 bytes of shared memory; at most 40704 fit beside the "
          "block reductions' scratch")));
}

// A row whose registers do not fit: the segmenter falls back to other kernels, whose values
// still equal the reference's.
TEST(InnerOuterScheduler, LongRowsFallBackToSegments) {
  FusionExecutorCache fec(make(testing::buildLayerNormBackward, DataType::Float));
  const std::vector<Tensor> in =
      backwardInputs(testing::buildLayerNormBackward, 3, 16384, DataType::Float, 9);
  const std::vector<Tensor> out = fec.runFusionWithInputs(in);
  FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
  EXPECT_TRUE(rt->isSegmented());
  for (const HeuristicParams* h : rt->heuristics())
    EXPECT_NE(h->schedulerType(), SchedulerType::InnerOuterPersistent);
  const std::vector<Tensor> got = rt->runOnHost(in, testing::interpretKernelOrThrow);
  expectNear(got, ReferenceEvaluator(fec.fusion()).run(in), DataType::Float, 3, "3 x 16384");
}

}  // namespace
}  // namespace mf
