// The resize ops (pad, slice, cat): the IR each builds (Resize exprs, IterTypes, Symbolic
// axes for widths not known at definition), the pinned errors, and the CPU reference on
// random data against an independent element-by-element evaluation here.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "ir/builder.h"
#include "ir/fusion.h"
#include "ir/verifier.h"
#include "ops/arith.h"
#include "ops/resize.h"
#include "ops/tensor_factories.h"
#include "reference/reference_evaluator.h"

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace mf {
namespace {

Resize* resizeOf(IterDomain* id) {
  return dynamic_cast<Resize*>(id->definition());
}

// Calls f(index) for every index of `sizes`, row-major.
void forEach(const std::vector<int64_t>& sizes,
             const std::function<void(std::vector<int64_t>)>& f) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  std::vector<int64_t> idx(sizes.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    f(idx);
    for (size_t d = sizes.size(); d-- > 0;) {
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
    }
  }
}

// ---- IR ----

TEST(ResizeIr, PadResizesThePaddedAxesOnly) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigConcreteTensor({5, 7});
  fusion.addInput(tv0);
  // PyTorch order: the last axis by (1, 2); the first is left alone.
  TensorView* tv1 = pad(tv0, {constInt(1), constInt(2)});
  fusion.addOutput(tv1);
  ASSERT_TRUE(tv1->domain()->hasRoot());
  const auto& root = tv1->getMaybeRootDomain();
  const auto& logical = tv1->getLogicalDomain();
  EXPECT_EQ(logical[0], root[0]);
  Resize* r = resizeOf(logical[1]);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->in(), root[1]);
  EXPECT_EQ(r->left()->constInt(), 1);
  EXPECT_EQ(r->right()->constInt(), 2);
  EXPECT_EQ(logical[1]->extent()->constInt(), 10);
  EXPECT_EQ(logical[1]->iterType(), IterType::Iteration);
  EXPECT_EQ(r->toString(), "Resize: iS3{7} by 1 and 2 -> iS4{10}");
  EXPECT_THAT(tv1->definition()->toString(), HasSubstr("= pad(T0, {{0, 0}, {1, 2}}, value = 0.0)"));
  EXPECT_THAT(fusion.transformsString(), HasSubstr("Resize: iS3{7} by 1 and 2 -> iS4{10}"));
  verifyFusion(fusion);
}

TEST(ResizeIr, PadOfBothAxesInPyTorchOrder) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigConcreteTensor({5, 7});
  fusion.addInput(tv0);
  TensorView* tv1 = pad(tv0, {constInt(1), constInt(2), constInt(3), constInt(-4)});
  EXPECT_EQ(tv1->getLogicalDomain()[0]->extent()->constInt(), 4);   // 5 + 3 - 4
  EXPECT_EQ(tv1->getLogicalDomain()[1]->extent()->constInt(), 10);  // 7 + 1 + 2
  auto* p = tv1->definition()->as<PadOp>();
  EXPECT_EQ(p->widths(0).first->constInt(), 3);
  EXPECT_EQ(p->widths(0).second->constInt(), -4);
  EXPECT_EQ(p->paddedAxes(), (std::vector<size_t>{0, 1}));
}

// Widths that are not constants: the extent is not known, the axis is Symbolic until
// concretized. Constant widths on a symbolic extent: Iteration when they add more than one
// element (the extent is > 1 whatever the input), else Symbolic.
TEST(ResizeIr, SymbolicWhenTheExtentIsNotKnown) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1);
  Val* w = newScalar(DataType::Index);
  fusion.addInput(tv0);
  fusion.addInput(w);
  EXPECT_EQ(pad(tv0, {w, constInt(0)})->getLogicalDomain()[0]->iterType(), IterType::Symbolic);
  EXPECT_EQ(pad(tv0, {constInt(1), constInt(1)})->getLogicalDomain()[0]->iterType(),
            IterType::Iteration);
  EXPECT_EQ(pad(tv0, {constInt(1), constInt(-1)})->getLogicalDomain()[0]->iterType(),
            IterType::Symbolic);
  TensorView* tv4 = makeContigConcreteTensor({6});
  fusion.addInput(tv4);
  EXPECT_EQ(pad(tv4, {w, constInt(1)})->getLogicalDomain()[0]->iterType(), IterType::Symbolic);
  // A slice of a symbolic extent: its stop - extent is not a constant.
  EXPECT_EQ(slice(tv0, {1}, {3})->getLogicalDomain()[0]->iterType(), IterType::Symbolic);
}

// Decision (nvFuser's IterDomain::resize): a resized axis of constant extent 1 is a
// Broadcast; with widths or an extent not known it is Symbolic until concretized.
TEST(ResizeIr, SliceToOneElementIsABroadcast) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigConcreteTensor({5, 6});
  fusion.addInput(tv0);
  TensorView* tv1 = slice(tv0, {2, 0}, {3, 6});
  EXPECT_EQ(tv1->getLogicalDomain()[0]->iterType(), IterType::Broadcast);
  EXPECT_EQ(tv1->getLogicalDomain()[0]->extent()->constInt(), 1);
  // The whole range: no Resize.
  EXPECT_EQ(tv1->getLogicalDomain()[1], tv1->getMaybeRootDomain()[1]);
  Val* start = newScalar(DataType::Index);
  fusion.addInput(start);
  TensorView* tv2 =
      slice(tv0, {Slice{start, SimplifyingIrBuilder::add(start, constInt(1))}, Slice{}});
  EXPECT_EQ(tv2->getLogicalDomain()[0]->iterType(), IterType::Symbolic);
}

TEST(ResizeIr, SliceNormalizesConstantRanges) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigConcreteTensor({10});
  fusion.addInput(tv0);
  auto range = [&](int64_t start, int64_t stop) {
    auto* s = slice(tv0, {start}, {stop})->definition()->as<SliceOp>();
    return std::pair{*s->start(0)->constInt(), *s->stop(0)->constInt()};
  };
  EXPECT_EQ(range(-3, 10), (std::pair<int64_t, int64_t>{7, 10}));
  EXPECT_EQ(range(2, -1), (std::pair<int64_t, int64_t>{2, 9}));
  EXPECT_EQ(range(-20, 20), (std::pair<int64_t, int64_t>{0, 10}));
  EXPECT_EQ(range(12, 15), (std::pair<int64_t, int64_t>{10, 10}));
  EXPECT_EQ(range(6, 3), (std::pair<int64_t, int64_t>{6, 6}));  // empty
  TensorView* tv1 = slice(tv0, {6}, {3});
  EXPECT_EQ(tv1->getLogicalDomain()[0]->extent()->constInt(), 0);
}

TEST(ResizeIr, CatPadsEachInputToTheOutputExtent) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigConcreteTensor({3, 4});
  TensorView* tv1 = makeContigConcreteTensor({3, 5});
  TensorView* tv2 = makeContigConcreteTensor({3, 0});
  fusion.addInput(tv0);
  fusion.addInput(tv1);
  fusion.addInput(tv2);
  TensorView* out = cat({tv0, tv1, tv2}, -1);
  fusion.addOutput(out);
  auto* c = out->definition()->as<CatOp>();
  EXPECT_EQ(c->dim(), 1);
  ASSERT_EQ(c->inputs().size(), 3u);
  EXPECT_EQ(out->getLogicalDomain()[1]->extent()->constInt(), 9);
  for (size_t k = 0; k < 3; ++k) {
    auto* padded = c->input(k)->as<TensorView>();
    EXPECT_TRUE(padded->definition()->isA<PadOp>());
    EXPECT_EQ(padded->getLogicalDomain()[1]->extent()->constInt(), 9);
  }
  EXPECT_EQ(c->offset(0)->constInt(), 0);
  EXPECT_EQ(c->offset(1)->constInt(), 4);
  EXPECT_EQ(c->offset(2)->constInt(), 9);
  EXPECT_EQ(c->extent(2)->constInt(), 0);
  EXPECT_THAT(c->toString(), HasSubstr("= cat({T3, T4, T5}, dim = 1)"));
  verifyFusion(fusion);
  EXPECT_EQ(cat({tv0}, 0), tv0);
}

// The cloner copies Resize exprs with their widths; the copy prints the same.
TEST(ResizeIr, CloneKeepsResizes) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigConcreteTensor({5, 7});
  Val* w = newScalar(DataType::Index);
  fusion.addInput(tv0);
  fusion.addInput(w);
  fusion.addOutput(cat({pad(tv0, {w, constInt(2)}), slice(tv0, {0, 1}, {5, 7})}, 1));
  Fusion copy(fusion);
  EXPECT_EQ(copy.mathString(), fusion.mathString());
  EXPECT_EQ(copy.transformsString(), fusion.transformsString());
}

// ---- errors ----

TEST(ResizeErrors, PadWidths) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigConcreteTensor({5, 7});
  fusion.addInput(tv0);
  EXPECT_THAT([&] { pad(tv0, {constInt(1)}); },
              ThrowsMessage<UserError>(HasSubstr("pad: 1 widths given for T0")));
  EXPECT_THAT([&] { pad(tv0, std::vector<Val*>(6, constInt(1))); },
              ThrowsMessage<UserError>(HasSubstr("which has 2 axes: at most two widths per axis")));
  EXPECT_THAT(
      [&] {
        pad(tv0, {constInt(-4), constInt(-4)});
      },
      ThrowsMessage<UserError>(HasSubstr("pad: axis 1 of T0")));
  EXPECT_THAT(
      [&] {
        pad(tv0, {constFloat(1.0), constInt(0)});
      },
      ThrowsMessage<UserError>(
          HasSubstr("pad: width 1.0 of T0 must be an integer scalar, got double")));
}

TEST(ResizeErrors, SliceStepAndRanges) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigConcreteTensor({5, 7});
  fusion.addInput(tv0);
  EXPECT_THAT(
      [&] {
        slice(tv0, {Slice{}, Slice{constInt(0), constInt(6), constInt(2)}});
      },
      ThrowsMessage<UserError>(HasSubstr("slice: axis 1 of T0")));
  EXPECT_THAT(
      [&] {
        slice(tv0, {Slice{}, Slice{constInt(0), constInt(6), constInt(2)}});
      },
      ThrowsMessage<UserError>(HasSubstr("has step 2; only step 1 is supported")));
  EXPECT_THAT([&] { slice(tv0, {1}, {2}); },
              ThrowsMessage<UserError>(HasSubstr("slice: 1 ranges given for T0")));
}

TEST(ResizeErrors, CatInputsMustAgree) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigConcreteTensor({3, 4});
  TensorView* tv1 = makeContigConcreteTensor({2, 4});
  TensorView* tv2 = makeContigConcreteTensor({3, 4}, DataType::Half);
  TensorView* tv3 = makeContigConcreteTensor({3});
  for (TensorView* tv : {tv0, tv1, tv2, tv3}) fusion.addInput(tv);
  EXPECT_THAT(
      [&] {
        cat({tv0, tv1}, 1);
      },
      ThrowsMessage<UserError>(HasSubstr("cat: inputs T0_g_float[iS0{3}, iS1{4}] and "
                                         "T1_g_float[iS2{2}, iS3{4}] disagree on axis 0")));
  EXPECT_THAT(
      [&] {
        cat({tv0, tv2}, 0);
      },
      ThrowsMessage<UserError>(HasSubstr("have dtypes float and half")));
  EXPECT_THAT(
      [&] {
        cat({tv0, tv3}, 0);
      },
      ThrowsMessage<UserError>(HasSubstr("have ranks 2 and 1")));
  EXPECT_THAT([&] { cat({}, 0); }, ThrowsMessage<UserError>(HasSubstr("cat: no inputs given")));
  EXPECT_THAT([&] { cat({tv0, tv0}, 2); }, ThrowsMessage<UserError>(HasSubstr("cat: axis 2")));
}

// ---- the CPU reference ----

// pad(x, widths, value) evaluated here directly: element i reads x at i - left.
Tensor expectedPad(const Tensor& x, const std::vector<int64_t>& left,
                   const std::vector<int64_t>& right, double value) {
  std::vector<int64_t> sizes;
  for (int64_t d = 0; d < x.dim(); ++d) sizes.push_back(x.sizes()[d] + left[d] + right[d]);
  Tensor out = Tensor::empty(sizes, x.dtype());
  int64_t linear = 0;
  forEach(sizes, [&](std::vector<int64_t> idx) {
    bool inside = true;
    for (size_t d = 0; d < idx.size(); ++d) {
      idx[d] -= left[d];
      inside = inside && idx[d] >= 0 && idx[d] < x.sizes()[d];
    }
    out.data<float>()[linear++] = static_cast<float>(inside ? x.at(idx) : value);
  });
  return out;
}

void expectSame(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.sizes(), want.sizes());
  int64_t linear = 0;
  forEach(want.sizes(), [&](std::vector<int64_t> idx) {
    EXPECT_EQ(got.at(idx), want.item(linear)) << "at linear " << linear;
    ++linear;
  });
}

struct PadCase {
  std::vector<int64_t> sizes;
  std::vector<int64_t> widths;  // PyTorch order
};

// A pad shmoo: sizes 1, primes and others, widths positive, zero and negative (crops,
// down to an empty axis).
TEST(ResizeReference, PadShmoo) {
  const std::vector<PadCase> cases = {{{1}, {1, 1}},
                                      {{7}, {-3, 2}},
                                      {{7}, {0, -7}},
                                      {{13}, {-6, -7}},
                                      {{5, 11}, {2, -3}},
                                      {{5, 11}, {-1, 0, 3, -2}},
                                      {{1, 1}, {2, 3, 4, 5}},
                                      {{3, 17}, {-17, 4}},
                                      {{2, 3, 5}, {1, 1, -1, -1, 2, 0}},
                                      {{31, 7}, {0, 0, -30, 0}}};
  uint64_t seed = 1;
  for (const PadCase& c : cases) {
    SCOPED_TRACE(::testing::Message() << "case " << seed);
    Fusion fusion;
    FusionGuard fg(&fusion);
    TensorView* tv0 = makeSymbolicTensor(static_cast<int64_t>(c.sizes.size()));
    fusion.addInput(tv0);
    std::vector<Val*> widths;
    for (int64_t w : c.widths) widths.push_back(constInt(w));
    fusion.addOutput(pad(tv0, widths, constFloat(-2.5)));
    Tensor x = Tensor::random(c.sizes, DataType::Float, seed++);
    std::vector<int64_t> left(c.sizes.size(), 0), right(c.sizes.size(), 0);
    for (size_t i = 0; i < c.widths.size() / 2; ++i) {
      left[c.sizes.size() - 1 - i] = c.widths[2 * i];
      right[c.sizes.size() - 1 - i] = c.widths[2 * i + 1];
    }
    expectSame(ReferenceEvaluator(&fusion).run({x})[0], expectedPad(x, left, right, -2.5));
  }
}

// Widths from scalar inputs (the reference evaluates them).
TEST(ResizeReference, PadBySymbolicWidths) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  Val* l = newScalar(DataType::Index);
  Val* r = newScalar(DataType::Index);
  fusion.addInput(tv0);
  fusion.addInput(l);
  fusion.addInput(r);
  fusion.addOutput(pad(tv0, {l, r}));
  Tensor x = Tensor::random({3, 5}, DataType::Float, 7);
  Tensor out = ReferenceEvaluator(&fusion).run(
      {x, Tensor::fromVector<int64_t>({-2}, {}), Tensor::fromVector<int64_t>({4}, {})})[0];
  expectSame(out, expectedPad(x, {0, -2}, {0, 4}, 0.0));
}

TEST(ResizeReference, Slice) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  fusion.addOutput(slice(tv0, {1, -5}, {-1, 100}));
  fusion.addOutput(slice(tv0, {3, 0}, {4, 1}));  // [1, 1]
  fusion.addOutput(slice(tv0, {2, 4}, {2, 9}));  // empty
  Tensor x = Tensor::random({7, 11}, DataType::Float, 3);
  std::vector<Tensor> outs = ReferenceEvaluator(&fusion).run({x});
  expectSame(outs[0], expectedPad(x, {-1, -6}, {-1, 0}, 0.0));
  expectSame(outs[1], expectedPad(x, {-3, 0}, {-3, -10}, 0.0));
  EXPECT_EQ(outs[2].sizes(), (std::vector<int64_t>{0, 5}));
}

// cat along each axis, with an empty input (extent 0 along dim) among them.
TEST(ResizeReference, CatWithEmptyInputs) {
  for (int64_t dim : {0, 1}) {
    SCOPED_TRACE(::testing::Message() << "dim " << dim);
    Fusion fusion;
    FusionGuard fg(&fusion);
    std::vector<std::vector<int64_t>> sizes = {{3, 5}, {0, 5}, {1, 5}, {4, 5}};
    if (dim == 1)
      for (auto& s : sizes) s = {5, s[0]};
    std::vector<TensorView*> tvs;
    std::vector<Tensor> xs;
    uint64_t seed = 11;
    for (const auto& s : sizes) {
      tvs.push_back(makeSymbolicTensor(2));
      fusion.addInput(tvs.back());
      xs.push_back(Tensor::random(s, DataType::Float, seed++));
    }
    fusion.addOutput(cat(tvs, dim));
    Tensor out = ReferenceEvaluator(&fusion).run(xs)[0];
    std::vector<int64_t> want_sizes =
        dim == 0 ? std::vector<int64_t>{8, 5} : std::vector<int64_t>{5, 8};
    ASSERT_EQ(out.sizes(), want_sizes);
    int64_t linear = 0;
    forEach(want_sizes, [&](std::vector<int64_t> idx) {
      int64_t at = idx[dim];
      size_t k = 0;
      while (at >= xs[k].sizes()[dim]) at -= xs[k++].sizes()[dim];
      idx[dim] = at;
      EXPECT_EQ(out.item(linear++), xs[k].at(idx));
    });
  }
}

// cat of inputs disagreeing on another axis at run time: the reference names both.
TEST(ResizeReference, CatExtentMismatchAtRunTime) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  TensorView* tv1 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  fusion.addInput(tv1);
  fusion.addOutput(cat({tv0, tv1}, 1));
  EXPECT_THAT(
      [&] {
        ReferenceEvaluator(&fusion).run({Tensor::random({3, 4}, DataType::Float, 1),
                                         Tensor::random({2, 4}, DataType::Float, 2)});
      },
      ThrowsMessage<UserError>(HasSubstr("disagree on axis 0: 3 vs 2")));
}

}  // namespace
}  // namespace mf
