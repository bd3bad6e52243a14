#include "passes/pipeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ostream>
#include <string>

#include "ir/fusion.h"
#include "ir/verifier.h"
#include "passes/passes.h"
#include "support/options.h"

namespace mf {

const std::vector<FusionPassEntry>& fusionPasses() {
  // clang-format off
  static const std::vector<FusionPassEntry> passes = {
      {"removeDeadExprs",          removeDeadExprs,          /*on_request=*/true},
      {"removeEmpty",              removeEmpty,              /*on_request=*/true},
      {"specializeExtents",        specializeExtents,        /*on_request=*/true},
      {"multiplyByRowReciprocals", multiplyByRowReciprocals, /*on_request=*/true},
  };
  // clang-format on
  return passes;
}

void runFusionPasses(Fusion& fusion, const FusionPassRequest& request) {
  for (std::string_view name : request.passes) {
    const bool known = std::any_of(fusionPasses().begin(), fusionPasses().end(),
                                   [&](const FusionPassEntry& p) { return p.name == name; });
    MF_CHECK(known, "runFusionPasses: no fusion pass named '{}'", name);
  }
  FusionGuard fg(&fusion);
  const bool dump_ir = isDumpEnabled(DumpOption::PassFusionIr);
  std::string before = dump_ir ? fusion.mathString() : "";
  for (const FusionPassEntry& pass : fusionPasses()) {
    if (pass.on_request &&
        std::find(request.passes.begin(), request.passes.end(), pass.name) == request.passes.end())
      continue;
    auto start = std::chrono::steady_clock::now();
    pass.run(fusion, request);
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    verifyFusion(fusion);
    if (isDumpEnabled(DumpOption::PassTiming))
      dumpStream() << fmt::format("fusion pass {:<25} {:8.3f} ms\n", pass.name, ms);
    if (dump_ir) {
      std::string after = fusion.mathString();
      if (after != before)
        dumpStream() << "=== after fusion pass " << pass.name << " ===\n" << after;
      before = std::move(after);
    }
  }
}

}  // namespace mf
