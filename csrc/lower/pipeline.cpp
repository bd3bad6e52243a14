#include "lower/pipeline.h"

#include <fmt/ranges.h>
#include <algorithm>

#include <chrono>
#include <ostream>

#include "lower/passes.h"
#include "support/options.h"

namespace mf {

const std::vector<PassEntry>& loweringPasses() {
  using enum KernelGuarantee;
  // clang-format off
  static const std::vector<PassEntry> passes = {
      {"validateSchedule",    validateSchedule,    None},
      {"analyzeKernel",       analyzeKernel,       None},
      {"generateLoopNests",   generateLoopNests,   LoopNests},
      {"insertAllocations",   insertAllocations,   None},
      {"indexTensors",        indexTensors,        OperandsIndexed},
      {"insertPredicates",    insertPredicates,    PredicatesInserted},
      {"groupReductionCalls", groupReductionCalls, None},
      {"unswitchLoops",       unswitchLoops,       None},
      {"insertSyncs",         insertSyncs,         None},
      {"hoistCommonScalars",  hoistCommonScalars,  None},
  };
  // clang-format on
  return passes;
}

namespace {

class Verifier {
 public:
  Verifier(const Kernel& kernel, KernelGuarantee guarantees)
      : kernel_(kernel), guarantees_(guarantees) {}

  std::vector<std::string> run() {
    scope(kernel_.body(), /*loops=*/0, /*guarded=*/false);
    return std::move(problems_);
  }

 private:
  template <typename... Args>
  void problem(fmt::format_string<Args...> f, Args&&... args) {
    problems_.push_back(fmt::format(f, std::forward<Args>(args)...));
  }

  void scope(const Scope& s, int loops, bool guarded) {
    for (Expr* e : s.exprs()) {
      if (e->fusion() != &kernel_.ir()) problem("kernel IR node from another container");
      if (auto* loop = dynamic_cast<ForLoop*>(e)) {
        if (loop->index()->kind() != ValKind::Scalar) problem("loop index is not a scalar");
        scope(loop->body(), loops + 1, guarded);
      } else if (auto* ite = dynamic_cast<IfThenElse*>(e)) {
        if (ite->cond()->dtype() != DataType::Bool) problem("predicate is not Bool");
        scope(ite->thenBody(), loops, /*guarded=*/true);
        scope(ite->elseBody(), loops, /*guarded=*/true);
      } else if (auto* def = dynamic_cast<ScalarDef*>(e)) {
        if (def->value()->definition() == nullptr) problem("LET of an uncomputed scalar");
      } else if (!e->isA<Allocate>() && !e->isA<BlockSync>()) {
        compute(e, loops, guarded);
      }
    }
  }

  void compute(Expr* e, int loops, bool guarded) {
    if (has(guarantees_, KernelGuarantee::LoopNests)) {
      // The loops were built from the first output's loop domain; a reduction's init runs
      // outside the reduction loops.
      auto* out = dynamic_cast<TensorView*>(e->output(0));
      auto* ti = dynamic_cast<TensorIndex*>(e->output(0));
      if (ti != nullptr && !ti->startsReduction()) out = ti->view();
      if (out != nullptr && out->nDims() > loops)
        problem("{} sits in {} loops, its output has {} loop axes", e->toString(), loops,
                out->nDims());
    }
    if (has(guarantees_, KernelGuarantee::OperandsIndexed)) {
      for (Val* v : e->inputs())
        if (v->kind() == ValKind::TensorView)
          problem("unindexed operand {} in {}", v->toString(), e->toString());
      for (Val* v : e->outputs())
        if (v->kind() != ValKind::TensorIndex)
          problem("unindexed output {} in {}", v->toString(), e->toString());
    }
    auto* call = dynamic_cast<RuntimeCall*>(e);
    if (call == nullptr || call->collectiveScope() == CollectiveScope::None) return;
    if (has(guarantees_, KernelGuarantee::PredicatesInserted)) {
      for (size_t m = 0; m < call->members(); ++m)
        if (call->readPredicate(m) == nullptr || call->writePredicate(m) == nullptr)
          problem("collective call without its read and write predicates: {}", e->toString());
      if (guarded)
        problem("collective call under a guard (not every thread reaches it): {}", e->toString());
    }
  }

  const Kernel& kernel_;
  KernelGuarantee guarantees_;
  std::vector<std::string> problems_;
};

std::unique_ptr<Kernel> run(const Fusion& fusion, std::string_view last,
                            const LowerOptions& options) {
  // The fusion as lowering receives it (the user's schedule, before any pass).
  if (isDumpEnabled(DumpOption::FusionIr)) dumpStream() << fusion.mathString();
  if (isDumpEnabled(DumpOption::FusionTransforms)) dumpStream() << fusion.transformsString();
  auto kernel = std::make_unique<Kernel>(fusion);
  kernel->setIndexType(options.index_type);
  std::string before = isDumpEnabled(DumpOption::PassIr) ? kernel->toString() : "";
  KernelGuarantee guarantees = KernelGuarantee::None;
  for (const PassEntry& pass : loweringPasses()) {
    auto start = std::chrono::steady_clock::now();
    pass.run(*kernel);
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    guarantees = guarantees | pass.guarantees;
    if (options.verify) verifyKernel(*kernel, guarantees);
    if (isDumpEnabled(DumpOption::PassTiming))
      dumpStream() << fmt::format("pass {:<18} {:8.3f} ms\n", pass.name, ms);
    if (isDumpEnabled(DumpOption::PassIr)) {
      std::string after = kernel->toString();
      if (after != before) dumpStream() << "=== after " << pass.name << " ===\n" << after;
      before = std::move(after);
    }
    if (pass.name == last) break;
  }
  if (std::optional<int64_t>& blocks = kernel->summary().min_blocks_per_sm;
      options.min_blocks_per_sm && kernel->summary().block_threads)
    blocks = std::max(blocks.value_or(1), *options.min_blocks_per_sm);
  if (last.empty() && isDumpEnabled(DumpOption::KernelIr)) dumpStream() << kernel->toString();
  if (last.empty() && isDumpEnabled(DumpOption::KernelSummary))
    dumpStream() << kernel->summary().toString();
  return kernel;
}

}  // namespace

KernelGuarantee guaranteesAfter(std::string_view last) {
  KernelGuarantee guarantees = KernelGuarantee::None;
  for (const PassEntry& pass : loweringPasses()) {
    guarantees = guarantees | pass.guarantees;
    if (pass.name == last) break;
  }
  return guarantees;
}

std::vector<std::string> kernelIrProblems(const Kernel& kernel, KernelGuarantee guarantees) {
  return Verifier(kernel, guarantees).run();
}

void verifyKernel(const Kernel& kernel, KernelGuarantee guarantees) {
  const std::vector<std::string> problems = kernelIrProblems(kernel, guarantees);
  MF_ASSERT(problems.empty(), "invalid kernel IR: {}\n{}", fmt::join(problems, "; "),
            kernel.toString());
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
