#include "lower/pipeline.h"

#include <chrono>
#include <ostream>

#include "lower/passes.h"
#include "support/options.h"

namespace mf {

const std::vector<PassEntry>& loweringPasses() {
  // clang-format off
  static const std::vector<PassEntry> passes = {
      {"validateSchedule",  validateSchedule},
      {"analyzeKernel",     analyzeKernel},
      {"generateLoopNests", generateLoopNests},
      {"insertAllocations", insertAllocations},
      {"indexTensors",      indexTensors},
      {"insertPredicates",  insertPredicates},
      {"insertSyncs",       insertSyncs},
      {"hoistCommonScalars", hoistCommonScalars},
  };
  // clang-format on
  return passes;
}

namespace {

void verifyScope(const Kernel& kernel, const Scope& scope, bool indexed) {
  for (Expr* e : scope.exprs()) {
    MF_ASSERT(e->fusion() == &kernel.ir(), "kernel IR node from another container");
    if (auto* loop = dynamic_cast<ForLoop*>(e)) {
      MF_ASSERT(loop->index()->kind() == ValKind::Scalar, "loop index is not a scalar");
      verifyScope(kernel, loop->body(), indexed);
    } else if (auto* ite = dynamic_cast<IfThenElse*>(e)) {
      MF_ASSERT(ite->cond()->dtype() == DataType::Bool, "predicate is not Bool");
      verifyScope(kernel, ite->thenBody(), indexed);
    } else if (auto* def = dynamic_cast<ScalarDef*>(e)) {
      MF_ASSERT(def->value()->definition() != nullptr, "LET of an uncomputed scalar");
    } else if (indexed && !e->isA<Allocate>() && !e->isA<BlockSync>()) {
      for (Val* v : e->inputs())
        MF_ASSERT(v->kind() != ValKind::TensorView, "unindexed operand in {}", e->toString());
      MF_ASSERT(e->output(0)->kind() == ValKind::TensorIndex, "unindexed output in {}",
                e->toString());
    }
  }
}

std::unique_ptr<Kernel> run(const Fusion& fusion, std::string_view last,
                            const LowerOptions& options) {
  // The fusion as lowering receives it (the user's schedule, before any pass).
  if (isDumpEnabled(DumpOption::FusionIr)) dumpStream() << fusion.mathString();
  if (isDumpEnabled(DumpOption::FusionTransforms)) dumpStream() << fusion.transformsString();
  auto kernel = std::make_unique<Kernel>(fusion);
  kernel->setIndexType(options.index_type);
  std::string before = isDumpEnabled(DumpOption::PassIr) ? kernel->toString() : "";
  bool indexed = false;
  for (const PassEntry& pass : loweringPasses()) {
    auto start = std::chrono::steady_clock::now();
    pass.run(*kernel);
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    indexed = indexed || pass.name == "indexTensors";
    if (options.verify) verifyKernel(*kernel, indexed);
    if (isDumpEnabled(DumpOption::PassTiming))
      dumpStream() << fmt::format("pass {:<18} {:8.3f} ms\n", pass.name, ms);
    if (isDumpEnabled(DumpOption::PassIr)) {
      std::string after = kernel->toString();
      if (after != before) dumpStream() << "=== after " << pass.name << " ===\n" << after;
      before = std::move(after);
    }
    if (pass.name == last) break;
  }
  if (last.empty() && isDumpEnabled(DumpOption::KernelIr)) dumpStream() << kernel->toString();
  if (last.empty() && isDumpEnabled(DumpOption::KernelSummary))
    dumpStream() << kernel->summary().toString();
  return kernel;
}

}  // namespace

void verifyKernel(const Kernel& kernel, bool indexed) {
  verifyScope(kernel, kernel.body(), indexed);
}

std::unique_ptr<Kernel> lowerFusion(const Fusion& fusion, const LowerOptions& options) {
  return run(fusion, "", options);
}

std::unique_ptr<Kernel> lowerFusionUpTo(const Fusion& fusion, std::string_view last,
                                        const LowerOptions& options) {
  bool known = false;
  for (const PassEntry& p : loweringPasses()) known = known || p.name == last;
  MF_CHECK(known, "lowerFusionUpTo: no lowering pass named '{}'", last);
  return run(fusion, last, options);
}

}  // namespace mf
