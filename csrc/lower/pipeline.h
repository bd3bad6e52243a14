//! The lowering pipeline: a scheduled Fusion in, a Kernel (kernel IR) out. pipeline.cpp
//! holds THE ordered table of passes.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lower/kernel.h"

namespace mf {

struct LowerOptions {
  DataType index_type = DataType::Int64;
  //! Run the kernel-IR checks after every pass (tests turn this on).
  bool verify = false;
  //! Blocks per SM the kernel's launch bounds ask ptxas to leave registers for
  //! (KernelSummary::min_blocks_per_sm; the larger of this and the kernel's own need).
  std::optional<int64_t> min_blocks_per_sm = std::nullopt;
};

//! A lowering pass: transforms the kernel in place.
using LoweringPass = void (*)(Kernel&);

//! What the kernel IR satisfies from a pass on (a bit set). The runner collects the
//! guarantees of the passes run so far and verifies the IR against them.
enum class KernelGuarantee : unsigned {
  None = 0,
  //! Every compute expr sits in its loop nest (generateLoopNests).
  LoopNests = 1u << 0,
  //! Every tensor operand and output of a compute expr is a TensorIndex (indexTensors).
  OperandsIndexed = 1u << 1,
  //! Every collective RuntimeCall has its read and write predicates and no guard wraps it:
  //! every thread of its scope reaches it (insertPredicates).
  PredicatesInserted = 1u << 2,
};
constexpr KernelGuarantee operator|(KernelGuarantee a, KernelGuarantee b) {
  return static_cast<KernelGuarantee>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
constexpr bool has(KernelGuarantee set, KernelGuarantee g) {
  return (static_cast<unsigned>(set) & static_cast<unsigned>(g)) == static_cast<unsigned>(g);
}

struct PassEntry {
  std::string_view name;
  LoweringPass run;
  //! What the IR satisfies after this pass (and every later one: a pass keeps what the
  //! passes before it guaranteed).
  KernelGuarantee guarantees = KernelGuarantee::None;
};

//! The passes, in order.
const std::vector<PassEntry>& loweringPasses();

//! Lowers `fusion` (left unchanged; the kernel works on a copy). Dumps: kernel_ir (the
//! result), pass_ir (after each pass that changed the printed IR), pass_timing.
std::unique_ptr<Kernel> lowerFusion(const Fusion& fusion, const LowerOptions& options = {});

//! Runs the passes up to and including `last` (for pass unit tests).
std::unique_ptr<Kernel> lowerFusionUpTo(const Fusion& fusion, std::string_view last,
                                        const LowerOptions& options = {});

//! The guarantees of the passes up to and including `last` (all passes when empty).
KernelGuarantee guaranteesAfter(std::string_view last);

//! Structural checks of kernel IR, one message per violation: every scope node belongs to
//! the kernel, loops have scalar indices and guards Bool conditions, and what `guarantees`
//! promise holds (see KernelGuarantee). Empty when the IR is sound.
std::vector<std::string> kernelIrProblems(const Kernel& kernel, KernelGuarantee guarantees);

//! kernelIrProblems as an internal error (the runner calls it after each pass when
//! LowerOptions::verify is set).
void verifyKernel(const Kernel& kernel, KernelGuarantee guarantees);

}  // namespace mf
