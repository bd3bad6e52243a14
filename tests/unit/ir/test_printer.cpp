// The IR printer: fusion math, transforms, and the one-line forms of every node. Names come
// from per-kind counters (T for tensors, iS for axes, i/f/d/b for scalars), so the text is
// deterministic and compared verbatim.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "ir/builder.h"
#include "ir/fusion.h"
#include "ir/tensor_view.h"
#include "ops/arith.h"
#include "ops/layout.h"
#include "ops/tensor_factories.h"

namespace mf {
namespace {

// A pointwise chain prints one line per tensor expr; an output takes the extents of its first
// operand and its memory type is global (_g), intermediates are local (_l).
TEST(Printer, PointwiseChainMath) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  TensorView* tv1 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  fusion.addInput(tv1);
  TensorView* tv2 = add(tv0, tv1);
  TensorView* tv3 = mul(tv2, tv1);
  TensorView* tv4 = sub(tv3, tv0);
  fusion.addOutput(tv4);

  EXPECT_EQ(fusion.mathString(), R"(Inputs:
  T0_g_float[iS0{i0}, iS1{i1}]
  T1_g_float[iS2{i2}, iS3{i3}]
Outputs:
  T4_g_float[iS8{i0}, iS9{i1}]

%kernel_math {
T2_l_float[iS4{i0}, iS5{i1}] = T0 + T1
T3_l_float[iS6{i0}, iS7{i1}] = T2 * T1
T4_g_float[iS8{i0}, iS9{i1}] = T3 - T0
} // %kernel_math
)");
}

// Unary ops print as function calls, neg and logical_not as prefix operators, a cast names its
// target dtype; where/clamp print their three operands. Exprs are listed in dependency order
// (a depth-first walk from the outputs), so !T1 comes before the chain on T0.
TEST(Printer, UnaryCastWhereClampLines) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  TensorView* tv1 = makeSymbolicTensor(2, DataType::Bool);
  fusion.addInput(tv0);
  fusion.addInput(tv1);
  TensorView* tv2 = neg(tv0);
  TensorView* tv3 = exp(tv2);
  TensorView* tv4 = castOp(DataType::Half, tv3);
  TensorView* tv5 = logicalNot(tv1);
  TensorView* tv6 = where(tv5, tv4, tv0);
  TensorView* tv7 = clamp(tv6, constFloat(0.0), constFloat(6.0));
  fusion.addOutput(tv7);

  EXPECT_EQ(fusion.mathString(), R"(Inputs:
  T0_g_float[iS0{i0}, iS1{i1}]
  T1_g_bool[iS2{i2}, iS3{i3}]
Outputs:
  T7_g_float[iS14{i2}, iS15{i3}]

%kernel_math {
T5_l_bool[iS10{i2}, iS11{i3}] = !T1
T2_l_float[iS4{i0}, iS5{i1}] = -T0
T3_l_float[iS6{i0}, iS7{i1}] = exp(T2)
T4_l_half[iS8{i0}, iS9{i1}] = cast<half>(T3)
T6_l_float[iS12{i2}, iS13{i3}] = where(T5, T4, T0)
T7_g_float[iS14{i2}, iS15{i3}] = clamp(T6, 0.0, 6.0)
} // %kernel_math
)");
}

// broadcast prints its flags and yields bS axes of extent 1; set is a copy; a scalar operand
// defined by an expr prints inline in parentheses, and scalar inputs are listed with dtypes.
TEST(Printer, BroadcastSetAndScalarOperandLines) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1);
  Val* s = newScalar(DataType::Double);
  fusion.addInput(tv0);
  fusion.addInput(s);
  TensorView* tv1 = broadcast(tv0, {false, true});
  TensorView* tv2 = set(tv1);
  Val* factor = mul(s, constFloat(2.0));
  TensorView* tv3 = mul(tv2, factor);
  fusion.addOutput(tv3);

  EXPECT_EQ(factor->definition()->toString(), "d5 = d1 * 2.0");
  EXPECT_EQ(fusion.mathString(), R"(Inputs:
  T0_g_float[iS0{i0}]
  d1 (double)
Outputs:
  T3_g_float[iS5{i0}, bS6{1}]

%kernel_math {
T1_l_float[iS1{i0}, bS2{1}] = broadcast(T0, {false, true})
T2_l_float[iS3{i0}, bS4{1}] = set(T1)
T3_g_float[iS5{i0}, bS6{1}] = T2 * ( d1 * 2.0 )
} // %kernel_math
)");
}

// Scalar exprs print as `out = rhs`; infix ops get parentheses only when inlined into another
// printout, function-style ops (ceilDiv, where, cast) never do.
TEST(Printer, ScalarExprLines) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Val* a = newScalar(DataType::Index);
  Val* b = newScalar(DataType::Index);
  Val* sum = add(a, b);
  Val* cdiv = SimplifyingIrBuilder::ceilDiv(sum, b);
  Val* less = lt(a, b);
  Val* pick = SimplifyingIrBuilder::where(less, a, b);
  Val* as_float = SimplifyingIrBuilder::cast(DataType::Float, a);
  Val* negated = neg(a);
  Val* big = maximum(a, b);

  EXPECT_EQ(sum->definition()->toString(), "i2 = i0 + i1");
  EXPECT_EQ(cdiv->definition()->toString(), "i3 = ceilDiv(( i0 + i1 ), i1)");
  EXPECT_EQ(less->definition()->toString(), "b4 = i0 < i1");
  EXPECT_EQ(pick->definition()->toString(), "i5 = where(( i0 < i1 ), i0, i1)");
  EXPECT_EQ(as_float->definition()->toString(), "f6 = cast<float>(i0)");
  EXPECT_EQ(negated->definition()->toString(), "i7 = -i0");
  EXPECT_EQ(big->definition()->toString(), "i8 = maximum(i0, i1)");
  EXPECT_EQ(sum->toString(), "i2");
  EXPECT_EQ(sum->toInlineString(), "( i0 + i1 )");
  EXPECT_EQ(cdiv->toInlineString(), "ceilDiv(( i0 + i1 ), i1)");
}

// A symbolic scalar's prefix is its dtype's letter: b bool, i integer, f float-like, d double.
TEST(Printer, SymbolicScalarPrefixes) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  EXPECT_EQ(newScalar(DataType::Bool)->toString(), "b0");
  EXPECT_EQ(newScalar(DataType::Float)->toString(), "f1");
  EXPECT_EQ(newScalar(DataType::Half)->toString(), "f2");
  EXPECT_EQ(newScalar(DataType::Double)->toString(), "d3");
  EXPECT_EQ(newScalar(DataType::Int32)->toString(), "i4");
  EXPECT_EQ(newScalar(DataType::Index)->toString(), "i5");
}

// A constant prints its value: integers plainly, floating values as the shortest text that
// reads back exactly (always with a '.' or exponent), NaN/inf as CUDA spells them.
TEST(Printer, ConstantValues) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  EXPECT_EQ(constInt(128)->toString(), "128");
  EXPECT_EQ(constInt(-3)->toString(), "-3");
  EXPECT_EQ(constBool(true)->toString(), "true");
  EXPECT_EQ(constBool(false)->toString(), "false");
  EXPECT_EQ(constFloat(2.5)->toString(), "2.5");
  EXPECT_EQ(constFloat(0.0)->toString(), "0.0");
  EXPECT_EQ(constFloat(1e20)->toString(), "1e+20");
  EXPECT_EQ(constFloat(NAN)->toString(), "NAN");
  EXPECT_EQ(constFloat(INFINITY)->toString(), "INFINITY");
  EXPECT_EQ(constFloat(-INFINITY)->toString(), "-INFINITY");
  // 0.1 rounded to float is 0.100000001490116119384765625; the text round-trips.
  EXPECT_EQ(constFloat(0.1, DataType::Float)->toString(), "0.10000000149011612");
}

// An axis prints <iter type><parallel type><name>{extent}: i/r/b/? for iteration, reduction,
// broadcast, symbolic; S for serial, the CUDA name for thread/block dims, V, UR.
TEST(Printer, IterDomainForms) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  auto* iter = IterDomainBuilder(newScalar(DataType::Index)).build();
  auto* red = IterDomainBuilder(constInt(8)).iterType(IterType::Reduction).build();
  auto* bcast = IterDomainBuilder(constInt(1)).iterType(IterType::Broadcast).build();
  auto* sym = IterDomainBuilder(constInt(5)).iterType(IterType::Symbolic).build();
  auto* vec = IterDomainBuilder(constInt(4)).build();
  auto* unr = IterDomainBuilder(constInt(2)).build();
  auto* bidy = IterDomainBuilder(constInt(3)).build();
  vec->parallelize(ParallelType::Vectorize);
  unr->parallelize(ParallelType::Unroll);
  bidy->parallelize(ParallelType::BIDy);
  EXPECT_EQ(iter->toString(), "iS0{i0}");
  EXPECT_EQ(red->toString(), "rS1{8}");
  EXPECT_EQ(bcast->toString(), "bS2{1}");
  EXPECT_EQ(sym->toString(), "?S3{5}");
  EXPECT_EQ(vec->toString(), "iV4{4}");
  EXPECT_EQ(unr->toString(), "iUR5{2}");
  EXPECT_EQ(bidy->toString(), "iblockIdx.y6{3}");
}

// A tensor prints T<name>_<memory type>_<dtype>[loop domain], plus ca_pos( n ) when inlined;
// its inline form is just T<name>.
TEST(Printer, TensorViewForms) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2, DataType::BFloat16);
  TensorView* tv1 = makeConcreteTensor({4, 8}, DataType::Float8_e4m3fn);
  EXPECT_EQ(tv0->toString(), "T0_l_bfloat16[iS0{i0}, iS1{i1}]");
  EXPECT_EQ(tv0->toInlineString(), "T0");
  EXPECT_EQ(tv1->toString(), "T1_l_float8_e4m3fn[iS2{4}, iS3{8}]");
  tv0->setMemoryType(MemoryType::Shared);
  tv0->setComputeAtPosition(1);
  EXPECT_EQ(tv0->toString(), "T0_s_bfloat16[iS0{i0}, iS1{i1}] ca_pos( 1 )");
}

// The layout op prints its data input, both offsets, the K and G scalars and the layout.
TEST(Printer, LayoutOpLine) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* in = makeSymbolicTensor(2);
  TensorView* in_off = makeSymbolicTensor(1, DataType::Int32);
  TensorView* out_off = makeSymbolicTensor(1, DataType::Int32);
  fusion.addInput(in);
  fusion.addInput(in_off);
  fusion.addInput(out_off);
  fusion.addOutput(preprocessGroupedMatmulInputSf(in, in_off, out_off));

  EXPECT_EQ(fusion.mathString(), R"(Inputs:
  T0_g_float[iS0{i0}, iS1{i1}]
  T1_g_int32[iS2{i2}]
  T2_g_int32[iS3{i3}]
Outputs:
  T3_g_float[iS4{i0}, iS5{i1}]

%kernel_math {
T3_g_float[iS4{i0}, iS5{i1}] = preprocessGroupedMatmulInputSf(T0, input_offsets = T1, output_offsets = T2, k = i1, g = i2, layout = Block128x4)
} // %kernel_math
)");
}

// transformsString lists, per tensor, the logical domain, contiguity (t/f, n for none), the
// Merge/Split history in order, and the loop domain after reorder and parallelize.
TEST(Printer, TransformsAfterMergeSplitReorderParallelize) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = relu(tv0);
  fusion.addOutput(tv1);
  tv1->merge(0, 1)->split(0, 128)->reorder({{1, 0}});
  tv1->parallelize(0, ParallelType::TIDx)->parallelize(1, ParallelType::BIDx);

  EXPECT_EQ(fusion.transformsString(), R"(%kernel_transforms {
T0_g_float[iS0{i0}, iS1{i1}]
 logical domain : (iS0{i0}, iS1{i1})
 contiguity: f f
 loop domain : (iS0{i0}, iS1{i1})
T1_g_float[ithreadIdx.x6{128}, iblockIdx.x5{ceilDiv(( i0 * i1 ), 128)}]
 logical domain : (iS2{i0}, iS3{i1})
 contiguity: t t
  Merge: iS2{i0} and iS3{i1} -> iS4{( i0 * i1 )}
  Split: iS4{( i0 * i1 )} by factor 128 -> iblockIdx.x5{ceilDiv(( i0 * i1 ), 128)}, ithreadIdx.x6{128}
 loop domain : (ithreadIdx.x6{128}, iblockIdx.x5{ceilDiv(( i0 * i1 ), 128)})
} // %kernel_transforms
)");
}

// An outer split is marked "(outer)" and puts the factor on the outer axis; a broadcast axis
// has contiguity n.
TEST(Printer, OuterSplitAndBroadcastContiguity) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigConcreteTensor({1, -1});
  fusion.addInput(tv0);
  TensorView* tv1 = set(tv0);
  fusion.addOutput(tv1);
  tv1->split(1, 32, /*inner_split=*/false);

  EXPECT_EQ(fusion.transformsString(), R"(%kernel_transforms {
T0_g_float[bS0{1}, iS1{i1}]
 logical domain : (bS0{1}, iS1{i1})
 contiguity: n t
 loop domain : (bS0{1}, iS1{i1})
T1_g_float[bS2{1}, iS4{32}, iS5{ceilDiv(i1, 32)}]
 logical domain : (bS2{1}, iS3{i1})
 contiguity: n t
  Split: iS3{i1} by factor 32 (outer) -> iS4{32}, iS5{ceilDiv(i1, 32)}
 loop domain : (bS2{1}, iS4{32}, iS5{ceilDiv(i1, 32)})
} // %kernel_transforms
)");
}

// The worked example of docs/ir.md: a 2-D tensor with a column-major allocation domain,
// merged, split by 128 and bound to blocks and threads. Keep the two in sync.
TEST(Printer, DocsWorkedExample) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = exp(tv0);
  fusion.addOutput(tv1);
  tv1->setAllocationDomain({tv1->getLogicalDomain()[1], tv1->getLogicalDomain()[0]}, true);
  tv1->merge(0, 1);
  tv1->split(0, 128);
  tv1->parallelize(0, ParallelType::BIDx);
  tv1->parallelize(1, ParallelType::TIDx);

  EXPECT_EQ(fusion.mathString(), R"(Inputs:
  T0_g_float[iS0{i0}, iS1{i1}]
Outputs:
  T1_g_float[iblockIdx.x5{ceilDiv(( i0 * i1 ), 128)}, ithreadIdx.x6{128}]

%kernel_math {
T1_g_float[iblockIdx.x5{ceilDiv(( i0 * i1 ), 128)}, ithreadIdx.x6{128}] = exp(T0)
} // %kernel_math
)");
  EXPECT_EQ(fusion.transformsString(), R"(%kernel_transforms {
T0_g_float[iS0{i0}, iS1{i1}]
 logical domain : (iS0{i0}, iS1{i1})
 contiguity: t t
 loop domain : (iS0{i0}, iS1{i1})
T1_g_float[iblockIdx.x5{ceilDiv(( i0 * i1 ), 128)}, ithreadIdx.x6{128}]
 logical domain : (iS2{i0}, iS3{i1})
 allocation domain : (iS3{i1}, iS2{i0})
 contiguity: t t
  Merge: iS2{i0} and iS3{i1} -> iS4{( i0 * i1 )}
  Split: iS4{( i0 * i1 )} by factor 128 -> iblockIdx.x5{ceilDiv(( i0 * i1 ), 128)}, ithreadIdx.x6{128}
 loop domain : (iblockIdx.x5{ceilDiv(( i0 * i1 ), 128)}, ithreadIdx.x6{128})
} // %kernel_transforms
)");
}

}  // namespace
}  // namespace mf
