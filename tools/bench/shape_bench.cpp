// Times minifuser's automatic path (FusionExecutorCache, device inputs) on the shape-op cases
// of issue 16, each checked against the CPU reference on a small problem first, and prints
// one line per case for compare_shape.py:
//   case <name> <median us per call> <bytes moved>
// The cases, fp32:
//   reshape_bias_fp32  reshape(x * 2, [32Ki, 4Ki] -> [128Ki, 1Ki]) + bias[1Ki]
//   pad_fp32           pad(x, last axis 4096 -> 4160) + 1, x [32Ki, 4096] (zeros on the right)
//   cat_fp32           cat([u, v], 1) * 2, u and v [32Ki, 2Ki]
//   dynamic_reshape_<rows>  reshape(x, {s0, s1, s2}) * 2, x [rows, 256] -> [rows, 16, 16], the
//   sizes scalar
//                          inputs (the split factor 16 is structural, so every rows shares one
//                          concretization)
//                      (2 rows, 128), rows 1000, 4097, 65536 and 1Mi through one cache
// and for the dynamic fusion one more line per size:
//   dynamic <rows> <dynamic call us> <static call us> <dynamic median us> <static median us>
//           <kernels compiled> <concretizations>
// against the same reshape written statically (reshape(x, {rows, 256}, {rows, 16, 16}), one
// cache per size): call us is the wall time per call of back-to-back calls (host time where
// the kernel is short: the hot path), median us is timed as the cases are (CUDA events around
// each call); kernels compiled and concretizations are the dynamic cache's after that size.
// `shape_bench --dry`, or any run without a GPU, runs every fusion on the host instead
// (FusionExecutorCache's CPU path: segment, schedule, lower, NVRTC; outputs from the
// reference) at the small sizes, and the dynamic one at rows 1000 and 4097, which must share
// one concretization. Exits 1 on a wrong result.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>

#include "bench_utils.h"
#include "cuda/driver.h"
#include "minifuser/minifuser.h"

namespace {

using mf::DataType;
using mf::Tensor;
using mf::TensorView;

constexpr int64_t kRows = 32 * 1024;

TensorView* input(mf::Fusion* fusion, int64_t rank) {
  TensorView* tv =
      mf::TensorViewBuilder().ndims(rank).dtype(DataType::Float).contiguity(true).build();
  fusion->addInput(tv);
  return tv;
}

//! A case: its fusion and inputs for `rows` rows.
struct Case {
  std::string name;
  std::function<std::unique_ptr<mf::Fusion>(int64_t rows)> fusion;
  std::function<std::vector<Tensor>(int64_t rows)> inputs;
};

std::unique_ptr<mf::Fusion> reshapeBias(int64_t rows) {
  auto fusion = std::make_unique<mf::Fusion>();
  mf::FusionGuard fg(fusion.get());
  TensorView* x = input(fusion.get(), 2);
  TensorView* bias = input(fusion.get(), 1);
  TensorView* y = mf::reshape(mf::mul(x, mf::constFloat(2.0)), {rows, 4096}, {rows * 4, 1024});
  fusion->addOutput(mf::add(y, mf::broadcast(bias, {true, false})));
  return fusion;
}

std::unique_ptr<mf::Fusion> padPlusOne(int64_t) {
  auto fusion = std::make_unique<mf::Fusion>();
  mf::FusionGuard fg(fusion.get());
  TensorView* x = input(fusion.get(), 2);
  fusion->addOutput(mf::add(mf::pad(x, {mf::constInt(0), mf::constInt(64)}), mf::constFloat(1.0)));
  return fusion;
}

std::unique_ptr<mf::Fusion> catTimesTwo(int64_t) {
  auto fusion = std::make_unique<mf::Fusion>();
  mf::FusionGuard fg(fusion.get());
  TensorView* u = input(fusion.get(), 2);
  TensorView* v = input(fusion.get(), 2);
  fusion->addOutput(mf::mul(mf::cat({u, v}, 1), mf::constFloat(2.0)));
  return fusion;
}

// reshape(x, {s0, s1, s2}) * 2 with the sizes scalar inputs: one fusion for every size.
std::unique_ptr<mf::Fusion> dynamicReshape() {
  auto fusion = std::make_unique<mf::Fusion>();
  mf::FusionGuard fg(fusion.get());
  TensorView* x = input(fusion.get(), 2);
  std::vector<mf::Val*> sizes = {mf::newScalar(DataType::Index), mf::newScalar(DataType::Index),
                                 mf::newScalar(DataType::Index)};
  for (mf::Val* s : sizes) fusion->addInput(s);
  fusion->addOutput(mf::mul(mf::reshape(x, sizes), mf::constFloat(2.0)));
  return fusion;
}

// The same reshape, static: a fusion per size.
std::unique_ptr<mf::Fusion> staticReshape(int64_t rows) {
  auto fusion = std::make_unique<mf::Fusion>();
  mf::FusionGuard fg(fusion.get());
  TensorView* x = input(fusion.get(), 2);
  fusion->addOutput(mf::mul(mf::reshape(x, {rows, 256}, {rows, 16, 16}), mf::constFloat(2.0)));
  return fusion;
}

Tensor scalarInput(int64_t v) {
  return Tensor::fromVector<int64_t>({v}, {});
}

std::vector<Tensor> dynamicInputs(int64_t rows, bool device) {
  Tensor x = Tensor::random({rows, 256}, DataType::Float, 11);
  return {device ? x.toDevice() : x, scalarInput(rows), scalarInput(16), scalarInput(16)};
}

const std::vector<Case>& cases() {
  static const std::vector<Case> kCases = {
      {"reshape_bias_fp32", reshapeBias,
       [](int64_t rows) {
         return std::vector<Tensor>{Tensor::random({rows, 4096}, DataType::Float, 1),
                                    Tensor::random({1024}, DataType::Float, 2)};
       }},
      {"pad_fp32", padPlusOne,
       [](int64_t rows) {
         return std::vector<Tensor>{Tensor::random({rows, 4096}, DataType::Float, 3)};
       }},
      {"cat_fp32", catTimesTwo,
       [](int64_t rows) {
         return std::vector<Tensor>{Tensor::random({rows, 2048}, DataType::Float, 4),
                                    Tensor::random({rows, 2048}, DataType::Float, 5)};
       }},
  };
  return kCases;
}

// Runs `fusion` on `inputs` (host or device) through a cache and compares the first output
// with the reference of the same inputs.
bool matches(const std::string& name, std::unique_ptr<mf::Fusion> fusion,
             const std::vector<Tensor>& inputs) {
  mf::FusionExecutorCache fec(std::move(fusion));
  const Tensor out = fec.runFusionWithInputs(inputs)[0].toHost();
  std::vector<Tensor> host;
  for (const Tensor& t : inputs) host.push_back(t.toHost());
  const Tensor ref = mf::ReferenceEvaluator(fec.fusion()).run(host)[0];
  if (out.sizes() != ref.sizes()) {
    fmt::print(stderr, "shape_bench: {}: output sizes differ from the reference\n", name);
    return false;
  }
  return mf::bench::matchesReference("shape_bench", name, out, ref, 1e-6);
}

// Without a GPU: every fusion through the cache's CPU path at a small size, and the dynamic
// fusion at two sizes of one structure through one cache.
int dryRun() {
  constexpr int64_t kSmallRows = 67;
  for (const Case& c : cases()) {
    if (!matches(c.name, c.fusion(kSmallRows), c.inputs(kSmallRows))) return 1;
    fmt::print("dry {}: rows {}: ok\n", c.name, kSmallRows);
  }
  mf::FusionExecutorCache fec(dynamicReshape());
  for (int64_t rows : {1000, 4097}) {
    const std::vector<Tensor> inputs = dynamicInputs(rows, false);
    if (!matches("dynamic_reshape", staticReshape(rows), {inputs[0]})) return 1;
    const Tensor out = fec.runFusionWithInputs(inputs)[0];
    if (out.sizes() != std::vector<int64_t>{rows, 16, 16}) {
      fmt::print(stderr, "shape_bench: dynamic_reshape: wrong output sizes at rows {}\n", rows);
      return 1;
    }
    fmt::print("dry dynamic_reshape: rows {}: {} kernels compiled, {} concretizations\n", rows,
               fec.countKernelsCompiled(), fec.countConcretizations());
  }
  if (fec.countConcretizations() != 1) {
    fmt::print(stderr,
               "shape_bench: dynamic_reshape: two sizes of one structure made {} "
               "concretizations\n",
               fec.countConcretizations());
    return 1;
  }
  return 0;
}

std::vector<Tensor> toDevice(const std::vector<Tensor>& host) {
  std::vector<Tensor> device;
  for (const Tensor& t : host) device.push_back(t.dim() == 0 ? t : t.toDevice());  // scalars stay
  return device;
}

int64_t bytesOf(const std::vector<Tensor>& tensors) {
  int64_t bytes = 0;
  for (const Tensor& t : tensors)
    if (t.dim() > 0) bytes += t.numel() * mf::dataTypeSize(t.dtype());
  return bytes;
}

}  // namespace

int main(int argc, char** argv) {
  const bool dry = argc > 1 && std::string(argv[1]) == "--dry";
  if (dry || !mf::cuda::cudaAvailable()) {
    if (!dry)
      fmt::print(stderr, "shape_bench: no GPU ({}); the dry run only\n",
                 mf::cuda::noDeviceReason());
    return dryRun();
  }
  for (const Case& c : cases()) {
    if (!matches(c.name, c.fusion(67), toDevice(c.inputs(67)))) return 1;
    mf::FusionExecutorCache fec(c.fusion(kRows));
    const std::vector<Tensor> inputs = toDevice(c.inputs(kRows));
    std::vector<Tensor> out = fec.runFusionWithInputs(inputs);
    const double us = mf::bench::medianUs([&] { fec.runFusionWithInputs(inputs); });
    fmt::print("case {} {:.2f} {}\n", c.name, us, bytesOf(inputs) + bytesOf(out));
    std::fflush(stdout);
  }

  mf::FusionExecutorCache dyn(dynamicReshape());
  for (int64_t rows : {int64_t{1000}, int64_t{4097}, int64_t{65536}, int64_t{1} << 20}) {
    const std::vector<Tensor> inputs = dynamicInputs(rows, true);
    if (rows <= 4097 && !matches("dynamic_reshape", dynamicReshape(), inputs)) return 1;
    mf::FusionExecutorCache stat(staticReshape(rows));
    const std::vector<Tensor> x = {inputs[0]};
    std::vector<Tensor> out = dyn.runFusionWithInputs(inputs);
    stat.runFusionWithInputs(x);
    const double dyn_us = mf::bench::medianUs([&] { dyn.runFusionWithInputs(inputs); });
    const double stat_us = mf::bench::medianUs([&] { stat.runFusionWithInputs(x); });
    const double dyn_call = mf::bench::wallUsPerCall([&] { dyn.runFusionWithInputs(inputs); });
    const double stat_call = mf::bench::wallUsPerCall([&] { stat.runFusionWithInputs(x); });
    fmt::print("case dynamic_reshape_{} {:.2f} {}\n", rows, dyn_us, bytesOf(x) + bytesOf(out));
    fmt::print("dynamic {} {:.2f} {:.2f} {:.2f} {:.2f} {} {}\n", rows, dyn_call, stat_call, dyn_us,
               stat_us, dyn.countKernelsCompiled(), dyn.countConcretizations());
    std::fflush(stdout);
  }
  return 0;
}
