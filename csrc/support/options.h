//! Process options read from the environment. This file and options.cpp are the only place
//! in minifuser that reads environment variables:
//!   MINIFUSER_DUMP        comma list of dump options (MINIFUSER_DUMP=help lists them)
//!   MINIFUSER_DUMP_DIR    folder for file dumps (cuda_to_file, fusion_segments_graph);
//!                         default "."; created when missing (writeDumpFile)
//!   MINIFUSER_CACHE_DIR   on-disk kernel cache; unset: $HOME/.cache/minifuser (none without
//!                         HOME); set but empty (MINIFUSER_CACHE_DIR=): the disk cache is off
//!   MINIFUSER_UPDATE_GOLDEN=1  golden-kernel tests rewrite tests/golden instead of comparing
//!   MINIFUSER_NO_DEVICE=1 behave as if no GPU were present (tests the CPU fallback on a GPU box)
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mf {

// X(enumerator, name, description). Later phases add entries here and nowhere else.
#define MF_DUMP_OPTIONS(X)                                                                      \
  X(FusionIrPresched, "fusion_ir_presched", "the fusion a scheduler is about to schedule")      \
  X(SchedulerVerbose, "scheduler_verbose", "each scheduler tried and why it refused")           \
  X(SchedulerParams, "scheduler_params", "the heuristics the chosen scheduler computed")        \
  X(FusionIrScheduled, "fusion_ir_scheduled", "the fusion after scheduling (math, transforms)") \
  X(FecCache, "fec_cache", "FusionExecutorCache hits, misses and runtime reuse")                \
  X(FusionIrConcretized, "fusion_ir_concretized",                                               \
    "the fusion before and after concretization of its dynamic shapes")                         \
  X(FusionIr, "fusion_ir", "the fusion's math, one line per expression (printMath)")            \
  X(FusionTransforms, "fusion_transforms", "every tensor's domains and split/merge history")    \
  X(KernelIr, "kernel_ir", "the lowered kernel IR (loops, allocations, predicates)")            \
  X(KernelSummary, "kernel_summary", "the kernel's parameters, launch and vectorized accesses") \
  X(PassIr, "pass_ir", "the kernel IR after each lowering pass that changed it")                \
  X(PassFusionIr, "pass_fusion_ir", "the fusion's math after each fusion pass that changed it") \
  X(PassTiming, "pass_timing", "time spent in each fusion and lowering pass")                   \
  X(CudaKernel, "cuda_kernel", "the generated CUDA kernel")                                     \
  X(CudaFull, "cuda_full", "the kernel with the runtime prelude, as NVRTC compiles it")         \
  X(CudaToFile, "cuda_to_file", "write <kernel>.cu (full source) into MINIFUSER_DUMP_DIR")      \
  X(Ptx, "ptx", "the PTX NVRTC produced")                                                       \
  X(CompileTiming, "compile_timing", "time spent in lowering, codegen and NVRTC")               \
  X(LaunchParams, "launch_params", "grid and block sizes of each launch")                       \
  X(SegmenterLogging, "segmenter_logging",                                                      \
    "each merge the segmenter tries, accepted or refused with each scheduler's reason")         \
  X(FusionSegments, "fusion_segments", "the final segmentation: groups, schedulers, edges")     \
  X(FusionSegmentsGraph, "fusion_segments_graph",                                               \
    "write the segmentation as Graphviz .dot (and .png with dot) into MINIFUSER_DUMP_DIR")

enum class DumpOption {
#define MF_DUMP_ENUM(e, name, desc) e,
  MF_DUMP_OPTIONS(MF_DUMP_ENUM)
#undef MF_DUMP_ENUM
};

//! The parsed process options. Parsed once, on first use: at the latest when the first
//! Fusion is constructed, so an unknown MINIFUSER_DUMP name fails there.
struct Options {
  std::vector<bool> dump;  // indexed by DumpOption
  std::string dump_dir = ".";
  std::string cache_dir;  // empty: caching on disk disabled (MINIFUSER_CACHE_DIR=, or no HOME)
  bool update_golden = false;
  bool no_device = false;
};

//! Parses `dump_list` ("a,b,c"); throws mf::UserError naming the unknown option and listing
//! the valid ones. "help" prints the list to `help_out` and enables nothing.
std::vector<bool> parseDumpList(std::string_view dump_list, std::ostream& help_out);

//! Looks up one environment variable: its value, or nullopt when it is unset.
using EnvironmentLookup = std::function<std::optional<std::string>(const char* name)>;

//! The options the environment `env` describes (the list at the top of this file); an
//! unknown MINIFUSER_DUMP name is a UserError. options() reads the process's environment
//! through it; tests pass their own.
Options parseOptions(const EnvironmentLookup& env);

//! Writes `contents` to the file `file_name` in MINIFUSER_DUMP_DIR (options().dump_dir),
//! creating that folder (and its parents) when missing, for the file dump `opt`
//! (cuda_to_file, fusion_segments_graph). Returns the path written; when the folder cannot
//! be created or the file cannot be written, prints "minifuser: warning: <dump>: cannot
//! write <path> (<why>); the dump is skipped" to stderr and returns nullopt: a dump never
//! aborts a run.
std::optional<std::string> writeDumpFile(DumpOption opt, std::string_view file_name,
                                         std::string_view contents);

//! The process-wide options (from the environment, unless a guard overrides them). While
//! the environment is invalid (an unknown MINIFUSER_DUMP name) every call throws that
//! mf::UserError.
const Options& options();

//! True when MINIFUSER_DUMP (or a DumpGuard) enabled `opt`.
bool isDumpEnabled(DumpOption opt);

//! The text `MINIFUSER_DUMP=help` prints.
std::string dumpHelp();

//! Name of a dump option as written in MINIFUSER_DUMP.
std::string_view dumpName(DumpOption opt);

//! Where dumps go (std::cout).
std::ostream& dumpStream();

//! RAII: enables the given dump options (or overrides other fields) for a scope. For tests.
class OptionsGuard {
 public:
  OptionsGuard();
  ~OptionsGuard();
  OptionsGuard(const OptionsGuard&) = delete;
  OptionsGuard& operator=(const OptionsGuard&) = delete;
  Options& get();  //!< the options in force inside the scope; edit freely
  void enableDump(DumpOption opt);

 private:
  Options saved_;
};

}  // namespace mf
