// The inner persistent scheduler on the CPU: which fusions it takes (and why it refuses the
// others), the heuristics it picks for the sizes the issue names, and every normalization
// through FusionExecutorCache (scheduled, lowered, compiled with NVRTC, computed by the
// reference) with the kernel reading its input once.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

#include "minifuser.h"
#include "random/kernel_interpreter.h"
#include "unit/scheduler/normalization_fusions.h"
#include "unit/scheduler/scheduler_test_utils.h"

namespace mf {
namespace {

using schedtest::contiguous;
using schedtest::propose;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

using BuildFn = void (*)(Fusion&, DataType);

void softmax2d(Fusion& f, DataType t) {
  testing::buildSoftmax(f, t);
}

void buildRmsNormDefault(Fusion& f, DataType t) {
  testing::buildRmsNorm(f, t);
}
void buildLayerNormDefault(Fusion& f, DataType t) {
  testing::buildLayerNorm(f, t);
}

std::unique_ptr<Fusion> make(BuildFn build, DataType t) {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  build(*fusion, t);
  return fusion;
}

// The persistent parameters the registry chose; fails the test when it chose another.
PersistentParams persistentParams(Fusion& fusion, std::vector<TensorMetadata> inputs) {
  HeuristicsProposal p = propose(fusion, std::move(inputs));
  EXPECT_EQ(p.type, SchedulerType::InnerPersistent) << p.rejectionsString();
  if (p.type != SchedulerType::InnerPersistent) return {};
  return *static_cast<const PersistentParams*>(p.params.get());
}

// Why the inner persistent scheduler refuses `fusion` before seeing sizes.
std::string compileTimeRejection(Fusion& fusion) {
  InnerPersistentScheduler s;
  EXPECT_FALSE(s.canScheduleCompileTime(&fusion)) << fusion.mathString();
  return s.rejectReason();
}

// The reason the inner persistent scheduler gave, from the registry's rejections.
std::string persistentRejection(Fusion& fusion, std::vector<TensorMetadata> inputs) {
  HeuristicsProposal p = propose(fusion, std::move(inputs));
  for (const auto& [type, reason] : p.rejections)
    if (type == SchedulerType::InnerPersistent) return reason;
  ADD_FAILURE() << "InnerPersistent did not refuse; the registry chose " << toString(p.type);
  return {};
}

std::vector<std::string> names(const std::vector<TensorView*>& tvs) {
  std::vector<std::string> out;
  for (TensorView* tv : tvs) out.push_back(tv->toInlineString());
  return out;
}

// The registers a row takes: softmax keeps x (T0, read by max and by sub) and exp (T4, read
// by sum and by div), one at a time (x is dead by the sum: 4 bytes per element); RMS norm
// keeps x as float (T2, read by x * x and by x * inv) and its weight as float (T8,
// broadcast over the rows).
TEST(PersistentScheduler, AnalysisFindsTheBuffers) {
  auto f = make(softmax2d, DataType::Float);
  auto softmax = analyzeInnerNormalization(f.get());
  ASSERT_TRUE(std::holds_alternative<InnerNormalization>(softmax));
  const InnerNormalization& s = std::get<InnerNormalization>(softmax);
  EXPECT_EQ(s.reference->toInlineString(), "T0");
  EXPECT_EQ(names(s.reductions), (std::vector<std::string>{"T1", "T5"}));
  EXPECT_EQ(s.row_rank, 1);
  EXPECT_EQ(names(s.persistent_buffers), (std::vector<std::string>{"T0", "T4"}));
  EXPECT_TRUE(s.row_buffers.empty());
  EXPECT_EQ(s.persistent_bytes, 4);
  EXPECT_EQ(names(s.live_buffers), std::vector<std::string>{"T0"});  // first of the two maxima
  EXPECT_EQ(s.persistentBytesPerElement(), 4);

  auto g = make(buildRmsNormDefault, DataType::BFloat16);
  auto rms = analyzeInnerNormalization(g.get());
  ASSERT_TRUE(std::holds_alternative<InnerNormalization>(rms));
  const InnerNormalization& r = std::get<InnerNormalization>(rms);
  EXPECT_EQ(names(r.persistent_buffers), std::vector<std::string>{"T2"});
  EXPECT_EQ(names(r.row_buffers), std::vector<std::string>{"T8"});
  EXPECT_EQ(r.persistentBytesPerElement(), 8);
  EXPECT_NE(findBroadcastAfterReduction(g.get()), nullptr);
}

TEST(PersistentScheduler, SoftmaxBf16LongRows) {
  auto f = make(softmax2d, DataType::BFloat16);
  PersistentParams p = persistentParams(*f, {contiguous({32768, 4096}, DataType::BFloat16)});
  // 16-byte vectors of 8 bf16; 4096 / 8 = 512 vectors over 128 threads: 4 vectors each.
  EXPECT_EQ(p.vectorization_factor, 8);
  EXPECT_EQ(p.threads_per_row, 128);
  EXPECT_EQ(p.persistent_batch, 4);
  EXPECT_EQ(p.rows_per_block, 1);
  EXPECT_EQ(p.row_extents, std::vector<int64_t>{4096});
  EXPECT_EQ(p.lparams.getDim(ParallelType::BIDx), 32768);
  EXPECT_EQ(p.lparams.getDim(ParallelType::TIDx), 128);
  EXPECT_FALSE(p.lparams.hasDim(ParallelType::TIDy));
  EXPECT_EQ(p.index_type, DataType::Int32);
}

TEST(PersistentScheduler, SoftmaxFloatLongRows) {
  auto f = make(softmax2d, DataType::Float);
  PersistentParams p = persistentParams(*f, {contiguous({32768, 4096})});
  // 4 floats per vector: 1024 vectors over 256 threads.
  EXPECT_EQ(p.vectorization_factor, 4);
  EXPECT_EQ(p.threads_per_row, 256);
  EXPECT_EQ(p.persistent_batch, 4);
  EXPECT_EQ(p.rows_per_block, 1);
}

TEST(PersistentScheduler, SoftmaxRowsOf1000ShareBlocks) {
  // fp32: 250 vectors of 4 -> 62.5 threads at 4 vectors each, rounded down to a power of two:
  // one warp x 8 vectors (6 idle slots, predicated), 4 rows per block.
  auto f = make(softmax2d, DataType::Float);
  PersistentParams p = persistentParams(*f, {contiguous({7, 1000})});
  EXPECT_EQ(p.vectorization_factor, 4);
  EXPECT_EQ(p.threads_per_row, 32);
  EXPECT_EQ(p.persistent_batch, 8);
  EXPECT_EQ(p.rows_per_block, 4);
  EXPECT_EQ(p.lparams.getDim(ParallelType::TIDy), 4);
  EXPECT_EQ(p.lparams.getDim(ParallelType::BIDx), 2);  // ceil(7 / 4)
  // bf16: 125 vectors of 8 -> one warp x 4, 4 rows per block.
  auto g = make(softmax2d, DataType::BFloat16);
  PersistentParams q = persistentParams(*g, {contiguous({7, 1000}, DataType::BFloat16)});
  EXPECT_EQ(q.vectorization_factor, 8);
  EXPECT_EQ(q.threads_per_row, 32);
  EXPECT_EQ(q.persistent_batch, 4);
  EXPECT_EQ(q.rows_per_block, 4);
  EXPECT_EQ(q.lparams.getDim(ParallelType::BIDx), 2);
}

TEST(PersistentScheduler, ShortRowsOneThreadEach) {
  // 13 is odd: no vectors; 13 floats x 2 buffers (x, exp) = 104 bytes: a thread per row.
  auto f = make(softmax2d, DataType::Float);
  PersistentParams p = persistentParams(*f, {contiguous({5, 13})});
  EXPECT_EQ(p.vectorization_factor, 1);
  EXPECT_EQ(p.threads_per_row, 1);
  EXPECT_EQ(p.persistent_batch, 13);
  EXPECT_EQ(p.rows_per_block, 128);
  EXPECT_EQ(p.lparams.getDim(ParallelType::TIDx), 128);
  EXPECT_EQ(p.lparams.getDim(ParallelType::BIDx), 1);
  auto g = make(softmax2d, DataType::BFloat16);
  PersistentParams q = persistentParams(*g, {contiguous({5, 13}, DataType::BFloat16)});
  EXPECT_EQ(q.vectorization_factor, 1);
  EXPECT_EQ(q.threads_per_row, 1);
  EXPECT_EQ(q.persistent_batch, 13);
  EXPECT_EQ(persistentParams(*g, {contiguous({1, 1}, DataType::BFloat16)}).persistent_batch, 1);
  PersistentParams one = persistentParams(*f, {contiguous({1, 1})});
  EXPECT_EQ(one.vectorization_factor, 1);
  EXPECT_EQ(one.threads_per_row, 1);
  EXPECT_EQ(one.persistent_batch, 1);
}

TEST(PersistentScheduler, BlockScaleOfSixteen) {
  // NVFP4: [M, G, 16] bf16, max(|x|) over 16: two vectors of 8 per thread, a thread per
  // block of 16, the rows M * G across threads.
  auto f = make(testing::buildBlockScale, DataType::BFloat16);
  PersistentParams p = persistentParams(*f, {contiguous({256, 512, 16}, DataType::BFloat16)});
  EXPECT_EQ(p.row_extents, std::vector<int64_t>{16});
  EXPECT_EQ(p.vectorization_factor, 8);
  EXPECT_EQ(p.threads_per_row, 1);
  EXPECT_EQ(p.persistent_batch, 2);
  EXPECT_EQ(p.lparams.getDim(ParallelType::BIDx), 256 * 512 / 128);
}

TEST(PersistentScheduler, ParamsPrintHashAndCompare) {
  auto f = make(softmax2d, DataType::Float);
  PersistentParams a = persistentParams(*f, {contiguous({64, 1024})});
  PersistentParams b = persistentParams(*f, {contiguous({8, 1024})});
  PersistentParams c = persistentParams(*f, {contiguous({64, 2048})});
  EXPECT_EQ(a.toString(),
            "PersistentParams(row_extents = [1024], vectorization_factor = 4, "
            "persistent_batch = 4, threads_per_row = 64, rows_per_block = 2, index_type = int32, "
            "LaunchParams(grid = [32, -, -], block = [64, 2, -]))");
  // Another number of rows changes only the grid: the kernel is reused.
  EXPECT_TRUE(a.sameAs(&b));
  EXPECT_EQ(a.hash(), b.hash());
  // Another row length is another kernel (its extents are constants).
  EXPECT_FALSE(a.sameAs(&c));
  EXPECT_TRUE(a.clone()->sameAs(&a));
}

TEST(PersistentScheduler, VectorsFollowAlignmentAndStrides) {
  auto f = make(softmax2d, DataType::Float);
  // A row stride of 1026 floats: only pairs stay aligned.
  PersistentParams p = persistentParams(*f, {schedtest::strided({8, 1024}, {1026, 1})});
  EXPECT_EQ(p.vectorization_factor, 2);
  // Element 0 one float past an aligned address: no vectors.
  PersistentParams q =
      persistentParams(*f, {schedtest::strided({8, 1024}, {1024, 1}, DataType::Float, 1)});
  EXPECT_EQ(q.vectorization_factor, 1);
}

// A long row does not fit in registers: fp32 softmax holds x across the max and
// exp(x - max) across the sum, one at a time (4 bytes per element), so 65536 elements need
// 256 KiB.
TEST(PersistentScheduler, RefusesRowsThatDoNotFit) {
  auto f = make(softmax2d, DataType::Float);
  EXPECT_THAT(persistentRejection(*f, {contiguous({8, 65536})}),
              HasSubstr("a row of 65536 elements needs 262144 bytes of registers for its "
                        "persistent buffers (T0_g_float"));
  EXPECT_THAT(persistentRejection(*f, {contiguous({8, 65536})}),
              HasSubstr("more than the 131072 bytes a row may take"));
  // 32768 fits exactly.
  EXPECT_EQ(persistentParams(*f, {contiguous({8, 32768})}).threads_per_row, 1024);
}

// Buffers whose lifetimes do not overlap share registers: a chain of k normalizations of
// one row, each holding its own input across its reduction, holds two buffers at a time
// (the fusion input, read after every reduction, and the current one), not k + 1.
TEST(PersistentScheduler, CountsOnlyBuffersLiveAtOnce) {
  for (int64_t k : {1, 2, 40}) {
    Fusion f;
    FusionGuard fg(&f);
    TensorView* x = makeSymbolicTensor(2);
    f.addInput(x);
    TensorView* t = neg(x);
    for (int64_t i = 0; i < k; ++i) t = add(add(t, broadcast(sum(t, {1}), {false, true})), x);
    f.addOutput(t);
    const auto norm = std::get<InnerNormalization>(analyzeInnerNormalization(&f));
    EXPECT_EQ(norm.persistent_buffers.size(), static_cast<size_t>(k + 1)) << k;
    EXPECT_EQ(norm.persistent_bytes, 8) << k;
    ASSERT_EQ(norm.live_buffers.size(), 2u) << k;
    EXPECT_EQ(norm.live_buffers[0], x) << k;
    // A row of 16384 floats fits (2 x 64 KiB), as one block's.
    EXPECT_EQ(persistentParams(f, {contiguous({8, 16384})}).threads_per_row, 1024) << k;
  }
}

TEST(PersistentScheduler, RefusalsSayWhy) {
  {
    // A reduction whose result is only an output: nothing persists (the Reduction
    // scheduler's case).
    Fusion f;
    FusionGuard fg(&f);
    TensorView* x = makeContigTensor(2);
    f.addInput(x);
    f.addOutput(sum(x, {1}));
    EXPECT_THAT(compileTimeRejection(f),
                HasSubstr("no reduction result is broadcast back over the row"));
  }
  {
    // Softmax that also outputs its row maxima broadcast back ([rows, 1]): outputs are
    // full-shape tensors, reshapes of them, or per-row results without broadcast axes.
    Fusion f;
    FusionGuard fg(&f);
    TensorView* x = makeContigTensor(2);
    f.addInput(x);
    TensorView* m = broadcast(max(x, {1}), {false, true});
    f.addOutput(sub(x, m));
    f.addOutput(m);
    EXPECT_THAT(compileTimeRejection(f),
                HasSubstr("has neither the shape of T0_g_float[iS0{i0}, iS1{i1}] nor that of its "
                          "rows"));
  }
  {
    Fusion f;
    FusionGuard fg(&f);
    TensorView* x = makeContigTensor(2);
    f.addInput(x);
    f.addOutput(add(x, x));
    EXPECT_THAT(compileTimeRejection(f), HasSubstr("the fusion has no reduction"));
  }
  {
    // An outer reduction (over axis 0) broadcast back: not an inner normalization.
    Fusion f;
    FusionGuard fg(&f);
    TensorView* x = makeContigTensor(2);
    f.addInput(x);
    f.addOutput(div(x, broadcast(sum(x, {0}), {true, false})));
    EXPECT_THAT(compileTimeRejection(f), HasSubstr("reduces axes that are not the innermost ones"));
  }
  {
    // Two reductions over different axes.
    Fusion f;
    FusionGuard fg(&f);
    TensorView* x = makeContigTensor(3);
    f.addInput(x);
    TensorView* a = div(x, broadcast(sum(x, {2}), {false, false, true}));
    f.addOutput(sub(a, broadcast(max(a, {1, 2}), {false, true, true})));
    EXPECT_THAT(compileTimeRejection(f), HasSubstr("reduce different axes or shapes"));
  }
  {
    // A reduction of every axis leaves no rows.
    Fusion f;
    FusionGuard fg(&f);
    TensorView* x = makeContigTensor(1);
    f.addInput(x);
    f.addOutput(div(x, broadcast(sum(x, {0}), {true})));
    EXPECT_THAT(compileTimeRejection(f),
                HasSubstr("reduces every axis: there are no rows to spread over blocks"));
  }
  {
    // An input of [rows] broadcast over the row: neither shape.
    Fusion f;
    FusionGuard fg(&f);
    TensorView* x = makeContigTensor(2);
    TensorView* c = makeContigTensor(1);
    f.addInput(x);
    f.addInput(c);
    TensorView* y = mul(x, broadcast(c, {false, true}));
    f.addOutput(div(y, broadcast(sum(y, {1}), {false, true})));
    EXPECT_THAT(compileTimeRejection(f), HasSubstr("has neither the shape of"));
  }
}

TEST(PersistentScheduler, RefusalsOfOpsAndShapes) {
  {
    // The layout op is no pointwise op.
    Fusion f;
    FusionGuard fg(&f);
    schedtest::LayoutInputs l = schedtest::layoutInputs(f);
    f.addOutput(preprocessGroupedMatmulInputSf(l.in, l.in_off, l.out_off));
    EXPECT_THAT(compileTimeRejection(f),
                HasSubstr("is not a pointwise, broadcast or reduction op"));
  }
  {
    // The first reduction reads a tensor with a broadcast axis ([M, 1, N] reduced over N; a
    // sum over the size-1 axis alone would be a squeeze).
    Fusion f;
    FusionGuard fg(&f);
    TensorView* c = makeConcreteTensor({-1, 1, -1});
    f.addInput(c);
    f.addOutput(div(c, broadcast(sum(c, {2}), {false, false, true})));
    EXPECT_THAT(compileTimeRejection(f), HasSubstr("which has broadcast axes"));
  }
  {
    Fusion f;
    FusionGuard fg(&f);
    f.addInput(makeContigTensor(2));
    EXPECT_THAT(compileTimeRejection(f), HasSubstr("the fusion has no outputs"));
  }
  {
    // [M, G, 16] reduced over 16, the [M, G] result broadcast in the middle ([M, 1, G]) and
    // used with a [M, 16, G]-shaped tensor: not back over the row.
    Fusion f;
    FusionGuard fg(&f);
    TensorView* x = makeContigTensor(3);
    TensorView* y = makeContigTensor(3);
    f.addInput(x);
    f.addInput(y);
    TensorView* m = broadcast(max(x, {2}), {false, true, false});
    f.addOutput(add(x, div(y, m)));
    EXPECT_THAT(compileTimeRejection(f),
                HasSubstr("broadcasts neither a result over the row of T0"));
  }
}

// A fusion whose rows are empty is NoOp's; the persistent scheduler says why it refuses.
TEST(PersistentScheduler, RefusesEmptyRows) {
  auto f = make(softmax2d, DataType::Float);
  InnerPersistentScheduler s;
  SchedulerRuntimeInfo info(f.get(), std::vector<TensorMetadata>{contiguous({0, 64})});
  ASSERT_TRUE(s.canScheduleCompileTime(f.get()));
  EXPECT_FALSE(s.canScheduleRunTime(f.get(), info));
  EXPECT_THAT(s.rejectReason(), HasSubstr("is empty (0 rows of 64)"));
}

// The schedule of bf16 softmax over rows of 4096, as the rules say: the input's register copy
// T12 is a vector load (iV{8}) inside the loops of its cast T1; T1 (x) and T5 (exp) are the
// persistent buffers, computed at position 1 (after BIDx) so that each holds 4 x 8 floats per
// thread; each reduction is a serial rfactor (T14, T15: [TIDx, r batch, r vector]) and a
// block reduction over TIDx (T2, T6), whose all-reduced result each thread reads inside its
// consumer's loops: the broadcasts T3, T11 take their loops from their consumers (the
// propagator prefers the edge that maps both of their axes) and are inlined there; the
// division by the row's sum is a multiplication by its reciprocal T10, one per row
// (multiplyByRowReciprocals); the output is stored by a vector copy.
TEST(PersistentScheduler, SoftmaxScheduleKeepsTheRowInRegisters) {
  FusionExecutorCache fec(make(softmax2d, DataType::BFloat16));
  fec.runFusionWithInputs({Tensor::random({3, 4096}, DataType::BFloat16, 1)});
  const std::string ir = fec.getMostRecentScheduledIr();
  const std::string math = ir.substr(ir.find("%kernel_math {"),
                                     ir.find("} // %kernel_math") - ir.find("%kernel_math {"));
  EXPECT_EQ(math,
            R"(%kernel_math {
T12_l_bfloat16[iblockIdx.x31{i0}, ithreadIdx.x46{128}, iS45{4}, iV44{8}] ca_pos( 3 ) = set(T0)
T1_l_float[iblockIdx.x2{i0}, ithreadIdx.x42{128}, iS41{4}, iS40{8}] ca_pos( 1 ) = cast<float>(T12)
T14_l_float[iblockIdx.x83{i0}, ithreadIdx.x88{128}, rS87{4}, rS86{8}] ca_pos( 2 ) = reduction(T1, op = max, initial = -INFINITY)
T2_l_float[iblockIdx.x4{i0}, rthreadIdx.x89{128}] ca_pos( 2 ) = reduction(T14, op = max, initial = -INFINITY)
T3_l_float[iblockIdx.x6{i0}, bthreadIdx.x78{128}, bS77{1}, bS76{8}] ca_pos( 4 ) = broadcast(T2, {false, true})
T4_l_float[iblockIdx.x8{i0}, ithreadIdx.x50{128}, iS49{4}, iS48{8}] ca_pos( 4 ) = T1 - T3
T5_l_float[iblockIdx.x10{i0}, ithreadIdx.x58{128}, iS57{4}, iS56{8}] ca_pos( 1 ) = exp(T4)
T15_l_float[iblockIdx.x90{i0}, ithreadIdx.x95{128}, rS94{4}, rS93{8}] ca_pos( 2 ) = reduction(T5, op = add, initial = 0.0)
T6_l_float[iblockIdx.x12{i0}, rthreadIdx.x96{128}] ca_pos( 1 ) = reduction(T15, op = add, initial = 0.0)
T10_l_float[iblockIdx.x28{i0}] ca_pos( 1 ) = reciprocal(T6)
T11_l_float[iblockIdx.x29{i0}, bthreadIdx.x82{128}, bS81{1}, bS80{8}] ca_pos( 4 ) = broadcast(T10, {false, true})
T8_l_float[iblockIdx.x16{i0}, ithreadIdx.x66{128}, iS65{4}, iS64{8}] ca_pos( 4 ) = T5 * T11
T13_l_bfloat16[iblockIdx.x33{i0}, ithreadIdx.x70{128}, iS69{4}, iS68{8}] ca_pos( 3 ) = cast<bfloat16>(T8)
T9_g_bfloat16[iblockIdx.x18{i0}, ithreadIdx.x74{128}, iS73{4}, iV72{8}] = set(T13)
)");
}

// Only a division by a per-row value broadcast over the row becomes a multiplication by a
// reciprocal computed once per row, and only when a block shares the row (a thread holding a
// whole row of 16 divides as often either way): x / sum(x) over rows of 1000 does; x / w by a
// weight broadcast over the rows keeps its division, and so does the NVFP4 block scale
// x / max|x| over 16.
TEST(PersistentScheduler, DivisionByTheRowsValueBecomesAReciprocal) {
  auto scheduled = [](BuildFn build, std::vector<Tensor> in) {
    FusionExecutorCache fec(make(build, DataType::Float));
    fec.runFusionWithInputs(in);
    EXPECT_EQ(fec.getMostRecentKernelRuntime()->heuristics().at(0)->schedulerType(),
              SchedulerType::InnerPersistent);
    return fec.getMostRecentScheduledIr();
  };
  auto normalizeByWeight = [](Fusion& f, DataType t) {
    TensorView* x = makeContigTensor(2, t);
    TensorView* w = makeContigTensor(1, t);
    f.addInput(x);
    f.addInput(w);
    TensorView* s = sum(x, {1});
    f.addOutput(div(div(x, broadcast(w, {true, false})), testing::backOverRow(s, 2)));
  };
  const std::string ir = scheduled(
      normalizeByWeight,
      {Tensor::random({5, 1000}, DataType::Float, 1), Tensor::random({1000}, DataType::Float, 2)});
  EXPECT_THAT(ir, HasSubstr("= reciprocal(T"));
  EXPECT_THAT(ir, ContainsRegex(R"(= T[0-9]+ / T[0-9]+)"));   // by the weight
  EXPECT_THAT(ir, ContainsRegex(R"(= T[0-9]+ \* T[0-9]+)"));  // by the row's reciprocal
  const std::string scale = scheduled([](Fusion& f, DataType t) { testing::buildBlockScale(f, t); },
                                      {Tensor::random({7, 4, 16}, DataType::Float, 3)});
  EXPECT_THAT(scale, Not(HasSubstr("reciprocal")));
  EXPECT_THAT(scale, ContainsRegex(R"(= T[0-9]+ / T[0-9]+)"));
}

// Each normalization through FusionExecutorCache: one InnerPersistent kernel, outputs equal
// to the reference's (the CPU path computes them with it after compiling the kernel).
struct NormCase {
  std::string name;
  BuildFn build;
  DataType dtype;
  std::vector<std::vector<int64_t>> shapes;
};

class PersistentFec : public ::testing::TestWithParam<NormCase> {};

// Counts the kernel's reads of global tensor `name` (`T0[` indexed or vector-copied).
int64_t globalReads(const std::string& code, const std::string& name) {
  std::regex read("&?" + name + "\\[");
  int64_t n = 0;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), read); it != std::sregex_iterator();
       ++it)
    ++n;
  return n;
}

TEST_P(PersistentFec, OneKernelMatchesReference) {
  const NormCase& c = GetParam();
  FusionExecutorCache fec(make(c.build, c.dtype));
  uint64_t seed = 11;
  for (const std::vector<int64_t>& shape : c.shapes) {
    std::vector<Tensor> in = {Tensor::random(shape, c.dtype, seed++)};
    for (Val* v : fec.fusion()->inputs())
      if (v != fec.fusion()->inputs().front())
        in.push_back(Tensor::random({shape.back()}, c.dtype, seed++));
    std::vector<Tensor> out = fec.runFusionWithInputs(in);
    std::vector<Tensor> ref = ReferenceEvaluator(fec.fusion()).run(in);
    ASSERT_EQ(out.size(), ref.size());
    for (int64_t i = 0; i < ref[0].numel(); ++i)
      ASSERT_EQ(out[0].item(i), ref[0].item(i)) << "element " << i;
    FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
    ASSERT_FALSE(rt->isSegmented());
    ASSERT_NE(dynamic_cast<const PersistentParams*>(rt->heuristics().at(0)), nullptr);
    // The data input is read from global memory once: one load statement in the kernel.
    EXPECT_EQ(globalReads(fec.getMostRecentCode(), "T0"), 1) << fec.getMostRecentCode();
    // The persistent buffers stay in registers: no local memory in the PTX.
    const std::string& ptx = rt->executor()->ptx();
    ASSERT_FALSE(ptx.empty());
    EXPECT_THAT(ptx, Not(HasSubstr(".local"))) << fec.getMostRecentCode();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Normalizations, PersistentFec,
    ::testing::Values(
        NormCase{"softmax_float", softmax2d, DataType::Float, {{7, 1000}, {5, 13}, {1, 1}}},
        NormCase{"softmax_bf16", softmax2d, DataType::BFloat16, {{3, 4096}, {2, 1031}}},
        NormCase{"log_softmax_float", testing::buildLogSoftmax, DataType::Float, {{4, 2048}}},
        NormCase{"rms_norm_bf16", buildRmsNormDefault, DataType::BFloat16, {{3, 4096}, {5, 24}}},
        NormCase{"layer_norm_float", buildLayerNormDefault, DataType::Float, {{3, 768}, {2, 17}}},
        NormCase{"block_scale_bf16",
                 testing::buildBlockScale,
                 DataType::BFloat16,
                 {{3, 5, 16}, {1, 1, 16}}}),
    [](const ::testing::TestParamInfo<NormCase>& info) { return info.param.name; });

// A new number of rows reuses the kernel (the grid changes); a new row length is a new
// kernel, since the row's extents are constants of it.
TEST(PersistentScheduler, KernelServesOneRowLength) {
  FusionExecutorCache fec(make(softmax2d, DataType::Float));
  fec.runFusionWithInputs({Tensor::random({3, 1024}, DataType::Float, 1)});
  fec.runFusionWithInputs({Tensor::random({9, 1024}, DataType::Float, 2)});
  EXPECT_EQ(fec.countKernelsCompiled(), 1);
  fec.runFusionWithInputs({Tensor::random({3, 2048}, DataType::Float, 3)});
  EXPECT_EQ(fec.countKernelsCompiled(), 2);
}

// Softmax that also outputs exp(x - max), which the sum and the division read too: the
// output is forked from the persistent buffer and written element by element; still one
// kernel reading the input once.
TEST(PersistentScheduler, IntermediateOutputWithReaders) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* x = makeContigTensor(2);
    fusion->addInput(x);
    TensorView* e = exp(sub(x, testing::backOverRow(max(x, {1}), 2)));
    fusion->addOutput(e);
    fusion->addOutput(div(e, testing::backOverRow(sum(e, {1}), 2)));
  }
  FusionExecutorCache fec(std::move(fusion));
  std::vector<Tensor> in = {Tensor::random({5, 1000}, DataType::Float, 4)};
  std::vector<Tensor> out = fec.runFusionWithInputs(in);
  ASSERT_EQ(out.size(), 2u);
  FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
  EXPECT_FALSE(rt->isSegmented());
  EXPECT_EQ(rt->heuristics().at(0)->schedulerType(), SchedulerType::InnerPersistent);
  EXPECT_EQ(globalReads(fec.getMostRecentCode(), "T0"), 1) << fec.getMostRecentCode();
  EXPECT_THAT(rt->executor()->ptx(), Not(HasSubstr(".local")));
}

// Per-row results as outputs (the row maxima, sums and a sum nothing else reads beside the
// softmax): each row's value
// is written once, by the thread that owns the row or (a block per row) after the block's
// all-reduce; the kernel's values, run on the host interpreter, equal the reference's, for
// rows of one thread, of a block shared by several rows, and of a whole block.
TEST(PersistentScheduler, PerRowResultsAsOutputs) {
  for (auto [rows, row] : {std::pair<int64_t, int64_t>{131, 13}, {5, 1000}, {3, 4099}}) {
    auto fusion = std::make_unique<Fusion>();
    {
      FusionGuard fg(fusion.get());
      TensorView* x = makeContigTensor(2);
      fusion->addInput(x);
      TensorView* m = max(x, {1});
      TensorView* e = exp(sub(x, testing::backOverRow(m, 2)));
      TensorView* s = sum(e, {1});
      fusion->addOutput(div(e, testing::backOverRow(s, 2)));
      fusion->addOutput(m);
      fusion->addOutput(mul(s, constFloat(2.0)));
      fusion->addOutput(sum(x, {1}));  // a reduction nothing else reads
    }
    FusionExecutorCache fec(std::move(fusion));
    std::vector<Tensor> in = {Tensor::random({rows, row}, DataType::Float, 7)};
    fec.runFusionWithInputs(in);
    FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
    EXPECT_FALSE(rt->isSegmented()) << rt->fusionSegments()->toString();
    EXPECT_EQ(rt->heuristics().at(0)->schedulerType(), SchedulerType::InnerPersistent);
    const std::vector<Tensor> got = rt->runOnHost(in, testing::interpretKernelOrThrow);
    const std::vector<Tensor> ref = ReferenceEvaluator(fec.fusion()).run(in);
    ASSERT_EQ(got.size(), 4u);
    for (size_t o = 0; o < 4; ++o)
      for (int64_t i = 0; i < ref[o].numel(); ++i)
        ASSERT_NEAR(got[o].item(i), ref[o].item(i), 1e-5 * (1 + std::abs(ref[o].item(i))))
            << "rows " << rows << " of " << row << ", output " << o << ", element " << i;
  }
}

}  // namespace
}  // namespace mf
