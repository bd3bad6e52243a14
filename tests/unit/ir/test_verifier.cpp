// The IR verifier: every fusion built through the API passes; IR corrupted on purpose is
// caught as an InternalError (the only tests where an InternalError is expected).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/builder.h"
#include "ir/fusion.h"
#include "ir/tensor_view.h"
#include "ir/verifier.h"
#include "ops/arith.h"
#include "ops/layout.h"
#include "ops/tensor_factories.h"

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace mf {
namespace {

// Pointwise math, a broadcast, a scheduled output and the layout op all verify.
TEST(Verifier, PassesOnBuiltFusions) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  TensorView* tv1 = makeSymbolicTensor(1, DataType::Half);
  Val* s = newScalar(DataType::Float);
  fusion.addInput(tv0);
  fusion.addInput(tv1);
  fusion.addInput(s);
  TensorView* tv2 = add(tv0, broadcast(tv1, {true, false}));
  TensorView* tv3 = where(gt(tv2, s), tv2, constFloat(0.0));
  fusion.addOutput(tv3);
  tv3->merge(0)->split(0, 128)->parallelize(0, ParallelType::BIDx);
  tv3->parallelize(1, ParallelType::TIDx);
  tv2->setComputeAtPosition(1);
  EXPECT_NO_THROW(verifyFusion(fusion));

  TensorView* in_off = makeSymbolicTensor(1, DataType::Int64);
  TensorView* out_off = makeSymbolicTensor(1, DataType::Int64);
  fusion.addInput(in_off);
  fusion.addInput(out_off);
  fusion.addOutput(preprocessGroupedMatmulInputSf(tv0, in_off, out_off));
  EXPECT_NO_THROW(verifyFusion(fusion));
}

// An expr whose output is defined by another expr is caught.
TEST(Verifier, CatchesOutputDefinedElsewhere) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1);
  fusion.addInput(tv0);
  TensorView* tv1 = exp(tv0);
  fusion.addOutput(tv1);
  // Corrupt: a second expr claims tv1 as its output.
  IrBuilder::create<UnaryOp>(std::vector<Val*>{tv0}, std::vector<Val*>{tv1}, UnaryOpType::Neg);
  EXPECT_THAT([&] { verifyFusion(fusion); },
              ThrowsMessage<InternalError>(
                  AllOf(HasSubstr("T1 is an output of `T1_g_float[iS1{i0}] = exp(T0)`"),
                        HasSubstr("but defined elsewhere"))));
}

// A fusion input with a definition is caught.
TEST(Verifier, CatchesInputWithDefinition) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1);
  TensorView* tv1 = makeSymbolicTensor(1);
  fusion.addInput(tv0);
  fusion.addInput(tv1);
  fusion.addOutput(add(tv0, tv1));
  // Corrupt: define the input tv1 from tv0.
  IrBuilder::create<UnaryOp>(std::vector<Val*>{tv0}, std::vector<Val*>{tv1}, UnaryOpType::Neg);
  EXPECT_THAT([&] { verifyFusion(fusion); },
              ThrowsMessage<InternalError>(HasSubstr("input T1 has a definition")));
}

// A cycle is caught.
TEST(Verifier, CatchesCycle) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1);
  fusion.addInput(tv0);
  TensorView* tv1 = neg(tv0);
  TensorView* tv2 = neg(tv1);
  fusion.addOutput(tv2);
  // Corrupt: tv1 = -tv2 while tv2 = -tv1.
  fusion.removeExpr(tv1->definition());
  IrBuilder::create<UnaryOp>(std::vector<Val*>{tv2}, std::vector<Val*>{tv1}, UnaryOpType::Neg);
  EXPECT_THAT([&] { verifyFusion(fusion); },
              ThrowsMessage<InternalError>(HasSubstr("cycle in the IR")));
}

// A loop domain that does not cover the logical domain is caught.
TEST(Verifier, CatchesLoopDomainNotCoveringLogical) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  auto* id = IterDomainBuilder(newScalar(DataType::Index)).build();
  auto* stray = id->freshCopy();
  // Corrupt: built with the full constructor, which does not validate.
  auto* td = IrBuilder::create<TensorDomain>(std::vector<IterDomain*>{}, std::vector{id},
                                             std::vector<IterDomain*>{}, std::vector{stray},
                                             Contiguity{true}, false);
  fusion.addInput(IrBuilder::create<TensorView>(td, DataType::Float));
  EXPECT_THAT([&] { verifyFusion(fusion); },
              ThrowsMessage<InternalError>(AllOf(HasSubstr("T0_g_float[iS1{i0}]: loop domain"),
                                                 HasSubstr("axis iS1{i0} is not derived"))));
}

// An undeclared allocation domain unrelated to logical is caught; the same axes declared as
// not derived pass.
TEST(Verifier, CatchesUnrelatedUndeclaredAllocation) {
  for (bool declared : {false, true}) {
    Fusion fusion;
    FusionGuard fg(&fusion);
    auto* id = IterDomainBuilder(newScalar(DataType::Index)).build();
    auto* padded =
        IterDomainBuilder(SimplifyingIrBuilder::add(id->extent(), constInt(127))).build();
    auto* td = IrBuilder::create<TensorDomain>(std::vector<IterDomain*>{}, std::vector{id},
                                               std::vector{padded}, std::vector{id},
                                               Contiguity{true}, declared);
    fusion.addInput(IrBuilder::create<TensorView>(td, DataType::Float));
    if (declared) {
      EXPECT_NO_THROW(verifyFusion(fusion));
    } else {
      EXPECT_THAT([&] { verifyFusion(fusion); },
                  ThrowsMessage<InternalError>(
                      HasSubstr("allocation domain: axis iS1{( i0 + 127 )} is not derived")));
    }
  }
}

// Contiguity of the wrong length is refused already when the domain is built (the
// verifier's own check of it stays as a backstop).
TEST(Verifier, CatchesContiguityLength) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  auto* id = IterDomainBuilder(newScalar(DataType::Index)).build();
  EXPECT_THAT(
      [&] {
        IrBuilder::create<TensorDomain>(std::vector<IterDomain*>{}, std::vector{id},
                                        std::vector<IterDomain*>{}, std::vector{id},
                                        Contiguity{true, true}, false);
      },
      ThrowsMessage<UserError>(HasSubstr("expected one flag per allocation axis (1), got 2")));
}

// A compute-at position left past the loop domain by a later merge is caught.
TEST(Verifier, CatchesComputeAtPastLoopDomain) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = neg(tv0);
  fusion.addOutput(exp(tv1));
  tv1->setComputeAtPosition(2);
  tv1->merge(0);
  EXPECT_THAT([&] { verifyFusion(fusion); },
              ThrowsMessage<InternalError>(HasSubstr("ca_pos out of range")));
}

// A tensor the outputs need that was never added with addInput is a UserError naming it (the
// user's mistake, not a broken invariant); every entry point that runs a fusion says the same.
TEST(Verifier, TensorNeverAddedAsInputIsAUserError) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1);
  TensorView* forgotten = makeSymbolicTensor(1);
  fusion.addInput(tv0);
  fusion.addOutput(add(tv0, forgotten));
  EXPECT_THAT([&] { verifyFusion(fusion); },
              ThrowsMessage<UserError>(HasSubstr(
                  "verifyFusion: T1_l_float[iS1{i1}] is neither a fusion input nor computed by "
                  "an expr; add it with fusion.addInput(T1)")));
  fusion.addInput(forgotten);
  EXPECT_NO_THROW(verifyFusion(fusion));
}

}  // namespace
}  // namespace mf
