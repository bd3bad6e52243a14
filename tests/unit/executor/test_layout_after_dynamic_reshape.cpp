// The layout op downstream of a dynamic reshape (nvFuser bug #5384: the padded allocation
// domain did not follow concretization). By running: the layout op's input is a reshape of a
// flat tensor to [M, K] given as scalar fusion inputs, so the output's declared allocation
// [M + 127*G, ceil(K/4)*4] is written over extents known only once the FusionExecutorCache
// concretizes the fusion. At each size, through one cache: the output's buffer has the
// concretized padded shape and every element of it equals the reference, on the CPU fallback
// path and on the host path of the lowered kernels, whose output allocation is evaluated from
// the lowered IR itself. (The IR side, the concretized allocation extents, is helper dyn's
// test of the concretizer.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "minifuser.h"
#include "random/kernel_interpreter.h"
#include "tensor/arguments.h"

namespace mf {
namespace {

// Rows per group -> the input and output offsets (each group's start, and rounded to 128).
std::pair<Tensor, Tensor> offsetsFor(const std::vector<int32_t>& rows) {
  std::vector<int32_t> in_off, out_off;
  int32_t in = 0, out = 0;
  for (int32_t r : rows) {
    in_off.push_back(in);
    out_off.push_back(out);
    in += r;
    out += (r + 127) / 128 * 128;
  }
  const int64_t g = static_cast<int64_t>(rows.size());
  return {Tensor::fromVector<int32_t>(in_off, {g}), Tensor::fromVector<int32_t>(out_off, {g})};
}

// x [n] reshaped to [m, k] (scalar inputs): a dynamic reshape feeding the layout op.
std::unique_ptr<Fusion> layoutAfterDynamicReshape() {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* x = makeContigTensor(1);
  Val* m = newScalar(DataType::Int64);
  Val* k = newScalar(DataType::Int64);
  TensorView* in_off = makeContigTensor(1, DataType::Int32);
  TensorView* out_off = makeContigTensor(1, DataType::Int32);
  fusion->addInput(x);
  fusion->addInput(m);
  fusion->addInput(k);
  fusion->addInput(in_off);
  fusion->addInput(out_off);
  TensorView* x2 = reshape(x, std::vector<Val*>{m, k});
  EXPECT_TRUE(x2->domain()->hasSymbolicAxis());
  fusion->addOutput(preprocessGroupedMatmulInputSf(x2, in_off, out_off));
  return fusion;
}

struct Case {
  int64_t k;
  std::vector<int32_t> rows;  // per group; M is their sum
};

// M and K at 1, primes, K not a multiple of 4, groups not multiples of 128, one group.
const std::vector<Case> kCases = {
    {9, {100, 150, 262}}, {4, {2, 3, 295}}, {5, {1}}, {1, {7, 129}}, {13, {131}}};

std::vector<Tensor> inputsFor(const Case& c, uint64_t seed) {
  int64_t m = 0;
  for (int32_t r : c.rows) m += r;
  auto [in_off, out_off] = offsetsFor(c.rows);
  return {Tensor::random({m * c.k}, DataType::Float, seed), Tensor::fromVector<int64_t>({m}, {}),
          Tensor::fromVector<int64_t>({c.k}, {}), in_off, out_off};
}

std::vector<int64_t> paddedShape(const Case& c) {
  int64_t m = 0;
  for (int32_t r : c.rows) m += r;
  return {m + 127 * static_cast<int64_t>(c.rows.size()), (c.k + 3) / 4 * 4};
}

void expectSameBuffer(const Tensor& got, const Tensor& ref) {
  ASSERT_EQ(got.sizes(), ref.sizes());
  ASSERT_EQ(got.allocationSizes(), ref.allocationSizes());
  for (int64_t i = 0; i < ref.allocationNumel(); ++i)
    ASSERT_EQ(got.allocationItem(i), ref.allocationItem(i)) << "buffer position " << i;
}

// The host path: the interpreter runs each kernel, the layout op's included (its runtime
// function built for the host); the layout op's output buffer is also evaluated from the
// lowered kernel's own IR (layoutOf its outputs at these inputs), checked against the
// concretized shape.
std::vector<Tensor> runLoweredOnHost(Kernel& kernel, const std::vector<Tensor>& inputs,
                                     std::vector<std::vector<int64_t>>& lowered_allocations) {
  ExpressionEvaluator ee;
  bindFusionInputs(kernel.ir(), inputs, ee, "runLoweredOnHost");
  for (Val* out : kernel.ir().outputs())
    if (out->definition() && out->definition()->isA<PreprocessGroupedMatmulInputSf>())
      lowered_allocations.push_back(layoutOf(out->as<TensorView>(), ee).alloc_sizes);
  return testing::interpretKernelOrThrow(kernel, inputs);
}

// Every logical element's position equals the reference's (`ref_ones`: the reference with
// pads filled with 1, so a position where the two references agree holds an element). The
// layout op's input is a reshape computed in the kernel, so the op is written per element
// and its pads are left as they were.
void expectSameLogical(const Tensor& got, const Tensor& ref, const Tensor& ref_ones) {
  ASSERT_EQ(got.allocationSizes(), ref.allocationSizes());
  ASSERT_EQ(got.usedRows(), ref.usedRows());
  int64_t logical = 0;
  for (int64_t i = 0; i < ref.allocationNumel(); ++i) {
    if (ref.allocationItem(i) != ref_ones.allocationItem(i)) continue;
    ++logical;
    ASSERT_EQ(got.allocationItem(i), ref.allocationItem(i)) << "buffer position " << i;
  }
  EXPECT_EQ(logical, ref.numel());
}

TEST(LayoutAfterDynamicReshape, PaddedAllocationFollowsConcretizedSizes) {
  FusionExecutorCache fec(layoutAfterDynamicReshape());
  uint64_t seed = 1;
  for (const Case& c : kCases) {
    SCOPED_TRACE(fmt::format("K = {}, {} groups", c.k, c.rows.size()));
    const std::vector<Tensor> inputs = inputsFor(c, seed++);
    const std::vector<Tensor> ref = ReferenceEvaluator(fec.fusion()).run(inputs);
    ASSERT_EQ(ref[0].allocationSizes(), paddedShape(c));
    std::vector<Tensor> out = fec.runFusionWithInputs(inputs);
    EXPECT_EQ(out[0].allocationSizes(), paddedShape(c));
    expectSameBuffer(out[0], ref[0]);
    // The user's fusion stays symbolic; the cache ran a concretized copy.
    EXPECT_TRUE(fec.fusion()->hasDynamicTransform());
    EXPECT_FALSE(fec.getMostRecentKernelRuntime()
                     ->fusionSegments()
                     ->completeFusion()
                     ->hasDynamicTransform());

    std::vector<std::vector<int64_t>> lowered;
    std::vector<Tensor> host = fec.getMostRecentKernelRuntime()->runOnHost(
        inputs, [&](Kernel& kernel, const std::vector<Tensor>& in) {
          return runLoweredOnHost(kernel, in, lowered);
        });
    EXPECT_THAT(lowered, ::testing::ElementsAre(paddedShape(c)));
    expectSameLogical(host[0], ref[0],
                      ReferenceEvaluator(fec.fusion()).run(inputs, {.layout_pad_fill = 1.0})[0]);
  }
  // The same sizes again, with new data: the cache's concretization and runtime are reused.
  const int64_t concretizations = fec.countConcretizations();
  const int64_t runtimes = fec.countRuntimes();
  const std::vector<Tensor> again = inputsFor(kCases[0], 99);
  expectSameBuffer(fec.runFusionWithInputs(again)[0],
                   ReferenceEvaluator(fec.fusion()).run(again)[0]);
  EXPECT_EQ(fec.countConcretizations(), concretizations);
  EXPECT_EQ(fec.countRuntimes(), runtimes);
}

}  // namespace
}  // namespace mf
