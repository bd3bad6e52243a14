//! The IR verifier: structural invariants every pass must keep. Tests run it after building
//! and after every transformation; a violation is an mf::InternalError. verifyFusionInputs is
//! the user-facing part (a mf::UserError): every entry point that runs a fusion calls it.
#pragma once

#include <string_view>

namespace mf {

class Fusion;

//! Every tensor the fusion's outputs need is a fusion input or computed by an expr; else a
//! UserError naming the first such tensor (in topological order), prefixed with `who`:
//! "<who>: T3 is neither a fusion input nor computed by an expr; add it with
//! fusion.addInput(T3)". FusionExecutorCache, ReferenceEvaluator,
//! SegmentCandidateFinder::segment and KernelExecutor::compile check it first, so a missing
//! addInput is named rather than reported as an extent that cannot be evaluated.
void verifyFusionInputs(const Fusion& fusion, std::string_view who);

//! Checks: every node belongs to `fusion`; definitions and uses agree both ways; inputs
//! have no definition; the graph is acyclic; each TensorView's loop domain covers its
//! logical domain, its allocation domain is equivalent to logical unless declared, its
//! contiguity matches its allocation domain, and its compute-at position is in range; and
//! verifyFusionInputs (a UserError).
void verifyFusion(const Fusion& fusion);

}  // namespace mf
