//! minifuser_demo (run by tools/demo.sh): builds fusions with the public API, prints
//! their IR, evaluates them with the CPU reference evaluator and checks a few elements
//! against values computed here directly. Exits 1 if a check fails.
//!   1. a pointwise chain, relu(T0 * T1 + 1.5);
//!   2. the layout op (docs/layout_op.md) on its test data: tokens [100, 150, 262],
//!      K = 9, so M = 512, G = 3, Kp = 12;
//!   3. the automatic path: relu(X + bias) through FusionExecutorCache, with no scheduling:
//!      the chosen scheduler, its heuristics and the generated kernel are printed (without a
//!      GPU the kernel is still compiled by NVRTC and the CPU reference gives the outputs).
//!   4. the layout op through FusionExecutorCache (fp8, K = 448): its segments, heuristics
//!      (the tile form and why) and kernel;
//!   5. a dynamic reshape, reshape(X, {s0, s1}) * 2 with the sizes scalar inputs, through
//!      FusionExecutorCache at two shapes of one structure (merge, split by 8: one
//!      concretization) and a third of another; MINIFUSER_DUMP=fusion_ir_concretized prints
//!      the fusion before (Symbolic axes) and after concretization (docs/concretization.md).
#include <minifuser/minifuser.h>

#include "cuda/driver.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  fmt::print("{} {}\n", ok ? "OK  " : "FAIL", what);
  if (!ok) ++failures;
}

void printFusion(const std::string& title, mf::Fusion& fusion) {
  fmt::print("==== {} ====\n", title);
  fusion.printMath();
  fusion.printTransforms();
}

void pointwiseDemo() {
  mf::Fusion fusion;
  mf::FusionGuard guard(&fusion);
  mf::TensorView* t0 = mf::makeContigTensor(2);
  mf::TensorView* t1 = mf::makeContigTensor(2);
  fusion.addInput(t0);
  fusion.addInput(t1);
  fusion.addOutput(mf::relu(mf::add(mf::mul(t0, t1), mf::constFloat(1.5))));
  printFusion("pointwise: relu(T0 * T1 + 1.5)", fusion);

  const mf::Tensor a = mf::Tensor::random({4, 6}, mf::DataType::Float, /*seed=*/1);
  const mf::Tensor b = mf::Tensor::random({4, 6}, mf::DataType::Float, /*seed=*/2);
  const std::vector<mf::Tensor> out = mf::ReferenceEvaluator(&fusion).run({a, b});
  check(out.size() == 1 && out[0].sizes() == std::vector<int64_t>{4, 6},
        fmt::format("pointwise output is float[4, 6] (got {})", out.at(0).toString(4)));
  for (int64_t i : {0, 7, 23}) {
    // Each op computes in float, as the GPU would: multiply, round, add, round, relu.
    const float product = a.data<float>()[i] * b.data<float>()[i];
    const float expected = std::max(product + 1.5f, 0.0f);
    const double got = out[0].item(i);
    check(std::abs(got - expected) <= 1e-6 * std::max(1.0, std::abs(double(expected))),
          fmt::format("pointwise element {}: {} (expected {})", i, got, expected));
  }
}

// The spec's formula, written out independently of the library.
int64_t swizzledPosition(int64_t row, int64_t col, int64_t k, const std::vector<int32_t>& in_off,
                         const std::vector<int32_t>& out_off) {
  const int64_t g = static_cast<int64_t>(in_off.size());
  int64_t e = g - 1;
  for (int64_t i = 1; i < g; ++i) {
    if (row < in_off[i]) {
      e = i - 1;
      break;
    }
  }
  const int64_t r = row - in_off[e];
  const int64_t kp = (k + 3) / 4 * 4;
  return out_off[e] * kp + (r / 128) * kp * 128 + (col / 4) * 512 + (r % 32) * 16 +
         ((r % 128) / 32) * 4 + col % 4;
}

void layoutDemo() {
  const std::vector<int32_t> tokens = {100, 150, 262};
  const int64_t k = 9;
  std::vector<int32_t> in_off, out_off;
  int32_t in_row = 0, out_row = 0;
  for (int32_t t : tokens) {
    in_off.push_back(in_row);
    out_off.push_back(out_row);
    in_row += t;
    out_row += (t + 127) / 128 * 128;
  }
  const int64_t m = in_row;
  const int64_t g = static_cast<int64_t>(tokens.size());

  mf::Fusion fusion;
  mf::FusionGuard guard(&fusion);
  mf::TensorView* in = mf::makeContigTensor(2);
  mf::TensorView* in_offsets = mf::makeContigTensor(1, mf::DataType::Int32);
  mf::TensorView* out_offsets = mf::makeContigTensor(1, mf::DataType::Int32);
  fusion.addInput(in);
  fusion.addInput(in_offsets);
  fusion.addInput(out_offsets);
  fusion.addOutput(mf::preprocessGroupedMatmulInputSf(in, in_offsets, out_offsets));
  printFusion(fmt::format("layout op: tokens [{}], K = {}", fmt::join(tokens, ", "), k), fusion);

  const mf::Tensor input = mf::Tensor::random({m, k}, mf::DataType::Float, /*seed=*/3);
  const std::vector<mf::Tensor> outs = mf::ReferenceEvaluator(&fusion).run(
      {input, mf::Tensor::fromVector(in_off, {g}), mf::Tensor::fromVector(out_off, {g})});
  const mf::Tensor& out = outs.at(0);
  check(out.sizes() == std::vector<int64_t>{512, 9}, "layout output's logical shape is [512, 9]");
  check(out.allocationSizes() == std::vector<int64_t>{512 + 127 * 3, 12},
        fmt::format("padded buffer is [M + 127*G, Kp] = [893, 12] (got [{}])",
                    fmt::join(out.allocationSizes(), ", ")));
  check(out.usedRows() == 768, "used rows: 128 + 256 + 384 = 768");
  check(swizzledPosition(300, 5, k, in_off, out_off) == 5413,
        "element (300, 5) lands at flat position 5413 (docs/layout_op.md's worked example)");
  for (auto [row, col] :
       std::vector<std::pair<int64_t, int64_t>>{{0, 0}, {99, 8}, {100, 0}, {300, 5}, {511, 8}}) {
    const int64_t pos = swizzledPosition(row, col, k, in_off, out_off);
    const double got = out.allocationItem(pos);
    const double expected = input.at({row, col});
    check(got == expected,
          fmt::format("input ({}, {}) = {} at flat position {}: {}", row, col, expected, pos, got));
  }
  // Row 100 of group 0's 128-row tile is padding: zero-filled by default (ReferenceOptions).
  const int64_t pad = (100 % 32) * 16 + ((100 % 128) / 32) * 4;
  check(out.allocationItem(pad) == 0.0,
        fmt::format("pad slot {} (group 0, row 100) is zero-filled", pad));

  // The same op as a CUDA kernel, scheduled by hand as nvFuser's ManualKernel test:
  // one row per block, one column per thread. MINIFUSER_DUMP=cuda_kernel prints it.
  mf::TensorView* out_tv = fusion.outputs()[0]->as<mf::TensorView>();
  out_tv->axis(0)->parallelize(mf::ParallelType::BIDx);
  out_tv->axis(1)->parallelize(mf::ParallelType::TIDx);
  std::vector<mf::Tensor> inputs = {input, mf::Tensor::fromVector(in_off, {g}),
                                    mf::Tensor::fromVector(out_off, {g})};
  mf::KernelExecutor ke;
  ke.compile(&fusion, inputs);
  check(!ke.ptx().empty(), fmt::format("layout-op kernel {} compiled with NVRTC", ke.kernelName()));
  if (!mf::cuda::cudaAvailable()) {
    fmt::print("no GPU ({}): the kernel was generated and compiled, not run\n",
               mf::cuda::noDeviceReason());
    return;
  }
  const mf::Tensor gpu = ke.run(inputs, {.poison_outputs = true})[0];
  int64_t mismatches = 0;
  for (int64_t row = 0; row < m; ++row)
    for (int64_t col = 0; col < k; ++col)
      mismatches += gpu.allocationItem(swizzledPosition(row, col, k, in_off, out_off)) !=
                    input.at({row, col});
  check(mismatches == 0, "GPU layout op matches the reference on every logical element");
}

// The layout op through the automatic path (docs/layout_op.md): fp8 scale factors of the
// same groups, K = 448, unscheduled. The segmenter keeps it one segment (its offsets are
// fusion inputs), the pointwise scheduler writes it in the tile form (a block per slab of a
// 128-row tile, staged in shared memory); its segments, heuristics and kernel are printed.
void layoutAutomaticDemo() {
  fmt::print("==== automatic path: the layout op (fp8, K = 448) ====\n");
  const std::vector<int32_t> in_off = {0, 100, 250}, out_off = {0, 128, 384};
  const int64_t m = 512, k = 448;
  auto fusion = std::make_unique<mf::Fusion>();
  {
    mf::FusionGuard fg(fusion.get());
    mf::TensorView* sf = mf::makeContigTensor(2, mf::DataType::Float8_e4m3fn);
    mf::TensorView* in_offsets = mf::makeContigTensor(1, mf::DataType::Int32);
    mf::TensorView* out_offsets = mf::makeContigTensor(1, mf::DataType::Int32);
    fusion->addInput(sf);
    fusion->addInput(in_offsets);
    fusion->addInput(out_offsets);
    fusion->addOutput(mf::preprocessGroupedMatmulInputSf(sf, in_offsets, out_offsets));
  }
  mf::FusionExecutorCache fec(std::move(fusion));
  const mf::Tensor input = mf::Tensor::random({m, k}, mf::DataType::Float8_e4m3fn, /*seed=*/4);
  const mf::Tensor out = fec.runFusionWithInputs(
      {input, mf::Tensor::fromVector(in_off, {3}), mf::Tensor::fromVector(out_off, {3})})[0];
  mf::FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
  fmt::print("{}", rt->fusionSegments()->toString());
  for (const mf::HeuristicParams* p : rt->heuristics()) fmt::print("{}\n", p->toString());
  fmt::print("{}", fec.getMostRecentCode());
  check(rt->heuristics().size() == 1 &&
            fec.getMostRecentCode().find("mf_layoutOpTile<") != std::string::npos,
        "the layout op is one kernel in the tile form (mf_layoutOpTile)");
  int64_t mismatches = 0;
  for (int64_t row = 0; row < m; ++row)
    for (int64_t col = 0; col < k; ++col)
      mismatches += out.allocationItem(swizzledPosition(row, col, k, in_off, out_off)) !=
                    input.at({row, col});
  check(mismatches == 0, "every logical element at its swizzled position");
}

// relu(X[M, N] + bias[N]) as a user of the automatic path writes it. The lines between the
// readme-snippet markers are README.md's automatic-path example (ctest readme_snippets).
void automaticDemo() {
  fmt::print("==== automatic path: relu(X + bias) ====\n");
  // readme-snippet begin: automatic
  auto fusion = std::make_unique<mf::Fusion>();
  {
    mf::FusionGuard fg(fusion.get());
    mf::TensorView* x = mf::makeContigTensor(2);
    mf::TensorView* bias = mf::makeContigTensor(1);
    fusion->addInput(x);
    fusion->addInput(bias);
    fusion->addOutput(mf::relu(mf::add(x, mf::broadcast(bias, {true, false}))));
  }
  mf::FusionExecutorCache fec(std::move(fusion));
  // Host tensors work without a GPU; device tensors (Tensor::toDevice(), which needs a GPU)
  // give device outputs and no copy.
  std::vector<mf::Tensor> inputs = {mf::Tensor::random({256, 1024}, mf::DataType::Float, 1),
                                    mf::Tensor::random({1024}, mf::DataType::Float, 2)};
  std::vector<mf::Tensor> outs = fec.runFusionWithInputs(inputs);
  mf::FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
  for (const mf::HeuristicParams* p : rt->heuristics())  // one per kernel
    fmt::print("{}\n", p->toString());
  fmt::print("{}", fec.getMostRecentCode());  // the CUDA of every kernel
  // readme-snippet end
  const mf::Tensor out = outs[0].toHost();
  bool ok = true;
  for (int64_t i : {0, 1, 1023, 1024, 256 * 1024 - 1}) {
    double expect = std::max(
        0.0f, static_cast<float>(inputs[0].item(i)) + static_cast<float>(inputs[1].item(i % 1024)));
    ok = ok && out.item(i) == expect;
  }
  check(ok && !rt->isSegmented() && fec.countKernelsCompiled() == 1,
        "automatic path: one pointwise kernel, relu(X + bias) matches");
}

void dynamicReshapeDemo() {
  fmt::print("==== dynamic reshape: reshape(X, {{s0, s1}}) * 2 ====\n");
  auto fusion = std::make_unique<mf::Fusion>();
  {
    mf::FusionGuard fg(fusion.get());
    mf::TensorView* x = mf::makeContigTensor(2);
    mf::Val* s0 = mf::newScalar(mf::DataType::Index);
    mf::Val* s1 = mf::newScalar(mf::DataType::Index);
    fusion->addInput(x);
    fusion->addInput(s0);
    fusion->addInput(s1);
    fusion->addOutput(mf::mul(mf::reshape(x, {s0, s1}), mf::constFloat(2.0)));
  }
  fusion->printMath();
  mf::FusionExecutorCache fec(std::move(fusion));
  bool ok = true;
  for (auto [m, n, s0, s1] :
       {std::array<int64_t, 4>{4, 6, 8, 3}, std::array<int64_t, 4>{6, 8, 8, 6},
        std::array<int64_t, 4>{4, 6, 3, 8}}) {
    const mf::Tensor x = mf::Tensor::random({m, n}, mf::DataType::Float, 3);
    const std::vector<mf::Tensor> outs = fec.runFusionWithInputs(
        {x, mf::Tensor::fromVector<int64_t>({s0}, {}), mf::Tensor::fromVector<int64_t>({s1}, {})});
    const mf::Tensor out = outs[0].toHost();
    ok = ok && out.sizes() == std::vector<int64_t>{s0, s1};
    for (int64_t i : {int64_t{0}, m * n - 1}) ok = ok && out.item(i) == 2.0 * x.item(i);
  }
  check(ok && fec.countConcretizations() == 2,
        fmt::format("dynamic reshape: [4, 6] -> [8, 3] and [6, 8] -> [8, 6] share one "
                    "concretization, [4, 6] -> [3, 8] (split by 3) is a second ({} in all)",
                    fec.countConcretizations()));
}

}  // namespace

int main() {
  try {
    // Parses the environment now, so that MINIFUSER_DUMP=help lists the dump options.
    (void)mf::options();
    pointwiseDemo();
    layoutDemo();
    automaticDemo();
    layoutAutomaticDemo();
    dynamicReshapeDemo();
  } catch (const std::exception& e) {
    fmt::print(stderr, "minifuser_demo: {}\n", e.what());
    return 1;
  }
  fmt::print("{}\n", failures == 0 ? "minifuser_demo: all checks passed"
                                   : fmt::format("minifuser_demo: {} check(s) FAILED", failures));
  return failures == 0 ? 0 : 1;
}
