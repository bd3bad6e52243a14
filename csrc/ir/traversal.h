//! Whole-graph traversals. Every one treats all of a tensor's domains (root, logical,
//! allocation, loop) and their extents' expression DAGs as live: an allocation-only axis
//! and its extent expression are reached like anything else (docs/ir.md, nvFuser #5384).
#pragma once

#include <functional>
#include <vector>

#include "ir/statement.h"

namespace mf {

class TensorView;

//! The direct dependencies of `s`: an Expr's inputs; a Val's definition and, when
//! `members`, its members (a TensorView's domain, a TensorDomain's axes and transforms, an
//! IterDomain's extent).
std::vector<Statement*> dependenciesOf(Statement* s, bool members = true);

//! Every statement `roots` depend on through `deps` (roots included), each once,
//! dependencies first. Iterative, so deep extent chains cannot overflow the stack. Throws
//! mf::InternalError on a cycle.
std::vector<Statement*> topologicalOrder(
    const std::vector<Statement*>& roots,
    const std::function<std::vector<Statement*>(Statement*)>& deps);

//! Every statement `roots` depend on (roots included), each once, dependencies first.
//! Throws mf::InternalError on a cycle.
std::vector<Statement*> getStmts(const std::vector<Val*>& roots, bool members = true);

//! The Exprs among getStmts(roots) with a TensorView output, in topological order.
std::vector<Expr*> tensorExprs(const std::vector<Val*>& roots);

//! The TensorViews among getStmts(roots), in topological order.
std::vector<TensorView*> tensorViews(const std::vector<Val*>& roots);

}  // namespace mf
