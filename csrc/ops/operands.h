//! The check every op makes where its operands enter (ops/ internal): an operand is not null
//! and belongs to the fusion the op builds into, so a misuse is a UserError naming the op and
//! the argument, not a crash or an internal error deep in the IR.
#pragma once

#include <string_view>

namespace mf {

class Fusion;
class Val;

//! The fusion ops build into (FusionGuard::current()), or a UserError naming `op`.
Fusion* activeFusion(std::string_view op);

//! Checks that operand `arg` of `op` is not null and belongs to `fusion`, where the op builds
//! its output (`fusion_role` says which fusion that is, for the message); throws
//! mf::UserError otherwise.
void checkOperand(std::string_view op, std::string_view arg, const Val* v, const Fusion* fusion,
                  std::string_view fusion_role = "the active FusionGuard's");

}  // namespace mf
