// The pre-segmentation passes on the IR (#16, section 3): removeEmpty (nvFuser's
// RemoveEmptyPass: empty tensors and reductions over empty axes become fulls, with the
// run-time sizes bound) and removeDeadExprs. Each test prints the fusion before and after.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/expr_evaluator.h"
#include "minifuser.h"
#include "passes/passes.h"
#include "tensor/arguments.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// Runs removeEmpty on `f` with `inputs` bound, as FusionKernelRuntime does.
void removeEmptyFor(Fusion& f, const std::vector<Tensor>& inputs) {
  ExpressionEvaluator ee;
  bindFusionInputs(f, inputs, ee, "test");
  FusionPassRequest request;
  request.passes = {"removeEmpty"};
  request.evaluator = &ee;
  runFusionPasses(f, request);
}

std::vector<Tensor> randoms(const std::vector<std::vector<int64_t>>& shapes) {
  std::vector<Tensor> out;
  uint64_t seed = 1;
  for (const auto& s : shapes) out.push_back(Tensor::random(s, DataType::Float, seed++));
  return out;
}

// A reduction over an empty axis into a non-empty result becomes full(init) of its data
// axes, and every input extent its value; the input stays an input, read by nothing.
TEST(RemoveEmpty, ReductionOverEmptyAxisIsFullOfIdentity) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* x = makeContigTensor(2);
  f.addInput(x);
  f.addOutput(add(max(x, {1}), constFloat(1.0)));
  EXPECT_EQ(f.mathString(), R"(Inputs:
  T0_g_float[iS0{i0}, iS1{i1}]
Outputs:
  T2_g_float[iS4{i0}]

%kernel_math {
T1_l_float[iS2{i0}, rS3{i1}] = reduction(T0, op = max, initial = -INFINITY)
T2_g_float[iS4{i0}] = T1 + 1.0
} // %kernel_math
)");
  removeEmptyFor(f, randoms({{5, 0}}));
  EXPECT_EQ(f.mathString(), R"(Inputs:
  T0_g_float[iS5{5}, iS6{0}]
Outputs:
  T2_g_float[iS9{5}]

%kernel_math {
T3_l_float[iS10{5}] = full(-INFINITY)
T2_g_float[iS9{5}] = T3 + 1.0
} // %kernel_math
)");
}

// An empty tensor's definition becomes full(0): its producers, dead then, are gone; the
// output keeps its identity (T4 stays T4). A non-empty output of another input is left as
// it is, its input's extent aside.
TEST(RemoveEmpty, EmptyTensorIsFullOfZeros) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* x = makeContigTensor(2);
  TensorView* y = makeContigTensor(2);
  TensorView* z = makeContigTensor(1);
  for (TensorView* tv : {x, y, z}) f.addInput(tv);
  f.addOutput(mul(add(x, y), constFloat(2.0)));
  f.addOutput(neg(z));
  EXPECT_EQ(f.mathString(), R"(Inputs:
  T0_g_float[iS0{i0}, iS1{i1}]
  T1_g_float[iS2{i2}, iS3{i3}]
  T2_g_float[iS4{i4}]
Outputs:
  T4_g_float[iS7{i0}, iS8{i1}]
  T5_g_float[iS9{i4}]

%kernel_math {
T3_l_float[iS5{i0}, iS6{i1}] = T0 + T1
T4_g_float[iS7{i0}, iS8{i1}] = T3 * 2.0
T5_g_float[iS9{i4}] = -T2
} // %kernel_math
)");
  removeEmptyFor(f, randoms({{0, 7}, {0, 7}, {3}}));
  EXPECT_EQ(f.mathString(), R"(Inputs:
  T0_g_float[iS10{0}, iS11{7}]
  T1_g_float[iS12{0}, iS13{7}]
  T2_g_float[iS14{3}]
Outputs:
  T4_g_float[iS17{0}, iS18{7}]
  T5_g_float[iS19{3}]

%kernel_math {
T4_g_float[iS17{0}, iS18{7}] = full(0.0)
T5_g_float[iS19{3}] = -T2
} // %kernel_math
)");
}

// sum with keep_dim is a reduction and a broadcast: the broadcast of the full folds into a
// full of the broadcast's shape (the pointwise scheduler moves broadcasts to inputs, which a
// full is not).
TEST(RemoveEmpty, BroadcastOfFullFolds) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* x = makeContigTensor(2);
  f.addInput(x);
  f.addOutput(sum(x, {1}, /*keep_dim=*/true));
  removeEmptyFor(f, randoms({{5, 0}}));
  EXPECT_EQ(f.mathString(), R"(Inputs:
  T0_g_float[iS6{5}, iS7{0}]
Outputs:
  T2_g_float[iS10{5}, bS5{1}]

%kernel_math {
T2_g_float[iS10{5}, bS5{1}] = full(0.0)
} // %kernel_math
)");
}

// Nothing empty: the fusion is untouched (its version too: the runtime then stays reusable
// across sizes).
TEST(RemoveEmpty, LeavesNonEmptyFusionsAlone) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* x = makeContigTensor(2);
  f.addInput(x);
  f.addOutput(sum(exp(x), {1}));
  const std::string before = f.mathString();
  const uint64_t version = f.version();
  removeEmptyFor(f, randoms({{5, 3}}));
  EXPECT_EQ(f.mathString(), before);
  EXPECT_EQ(f.version(), version);
  // An empty input that only passes through is no reason to rewrite either.
  Fusion g;
  FusionGuard fg2(&g);
  TensorView* e = makeContigTensor(2);
  g.addInput(e);
  g.addOutput(e);
  const uint64_t g_version = g.version();
  removeEmptyFor(g, randoms({{0, 3}}));
  EXPECT_EQ(g.version(), g_version);
}

// Exprs whose results reach no output are removed; the live ones and the inputs stay.
// A cat with an empty input becomes the cat of the others (two left: a CatOp of two pads),
// or a copy of the one left; the result still equals the reference's.
TEST(RemoveEmpty, CatDropsEmptyInputs) {
  for (int64_t empty_at : {0, 1, 2}) {
    SCOPED_TRACE(empty_at);
    Fusion f;
    FusionGuard fg(&f);
    std::vector<TensorView*> tvs;
    for (int i = 0; i < 3; ++i) {
      tvs.push_back(makeContigTensor(2));
      f.addInput(tvs.back());
    }
    f.addOutput(mul(cat(tvs, 0), constFloat(2.0)));
    std::vector<std::vector<int64_t>> shapes = {{2, 3}, {4, 3}, {1, 3}};
    shapes[static_cast<size_t>(empty_at)][0] = 0;
    const std::vector<Tensor> in = randoms(shapes);
    const std::vector<Tensor> want = ReferenceEvaluator(&f).run(in);
    removeEmptyFor(f, in);
    int64_t cats = 0, pads = 0;
    for (Expr* e : f.exprs()) {
      cats += e->isA<CatOp>();
      pads += e->isA<PadOp>();
    }
    EXPECT_EQ(cats, 1) << f.mathString();
    EXPECT_EQ(pads, 2) << f.mathString();
    const Tensor got = ReferenceEvaluator(&f).run(in).at(0);
    ASSERT_EQ(got.sizes(), want[0].sizes());
    for (int64_t i = 0; i < got.numel(); ++i) EXPECT_EQ(got.item(i), want[0].item(i));
  }
  // One input left: a copy of it, no resize op.
  Fusion f;
  FusionGuard fg(&f);
  TensorView* a = makeContigTensor(1);
  TensorView* b = makeContigTensor(1);
  f.addInput(a);
  f.addInput(b);
  f.addOutput(neg(cat({a, b}, 0)));
  removeEmptyFor(f, randoms({{0}, {5}}));
  EXPECT_THAT(f.mathString(), HasSubstr("= set(T1)"));
  EXPECT_THAT(f.mathString(), ::testing::Not(HasSubstr("cat(")));
}

TEST(RemoveDeadExprs, RemovesWhatReachesNoOutput) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* x = makeContigTensor(1);
  f.addInput(x);
  TensorView* n = neg(x);
  castOp(DataType::Half, tanh(n));  // dead
  f.addOutput(exp(n));
  auto tensorExprs = [&] {
    int64_t count = 0;
    for (const auto& s : f.statements())
      if (auto* e = dynamic_cast<Expr*>(s.get()); e && e->output(0)->isA<TensorView>()) ++count;
    return count;
  };
  EXPECT_EQ(tensorExprs(), 4);
  EXPECT_EQ(n->uses().size(), 2u);
  const std::string math = f.mathString();
  FusionPassRequest request;
  request.passes = {"removeDeadExprs"};
  runFusionPasses(f, request);
  EXPECT_EQ(tensorExprs(), 2);
  EXPECT_EQ(n->uses().size(), 1u);
  EXPECT_EQ(f.mathString(), math);
}

// ---- full ----

TEST(Full, BuildsAFullOp) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* x = makeContigTensor(2);
  f.addInput(x);
  TensorView* t = full({constInt(3), constInt(4)}, constFloat(1.5), DataType::Half);
  f.addOutput(add(t, x));
  EXPECT_EQ(t->definition()->toString(), "T1_l_half[iS2{3}, iS3{4}] = full(1.5)");
  const std::vector<Tensor> out = ReferenceEvaluator(&f).run(randoms({{3, 4}}));
  EXPECT_EQ(out[0].sizes(), (std::vector<int64_t>{3, 4}));
}

TEST(Full, BadArgumentsAreUserErrors) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* x = makeContigTensor(1);
  EXPECT_THAT([&] { full({constInt(-2)}, constFloat(0.0), DataType::Float); },
              ThrowsMessage<UserError>(HasSubstr("full: extent 0 is negative (-2)")));
  EXPECT_THAT([&] { full({constInt(2)}, x, DataType::Float); },
              ThrowsMessage<UserError>(HasSubstr("full: the fill value must be a scalar, got T0")));
  EXPECT_THAT(
      [&] {
        full({constInt(2), constFloat(2.0)}, constFloat(0.0), DataType::Float);
      },
      ThrowsMessage<UserError>(HasSubstr("full: extent 1 must be an integer scalar")));
  EXPECT_THAT([&] { full({x->axis(0)->extent()}, constFloat(0.0), DataType::Float); },
              ThrowsMessage<UserError>(HasSubstr(
                  "full: extent 0 (i0) must be a constant: a segment holding the full reads no "
                  "tensor to take it from")));
}

}  // namespace
}  // namespace mf
