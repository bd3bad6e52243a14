// TensorView::rFactor: the rfactor tensor (root, logical, loop), the rewritten reduction, the
// two ReductionOps, the logical map across both halves, and the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/builder.h"
#include "ir/fusion.h"
#include "ir/logical_domain_map.h"
#include "ops/reduction.h"
#include "ops/tensor_factories.h"

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace mf {
namespace {

std::string printPairs(const TensorView* producer, const TensorView* consumer) {
  std::string s;
  for (auto [p, c] : PairwiseLogicalDomainMap(producer, consumer).pairs())
    s += p->toString() + " -> " + c->toString() + "\n";
  return s;
}

// nvFuser's Tutorial.ReductionRFactor: each of 128 threads reduces a strided slice of a row
// (the rfactor tensor), then the block reduces the 128 partial sums.
TEST(RFactor, SplitReductionAxis) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = sum(tv0, {1});
  fusion.addOutput(tv1);
  tv1->split(1, 128);
  tv1->parallelize(0, ParallelType::BIDx);
  tv1->parallelize(2, ParallelType::TIDx);
  TensorView* tv2 = tv1->rFactor({1});
  EXPECT_EQ(fusion.mathString(), R"(Inputs:
  T0_g_float[iS0{i0}, iS1{i1}]
Outputs:
  T1_g_float[iblockIdx.x2{i0}, rthreadIdx.x10{128}]

%kernel_math {
T2_l_float[iblockIdx.x6{i0}, rS8{ceilDiv(i1, 128)}, ithreadIdx.x9{128}] = reduction(T0, op = add, initial = 0.0)
T1_g_float[iblockIdx.x2{i0}, rthreadIdx.x10{128}] = reduction(T2, op = add, initial = 0.0)
} // %kernel_math
)");
  EXPECT_THAT(fusion.transformsString(),
              HasSubstr(R"(T2_l_float[iblockIdx.x6{i0}, rS8{ceilDiv(i1, 128)}, ithreadIdx.x9{128}]
 root domain : (iblockIdx.x6{i0}, rS7{i1})
 logical domain : (iblockIdx.x6{i0}, rS8{ceilDiv(i1, 128)}, ithreadIdx.x9{128})
 contiguity: t n t
  Split: rS7{i1} by factor 128 -> rS8{ceilDiv(i1, 128)}, ithreadIdx.x9{128}
 loop domain : (iblockIdx.x6{i0}, rS8{ceilDiv(i1, 128)}, ithreadIdx.x9{128})
T1_g_float[iblockIdx.x2{i0}, rthreadIdx.x10{128}]
 logical domain : (iblockIdx.x2{i0}, rthreadIdx.x10{128})
 contiguity: t n
 loop domain : (iblockIdx.x2{i0}, rthreadIdx.x10{128})
)"));
  // The input's axes map to the rfactor root (the reduced one to its reduction axis); the
  // rfactor tensor's non-reduction logical axes map to the final reduction's axes.
  EXPECT_EQ(printPairs(tv0, tv2), "iS0{i0} -> iblockIdx.x6{i0}\niS1{i1} -> rS7{i1}\n");
  EXPECT_EQ(printPairs(tv2, tv1),
            "iblockIdx.x6{i0} -> iblockIdx.x2{i0}\nithreadIdx.x9{128} -> rthreadIdx.x10{128}\n");
}

// Merged reduction axes: the merge and the split both belong to the rfactor tensor's
// root -> logical history.
TEST(RFactor, MergedReductionAxes) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = sum(tv0, {0, 1});
  fusion.addOutput(tv1);
  tv1->merge(0)->split(0, 32);
  TensorView* tv2 = tv1->rFactor({0});
  EXPECT_EQ(tv2->toString(), "T2_l_float[rS10{ceilDiv(( i0 * i1 ), 32)}, iS11{32}]");
  EXPECT_THAT(fusion.transformsString(), HasSubstr(R"( root domain : (rS7{i0}, rS8{i1})
 logical domain : (rS10{ceilDiv(( i0 * i1 ), 32)}, iS11{32})
 contiguity: n t
  Merge: rS7{i0} and rS8{i1} -> rS9{( i0 * i1 )}
  Split: rS9{( i0 * i1 )} by factor 32 -> rS10{ceilDiv(( i0 * i1 ), 32)}, iS11{32}
)"));
  EXPECT_EQ(tv1->toString(), "T1_g_float[rS12{32}]");
  EXPECT_EQ(printPairs(tv2, tv1), "iS11{32} -> rS12{32}\n");
}

// A split of the kept part (not an ancestor of the rfactored axis) stays in the loop domains:
// the rfactor tensor's logical has the kept axis whole, and the final reduction replays the
// split on its fresh copy.
TEST(RFactor, KeptAxisTransformsStayInTheLoop) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = sum(tv0, {1});
  fusion.addOutput(tv1);
  tv1->split(1, 128)->split(2, 32);
  TensorView* tv2 = tv1->rFactor({1});
  EXPECT_THAT(fusion.transformsString(), HasSubstr(R"( root domain : (iS8{i0}, rS9{i1})
 logical domain : (iS8{i0}, rS10{ceilDiv(i1, 128)}, iS11{128})
 contiguity: t n t
  Split: rS9{i1} by factor 128 -> rS10{ceilDiv(i1, 128)}, iS11{128}
  Split: iS11{128} by factor 32 -> iS12{4}, iS13{32}
 loop domain : (iS8{i0}, rS10{ceilDiv(i1, 128)}, iS12{4}, iS13{32})
)"));
  EXPECT_THAT(fusion.transformsString(), HasSubstr(R"(T1_g_float[iS2{i0}, rS15{4}, rS16{32}]
 logical domain : (iS2{i0}, rS14{128})
 contiguity: t n
  Split: rS14{128} by factor 32 -> rS15{4}, rS16{32}
)"));
  EXPECT_EQ(printPairs(tv2, tv1), "iS8{i0} -> iS2{i0}\niS11{128} -> rS14{128}\n");
}

// Unsplit axes: the rfactor tensor reduces axis 1, the final reduction axis 2.
TEST(RFactor, WholeReductionAxis) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(3);
  fusion.addInput(tv0);
  TensorView* tv1 = max(tv0, {1, 2});
  fusion.addOutput(tv1);
  TensorView* tv2 = tv1->rFactor({1});
  EXPECT_EQ(tv2->toString(), "T2_l_float[iS6{i0}, rS7{i1}, iS8{i2}]");
  EXPECT_EQ(tv1->toString(), "T1_g_float[iS3{i0}, rS9{i2}]");
  EXPECT_THAT(tv2->definition()->toString(), HasSubstr("reduction(T0, op = max"));
  EXPECT_THAT(tv1->definition()->toString(), HasSubstr("reduction(T2, op = max"));
  EXPECT_EQ(tv0->uses().size(), 1u);
}

// A copy of the fusion prints the same (the clone keeps root, logical and loop).
TEST(RFactor, SurvivesFusionCopy) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = sum(tv0, {1});
  fusion.addOutput(tv1);
  tv1->split(1, 4)->rFactor({1});
  Fusion copy(fusion);
  EXPECT_EQ(copy.transformsString(), fusion.transformsString());
  EXPECT_EQ(copy.mathString(), fusion.mathString());
}

TEST(RFactor, Errors) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  fusion.addInput(tv0);
  TensorView* tv1 = sum(tv0, {1});
  fusion.addOutput(tv1);
  EXPECT_THAT([&] { tv0->rFactor({0}); },
              ThrowsMessage<UserError>(HasSubstr(
                  "rFactor: T0_g_float[iS0{i0}, iS1{i1}] is not the output of a reduction")));
  EXPECT_THAT(
      [&] { tv1->rFactor({0}); },
      ThrowsMessage<UserError>(HasSubstr(
          "rFactor: axis 0 of T1_g_float[iS2{i0}, rS3{i1}] is iS2{i0}, not a reduction axis")));
  EXPECT_THAT([&] { tv1->rFactor({1}); },
              ThrowsMessage<UserError>(HasSubstr(
                  "rFactor: T1_g_float[iS2{i0}, rS3{i1}] must keep at least one reduction axis")));
  // No axes would leave the reduction as it is: say so instead of doing nothing.
  EXPECT_THAT([&] { tv1->rFactor({}); },
              ThrowsMessage<UserError>(HasSubstr(
                  "rFactor: no axes given for T1_g_float[iS2{i0}, rS3{i1}]; name the reduction "
                  "axes the rfactor tensor reduces")));
  tv1->split(1, 8);
  EXPECT_THAT(
      [&] {
        tv1->rFactor({1, -2});
      },
      ThrowsMessage<UserError>(HasSubstr("rFactor: axis -2 of T1_g_float")));
  tv1->setComputeAtPosition(1);
  EXPECT_THAT(
      [&] { tv1->rFactor({1}); },
      ThrowsMessage<UserError>(HasSubstr("is already inlined or has an allocation domain")));
}

}  // namespace
}  // namespace mf
