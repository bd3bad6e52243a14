//! The fusion-level pass table: rewrites of a Fusion before it is lowered, in one ordered
//! table (pipeline.cpp) with one signature, as lower/pipeline.cpp is for kernel IR. It is
//! where nvFuser's pre-segmenter passes go (concretization, empty-tensor removal: passes
//! that run on every fusion) and holds the rewrites a scheduler requests for its schedule
//! (passes that run on request: specializeExtents, multiplyByRowReciprocals; passes.h).
//! The runner, not each pass, dumps the fusion after a pass that changed it
//! (MINIFUSER_DUMP=pass_fusion_ir), verifies it (verifyFusion) and times each pass
//! (pass_timing).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace mf {

class ExpressionEvaluator;
class Fusion;
class IterDomain;

//! An axis whose extent is known before the kernel is compiled (a run-time size the kernel
//! is specialized for).
struct KnownExtent {
  IterDomain* axis = nullptr;
  int64_t value = 0;
};

//! What a run of the fusion passes is given besides the fusion: the passes requested by name
//! (a scheduler's SchedulerEntry::fusionPasses) and the facts those passes read, decided by
//! the scheduler's heuristics. Every pass reads the fields it documents and nothing else.
struct FusionPassRequest {
  //! Names of table entries that run on request only; each must be in fusionPasses().
  std::vector<std::string_view> passes;
  //! specializeExtents: the axes (of the fusion the passes run on) and their values.
  std::vector<KnownExtent> known_extents;
  //! multiplyByRowReciprocals: how many innermost axes form a row.
  int64_t row_rank = 0;
  //! removeEmpty: the fusion's inputs bound (their run-time sizes).
  ExpressionEvaluator* evaluator = nullptr;
};

//! A fusion pass: rewrites the fusion in place (the active fusion while it runs).
using FusionPass = void (*)(Fusion&, const FusionPassRequest&);

struct FusionPassEntry {
  std::string_view name;
  FusionPass run;
  //! True for a pass that runs only when a request names it; false for one that runs always.
  bool on_request;
};

//! The passes, in order.
const std::vector<FusionPassEntry>& fusionPasses();

//! Runs, in table order, every pass that runs always and every pass `request` names. Dumps:
//! pass_fusion_ir (the fusion's math after each pass that changed it), pass_timing. A
//! requested name not in the table is a UserError.
void runFusionPasses(Fusion& fusion, const FusionPassRequest& request = {});

}  // namespace mf
