// Times minifuser's automatic reduction path (FusionExecutorCache, device inputs) on the
// issue's reduction cases, checks each fusion against the CPU reference on a small problem
// first, and prints one line per case for compare_reduction.py:
//   case <name> <median kernel us> <bytes moved> <heuristics>
// The persistent cases (softmax, RMS norm) are persistent_bench's.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <functional>

#include "bench_utils.h"
#include "cuda/driver.h"
#include "minifuser/minifuser.h"

namespace {

using mf::DataType;
using mf::TensorView;

struct Case {
  std::string name;
  std::vector<int64_t> shape;
  DataType dtype;
  std::function<TensorView*(TensorView*)> build;
  //! The same fusion on a small input, for the correctness check.
  std::vector<int64_t> small_shape;
};

std::unique_ptr<mf::Fusion> makeFusion(const Case& c) {
  auto fusion = std::make_unique<mf::Fusion>();
  mf::FusionGuard fg(fusion.get());
  TensorView* x = mf::makeContigTensor(static_cast<int64_t>(c.shape.size()), c.dtype);
  fusion->addInput(x);
  fusion->addOutput(c.build(x));
  return fusion;
}

// Sums of a few thousand terms: a relative tolerance scaled by the number of terms.
bool checkSmall(const Case& c) {
  mf::FusionExecutorCache fec(makeFusion(c));
  std::vector<mf::Tensor> inputs = {mf::Tensor::random(c.small_shape, c.dtype, 7).toDevice()};
  mf::Tensor out = fec.runFusionWithInputs(inputs)[0].toHost();
  mf::Tensor ref = mf::ReferenceEvaluator(fec.fusion()).run(inputs)[0];
  int64_t terms = 1;
  for (int64_t e : c.small_shape) terms *= e;
  terms /= std::max<int64_t>(ref.numel(), 1);
  for (int64_t i = 0; i < ref.numel(); ++i)
    if (std::abs(out.item(i) - ref.item(i)) > 1e-6 * terms * 2 + 1e-5 * std::abs(ref.item(i))) {
      fmt::print(stderr, "reduction_bench: {}: wrong result at {}: {} vs {}\n", c.name, i,
                 out.item(i), ref.item(i));
      return false;
    }
  return true;
}

// The reduction cases of issue 9's benchmark list.
std::vector<Case> reductionCases() {
  const int64_t m = 32 * 1024, n = 4 * 1024, big = int64_t{128} << 20;
  auto sumOver = [](int64_t axis) { return [axis](TensorView* x) { return mf::sum(x, {axis}); }; };
  return {
      {"sum_last_axis_fp32", {m, n}, DataType::Float, sumOver(1), {1000, 4096}},
      {"sum_first_axis_fp32", {m, n}, DataType::Float, sumOver(0), {4096, 1000}},
      {"sum_vector_fp32", {big}, DataType::Float, sumOver(0), {1 << 20}},
  };
}

}  // namespace

int main() {
  if (!mf::cuda::cudaAvailable()) {
    fmt::print(stderr, "reduction_bench: no GPU ({}); nothing to time\n",
               mf::cuda::noDeviceReason());
    return 0;
  }
  for (const Case& c : reductionCases()) {
    if (!checkSmall(c)) return 1;
    mf::FusionExecutorCache fec(makeFusion(c));
    std::vector<mf::Tensor> inputs = {mf::Tensor::random(c.shape, c.dtype, 100).toDevice()};
    std::vector<mf::Tensor> out = fec.runFusionWithInputs(inputs);
    const int64_t bytes = inputs[0].numel() * mf::dataTypeSize(c.dtype) +
                          out[0].numel() * mf::dataTypeSize(out[0].dtype());
    const double us = mf::bench::medianUs([&] { fec.runFusionWithInputs(inputs); });
    std::string heuristics;
    for (const mf::HeuristicParams* p : fec.getMostRecentKernelRuntime()->heuristics())
      heuristics += p->toString() + "; ";
    fmt::print("case {} {:.2f} {} {}\n", c.name, us, bytes, heuristics);
    std::fflush(stdout);
  }
  return 0;
}
