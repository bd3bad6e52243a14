//! segment_demo: segments the layout op with computed offsets on the CPU and prints the
//! result (issue 8's demo). The offsets' producer, in_off + 1, must land in an earlier
//! segment; the data's producer stays with the layout op. Run it with
//! MINIFUSER_DUMP=fusion_segments,segmenter_logging to see each merge and why it was refused.
//! Exits 1 unless there are exactly two segments.
#include <minifuser/minifuser.h>

#include <fmt/format.h>

int main() {
  mf::Fusion fusion;
  mf::FusionGuard guard(&fusion);
  mf::TensorView* in = mf::makeContigTensor(2);
  mf::TensorView* in_off = mf::makeContigTensor(1, mf::DataType::Int32);
  mf::TensorView* out_off = mf::makeContigTensor(1, mf::DataType::Int32);
  fusion.addInput(in);
  fusion.addInput(in_off);
  fusion.addInput(out_off);
  mf::TensorView* data = mf::mul(in, mf::constFloat(2.0));
  mf::TensorView* offsets = mf::add(in_off, mf::constInt(1, mf::DataType::Int32));
  fusion.addOutput(mf::preprocessGroupedMatmulInputSf(data, offsets, out_off));

  fmt::print("==== fusion ====\n{}", fusion.mathString());
  // Only metadata is read: the sizes of docs/layout_op.md's example (M = 512, K = 9, G = 3).
  std::vector<mf::Tensor> inputs = {mf::Tensor::random({512, 9}, mf::DataType::Float, 1),
                                    mf::Tensor::fromVector<int32_t>({-1, 99, 249}, {3}),
                                    mf::Tensor::fromVector<int32_t>({0, 128, 384}, {3})};
  auto segmented = mf::SegmentCandidateFinder::segment(fusion, inputs);
  fmt::print("==== segments ====\n{}", segmented->toString());
  return segmented->groups().size() == 2 ? 0 : 1;
}
