// random_fusions [--reductions] [count [first_seed]]: runs `count` (default 10000) random
// fusions (tests/random/random_fusion.h; pointwise, or with --reductions also sum/max/min)
// through FusionExecutorCache on the GPU, device inputs, with poisoned outputs, and compares
// every output with the CPU reference. Prints each mismatch (with the seed, which reproduces
// it) and a last line
//   random_fusions: <count> fusions, <ran> ran, <refused> refused, <mismatches> mismatches
// Exits 1 on a mismatch or an unexpected error. Without a GPU it prints why and exits 0.
// `random_fusions [--reductions] describe SEED` prints one seed's fusion and inputs.
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

#include "cuda/driver.h"
#include "random/random_fusion.h"

int main(int argc, char** argv) {
  mf::testing::RandomFusionOptions options;
  if (argc > 1 && std::string(argv[1]) == "--reductions") {
    options.reductions = true;
    --argc, ++argv;
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
  if (!mf::cuda::cudaAvailable()) {
    fmt::print("random_fusions: no GPU ({}); nothing run\n", mf::cuda::noDeviceReason());
    return 0;
  }
  uint64_t ran = 0, refused = 0, mismatches = 0, errors = 0;
  for (uint64_t seed = first; seed < first + count; ++seed) {
    mf::testing::RandomFusion rf = mf::testing::makeRandomFusion(seed, options);
    std::vector<mf::Tensor> ref = mf::ReferenceEvaluator(rf.fusion.get()).run(rf.inputs);
    std::vector<mf::Tensor> device_inputs;
    for (const mf::Tensor& t : rf.inputs) device_inputs.push_back(t.toDevice());
    mf::FusionExecutorCache fec(std::make_unique<mf::Fusion>(*rf.fusion));
    std::vector<mf::Tensor> out;
    try {
      out = fec.runFusionWithInputs(device_inputs, {.poison_outputs = true});
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
    for (size_t o = 0; o < ref.size(); ++o) {
      mf::Tensor got = out[o].toHost();
      for (int64_t i = 0; i < ref[o].numel(); ++i)
        if (!mf::testing::closeToReference(got.item(i), ref[o].item(i), ref[o].dtype())) {
          fmt::print("seed {}: output {} element {}: got {}, reference {}\n{}\n", seed, o, i,
                     got.item(i), ref[o].item(i), rf.toString());
          ++mismatches;
          break;
        }
    }
  }
  fmt::print("random_fusions: {} fusions, {} ran, {} refused, {} mismatches, {} errors\n", count,
             ran, refused, mismatches, errors);
  return mismatches + errors == 0 ? 0 : 1;
}
