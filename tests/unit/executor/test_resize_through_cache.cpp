// Resize and shape ops through FusionExecutorCache whose kernels the shape-op fuzzer caught
// reading or writing the wrong elements (#16): each fusion is concretized, segmented,
// scheduled, lowered and compiled, its kernels run on the host kernel interpreter (which
// starts every register and output as NaN and fails on any access outside a buffer), and
// every output equals the CPU reference bit for bit. Each test names the rule it pins.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "minifuser.h"
#include "random/kernel_interpreter.h"
#include "scheduler/pointwise_utils.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using Build = std::function<void(Fusion&)>;

struct Ran {
  bool segmented = false;
  std::string code;  // every kernel's source
};

// Runs the fusion `build` makes on `inputs` through a cache, then its kernels on the
// interpreter; the outputs must equal the reference's exactly.
Ran expectMatchesReference(const Build& build, const std::vector<Tensor>& inputs) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    build(*fusion);
  }
  const std::vector<Tensor> want = ReferenceEvaluator(fusion.get()).run(inputs);
  FusionExecutorCache fec(std::move(fusion));
  fec.runFusionWithInputs(inputs);
  FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
  Ran ran{rt->isSegmented(), fec.getMostRecentCode()};
  const std::vector<Tensor> got = rt->runOnHost(inputs, testing::interpretKernelOrThrow);
  EXPECT_EQ(got.size(), want.size());
  for (size_t o = 0; o < want.size() && o < got.size(); ++o) {
    EXPECT_EQ(got[o].sizes(), want[o].sizes()) << "output " << o;
    if (got[o].sizes() != want[o].sizes()) continue;
    for (int64_t i = 0; i < want[o].numel(); ++i)
      if (got[o].item(i) != want[o].item(i)) {
        ADD_FAILURE() << "output " << o << " element " << i << ": " << got[o].item(i)
                      << ", reference " << want[o].item(i) << "\n"
                      << ran.code;
        break;
      }
  }
  return ran;
}

std::vector<int64_t> rowCounts() {
  return {1, 2, 7};
}

// A slice or cat that concretizes to a size-1 broadcast, written by a 128-thread block:
// only the thread at the element writes it (the others' reads are predicated off).
TEST(ResizeThroughCache, SizeOneBroadcastOutputIsWrittenOnce) {
  for (int64_t rows : rowCounts()) {
    SCOPED_TRACE(rows);
    const std::vector<Tensor> in = {Tensor::random({rows, 1}, DataType::Float, 1),
                                    Tensor::random({1}, DataType::Float, 2)};
    expectMatchesReference(
        [](Fusion& f) {
          TensorView* t = makeContigTensor(2);
          TensorView* u = makeContigTensor(1);
          f.addInput(t);
          f.addInput(u);
          TensorView* c = cat({neg(slice(u, {0}, {1})), neg(slice(u, {1}, {1}))}, 0);
          f.addOutput(add(broadcast(c, {true, false}), t));
        },
        in);
    expectMatchesReference(
        [](Fusion& f) {
          TensorView* t = makeContigTensor(2);
          TensorView* u = makeContigTensor(1);
          f.addInput(t);
          f.addInput(u);
          f.addOutput(add(broadcast(neg(slice(u, {0}, {1})), {true, false}), t));
        },
        in);
  }
}

// An output with a leading broadcast axis merged with a concrete one ([1, 13] as one loop of
// 128): the broadcast's index, i / 13, is checked, or threads past 13 overwrite the row.
TEST(ResizeThroughCache, LeadingBroadcastOfAnOutputIsGuarded) {
  for (int64_t cols : {1, 5, 13}) {
    SCOPED_TRACE(cols);
    Ran ran = expectMatchesReference(
        [cols](Fusion& f) {
          TensorView* t = makeContigTensor(2);
          f.addInput(t);
          TensorView* p = pad(t, {constInt(0), constInt(0), constInt(0), constInt(2)});
          f.addOutput(p);
          f.addOutput(add(mul(t, constFloat(2.0)), slice(abs(p), {0, 0}, {1, cols})));
        },
        {Tensor::random({1, cols}, DataType::Float, 3)});
    EXPECT_TRUE(ran.segmented);  // pad's output is computed before the crop (below)
  }
}

// A slice to one element written through a pad's loop: the sliced broadcast's index runs
// over the pad's positions and is guarded to its one element.
TEST(ResizeThroughCache, SliceToOneElementThenPadIsGuarded) {
  for (int64_t rows : rowCounts()) {
    SCOPED_TRACE(rows);
    Ran ran = expectMatchesReference(
        [](Fusion& f) {
          TensorView* t = makeContigTensor(2);
          f.addInput(t);
          TensorView* s = slice(neg(t), {0, 2}, {1, 3});
          f.addOutput(s);
          f.addOutput(pad(abs(s), {constInt(2), constInt(2)}));
        },
        {Tensor::random({rows, 5}, DataType::Float, 4)});
    EXPECT_FALSE(ran.segmented);
  }
}

// pad(x) is an output and slice(pad(x)) leads to the reference: the reference's loop, mapped
// back through the crop, would not cover the pad's borders, so the pointwise scheduler
// refuses and the segmenter cuts after the pad.
TEST(ResizeThroughCache, OutputBeforeACropIsCutFromIt) {
  for (int64_t rows : rowCounts()) {
    SCOPED_TRACE(rows);
    const std::vector<Tensor> in = {Tensor::random({rows, 100}, DataType::Float, 5),
                                    Tensor::random({rows, 100}, DataType::Float, 6)};
    Ran ran = expectMatchesReference(
        [](Fusion& f) {
          TensorView* t = makeContigTensor(2);
          TensorView* u = makeContigTensor(2);
          f.addInput(t);
          f.addInput(u);
          TensorView* p = pad(t, {constInt(1), constInt(3)});
          f.addOutput(p);
          f.addOutput(add(slice(p, {0, 1}, {1 << 20, 101}), u));
        },
        in);
    EXPECT_TRUE(ran.segmented);
  }
  // The rule, with its reason: slice(pad(x)) cannot be the reference while pad(x) is an
  // output (and pad(x) cannot be, as the slice would not lead to it).
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t = makeContigConcreteTensor({3, 100});
  fusion.addInput(t);
  TensorView* p = pad(t, {constInt(1), constInt(3)});
  fusion.addOutput(p);
  TensorView* q = neg(slice(p, {0, 1}, {3, 101}));
  fusion.addOutput(q);
  EXPECT_THAT(resizeRejectReason(&fusion, q).value_or(""),
              HasSubstr("is computed before the crop"));
  SchedulerRuntimeInfo info(&fusion, {Tensor::random({3, 100}, DataType::Float, 7)});
  EXPECT_FALSE(proposeHeuristics(&fusion, info).accepted());
}

// pad(crop(x)): the pad's loop starts below the crop's output, so x is read below 0 unless
// the crop's input index is guarded from below too.
TEST(ResizeThroughCache, PadOfACropGuardsTheCropsInputFromBelow) {
  for (int64_t n : {3, 5, 11}) {
    SCOPED_TRACE(n);
    expectMatchesReference(
        [](Fusion& f) {
          TensorView* t = makeContigTensor(1);
          f.addInput(t);
          TensorView* crop = pad(t, {constInt(-1), constInt(-2)});
          f.addOutput(crop);
          TensorView* back = pad(abs(crop), {constInt(1), constInt(2)}, constFloat(-2.0));
          f.addOutput(back);
          f.addOutput(pad(neg(back), {constInt(2), constInt(3)}, constFloat(4.0)));
        },
        {Tensor::random({n}, DataType::Float, 8)});
  }
}

// A segment whose cat pads are widened by extents of a fusion input it does not read (the
// other pieces were cut into another segment): the input joins the segment, unread, so its
// sizes bind those extents.
TEST(ResizeThroughCache, SegmentBindsExtentsOfAnInputItDoesNotRead) {
  for (int64_t rows : {3, 4, 9}) {
    SCOPED_TRACE(rows);
    Ran ran = expectMatchesReference(
        [rows](Fusion& f) {
          TensorView* t = makeContigTensor(2);
          f.addInput(t);
          TensorView* a = neg(slice(t, {0, 0}, {2, 4}));
          TensorView* b = slice(t, {2, 0}, {rows, 4});
          f.addOutput(cat({segment_set(a), b}, 0));
        },
        {Tensor::random({rows, 4}, DataType::Float, 9)});
    EXPECT_TRUE(ran.segmented);
  }
}

// A cat with an empty input runs as the cat of the others (removeEmpty drops it), at each
// position of the empty input, and a cat of one non-empty input as its copy.
TEST(ResizeThroughCache, CatWithAnEmptyInput) {
  for (int64_t empty_at : {0, 1, 2}) {
    SCOPED_TRACE(empty_at);
    std::vector<std::vector<int64_t>> shapes = {{2, 7}, {5, 7}, {1, 7}};
    shapes[static_cast<size_t>(empty_at)][0] = 0;
    std::vector<Tensor> in;
    for (size_t i = 0; i < shapes.size(); ++i)
      in.push_back(Tensor::random(shapes[i], DataType::Float, 20 + i));
    expectMatchesReference(
        [](Fusion& f) {
          std::vector<TensorView*> tvs;
          for (int i = 0; i < 3; ++i) {
            tvs.push_back(makeContigTensor(2));
            f.addInput(tvs.back());
          }
          f.addOutput(mul(cat(tvs, 0), constFloat(2.0)));
        },
        in);
  }
  expectMatchesReference(
      [](Fusion& f) {
        TensorView* a = makeContigTensor(1);
        TensorView* b = makeContigTensor(1);
        f.addInput(a);
        f.addInput(b);
        f.addOutput(neg(cat({a, b}, 0)));
      },
      {Tensor::random({0}, DataType::Float, 1), Tensor::random({13}, DataType::Float, 2)});
}

// A cat input padded by nothing along the cat's axis (the other inputs are constant-empty)
// has no Resize there: its offset is a new constant 0, made without the caller's
// FusionGuard (seed 3765 of `random_fusions --shape-ops` terminated the run).
TEST(ResizeThroughCache, CatOffsetNeedsNoGuard) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* a = makeContigConcreteTensor({3, 4});
    TensorView* b = makeContigConcreteTensor({0, 4});
    fusion->addInput(a);
    fusion->addInput(b);
    fusion->addOutput(neg(cat({a, b}, 0)));
  }
  const std::vector<Tensor> in = {Tensor::random({3, 4}, DataType::Float, 1),
                                  Tensor::random({0, 4}, DataType::Float, 2)};
  const Tensor out = ReferenceEvaluator(fusion.get()).run(in).at(0);
  ASSERT_EQ(out.sizes(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(out.item(5), -in[0].item(5));
}

// `x >= broadcast(y)` cropped then padded back: the pads' Resizes are replayed onto the
// broadcast axis, which must run over the promoted extent resized alike (13 - 1 + 1), not
// over 1 - 1 + 1 (the row index of y was the flat index: a wrong row) nor 1 - 1 = 0 (an empty
// loop, unguarded: y read past its end). A reshape round trip of x puts the comparison in a
// segment of its own, with y's broadcast as its input.
TEST(ResizeThroughCache, PadReplayedOntoABroadcastRunsOverItsPromotedExtent) {
  for (int64_t rows : {1, 5, 1023}) {
    for (bool pad_back : {true, false}) {
      SCOPED_TRACE(::testing::Message() << rows << (pad_back ? " padded back" : " sliced"));
      expectMatchesReference(
          [pad_back](Fusion& f) {
            TensorView* x = makeContigTensor(2);
            TensorView* y = makeContigTensor(1, DataType::Bool);
            f.addInput(x);
            f.addInput(y);
            TensorView* b = broadcast(y, {false, true});
            TensorView* ax = abs(x);
            TensorView* acc =
                add(ax, reshape(squeeze(broadcast(flatten(ax), {true, false}), {0}),
                                std::vector<Val*>{x->axis(0)->extent(), x->axis(1)->extent()}));
            TensorView* crop = pad(ge(x, b), {constInt(0), constInt(-1)}, constBool(false));
            TensorView* bits = logicalNot(crop);
            if (pad_back) {
              bits = pad(bits, {constInt(0), constInt(1)}, constBool(false));
            } else {
              acc = slice(acc, {0, 0}, {1 << 20, 12});
            }
            f.addOutput(add(acc, castOp(DataType::Float, bits)));
          },
          {Tensor::random({rows, 13}, DataType::Float, 30),
           Tensor::random({rows}, DataType::Bool, 31)});
    }
  }
}

// A static reshape whose original_sizes say a symbolic Iteration axis is 1 merges that axis
// instead of squeezing it (a squeeze needs a Broadcast axis): [1, 18, 8] -> [144] runs.
TEST(ResizeThroughCache, StaticReshapeOfASymbolicSizeOneAxis) {
  expectMatchesReference(
      [](Fusion& f) {
        TensorView* t = makeContigTensor(3);
        f.addInput(t);
        f.addOutput(neg(reshape(t, {1, 18, 8}, {144})));
      },
      {Tensor::random({1, 18, 8}, DataType::Float, 10)});
  // Nothing to merge it with ([1] -> [1, 1]): squeezed, as a view, and each run checks that
  // it is 1.
  Build one = [](Fusion& f) {
    TensorView* t = makeContigTensor(1);
    f.addInput(t);
    f.addOutput(neg(reshape(t, {1}, {1, 1})));
  };
  expectMatchesReference(one, {Tensor::random({1}, DataType::Float, 11)});
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    one(*fusion);
  }
  FusionExecutorCache fec(std::move(fusion));
  EXPECT_THAT([&] { fec.runFusionWithInputs({Tensor::random({3}, DataType::Float, 12)}); },
              ::testing::ThrowsMessage<UserError>(
                  HasSubstr("must concretize to IterType::Broadcast but found "
                            "IterType::Iteration of extent 3")));
}

}  // namespace
}  // namespace mf
