// Uses the installed minifuser as a user would: builds relu(T0 * T1 + 1.5), prints its math,
// evaluates it on the CPU and checks one element. run_consumer_test.sh checks the output.
#include <minifuser/minifuser.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

int main() {
  mf::Fusion fusion;
  mf::FusionGuard guard(&fusion);
  mf::TensorView* t0 = mf::makeContigTensor(2);
  mf::TensorView* t1 = mf::makeContigTensor(2);
  fusion.addInput(t0);
  fusion.addInput(t1);
  fusion.addOutput(mf::relu(mf::add(mf::mul(t0, t1), mf::constFloat(1.5))));
  fusion.printMath();

  const mf::Tensor a = mf::Tensor::random({3, 5}, mf::DataType::Float, /*seed=*/7);
  const mf::Tensor b = mf::Tensor::random({3, 5}, mf::DataType::Float, /*seed=*/8);
  const mf::Tensor out = mf::ReferenceEvaluator(&fusion).run({a, b}).at(0);
  const float expected = std::max(a.data<float>()[6] * b.data<float>()[6] + 1.5f, 0.0f);
  const double got = out.item(6);
  std::printf("consumer: element 6 = %.7g, expected %.7g\n", got, double(expected));
  if (std::abs(got - expected) > 1e-6 * std::max(1.0, std::abs(double(expected)))) {
    std::printf("consumer: FAIL\n");
    return 1;
  }
  std::printf("consumer: OK\n");
  return 0;
}
