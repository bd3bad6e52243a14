// One place for input metadata (issue 15, section 8): the alignment of a tensor's first
// element, the value of a 0-dim tensor and the 32-bit index rule, each one function of
// tensor/tensor.h that the executor's signatures and checks and the schedulers'
// SchedulerRuntimeInfo all call.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "minifuser.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(InputMetadata, AddressAlignmentIsTheLargestPowerOfTwoUpToTheCap) {
  EXPECT_EQ(addressAlignment(0, 16), 16);
  EXPECT_EQ(addressAlignment(24, 256), 8);
  EXPECT_EQ(addressAlignment(4096, 16), 16);
  EXPECT_EQ(addressAlignment(6, 256), 2);
}

// A host tensor is copied to a fresh block with its storage offset: the offset decides.
TEST(InputMetadata, HostTensorAlignmentIsItsOffsetsBytes) {
  const Tensor t = Tensor::random({64}, DataType::Float, 1);
  EXPECT_EQ(t.alignmentAddress(), 0u);
  EXPECT_EQ(t.dataAlignment(), kAllocationAlignment);
  const Tensor view = t.asStrided({8}, {1}, 1);
  EXPECT_EQ(view.alignmentAddress(), 4u);
  EXPECT_EQ(view.dataAlignment(16), 4);
  // The schedulers' metadata of the same view says the same.
  EXPECT_EQ(TensorMetadata::of(view).dataAlignment(), 4);
  EXPECT_EQ(TensorMetadata::of(t.asStrided({8}, {1}, 6)).dataAlignment(), 8);
}

TEST(InputMetadata, ScalarValueOfAZeroDimTensor) {
  const Tensor s = Tensor::fromVector<int64_t>({(int64_t{1} << 60) + 1}, {});
  EXPECT_EQ(std::get<int64_t>(s.scalarValue()), (int64_t{1} << 60) + 1);
  EXPECT_EQ(TensorMetadata::of(s).scalar, s.scalarValue());
  EXPECT_THAT([] { Tensor::empty({3}, DataType::Float).scalarValue(); },
              ThrowsMessage<UserError>(
                  HasSubstr("Tensor::scalarValue: expected a 0-dim tensor, got float[3]")));
}

TEST(InputMetadata, Int32IndexRuleCountsElementsAndTheFarthestOffset) {
  constexpr int64_t k31 = int64_t{1} << 31;
  EXPECT_TRUE(fitsInt32Index(std::vector<int64_t>{k31 - 1}, std::vector<int64_t>{1}));
  EXPECT_FALSE(fitsInt32Index(std::vector<int64_t>{k31}, std::vector<int64_t>{1}));
  // Few elements, the last one 2^31 elements past the first.
  EXPECT_FALSE(fitsInt32Index(std::vector<int64_t>{2, 4}, std::vector<int64_t>{k31, 1}));
  // An expanded axis addresses one element, but its loop still counts 2^40 of them.
  EXPECT_FALSE(fitsInt32Index(std::vector<int64_t>{int64_t{1} << 40}, std::vector<int64_t>{0}));
  EXPECT_TRUE(
      fitsInt32Index(std::vector<int64_t>{0, int64_t{1} << 40}, std::vector<int64_t>{1, 1}));
  EXPECT_FALSE(Tensor::emptyStrided({int64_t{1} << 40}, {0}, 1, DataType::Float).fitsInt32Index());
}

// The storage offset does not count: a kernel's tensor argument points at the view's first
// element, and its indices are relative to it. The schedulers (runtime_info.cpp used to add
// the offset) and the executor (kernel_executor.cpp) now agree.
TEST(InputMetadata, Int32IndexRuleIgnoresTheStorageOffset) {
  Fusion f;
  FusionGuard fg(&f);
  TensorView* tv0 = makeSymbolicTensor(2);
  f.addInput(tv0);
  f.addOutput(neg(tv0));
  TensorMetadata m = TensorMetadata::contiguous(DataType::Float, {2, 4});
  m.storage_offset = int64_t{1} << 40;
  EXPECT_EQ(SchedulerRuntimeInfo(&f, {m}).indexType(), DataType::Int32);
  m.strides = {int64_t{1} << 31, 1};
  EXPECT_EQ(SchedulerRuntimeInfo(&f, {m}).indexType(), DataType::Int64);
  // The executor's choice for a real view of a small offset: Int32 both ways.
  const Tensor view = Tensor::random({64}, DataType::Float, 2).asStrided({2, 4}, {4, 1}, 40);
  EXPECT_EQ(chooseIndexType(f, {view}), DataType::Int32);
  EXPECT_EQ(SchedulerRuntimeInfo(&f, std::vector<Tensor>{view}).indexType(), DataType::Int32);
}

}  // namespace
}  // namespace mf
