// The unit test docs/concretization.md shows (keep the two in step): a dynamic reshape
// before and after DynamicTransform::concretizeFusion, as printed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "minifuser.h"

namespace mf {
namespace {

const char* const kBefore = R"(Inputs:
  T0_g_float[iS0{i0}, iS1{i1}]
  i2 (index)
  i3 (index)
Outputs:
  T2_g_float[?S6{i2}, ?S7{i3}]

%kernel_math {
T1_l_float[?S4{i2}, ?S5{i3}] = reshape(T0, {i2, i3}) (dynamic)
T2_g_float[?S6{i2}, ?S7{i3}] = T1 + 1.0
} // %kernel_math
%kernel_transforms {
T0_g_float[iS0{i0}, iS1{i1}]
 logical domain : (iS0{i0}, iS1{i1})
 contiguity: t t
 loop domain : (iS0{i0}, iS1{i1})
T1_l_float[?S4{i2}, ?S5{i3}]
 root domain : (iS2{i0}, iS3{i1})
 logical domain : (?S4{i2}, ?S5{i3})
 contiguity: t t
 loop domain : (?S4{i2}, ?S5{i3})
T2_g_float[?S6{i2}, ?S7{i3}]
 logical domain : (?S6{i2}, ?S7{i3})
 contiguity: t t
 loop domain : (?S6{i2}, ?S7{i3})
} // %kernel_transforms
)";
const char* const kAfter = R"(Inputs:
  T0_g_float[iS0{i0}, iS1{i1}]
  i2 (index)
  i3 (index)
Outputs:
  T2_g_float[iS13{i2}, iS14{i3}]

%kernel_math {
T3_l_float[iS10{i2}, iS12{( ceilDiv(i0, i2) * i1 )}] = reshape(T0, {i2, ( ceilDiv(i0, i2) * i1 )})
T2_g_float[iS13{i2}, iS14{i3}] = T3 + 1.0
} // %kernel_math
%kernel_transforms {
T0_g_float[iS0{i0}, iS1{i1}]
 logical domain : (iS0{i0}, iS1{i1})
 contiguity: t t
 loop domain : (iS0{i0}, iS1{i1})
T3_l_float[iS10{i2}, iS12{( ceilDiv(i0, i2) * i1 )}]
 root domain : (iS8{i0}, iS9{i1})
 logical domain : (iS10{i2}, iS12{( ceilDiv(i0, i2) * i1 )})
 contiguity: t t
  Split: iS8{i0} by factor i2 (outer) -> iS10{i2}, iS11{ceilDiv(i0, i2)}
  Merge: iS11{ceilDiv(i0, i2)} and iS9{i1} -> iS12{( ceilDiv(i0, i2) * i1 )}
 loop domain : (iS10{i2}, iS12{( ceilDiv(i0, i2) * i1 )})
T2_g_float[iS13{i2}, iS14{i3}]
 logical domain : (iS13{i2}, iS14{i3})
 contiguity: t t
 loop domain : (iS13{i2}, iS14{i3})
} // %kernel_transforms
)";

// A dynamic reshape becomes a static one for the bound sizes: no Symbolic axis is left.
TEST(Concretization, DocExample) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeContigTensor(2);
  Val* s0 = newScalar(DataType::Index);
  Val* s1 = newScalar(DataType::Index);
  fusion.addInput(tv0);
  fusion.addInput(s0);
  fusion.addInput(s1);
  TensorView* tv1 = reshape(tv0, {s0, s1});
  fusion.addOutput(add(tv1, constFloat(1.0)));
  EXPECT_TRUE(fusion.hasDynamicTransform());
  EXPECT_EQ(fusion.mathString() + fusion.transformsString(), kBefore);

  // [4, 3] -> [2, 6]: split axis 0 by outer extent 2 ([2, 2, 3]), merge the last two.
  ExpressionEvaluator ee;
  ee.bindTensorSizes(tv0, std::vector<int64_t>{4, 3});
  ee.bind(s0, int64_t{2});
  ee.bind(s1, int64_t{6});
  DynamicTransformInitialInfo initial = DynamicTransform::getInitialInfo(&fusion);
  DynamicTransformConcretizationInfo info(&initial, &ee);
  EXPECT_EQ(info.getReshapeTransforms().size(), 1u);
  DynamicTransform::concretizeFusion(&fusion, &info);

  EXPECT_FALSE(fusion.hasDynamicTransform());
  EXPECT_EQ(fusion.mathString() + fusion.transformsString(), kAfter);
  // The result runs: the reference evaluates the concretized fusion.
  const Tensor in = Tensor::arange({4, 3}, DataType::Float);
  const Tensor out =
      ReferenceEvaluator(&fusion)
          .run({in, Tensor::fromVector<int64_t>({2}, {}), Tensor::fromVector<int64_t>({6}, {})})
          .at(0);
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{2, 6}));
  EXPECT_EQ(out.item(7), 8.0);
}

}  // namespace
}  // namespace mf
