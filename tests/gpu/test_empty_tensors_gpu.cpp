// GPU: fusions with size-0 axes and dead exprs (#16, section 3) through FusionExecutorCache
// equal the CPU reference, with host and device inputs and poisoned outputs: the
// differential fuzzer's fusion, reductions over empty axes (RemoveEmpty's fulls of the
// identity), the identity broadcast into a non-empty tensor, empty and non-empty sizes in
// turn through one cache, and a user's full.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "cuda/driver.h"
#include "minifuser.h"

namespace mf {
namespace {

class EmptyTensorsGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::cudaAvailable()) GTEST_SKIP() << cuda::noDeviceReason();
  }
};

// Every run of `runs` through one cache, host inputs then device inputs: outputs equal the
// reference (a float sum within 1e-5 relative: the GPU sums in another order).
void expectRuns(std::unique_ptr<Fusion> fusion, const std::vector<std::vector<Tensor>>& runs) {
  Fusion reference(*fusion);
  FusionExecutorCache fec(std::move(fusion));
  for (size_t r = 0; r < runs.size(); ++r) {
    for (bool device : {false, true}) {
      std::vector<Tensor> in = runs[r];
      const std::vector<Tensor> want = ReferenceEvaluator(&reference).run(in);
      if (device)
        for (Tensor& t : in) t = t.toDevice();
      const std::vector<Tensor> got = fec.runFusionWithInputs(in, {.poison_outputs = true});
      ASSERT_EQ(got.size(), want.size());
      for (size_t o = 0; o < want.size(); ++o) {
        const Tensor g = got[o].toHost();
        ASSERT_EQ(g.sizes(), want[o].sizes()) << "run " << r << " output " << o;
        for (int64_t i = 0; i < want[o].numel(); ++i) {
          const double a = g.item(i), b = want[o].item(i);
          if (a == b || (std::isnan(a) && std::isnan(b))) continue;
          ASSERT_NEAR(a, b, 1e-5 * (1 + std::abs(b)))
              << "run " << r << " device " << device << " output " << o << " element " << i;
        }
      }
    }
  }
}

TEST_F(EmptyTensorsGpu, FuzzerFusionWithDeadExprs) {
  auto f = std::make_unique<Fusion>();
  {
    FusionGuard fg(f.get());
    TensorView* t0 = makeSymbolicTensor(3, DataType::Bool);
    TensorView* t1 = makeSymbolicTensor(3, DataType::Double);
    TensorView* t2 = makeSymbolicTensor(2, DataType::Float);
    for (TensorView* tv : {t0, t1, t2}) f->addInput(tv);
    TensorView* n2 = neg(t2);
    TensorView* c = lt(t0, broadcast(n2, {false, false, true}));
    castOp(DataType::Half, tanh(clamp(n2, constFloat(-1.0), constFloat(1.0))));  // dead
    f->addOutput(where(c, t0, t0));
  }
  auto inputs = [](int64_t k) {
    return std::vector<Tensor>{Tensor::random({31, 7, k}, DataType::Bool, 1),
                               Tensor::random({31, 7, k}, DataType::Double, 2),
                               Tensor::random({31, 7}, DataType::Float, 3)};
  };
  expectRuns(std::move(f), {inputs(0), inputs(5), inputs(0), inputs(130)});
}

TEST_F(EmptyTensorsGpu, ReductionsOverEmptyAxes) {
  auto f = std::make_unique<Fusion>();
  {
    FusionGuard fg(f.get());
    TensorView* x = makeContigTensor(2);
    TensorView* y = makeContigTensor(2);
    TensorView* i = makeContigTensor(2, DataType::Int64);
    for (TensorView* tv : {x, y, i}) f->addInput(tv);
    f->addOutput(sum(x, {1}));
    f->addOutput(max(x, {1}, /*keep_dim=*/true));
    f->addOutput(min(x, {0}));
    f->addOutput(sub(y, broadcast(sum(x, {1}), {false, true})));
    f->addOutput(max(i, {1}));
  }
  auto inputs = [](int64_t rows, int64_t k, uint64_t seed) {
    return std::vector<Tensor>{Tensor::random({rows, k}, DataType::Float, seed),
                               Tensor::random({rows, 3}, DataType::Float, seed + 1),
                               Tensor::random({rows, k}, DataType::Int64, seed + 2)};
  };
  expectRuns(std::move(f), {inputs(5, 0, 1), inputs(5, 9, 2), inputs(1031, 0, 3),
                            inputs(1031, 257, 4), inputs(0, 4, 5)});
}

TEST_F(EmptyTensorsGpu, UserFull) {
  auto f = std::make_unique<Fusion>();
  {
    FusionGuard fg(f.get());
    TensorView* x = makeContigConcreteTensor({3, 131}, DataType::Half);
    f->addInput(x);
    f->addOutput(add(x, full({constInt(3), constInt(131)}, constFloat(1.5), DataType::Half)));
    f->addOutput(full({constInt(2), constInt(5)}, constInt(-7, DataType::Int64), DataType::Int32));
  }
  expectRuns(std::move(f), {{Tensor::random({3, 131}, DataType::Half, 1)}});
}

}  // namespace
}  // namespace mf
