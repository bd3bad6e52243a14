// GPU: every golden fusion runs on fresh random inputs at several sizes (1, primes,
// non-divisible, large) with poisoned outputs and matches the CPU reference.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "cuda/driver.h"
#include "minifuser/minifuser.h"
#include "unit/codegen/golden_fusions.h"

namespace mf {
namespace {

using testing::GoldenFusion;

// Position of logical (row, col) in the layout op's padded buffer (docs/layout_op.md's formula).
int64_t swizzledPosition(int64_t row, int64_t col, const Tensor& in_off, const Tensor& out_off,
                         int64_t k) {
  int64_t g = in_off.numel(), e = 0;
  for (int64_t i = 0; i < g; ++i)
    if (in_off.item(i) <= row) e = i;
  int64_t r = row - static_cast<int64_t>(in_off.item(e));
  int64_t kp = (k + 3) / 4 * 4;
  return static_cast<int64_t>(out_off.item(e)) * kp + (r / 128) * kp * 128 + (col / 4) * 512 +
         (r % 32) * 16 + ((r % 128) / 32) * 4 + col % 4;
}

void expectClose(const Tensor& out, const Tensor& ref, double tol, const std::string& what) {
  ASSERT_EQ(out.sizes(), ref.sizes()) << what;
  int64_t bad = 0;
  for (int64_t i = 0; i < ref.numel() && bad < 5; ++i) {
    double a = out.item(i), r = ref.item(i);
    bool ok = tol == 0 ? (a == r || (std::isnan(a) && std::isnan(r)))
                       : (!std::isnan(a) && std::fabs(a - r) <= tol * (1 + std::fabs(r)));
    if (!ok) {
      ++bad;
      ADD_FAILURE() << what << ": element " << i << " is " << a << ", reference " << r;
    }
  }
}

class GoldenGpu : public ::testing::TestWithParam<GoldenFusion> {
 protected:
  void SetUp() override {
    if (!cuda::cudaAvailable()) GTEST_SKIP() << cuda::noDeviceReason();
  }
};

// Each size gets fresh inputs; the output is poisoned before the launch.
TEST_P(GoldenGpu, MatchesReference) {
  const GoldenFusion& g = GetParam();
  uint64_t seed = 1234;
  for (int64_t n : {1, 7, 131, 1000, 65537}) {
    Fusion fusion;
    FusionGuard fg(&fusion);
    g.build(fusion);
    std::vector<Tensor> inputs = g.inputs(n, seed++);
    KernelExecutor ke;
    ke.compile(&fusion, inputs);
    std::vector<Tensor> out = ke.run(inputs, {.poison_outputs = true});
    std::vector<Tensor> ref = ReferenceEvaluator(&fusion).run(inputs);
    ASSERT_EQ(out.size(), ref.size());
    std::string what = g.name + " n=" + std::to_string(n);
    for (size_t i = 0; i < out.size(); ++i) {
      if (!ref[i].usedRows()) {
        expectClose(out[i], ref[i], g.tolerance, what);
        continue;
      }
      // A padded output (the layout op's, groupedBlockQuantize's scales): its logical [M, K]
      // at their swizzled positions (the offsets are inputs 1 and 2 of these fusions).
      int64_t bad = 0;
      const int64_t rows = ref[i].sizes()[0], cols = ref[i].sizes()[1];
      for (int64_t row = 0; row < rows && bad < 5; ++row)
        for (int64_t col = 0; col < cols; ++col) {
          int64_t pos = swizzledPosition(row, col, inputs[1], inputs[2], cols);
          const double got = out[i].allocationItem(pos), want = ref[i].allocationItem(pos);
          if (got != want && !(std::isnan(got) && std::isnan(want)) && ++bad)
            ADD_FAILURE() << what << ": output " << i << " (" << row << ", " << col << ") at "
                          << pos;
        }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Gpu, GoldenGpu, ::testing::ValuesIn(testing::goldenFusions()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace mf
