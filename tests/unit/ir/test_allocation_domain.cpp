// Allocation domains: an ordinary one must be derived from the logical domain (permutation,
// split/merge) with one contiguity flag per axis; only a *declared* one (the layout op's
// padded buffer) skips the equivalence check.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/builder.h"
#include "ir/fusion.h"
#include "ir/tensor_view.h"
#include "ir/verifier.h"
#include "ops/layout.h"
#include "ops/tensor_factories.h"

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace mf {
namespace {

// A 2-D symbolic fusion input T0 [iS0{i0}, iS1{i1}].
TensorView* makeInput2d(Fusion& fusion) {
  TensorView* tv = makeSymbolicTensor(2);
  fusion.addInput(tv);
  return tv;
}

// The layout op's output T3 of T0 [M, K] float, T1/T2 [G] Int32, registered as fusion I/O.
TensorView* makeLayoutFusion(Fusion& fusion) {
  TensorView* in = makeSymbolicTensor(2);
  TensorView* in_off = makeSymbolicTensor(1, DataType::Int32);
  TensorView* out_off = makeSymbolicTensor(1, DataType::Int32);
  fusion.addInput(in);
  fusion.addInput(in_off);
  fusion.addInput(out_off);
  TensorView* out = preprocessGroupedMatmulInputSf(in, in_off, out_off);
  fusion.addOutput(out);
  return out;
}

constexpr std::string_view kLayoutTransforms = R"(%kernel_transforms {
T0_g_float[iS0{i0}, iS1{i1}]
 logical domain : (iS0{i0}, iS1{i1})
 contiguity: f f
 loop domain : (iS0{i0}, iS1{i1})
T1_g_int32[iS2{i2}]
 logical domain : (iS2{i2})
 contiguity: f
 loop domain : (iS2{i2})
T2_g_int32[iS3{i3}]
 logical domain : (iS3{i3})
 contiguity: f
 loop domain : (iS3{i3})
T3_g_float[iS4{i0}, iS5{i1}]
 logical domain : (iS4{i0}, iS5{i1})
 allocation domain (declared, not derived from logical) : (iS6{( i0 + ( i2 * 127 ) )}, iS7{( ceilDiv(i1, 4) * 4 )})
 contiguity: t t
 loop domain : (iS4{i0}, iS5{i1})
} // %kernel_transforms
)";

// A permutation of the logical axes is a valid allocation domain (column-major here).
TEST(AllocationDomain, AcceptsPermutation) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeInput2d(fusion);
  const auto logical = tv->getLogicalDomain();
  tv->setAllocationDomain({logical[1], logical[0]}, true);
  EXPECT_TRUE(tv->domain()->hasAllocation());
  EXPECT_FALSE(tv->domain()->allocationDeclared());
  EXPECT_EQ(tv->getMaybeAllocationDomain()[0], logical[1]);
  EXPECT_EQ(fusion.transformsString(), R"(%kernel_transforms {
T0_g_float[iS0{i0}, iS1{i1}]
 logical domain : (iS0{i0}, iS1{i1})
 allocation domain : (iS1{i1}, iS0{i0})
 contiguity: t t
 loop domain : (iS0{i0}, iS1{i1})
} // %kernel_transforms
)");
  EXPECT_NO_THROW(verifyFusion(fusion));
}

// An inner split of a logical axis is a valid allocation domain; contiguity has one flag per
// allocation axis and the split shows in the transforms.
TEST(AllocationDomain, AcceptsInnerSplitOfLogicalAxis) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeInput2d(fusion);
  const auto logical = tv->getLogicalDomain();
  auto [outer, inner] = IterDomain::split(logical[0], constInt(4), /*inner_split=*/true);
  tv->setAllocationDomain({outer, inner, logical[1]}, Contiguity{false, true, true});
  EXPECT_EQ(fusion.transformsString(), R"(%kernel_transforms {
T0_g_float[iS0{i0}, iS1{i1}]
 logical domain : (iS0{i0}, iS1{i1})
 allocation domain : (iS2{ceilDiv(i0, 4)}, iS3{4}, iS1{i1})
 contiguity: f t t
  Split: iS0{i0} by factor 4 -> iS2{ceilDiv(i0, 4)}, iS3{4}
 loop domain : (iS0{i0}, iS1{i1})
} // %kernel_transforms
)");
  EXPECT_NO_THROW(verifyFusion(fusion));
}

// An outer split of a logical axis, with its outer part moved first, is valid too.
TEST(AllocationDomain, AcceptsOuterSplitOfLogicalAxis) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeInput2d(fusion);
  const auto logical = tv->getLogicalDomain();
  auto [outer, inner] = IterDomain::split(logical[1], constInt(8), /*inner_split=*/false);
  tv->setAllocationDomain({outer, logical[0], inner}, Contiguity{true, false, true});
  EXPECT_EQ(fusion.transformsString(), R"(%kernel_transforms {
T0_g_float[iS0{i0}, iS1{i1}]
 logical domain : (iS0{i0}, iS1{i1})
 allocation domain : (iS2{8}, iS0{i0}, iS3{ceilDiv(i1, 8)})
 contiguity: t f t
  Split: iS1{i1} by factor 8 (outer) -> iS2{8}, iS3{ceilDiv(i1, 8)}
 loop domain : (iS0{i0}, iS1{i1})
} // %kernel_transforms
)");
  EXPECT_NO_THROW(verifyFusion(fusion));
}

// The scheduled loop domain (merge + split of logical) is itself a valid allocation domain.
TEST(AllocationDomain, AcceptsScheduledLoopDomain) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeInput2d(fusion);
  tv->merge(0)->split(0, 4);
  tv->setAllocationDomain(tv->getLoopDomain(), true);
  EXPECT_EQ(tv->getMaybeAllocationDomain(), tv->getLoopDomain());
  EXPECT_EQ(tv->getContiguity().size(), 2u);
  EXPECT_NO_THROW(verifyFusion(fusion));
}

// A broadcast axis may be left out of the allocation domain (it occupies no memory).
TEST(AllocationDomain, BroadcastAxisMayBeLeftOut) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeConcreteTensor({1, -1});
  fusion.addInput(tv);
  tv->setAllocationDomain({tv->getLogicalDomain()[1]}, true);
  EXPECT_EQ(tv->getContiguity(), Contiguity{true});
  EXPECT_NO_THROW(verifyFusion(fusion));
}

// An axis unrelated to the logical domain (even with the same extent) is rejected.
TEST(AllocationDomain, RejectsUnrelatedFreshAxis) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeInput2d(fusion);
  const auto logical = tv->getLogicalDomain();
  IterDomain* fresh = logical[0]->freshCopy();
  EXPECT_THAT(
      [&] {
        tv->setAllocationDomain({fresh, logical[1]}, true);
      },
      ThrowsMessage<UserError>(
          HasSubstr("setAllocationDomain of [iS0{i0}, iS1{i1}]: axis iS2{i0} is not derived from "
                    "[iS0{i0}, iS1{i1}] (through split/merge); an allocation domain must be a "
                    "permutation or split/merge of the logical domain")));
  EXPECT_FALSE(tv->domain()->hasAllocation());
}

// Every non-broadcast logical axis must be covered.
TEST(AllocationDomain, RejectsMissingAxis) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeInput2d(fusion);
  EXPECT_THAT([&] { tv->setAllocationDomain({tv->getLogicalDomain()[0]}, true); },
              ThrowsMessage<UserError>(
                  HasSubstr("setAllocationDomain of [iS0{i0}, iS1{i1}]: [iS0{i0}] does not "
                            "cover axis iS1{i1} of [iS0{i0}, iS1{i1}]")));
}

// An axis cannot appear twice.
TEST(AllocationDomain, RejectsRepeatedAxis) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeInput2d(fusion);
  const auto logical = tv->getLogicalDomain();
  EXPECT_THAT(
      [&] {
        tv->setAllocationDomain({logical[0], logical[0], logical[1]}, true);
      },
      ThrowsMessage<UserError>(
          HasSubstr("setAllocationDomain of [iS0{i0}, iS1{i1}]: axis iS0{i0} appears "
                    "twice in [iS0{i0}, iS0{i0}, iS1{i1}]")));
}

// An axis cannot be listed together with axes split from it (its memory would be counted
// twice).
TEST(AllocationDomain, RejectsAxisWithItsSplitOutputs) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeInput2d(fusion);
  const auto logical = tv->getLogicalDomain();
  auto [outer, inner] = IterDomain::split(logical[0], constInt(4), true);
  EXPECT_THAT(
      [&] {
        tv->setAllocationDomain({logical[0], outer, inner, logical[1]}, true);
      },
      ThrowsMessage<UserError>(
          HasSubstr("setAllocationDomain of [iS0{i0}, iS1{i1}]: [iS0{i0}, iS2{ceilDiv(i0, 4)}, "
                    "iS3{4}, iS1{i1}] holds iS0{i0} and an axis derived from it")));
}

// Two different splits of one axis cannot both be used.
TEST(AllocationDomain, RejectsTwoSplitsOfOneAxis) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeInput2d(fusion);
  const auto logical = tv->getLogicalDomain();
  auto [o4, i4] = IterDomain::split(logical[0], constInt(4), true);
  auto [o2, i2] = IterDomain::split(logical[0], constInt(2), true);
  EXPECT_THAT(
      [&] {
        tv->setAllocationDomain({o4, i4, o2, i2, logical[1]}, true);
      },
      ThrowsMessage<UserError>(
          HasSubstr("setAllocationDomain of [iS0{i0}, iS1{i1}]: axis iS0{i0} is used twice in "
                    "[iS2{ceilDiv(i0, 4)}, iS3{4}, iS4{ceilDiv(i0, 2)}, iS5{2}, iS1{i1}] (an axis "
                    "and an axis derived from it)")));
}

// Both outputs of a split must be kept: dropping one loses part of the index space.
TEST(AllocationDomain, RejectsDroppedSplitOutput) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeInput2d(fusion);
  const auto logical = tv->getLogicalDomain();
  auto [outer, inner] = IterDomain::split(logical[0], constInt(4), true);
  EXPECT_THAT(
      [&] {
        tv->setAllocationDomain({outer, logical[1]}, true);
      },
      ThrowsMessage<UserError>(
          HasSubstr("setAllocationDomain of [iS0{i0}, iS1{i1}]: [iS2{ceilDiv(i0, 4)}, iS1{i1}] "
                    "leaves out iS3{4}, which a split/merge of [iS0{i0}, iS1{i1}] produced")));
}

// Contiguity needs one flag per allocation axis; a rejected call leaves no allocation domain.
TEST(AllocationDomain, RejectsWrongContiguityLength) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeInput2d(fusion);
  const auto logical = tv->getLogicalDomain();
  EXPECT_THAT(
      [&] {
        tv->setAllocationDomain({logical[1], logical[0]}, Contiguity{true});
      },
      ThrowsMessage<UserError>(
          HasSubstr("contiguity of [iS0{i0}, iS1{i1}]: expected one flag per allocation "
                    "axis (2), got 1")));
  EXPECT_FALSE(tv->domain()->hasAllocation());
  EXPECT_EQ(tv->getContiguity(), (Contiguity{false, false}));
  EXPECT_NO_THROW(verifyFusion(fusion));
}

// Broadcast (and reduction) axes take no contiguity flag; the others must have one.
TEST(AllocationDomain, RejectsWrongBroadcastFlag) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeConcreteTensor({1, -1});
  IterDomain* b = tv->getLogicalDomain()[0];
  IterDomain* i = tv->getLogicalDomain()[1];
  EXPECT_THAT(
      [&] {
        tv->setAllocationDomain({i, b}, Contiguity{true, true});
      },
      ThrowsMessage<UserError>(HasSubstr(
          "contiguity of [bS0{1}, iS1{i1}]: axis 1 (bS0{1}) must have no (nullopt) flag")));
  EXPECT_THAT(
      [&] {
        tv->setAllocationDomain({i, b}, Contiguity{std::nullopt, std::nullopt});
      },
      ThrowsMessage<UserError>(HasSubstr(
          "contiguity of [bS0{1}, iS1{i1}]: axis 0 (iS1{i1}) must have a true/false flag")));
  tv->setAllocationDomain({i, b}, true);
  EXPECT_EQ(tv->getContiguity(), (Contiguity{true, std::nullopt}));
}

// The layout op declares its padded allocation domain: the printer says so, the extents are
// expressions of M, K and G, and the verifier accepts it.
TEST(AllocationDomain, DeclaredPaddedDomainOfLayoutOp) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* out = makeLayoutFusion(fusion);
  EXPECT_TRUE(out->domain()->allocationDeclared());
  EXPECT_EQ(fusion.transformsString(), kLayoutTransforms);
  EXPECT_TRUE(out->domain()->allTransforms().empty());
  EXPECT_NO_THROW(verifyFusion(fusion));
}

// An ordinary setAllocationDomain that does not cover logical still fails, also with the
// layout op's padded axes; deriving it from logical is accepted and ends the declaration.
TEST(AllocationDomain, OrdinaryDomainMustStillCoverLogical) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* out = makeLayoutFusion(fusion);
  const std::vector<IterDomain*> padded = out->domain()->allocation();
  EXPECT_THAT([&] { out->setAllocationDomain(padded, true); },
              ThrowsMessage<UserError>(HasSubstr(
                  "setAllocationDomain of [iS4{i0}, iS5{i1}]: axis iS6{( i0 + ( i2 * 127 ) )} "
                  "is not derived from [iS4{i0}, iS5{i1}] (through split/merge)")));
  EXPECT_TRUE(out->domain()->allocationDeclared());
  EXPECT_EQ(out->domain()->allocation(), padded);

  out->setAllocationDomain(out->getLogicalDomain(), true);
  EXPECT_FALSE(out->domain()->allocationDeclared());
  EXPECT_THAT(fusion.transformsString(), HasSubstr(R"(T3_g_float[iS4{i0}, iS5{i1}]
 logical domain : (iS4{i0}, iS5{i1})
 allocation domain : (iS4{i0}, iS5{i1})
 contiguity: t t
)"));
  EXPECT_NO_THROW(verifyFusion(fusion));
}

// A padded domain built by hand for an ordinary tensor is rejected by setAllocationDomain.
TEST(AllocationDomain, HandBuiltPaddedDomainRejected) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeInput2d(fusion);
  const auto logical = tv->getLogicalDomain();
  auto* rows =
      IterDomainBuilder(SimplifyingIrBuilder::add(logical[0]->extent(), constInt(127))).build();
  EXPECT_THAT(
      [&] {
        tv->setAllocationDomain({rows, logical[1]}, true);
      },
      ThrowsMessage<UserError>(HasSubstr("axis iS2{( i0 + 127 )} is not derived from")));
}

// A rejected setAllocationDomain leaves a declared domain declared (regression: the flag was
// cleared before the contiguity check failed, and the verifier then rejected the padding).
TEST(AllocationDomain, RejectedCallKeepsDeclaredDomain) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* out = makeLayoutFusion(fusion);
  const auto logical = out->getLogicalDomain();
  EXPECT_THAT(
      [&] {
        out->setAllocationDomain({logical[1], logical[0]}, Contiguity{true});
      },
      ThrowsMessage<UserError>(HasSubstr("expected one flag per allocation axis (2)")));
  EXPECT_TRUE(out->domain()->allocationDeclared());
  EXPECT_EQ(fusion.transformsString(), kLayoutTransforms);
  EXPECT_NO_THROW(verifyFusion(fusion));
}

// A declared domain must not be empty, and a rejected declaration changes nothing.
TEST(AllocationDomain, DeclaredDomainErrors) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeInput2d(fusion);
  TensorDomain* td = tv->domain();
  EXPECT_THAT([&] { td->setDeclaredAllocationDomain({}, {}); },
              ThrowsMessage<UserError>(
                  HasSubstr("setDeclaredAllocationDomain of [iS0{i0}, iS1{i1}]: empty domain")));
  IterDomain* padded = IterDomainBuilder(constInt(1024)).build();
  EXPECT_THAT(
      [&] {
        td->setDeclaredAllocationDomain({padded}, Contiguity{true, true});
      },
      ThrowsMessage<UserError>(HasSubstr("expected one flag per allocation axis (1), got 2")));
  EXPECT_FALSE(td->hasAllocation());
  EXPECT_FALSE(td->allocationDeclared());
  EXPECT_EQ(td->contiguity(), (Contiguity{false, false}));
  EXPECT_NO_THROW(verifyFusion(fusion));
}

}  // namespace
}  // namespace mf
