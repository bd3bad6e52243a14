// Fusions with size-0 axes and dead exprs run like any other (#16, section 3), on the CPU:
// through FusionExecutorCache's reference fallback and through the lowered kernels on the
// host kernel interpreter (FusionKernelRuntime::runOnHost). And a tensor that is neither a
// fusion input nor computed is a UserError naming it, from every entry point.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "minifuser.h"
#include "random/kernel_interpreter.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// Equal, but for a float sum's rounding (the interpreted kernel sums in another order).
void expectSame(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double g = got.item(i), w = want.item(i);
    if ((std::isnan(w) && std::isnan(g)) || g == w) continue;
    ASSERT_NEAR(g, w, 1e-5 * (1 + std::abs(w))) << what << ", element " << i;
  }
}

// Runs `fusion` through one FusionExecutorCache on each input set in turn; each run's outputs
// equal the reference's, both from the cache and from its lowered kernels on the interpreter.
void expectRunsMatchReference(std::unique_ptr<Fusion> fusion,
                              const std::vector<std::vector<Tensor>>& runs) {
  Fusion reference_copy(*fusion);
  FusionExecutorCache fec(std::move(fusion));
  for (size_t r = 0; r < runs.size(); ++r) {
    const std::vector<Tensor>& in = runs[r];
    const std::vector<Tensor> want = ReferenceEvaluator(&reference_copy).run(in);
    const std::vector<Tensor> got = fec.runFusionWithInputs(in);
    const std::vector<Tensor> host =
        fec.getMostRecentKernelRuntime()->runOnHost(in, testing::interpretKernelOrThrow);
    ASSERT_EQ(got.size(), want.size());
    ASSERT_EQ(host.size(), want.size());
    for (size_t o = 0; o < want.size(); ++o) {
      expectSame(got[o], want[o], "run " + std::to_string(r) + ", output " + std::to_string(o));
      expectSame(host[o], want[o],
                 "run " + std::to_string(r) + ", output " + std::to_string(o) + " (interpreted)");
    }
  }
}

// The differential fuzzer's fusion: inputs bool T0[31, 7, 0], double T1[31, 7, 0] (unused
// by the output), float T2[31, 7]; output where(T0 < broadcast(-T2), T0, T0); and a dead
// chain clamp, tanh, cast off -T2 (its results reach no output). The dead use made -T2 a
// second output of the one NoOp group, non-empty, which NoOp then refused (InternalError
// "the segmenter's scheduler refused its own group 0").
std::unique_ptr<Fusion> fuzzerFusion() {
  auto f = std::make_unique<Fusion>();
  FusionGuard fg(f.get());
  TensorView* t0 = makeSymbolicTensor(3, DataType::Bool);
  TensorView* t1 = makeSymbolicTensor(3, DataType::Double);
  TensorView* t2 = makeSymbolicTensor(2, DataType::Float);
  f->addInput(t0);
  f->addInput(t1);
  f->addInput(t2);
  TensorView* n2 = neg(t2);
  TensorView* c = lt(t0, broadcast(n2, {false, false, true}));
  castOp(DataType::Half, tanh(clamp(n2, constFloat(-1.0), constFloat(1.0))));  // dead
  tanh(t1);                                                                    // dead
  f->addOutput(where(c, t0, t0));
  return f;
}

std::vector<Tensor> fuzzerInputs(int64_t inner) {
  return {Tensor::random({31, 7, inner}, DataType::Bool, 1),
          Tensor::random({31, 7, inner}, DataType::Double, 2),
          Tensor::random({31, 7}, DataType::Float, 3)};
}

TEST(EmptyTensors, FuzzerReproDeadExprsAndEmptyAxis) {
  expectRunsMatchReference(fuzzerFusion(), {fuzzerInputs(0)});
}

// The same fusion, empty then not then empty again, through one cache: each run is right
// (a runtime made for the empty sizes is not reused for the others: the input signature
// says which axes are 0).
TEST(EmptyTensors, EmptyThenNonEmptyThroughOneCache) {
  expectRunsMatchReference(fuzzerFusion(),
                           {fuzzerInputs(0), fuzzerInputs(5), fuzzerInputs(0), fuzzerInputs(13)});
}

// Dead exprs never reach the segmenter: its copy of the fusion has none, and the one group
// holds only the output's exprs.
TEST(EmptyTensors, SegmenterDropsDeadExprs) {
  std::unique_ptr<Fusion> f = fuzzerFusion();
  std::unique_ptr<SegmentedFusion> sf = SegmentCandidateFinder::segment(*f, fuzzerInputs(5));
  ASSERT_EQ(sf->groups().size(), 1u);
  EXPECT_EQ(sf->groups()[0]->outputs().size(), 1u);
  EXPECT_EQ(sf->groups()[0]->exprs().size(), 4u);  // neg, broadcast, lt, where
  int64_t tensor_exprs = 0;
  for (const auto& s : sf->completeFusion()->statements())
    if (auto* e = dynamic_cast<Expr*>(s.get()); e && e->output(0)->isA<TensorView>())
      ++tensor_exprs;
  EXPECT_EQ(tensor_exprs, 4);  // the user's fusion holds 9
}

// ---- reductions over empty axes, empty outputs ----

struct EmptyReductionCase {
  std::string name;
  DataType dtype;
  TensorView* (*reduce)(TensorView*, const std::vector<int64_t>&, bool, std::optional<DataType>);
  double identity;
};

class EmptyReduction : public ::testing::TestWithParam<EmptyReductionCase> {};

// x[5, 0] reduced over axis 1 is its op's identity, 5 times (kept rank too); RemoveEmpty
// makes it full(init), so the runtime reads nothing and computes the identity in a
// pointwise kernel (no reduction left to schedule).
TEST_P(EmptyReduction, IsTheIdentity) {
  const EmptyReductionCase& c = GetParam();
  auto f = std::make_unique<Fusion>();
  {
    FusionGuard fg(f.get());
    TensorView* x = makeContigTensor(2, c.dtype);
    f->addInput(x);
    f->addOutput(c.reduce(x, {1}, false, std::nullopt));
    f->addOutput(c.reduce(x, {1}, true, std::nullopt));
  }
  Fusion user(*f);
  FusionExecutorCache fec(std::move(f));
  const std::vector<Tensor> in = {Tensor::random({5, 0}, c.dtype, 7)};
  const std::vector<Tensor> out = fec.runFusionWithInputs(in);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].sizes(), (std::vector<int64_t>{5}));
  EXPECT_EQ(out[1].sizes(), (std::vector<int64_t>{5, 1}));
  for (const Tensor& o : out)
    for (int64_t i = 0; i < o.numel(); ++i) EXPECT_EQ(o.item(i), c.identity) << c.name << " " << i;
  EXPECT_THAT(fec.getMostRecentScheduledIr(), HasSubstr("= full("));
  EXPECT_THAT(fec.getMostRecentScheduledIr(), ::testing::Not(HasSubstr("reduction(")));
  const std::vector<Tensor> host =
      fec.getMostRecentKernelRuntime()->runOnHost(in, testing::interpretKernelOrThrow);
  const std::vector<Tensor> want = ReferenceEvaluator(&user).run(in);
  for (size_t o = 0; o < want.size(); ++o) {
    expectSame(out[o], want[o], c.name);
    expectSame(host[o], want[o], c.name + " (interpreted)");
  }
}

constexpr double kInf = std::numeric_limits<double>::infinity();
INSTANTIATE_TEST_SUITE_P(
    EmptyTensors, EmptyReduction,
    ::testing::Values(EmptyReductionCase{"sum_float", DataType::Float, sum, 0.0},
                      EmptyReductionCase{"prod_float", DataType::Float, prod, 1.0},
                      EmptyReductionCase{"max_float", DataType::Float, max, -kInf},
                      EmptyReductionCase{"min_double", DataType::Double, min, kInf},
                      EmptyReductionCase{"sum_int64", DataType::Int64, sum, 0.0},
                      EmptyReductionCase{"max_int32", DataType::Int32, max,
                                         double{std::numeric_limits<int32_t>::min()}}),
    [](const auto& info) { return info.param.name; });

// Outputs of empty shape: an op of empty inputs, an empty reduction result (the reduced
// axis is the non-empty one), and beside them a non-empty output of another input.
std::unique_ptr<Fusion> emptyOutputs() {
  auto f = std::make_unique<Fusion>();
  FusionGuard fg(f.get());
  TensorView* x = makeContigTensor(2);
  TensorView* y = makeContigTensor(2);
  TensorView* z = makeContigTensor(1);
  for (TensorView* tv : {x, y, z}) f->addInput(tv);
  f->addOutput(mul(add(x, y), constFloat(2.0)));
  f->addOutput(sum(x, {0}));
  f->addOutput(sum(x, {1}));
  f->addOutput(exp(neg(z)));
  return f;
}

std::vector<Tensor> emptyOutputsInputs(int64_t rows, int64_t cols, int64_t n, uint64_t seed) {
  return {Tensor::random({rows, cols}, DataType::Float, seed),
          Tensor::random({rows, cols}, DataType::Float, seed + 1),
          Tensor::random({n}, DataType::Float, seed + 2)};
}

TEST(EmptyTensors, EmptyOutputs) {
  FusionExecutorCache fec(emptyOutputs());
  const std::vector<Tensor> out = fec.runFusionWithInputs(emptyOutputsInputs(0, 7, 3, 1));
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].sizes(), (std::vector<int64_t>{0, 7}));
  EXPECT_EQ(out[1].sizes(), (std::vector<int64_t>{7}));  // the sum over 0 rows: zeros
  for (int64_t i = 0; i < 7; ++i) EXPECT_EQ(out[1].item(i), 0.0);
  EXPECT_EQ(out[2].sizes(), (std::vector<int64_t>{0}));
  EXPECT_EQ(out[3].sizes(), (std::vector<int64_t>{3}));
}

// Empty and non-empty sizes, in turn, through one cache: each run equals the reference
// (cache and interpreted kernels). A runtime rewritten for empty sizes is never reused for
// other sizes: which input axes are 0 is part of the input signature, and the rewritten
// runtime holds for its exact sizes only (its fulls have constant shapes).
TEST(EmptyTensors, MixedRunsThroughOneCache) {
  expectRunsMatchReference(emptyOutputs(),
                           {emptyOutputsInputs(0, 7, 3, 1), emptyOutputsInputs(5, 7, 3, 2),
                            emptyOutputsInputs(0, 7, 3, 3), emptyOutputsInputs(0, 11, 1, 4),
                            emptyOutputsInputs(37, 0, 13, 5), emptyOutputsInputs(37, 11, 13, 6)});
}

TEST(EmptyTensors, RewrittenRuntimeIsNotReusedForOtherSizes) {
  FusionExecutorCache fec(emptyOutputs());
  fec.runFusionWithInputs(emptyOutputsInputs(0, 7, 3, 1));
  EXPECT_EQ(fec.countRuntimes(), 1);
  fec.runFusionWithInputs(emptyOutputsInputs(0, 7, 3, 2));  // same sizes: the same runtime
  EXPECT_EQ(fec.countRuntimes(), 1);
  const std::vector<Tensor> out = fec.runFusionWithInputs(emptyOutputsInputs(0, 9, 3, 3));
  EXPECT_EQ(fec.countRuntimes(), 2);
  EXPECT_EQ(out[1].sizes(), (std::vector<int64_t>{9}));
  // Without empty tensors the pass changes nothing: one runtime serves both sizes.
  FusionExecutorCache plain(emptyOutputs());
  plain.runFusionWithInputs(emptyOutputsInputs(4, 7, 3, 1));
  plain.runFusionWithInputs(emptyOutputsInputs(4, 9, 3, 1));
  EXPECT_LE(plain.countRuntimes(), 2);
}

// The identity broadcast into a non-empty tensor: y + broadcast(sum(x[5, 0], {1})) is y.
TEST(EmptyTensors, IdentityBroadcastIntoNonEmptyTensor) {
  auto f = std::make_unique<Fusion>();
  {
    FusionGuard fg(f.get());
    TensorView* x = makeContigTensor(2);
    TensorView* y = makeContigTensor(2);
    f->addInput(x);
    f->addInput(y);
    f->addOutput(add(y, broadcast(max(x, {1}), {false, true})));
    f->addOutput(sub(y, broadcast(sum(x, {1}), {false, true})));
  }
  auto inputs = [](int64_t k, uint64_t seed) {
    return std::vector<Tensor>{Tensor::random({5, k}, DataType::Float, seed),
                               Tensor::random({5, 3}, DataType::Float, seed + 1)};
  };
  expectRunsMatchReference(std::move(f), {inputs(0, 1), inputs(4, 2), inputs(0, 3)});
}

// A user's full (FullOp) in a kernel: added to an input, and alone (a kernel with no
// inputs); generated, compiled with NVRTC, and interpreted equal to the reference.
TEST(EmptyTensors, FullRunsThroughKernels) {
  auto f = std::make_unique<Fusion>();
  {
    FusionGuard fg(f.get());
    TensorView* x = makeContigConcreteTensor({3, 131}, DataType::Half);
    f->addInput(x);
    f->addOutput(add(x, full({constInt(3), constInt(131)}, constFloat(1.5), DataType::Half)));
    f->addOutput(full({constInt(2), constInt(5)}, constInt(-7, DataType::Int64), DataType::Int32));
  }
  auto inputs = [](int64_t n) {
    return std::vector<Tensor>{Tensor::random({3, n}, DataType::Half, static_cast<uint64_t>(n))};
  };
  Fusion user(*f);
  FusionExecutorCache fec(std::move(f));
  fec.runFusionWithInputs(inputs(131));
  EXPECT_THAT(fec.getMostRecentCode(), HasSubstr("= mf_cast<mf_half>(1.5f);"));
  EXPECT_THAT(fec.getMostRecentCode(), HasSubstr("T4[0] = mf_cast<int>(-7);"));
  const std::vector<Tensor> out = fec.runFusionWithInputs(inputs(131));
  for (int64_t i = 0; i < 10; ++i) EXPECT_EQ(out[1].item(i), -7.0);
  expectRunsMatchReference(std::make_unique<Fusion>(user), {inputs(131), inputs(131)});
}

// ---- a tensor that is neither an input nor computed ----

// An output that is neither an input nor computed, and (one op deeper) relu(t) of a `t`
// never added as an input: the same UserError naming the tensor from every entry point.
std::unique_ptr<Fusion> orphanOutput(bool deeper) {
  auto f = std::make_unique<Fusion>();
  FusionGuard fg(f.get());
  TensorView* x = makeContigTensor(1);
  f->addInput(x);
  f->addOutput(relu(x));
  TensorView* t = makeContigConcreteTensor({3});
  f->addOutput(deeper ? relu(t) : t);
  return f;
}

class OrphanTensor : public ::testing::TestWithParam<bool> {};

TEST_P(OrphanTensor, IsAUserErrorFromEveryEntryPoint) {
  const bool deeper = GetParam();
  const std::string named =
      deeper ? "T2_l_float[iS2{3}] is neither a fusion input nor computed by an expr; add it "
               "with fusion.addInput(T2)"
             : "T2_g_float[iS2{3}] is neither a fusion input nor computed by an expr; add it "
               "with fusion.addInput(T2)";
  const std::vector<Tensor> in = {Tensor::random({3}, DataType::Float, 1)};
  EXPECT_THAT(
      [&] {
        FusionExecutorCache fec(orphanOutput(deeper));
        fec.runFusionWithInputs(in);
      },
      ThrowsMessage<UserError>(HasSubstr("FusionExecutorCache: " + named)));
  std::unique_ptr<Fusion> f = orphanOutput(deeper);
  EXPECT_THAT([&] { ReferenceEvaluator(f.get()).run(in); },
              ThrowsMessage<UserError>(HasSubstr("ReferenceEvaluator: " + named)));
  EXPECT_THAT(
      [&] {
        KernelExecutor ke;
        ke.compile(f.get(), in);
      },
      ThrowsMessage<UserError>(HasSubstr("KernelExecutor::compile: " + named)));
  EXPECT_THAT([&] { SegmentCandidateFinder::segment(*f, in); },
              ThrowsMessage<UserError>(HasSubstr("SegmentCandidateFinder::segment: " + named)));
  EXPECT_THAT([&] { verifyFusion(*f); },
              ThrowsMessage<UserError>(HasSubstr("verifyFusion: " + named)));
}

INSTANTIATE_TEST_SUITE_P(EmptyTensors, OrphanTensor, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "OneOpDeeper" : "Output"; });

}  // namespace
}  // namespace mf

namespace mf {
namespace {

// nvFuser's FusionZeroSizeTensorReduction: an output of constant size 0 that nothing computes
// (nor reads: it is no input) beside a sum. It is empty whatever the inputs, so it is made, not
// computed; a computed output stays what the rest of the fusion computes.
std::unique_ptr<Fusion> zeroSizeOutput() {
  auto f = std::make_unique<Fusion>();
  FusionGuard fg(f.get());
  TensorView* tv0 = makeSymbolicTensor(2);
  f->addInput(tv0);
  TensorView* tv1 = makeConcreteTensor({0});
  f->addInput(tv1);
  f->addOutput(sum(tv0, {1}));
  f->addOutput(makeConcreteTensor({0}));
  return f;
}

std::vector<Tensor> zeroSizeOutputInputs() {
  return {Tensor::random({2, 4}, DataType::Float, 1), Tensor::random({0}, DataType::Float, 2)};
}

TEST(EmptyTensors, ZeroSizeOutputThroughTheCache) {
  expectRunsMatchReference(zeroSizeOutput(), {zeroSizeOutputInputs()});
}

// The Reduction scheduler forced on it (nvFuser's scheduleAndRun(Reduction)) refuses with
// its reason: the empty output is made by a full, no op of a reduction kernel (it was a UserError
// from a cacheBefore the scheduler called itself). The whole fusion runs through the cache above.
TEST(EmptyTensors, ZeroSizeOutputForcedReductionRefusesWithAReason) {
  std::unique_ptr<Fusion> f = zeroSizeOutput();
  ReductionScheduler red;
  EXPECT_FALSE(red.canScheduleCompileTime(f.get()));
  EXPECT_THAT(red.rejectReason(), HasSubstr("`T3_g_float[iS5{0}] = full(0.0)` is neither a "
                                            "pointwise op, a broadcast nor a reduction"));
}

}  // namespace
}  // namespace mf
