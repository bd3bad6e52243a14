// The named, hand-scheduled fusions whose generated kernels are pinned in tests/golden/.
// The CPU golden test compares their CUDA with the files and compiles it with NVRTC; the
// GPU test runs them on random inputs against the CPU reference.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "minifuser/minifuser.h"

namespace mf::testing {

struct GoldenFusion {
  std::string name;
  //! Builds and schedules the fusion inside an active FusionGuard.
  std::function<void(Fusion&)> build;
  //! Fresh inputs for a problem size `n` (the exact shapes are per fusion).
  std::function<std::vector<Tensor>(int64_t n, uint64_t seed)> inputs;
  //! Elementwise tolerance against the CPU reference (0: bit-exact).
  double tolerance = 0;
};

const std::vector<GoldenFusion>& goldenFusions();

}  // namespace mf::testing
