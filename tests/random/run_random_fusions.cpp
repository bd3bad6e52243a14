// random_fusions [--reductions] [--shape-ops] [--small] [count [first_seed]]: runs `count`
// (default 10000) random fusions (tests/random/random_fusion.h; pointwise, with --reductions
// also sum/max/min, with --shape-ops also reshape, squeeze, expand, permute, pad, slice, cat
// and more size-0 axes (--view-ops: the first four only, --resize-ops: the last three);
// --small: at most 4096 elements per input, test_random_shape_ops' size)
// through FusionExecutorCache on the GPU, device inputs, with poisoned outputs, and compares
// every output with the CPU reference. Prints each mismatch (with the seed, which reproduces
// it) and a last line
//   random_fusions: <count> fusions, <ran> ran, <refused> refused, <mismatches> mismatches
// Exits 1 on a mismatch or an unexpected error. Without a GPU it prints why and exits 0.
// An output computed without inexact steps (tests/random/inexact_steps.h) must match bit for
// bit. Of another, a float element outside closeToReference's tolerance is a mismatch only if
// it is also
// outside the fusion's inexact-step slack there (tests/random/inexact_steps.h: how far its
// sums, transcendental functions and narrow roundings can move it), computed on demand.
// `random_fusions --cpu [--reductions] [count [first_seed]]` runs without a GPU: every fusion
// through FusionExecutorCache's CPU path (segment, schedule, lower, NVRTC, launch preparation;
// outputs from the reference), so it finds scheduling and lowering errors, not wrong values.
// `random_fusions --interpret [--reductions] [count [first_seed]]` goes further without a
// GPU: each segment's lowered kernel runs on the host kernel interpreter
// (tests/random/kernel_interpreter.h: every thread, shared memory, block and grid
// reductions, race checks), and its outputs are compared as the GPU's are.
// `random_fusions [--reductions] describe SEED` prints one seed's fusion and inputs;
// `random_fusions [--reductions] explain SEED OUTPUT ELEMENT GOT` also the reference value
// of that element, each inexact step's slack there and whether GOT passes (no GPU needed:
// triage of a mismatch line).
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <optional>

#include "cuda/driver.h"
#include "random/inexact_steps.h"
#include "random/kernel_interpreter.h"
#include "random/random_fusion.h"

int main(int argc, char** argv) {
  mf::testing::RandomFusionOptions options;
  bool cpu = false, interpret = false;
  for (; argc > 1 && std::string(argv[1]).starts_with("--"); --argc, ++argv) {
    const std::string flag = argv[1];
    if (flag == "--cpu" || flag == "--interpret") {
      cpu = true;
      interpret = flag == "--interpret";
    } else if (flag == "--reductions") {
      options.reductions = true;
    } else if (flag == "--shape-ops") {
      options.view_ops = options.resize_ops = true;
    } else if (flag == "--view-ops") {
      options.view_ops = true;
    } else if (flag == "--resize-ops") {
      options.resize_ops = true;
    } else if (flag == "--small") {
      options.small = true;
    } else {
      fmt::print(stderr, "random_fusions: unknown flag {}\n", flag);
      return 2;
    }
  }
  if (argc == 6 && std::string(argv[1]) == "explain") {
    mf::testing::RandomFusion rf =
        mf::testing::makeRandomFusion(std::strtoull(argv[2], nullptr, 10), options);
    const size_t o = std::strtoull(argv[3], nullptr, 10);
    const int64_t i = std::strtoll(argv[4], nullptr, 10);
    const double got = std::strtod(argv[5], nullptr);
    std::vector<mf::Tensor> ref = mf::ReferenceEvaluator(rf.fusion.get()).run(rf.inputs);
    const std::vector<mf::testing::InexactStep> steps = mf::testing::inexactSteps(rf);
    fmt::print("{}\noutput {} element {}: reference {}, got {}, |got - reference| {}\n",
               rf.toString(), o, i, ref[o].item(i), got, std::abs(got - ref[o].item(i)));
    for (const mf::testing::InexactStep& step : steps)
      fmt::print("  slack {} from {}\n", step.output_shift[o].item(i), step.expr->toString());
    const double slack = mf::testing::inexactSlack(steps, o, i);
    fmt::print("within the dtype's tolerance: {}; with the slack {}: {}\n",
               mf::testing::closeToReference(got, ref[o].item(i), ref[o].dtype()), slack,
               mf::testing::closeToReference(got, ref[o].item(i), ref[o].dtype(), slack));
    return 0;
  }
  if (argc == 3 && std::string(argv[1]) == "describe") {
    // random_fusions describe SEED: the fusion and inputs of one seed (no GPU needed).
    fmt::print(
        "{}\n",
        mf::testing::makeRandomFusion(std::strtoull(argv[2], nullptr, 10), options).toString());
    return 0;
  }
  const uint64_t count = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10000;
  const uint64_t first = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 0;
  const bool gpu = mf::cuda::cudaAvailable();
  if (!gpu && !cpu) {
    fmt::print("random_fusions: no GPU ({}); nothing run (--cpu: scheduling and lowering only)\n",
               mf::cuda::noDeviceReason());
    return 0;
  }
  uint64_t ran = 0, refused = 0, mismatches = 0, errors = 0;
  for (uint64_t seed = first; seed < first + count; ++seed) {
    mf::testing::RandomFusion rf = mf::testing::makeRandomFusion(seed, options);
    std::vector<mf::Tensor> ref = mf::ReferenceEvaluator(rf.fusion.get()).run(rf.inputs);
    std::vector<mf::Tensor> device_inputs;
    for (const mf::Tensor& t : rf.inputs) device_inputs.push_back(gpu ? t.toDevice() : t);
    mf::FusionExecutorCache fec(std::make_unique<mf::Fusion>(*rf.fusion));
    std::vector<mf::Tensor> out;
    try {
      out = fec.runFusionWithInputs(device_inputs, {.poison_outputs = true});
      if (interpret)
        out = fec.getMostRecentKernelRuntime()->runOnHost(rf.inputs,
                                                          mf::testing::interpretKernelOrThrow);
    } catch (const mf::UserError& e) {
      if (!rf.connected && std::string(e.what()).find("no scheduler takes") != std::string::npos) {
        ++refused;
        continue;
      }
      fmt::print("seed {}: error: {}\n{}\n", seed, e.what(), rf.toString());
      ++errors;
      continue;
    } catch (const std::exception& e) {
      fmt::print("seed {}: error: {}\n{}\n", seed, e.what(), rf.toString());
      ++errors;
      continue;
    }
    ++ran;
    if (std::optional<std::string> mismatch = mf::testing::firstMismatch(rf, ref, out)) {
      fmt::print("{}\n{}\n", *mismatch, rf.toString());
      ++mismatches;
    }
  }
  fmt::print("random_fusions: {} fusions, {} ran, {} refused, {} mismatches, {} errors\n", count,
             ran, refused, mismatches, errors);
  return mismatches + errors == 0 ? 0 : 1;
}
