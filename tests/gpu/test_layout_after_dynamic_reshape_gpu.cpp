// The layout op downstream of a dynamic reshape on the GPU (nvFuser bug #5384): through one
// FusionExecutorCache, from host and from device inputs, poisoned outputs with the pads
// zeroed (the reference fills them with 0), the output's buffer has the concretized padded
// shape [M + 127*G, ceil(K/4)*4] and every element of it equals the CPU reference.
#include <gtest/gtest.h>

#include "cuda/driver.h"
#include "minifuser.h"

namespace mf {
namespace {

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

TEST(LayoutAfterDynamicReshapeGpu, PaddedAllocationFollowsConcretizedSizes) {
  if (!cuda::cudaAvailable()) GTEST_SKIP() << cuda::noDeviceReason();
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* x = makeContigTensor(1);
    Val* m = newScalar(DataType::Int64);
    Val* k = newScalar(DataType::Int64);
    TensorView* in_off = makeContigTensor(1, DataType::Int32);
    TensorView* out_off = makeContigTensor(1, DataType::Int32);
    for (Val* v : std::vector<Val*>{x, m, k, in_off, out_off}) fusion->addInput(v);
    fusion->addOutput(
        preprocessGroupedMatmulInputSf(reshape(x, std::vector<Val*>{m, k}), in_off, out_off));
  }
  FusionExecutorCache fec(std::move(fusion));
  const std::vector<std::pair<int64_t, std::vector<int32_t>>> cases = {
      {9, {100, 150, 262}}, {4, {2, 3, 295}}, {5, {1}}, {1, {7, 129}}, {13, {4099}}};
  uint64_t seed = 1;
  for (const auto& [k, rows] : cases) {
    int64_t m = 0;
    for (int32_t r : rows) m += r;
    auto [in_off, out_off] = offsetsFor(rows);
    for (bool device : {false, true}) {
      SCOPED_TRACE(fmt::format("M = {}, K = {}, {} inputs", m, k, device ? "device" : "host"));
      std::vector<Tensor> in = {Tensor::random({m * k}, DataType::Float, seed++),
                                Tensor::fromVector<int64_t>({m}, {}),
                                Tensor::fromVector<int64_t>({k}, {}), in_off, out_off};
      const Tensor ref = ReferenceEvaluator(fec.fusion()).run(in)[0];
      if (device)
        for (Tensor& t : in) t = t.toDevice();
      const Tensor out =
          fec.runFusionWithInputs(in, {.poison_outputs = true, .zero_fill_layout_pads = true})[0]
              .toHost();
      const std::vector<int64_t> padded = {m + 127 * static_cast<int64_t>(rows.size()),
                                           (k + 3) / 4 * 4};
      ASSERT_EQ(out.allocationSizes(), padded);
      ASSERT_EQ(ref.allocationSizes(), padded);
      for (int64_t i = 0; i < ref.allocationNumel(); ++i)
        ASSERT_EQ(out.allocationItem(i), ref.allocationItem(i)) << "buffer position " << i;
    }
  }
}

}  // namespace
}  // namespace mf
