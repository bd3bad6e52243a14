//! The IR verifier: structural invariants every pass must keep. Tests run it after building
//! and after every transformation; a violation is an mf::InternalError.
#pragma once

namespace mf {

class Fusion;

//! Checks: every node belongs to `fusion`; definitions and uses agree both ways; inputs
//! have no definition; the graph is acyclic; each TensorView's loop domain covers its
//! logical domain, its allocation domain is equivalent to logical unless declared, its
//! contiguity matches its allocation domain, and its compute-at position is in range.
void verifyFusion(const Fusion& fusion);

}  // namespace mf
