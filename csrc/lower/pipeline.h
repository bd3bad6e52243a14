//! The lowering pipeline: a scheduled Fusion in, a Kernel (kernel IR) out. pipeline.cpp
//! holds THE ordered table of passes.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "lower/kernel.h"

namespace mf {

struct LowerOptions {
  DataType index_type = DataType::Int64;
  //! Run the kernel-IR checks after every pass (tests turn this on).
  bool verify = false;
};

//! A lowering pass: transforms the kernel in place.
using LoweringPass = void (*)(Kernel&);

struct PassEntry {
  std::string_view name;
  LoweringPass run;
};

//! The passes, in order.
const std::vector<PassEntry>& loweringPasses();

//! Lowers `fusion` (left unchanged; the kernel works on a copy). Dumps: kernel_ir (the
//! result), pass_ir (after each pass that changed the printed IR), pass_timing.
std::unique_ptr<Kernel> lowerFusion(const Fusion& fusion, const LowerOptions& options = {});

//! Runs the passes up to and including `last` (for pass unit tests).
std::unique_ptr<Kernel> lowerFusionUpTo(const Fusion& fusion, std::string_view last,
                                        const LowerOptions& options = {});

//! Structural checks of kernel IR: every scope node belongs to the kernel, loops have
//! scalar indices, no compute expr still has a TensorView operand after indexTensors.
void verifyKernel(const Kernel& kernel, bool indexed);

}  // namespace mf
