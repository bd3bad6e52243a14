// The resize ops on the GPU through FusionExecutorCache: pad (positive, negative and mixed
// widths, of a computed tensor and of both axes), slice (to one element too), and cat
// (along each axis, with an empty input), against the CPU reference bit for bit, outputs
// poisoned, at sizes 1, primes and non-divisible extents, host and device inputs; and the
// section-6 benchmark shapes (vectorized) at reduced rows.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "cuda/driver.h"
#include "minifuser.h"

namespace mf {
namespace {

class ResizeGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::cudaAvailable()) GTEST_SKIP() << cuda::noDeviceReason();
  }
};

using Builder = std::function<void(Fusion&)>;
using Inputs = std::function<std::vector<Tensor>(int64_t n, uint64_t seed)>;

void expectSameBits(const std::vector<Tensor>& got, const std::vector<Tensor>& ref,
                    const std::string& what) {
  ASSERT_EQ(got.size(), ref.size()) << what;
  for (size_t o = 0; o < ref.size(); ++o) {
    Tensor g = got[o].toHost();
    ASSERT_EQ(g.sizes(), ref[o].sizes()) << what;
    for (int64_t i = 0; i < ref[o].numel(); ++i)
      ASSERT_EQ(toString(g.value(i)), toString(ref[o].value(i)))
          << what << " output " << o << " element " << i;
  }
}

void runSizes(const Builder& build, const Inputs& inputs,
              const std::vector<int64_t>& sizes = {1, 7, 131, 1000, 4099}) {
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    build(*fusion);
  }
  FusionExecutorCache fec(std::move(fusion));
  uint64_t seed = 1;
  for (int64_t n : sizes)
    for (bool device : {false, true}) {
      std::vector<Tensor> in = inputs(n, seed++);
      std::vector<Tensor> ref = ReferenceEvaluator(fec.fusion()).run(in);
      if (device)
        for (Tensor& t : in) t = t.toDevice();
      expectSameBits(fec.runFusionWithInputs(in, {.poison_outputs = true}), ref,
                     fmt::format("n={} device={}", n, device));
    }
}

std::vector<Tensor> randoms(const std::vector<std::vector<int64_t>>& shapes, uint64_t seed) {
  std::vector<Tensor> out;
  for (const auto& s : shapes) out.push_back(Tensor::random(s, DataType::Float, seed++));
  return out;
}

TEST_F(ResizeGpu, PadShmoo) {
  for (auto [l, r] : std::vector<std::pair<int64_t, int64_t>>{{2, 3}, {-1, 2}, {1, -3}, {32, 32}}) {
    SCOPED_TRACE(::testing::Message() << "widths " << l << ", " << r);
    runSizes(
        [l = l, r = r](Fusion& f) {
          TensorView* x = makeContigTensor(2);
          f.addInput(x);
          f.addOutput(pad(add(x, constFloat(1.0)), {constInt(l), constInt(r)}, constFloat(-3.5)));
        },
        [](int64_t n, uint64_t seed) {
          return randoms({{n, 67}}, seed);
        });
  }
}

TEST_F(ResizeGpu, PadBothAxes) {
  runSizes(
      [](Fusion& f) {
        TensorView* x = makeContigTensor(2);
        f.addInput(x);
        f.addOutput(
            mul(pad(x, {constInt(1), constInt(2), constInt(3), constInt(0)}), constFloat(2.0)));
      },
      [](int64_t n, uint64_t seed) {
        return randoms({{n, 13}}, seed);
      });
}

TEST_F(ResizeGpu, Slice) {
  runSizes(
      [](Fusion& f) {
        TensorView* x = makeContigConcreteTensor({37, 129});
        f.addInput(x);
        f.addOutput(add(slice(x, {1, 3}, {36, 127}), constFloat(0.5)));
        f.addOutput(add(slice(x, {5, 0}, {6, 129}), constFloat(0.5)));  // one row
      },
      [](int64_t, uint64_t seed) {
        return randoms({{37, 129}}, seed);
      },
      {1, 2});
}

TEST_F(ResizeGpu, CatAlongEachAxis) {
  for (int64_t dim : {0, 1}) {
    SCOPED_TRACE(::testing::Message() << "dim " << dim);
    runSizes(
        [dim](Fusion& f) {
          std::vector<TensorView*> tvs;
          for (int i = 0; i < 3; ++i) {
            tvs.push_back(makeContigTensor(2));
            f.addInput(tvs.back());
          }
          f.addOutput(mul(cat(tvs, dim), constFloat(2.0)));
        },
        [dim](int64_t n, uint64_t seed) {
          std::vector<std::vector<int64_t>> s = {{n, 64}, {n, 64}, {n, 64}};
          s[1][dim] = 3;
          s[2][dim] = 1;
          return randoms(s, seed);
        });
  }
}

// The section-6 shapes, fewer rows: pad(x, 4096 -> 4160) + 1 and cat([u, v], 1) * 2 of
// [rows, 2048] each (both vectorized 4-wide).
TEST_F(ResizeGpu, BenchmarkShapes) {
  runSizes(
      [](Fusion& f) {
        TensorView* x = makeContigTensor(2);
        f.addInput(x);
        f.addOutput(add(pad(x, {constInt(32), constInt(32)}), constFloat(1.0)));
      },
      [](int64_t n, uint64_t seed) {
        return randoms({{n, 4096}}, seed);
      },
      {1, 7, 1000});
  runSizes(
      [](Fusion& f) {
        TensorView* u = makeContigTensor(2);
        TensorView* v = makeContigTensor(2);
        f.addInput(u);
        f.addInput(v);
        f.addOutput(mul(cat({u, v}, 1), constFloat(2.0)));
      },
      [](int64_t n, uint64_t seed) {
        return randoms({{n, 2048}, {n, 2048}}, seed);
      },
      {1, 7, 1000});
}

}  // namespace
}  // namespace mf
