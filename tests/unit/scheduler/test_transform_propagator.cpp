// Transform propagation and parallelizeAllLike (scheduler/tools/transform_propagator.h): the
// reference's loop transforms reach every tensor of the fusion, parallel types follow the
// mapped axes, and the propagated + parallelized + inlined schedule lowers to a kernel that
// NVRTC compiles.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cuda/nvrtc.h"
#include "cuda/runtime_sources.h"
#include "ir/id_model.h"
#include "minifuser/minifuser.h"

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace mf {
namespace {

// T0 (input) -> neg -> exp -> relu (T3, output), all [i0, i1].
struct Chain {
  TensorView* t0 = makeSymbolicTensor(2);
  TensorView* t1 = neg(t0);
  TensorView* t2 = exp(t1);
  TensorView* t3 = relu(t2);
  explicit Chain(Fusion& fusion) {
    fusion.addInput(t0);
    fusion.addOutput(t3);
  }
};

// The 1-D pointwise schedule: [BIDx, TIDx] over the merged axes.
void gridBlock(TensorView* reference) {
  reference->merge(0, 1)->split(0, 128);
  reference->axis(0)->parallelize(ParallelType::BIDx);
  reference->axis(1)->parallelize(ParallelType::TIDx);
}

// Lowers, generates and compiles with NVRTC for sm_90 (no GPU needed); returns the kernel.
std::string compile(const Fusion& fusion) {
  std::unique_ptr<Kernel> kernel = lowerFusion(fusion, {.verify = true});
  GeneratedKernel code = generateCuda(*kernel, cuda::runtimePrelude());
  EXPECT_FALSE(cuda::compileWithNvrtc(code.full_source, code.name, {}).cubin.empty());
  return code.kernel_code;
}

// Every tensor of a chain, input included, gets the reference's merge and split; the loop
// axes are one exact group per position.
TEST(TransformPropagator, PointwiseChain) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Chain c(fusion);
  c.t3->merge(0, 1)->split(0, 128);
  propagateTransforms(c.t3);
  EXPECT_EQ(c.t0->toString(), "T0_g_float[iS18{ceilDiv(( i0 * i1 ), 128)}, iS19{128}]");
  EXPECT_EQ(c.t1->toString(), "T1_l_float[iS15{ceilDiv(( i0 * i1 ), 128)}, iS16{128}]");
  IdModel model(fusion);
  for (TensorView* tv : {c.t0, c.t1, c.t2})
    for (int64_t i = 0; i < 2; ++i)
      EXPECT_TRUE(model.areMapped(tv->axis(i), c.t3->axis(i), IdMappingMode::Exact))
          << tv->toString() << " axis " << i;
}

// propagatedAxes: the reference's axes that reach each tensor along the tree, without
// replaying anything. From sum(x, {1}): x keeps both axes, the broadcast result only i0, and
// y's reduction, reached through that broadcast, loses its reduced axis.
TEST(TransformPropagator, PropagatedAxes) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* x = makeSymbolicTensor(2);
  TensorView* y = makeSymbolicTensor(2);
  fusion.addInput(x);
  fusion.addInput(y);
  TensorView* rx = sum(x, {1});
  TensorView* bx = broadcast(rx, {false, true});
  TensorView* ry = sum(y, {1});
  fusion.addOutput(add(bx, broadcast(ry, {false, true})));
  const auto axes = propagatedAxes(rx);
  auto reached = [&](const TensorView* tv, int64_t ref_axis) {
    const IdMap& m = axes.at(tv);
    auto it = m.find(rx->getLogicalDomain()[ref_axis]);
    return it == m.end() ? std::string("-") : it->second->toString();
  };
  EXPECT_EQ(reached(rx, 1), rx->getLogicalDomain()[1]->toString());
  EXPECT_EQ(reached(x, 0), x->axis(0)->toString());
  EXPECT_EQ(reached(x, 1), x->axis(1)->toString());
  EXPECT_EQ(reached(bx, 0), bx->axis(0)->toString());
  EXPECT_EQ(reached(bx, 1), "-");
  EXPECT_EQ(reached(ry, 0), ry->axis(0)->toString());
  EXPECT_EQ(reached(ry, 1), "-");
  // Nothing was replayed.
  EXPECT_EQ(x->nDims(), 2);
  EXPECT_EQ(ry->nDims(), 2);
}

// A reordered reference (a permuted consumer) gives its order to its producers.
TEST(TransformPropagator, PermutedConsumer) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Chain c(fusion);
  c.t3->reorder({{0, 1}})->split(0, 4);
  propagateTransforms(c.t3);
  EXPECT_EQ(c.t1->toString(), "T1_l_float[iS12{ceilDiv(i1, 4)}, iS13{4}, iS2{i0}]");
  EXPECT_EQ(c.t0->toString(), "T0_g_float[iS14{ceilDiv(i1, 4)}, iS15{4}, iS0{i0}]");
}

// [M, N] + broadcast([N]): T0 keeps both reference axes and is replayed first (IDs 10-12);
// the broadcast tensor takes the merge and split over (1, N) (13-15); the 1-D input behind
// the BroadcastOp gets the split alone (the merge with the new axis is left out).
TEST(TransformPropagator, BroadcastProducer) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  TensorView* t1 = makeSymbolicTensor(1);
  fusion.addInput(t0);
  fusion.addInput(t1);
  TensorView* t2 = broadcast(t1, {true, false});
  TensorView* t3 = add(t0, t2);
  fusion.addOutput(t3);
  t3->merge(0, 1)->split(0, 128);
  propagateTransforms(t3);
  EXPECT_EQ(t2->toString(), "T2_l_float[iS14{ceilDiv(i2, 128)}, iS15{128}]");
  EXPECT_EQ(t1->toString(), "T1_g_float[iS16{ceilDiv(i2, 128)}, iS17{128}]");
  EXPECT_EQ(t0->toString(), "T0_g_float[iS11{ceilDiv(( i0 * i1 ), 128)}, iS12{128}]");
}

// A layout op's output scheduled over its padded buffer (gather form) keeps that loop.
TEST(TransformPropagator, GatherFormLayoutOpKeepsItsLoop) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* in = makeSymbolicTensor(2);
  TensorView* in_off = makeSymbolicTensor(1, DataType::Int32);
  TensorView* out_off = makeSymbolicTensor(1, DataType::Int32);
  fusion.addInput(in);
  fusion.addInput(in_off);
  fusion.addInput(out_off);
  TensorView* out = preprocessGroupedMatmulInputSf(in, in_off, out_off);
  fusion.addOutput(out);
  out->setLoopDomain(out->getMaybeAllocationDomain());
  std::string before = out->toString();
  in->split(1, 4);
  propagateTransforms(in);
  EXPECT_EQ(out->toString(), before);
  EXPECT_THAT(
      [&] { propagateTransforms(out); },
      ThrowsMessage<UserError>(HasSubstr("propagateTransforms: the reference T3_g_float[")));
}

// All parallel types, or only those listed, go to the mapped axes of every tensor.
// A reshape output that only merges axes ([i0, 9, 16] -> [i0, 144]) is reached from its
// producer: its loop is split back into [i0, 9, 16] and replayed like the reference, so its
// loop axes map (IdModel exact) to the reference's one by one, and the schedule inlines and
// compiles.
TEST(TransformPropagator, MergingReshapeOutputTakesItsProducersLoop) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* x = makeContigTensor(3);
  fusion.addInput(x);
  TensorView* y = neg(x);
  TensorView* out = reshape(y, {64, 9, 16}, {64, 144});
  fusion.addOutput(out);
  y->merge(0, 1)->split(0, 128)->split(-1, 4);  // [ceilDiv(i0 * 9, 128), 128, 4, 4]
  y->axis(0)->parallelize(ParallelType::BIDx);
  y->axis(1)->parallelize(ParallelType::TIDx);
  propagateTransforms(y);
  ASSERT_EQ(out->nDims(), 4) << out->toString();
  IdModel model(fusion);
  for (int64_t i = 0; i < 4; ++i)
    EXPECT_TRUE(model.areMapped(out->axis(i), y->axis(i), IdMappingMode::Exact))
        << out->toString() << " axis " << i;
  parallelizeAllLike(y);
  inlineMost();
  EXPECT_EQ(y->computeAtPosition(), 4);
  EXPECT_THAT(compile(fusion), HasSubstr("T2["));
}

TEST(ParallelizeAllLike, CopiesSelectedTypes) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Chain c(fusion);
  gridBlock(c.t3);
  propagateTransforms(c.t3);
  parallelizeAllLike(c.t3, {c.t1}, {ParallelType::TIDx});
  EXPECT_EQ(c.t1->toString(), "T1_l_float[iS15{ceilDiv(( i0 * i1 ), 128)}, ithreadIdx.x16{128}]");
  EXPECT_EQ(c.t2->axis(1)->parallelType(), ParallelType::Serial);
  parallelizeAllLike(c.t3);
  EXPECT_EQ(c.t2->toString(),
            "T2_l_float[iblockIdx.x12{ceilDiv(( i0 * i1 ), 128)}, ithreadIdx.x13{128}]");
}

// Vectorize goes to fusion inputs and set() copies only: the neg between two copies stays
// serial on its inner axis.
TEST(ParallelizeAllLike, VectorizeOnlyCopies) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(1);
  fusion.addInput(t0);
  TensorView* t1 = set(t0);
  TensorView* t2 = neg(t1);
  TensorView* t3 = set(t2);
  fusion.addOutput(t3);
  t3->split(0, 4)->parallelize(0, ParallelType::TIDx)->parallelize(1, ParallelType::Vectorize);
  propagateTransforms(t3);
  parallelizeAllLike(t3);
  EXPECT_EQ(t1->axis(1)->parallelType(), ParallelType::Vectorize);
  EXPECT_EQ(t0->axis(1)->parallelType(), ParallelType::Vectorize);
  EXPECT_EQ(t2->axis(1)->parallelType(), ParallelType::Serial);
  EXPECT_EQ(t2->axis(0)->parallelType(), ParallelType::TIDx);
}

// Propagated, parallelized and inlined, a chain is one loop nest with register scalars, and
// the kernel compiles.
TEST(TransformPropagator, ChainScheduleCompiles) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Chain c(fusion);
  gridBlock(c.t3);
  propagateTransforms(c.t3);
  parallelizeAllLike(c.t3);
  inlineMost();
  EXPECT_EQ(c.t1->computeAtPosition(), 2);
  EXPECT_EQ(c.t2->computeAtPosition(), 2);
  std::string code = compile(fusion);
  EXPECT_THAT(code, HasSubstr("float T1[1];"));
  EXPECT_THAT(code, HasSubstr("T3["));
}

// [M, N] + broadcast([N]), scheduled like the pointwise scheduler will: the broadcast tensor
// is inlined across its broadcast axis into the loops over M * N, and the kernel compiles.
TEST(TransformPropagator, BroadcastScheduleCompiles) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* t0 = makeSymbolicTensor(2);
  TensorView* t1 = makeSymbolicTensor(1);
  fusion.addInput(t0);
  fusion.addInput(t1);
  TensorView* t2 = broadcast(t1, {true, false});
  TensorView* t3 = add(t0, t2);
  fusion.addOutput(t3);
  gridBlock(t3);
  propagateTransforms(t3);
  parallelizeAllLike(t3);
  inlineMost();
  EXPECT_EQ(t2->computeAtPosition(), 2);
  std::string code = compile(fusion);
  // T2 is one register computed from T1 at N's index, the remainder of the merged index.
  EXPECT_THAT(code, HasSubstr("float T2[1];"));
  EXPECT_THAT(code, HasSubstr("% T0.size[1]"));
}

}  // namespace
}  // namespace mf
