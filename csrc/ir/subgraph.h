//! copySubgraph: a standalone Fusion holding a copy of some of another fusion's exprs, with
//! their boundary values as its inputs and outputs. The segmenter builds each segment this
//! way; the copy keeps the original's names, so a segment prints like its part of the whole.
//!
//!   T1 = neg(T0); T2 = exp(T1); T3 = T2 * 2.0      copy {exp, mul}:
//!                                                   Inputs: T1   Outputs: T3
//!                                                   T2 = exp(T1); T3 = T2 * 2.0
#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

#include "ir/fusion.h"

namespace mf {

//! A copied subgraph and where each copied value of the original went.
struct SubgraphCopy {
  std::unique_ptr<Fusion> fusion;
  //! Original value -> its copy (a boundary tensor -> the copy's input tensor).
  std::unordered_map<const Val*, Val*> old_to_new;
};

//! Copies `exprs` (fusion exprs of `fusion`, any order) into a new Fusion whose inputs are
//! `inputs` and whose outputs are `outputs`. Every tensor operand not computed by `exprs`
//! must be among `inputs`; a boundary input tensor gets its logical domain only (no producer
//! history), its allocation domain and contiguity, and a fresh symbolic extent for each
//! extent its producer computed (`( i0 * i1 )` after a reshape), which the copy's other
//! uses of that extent share. Scalars come along with their whole
//! definition (extents, split factors, the layout op's `M + 127*G`); a scalar that is an
//! input of `fusion` and is reached becomes an input of the copy too (after `inputs`).
//! Throws mf::UserError on an expr of another fusion or a boundary that does not close.
//! `fusion` is not changed.
SubgraphCopy copySubgraph(const Fusion& fusion, const std::vector<Expr*>& exprs,
                          const std::vector<Val*>& inputs, const std::vector<Val*>& outputs);

//! copySubgraph with the derived boundary: subgraphInputs and subgraphOutputs.
SubgraphCopy copySubgraph(const Fusion& fusion, const std::vector<Expr*>& exprs);

//! The tensors `exprs` read but do not compute, and the scalar inputs of the fusion they
//! read directly, in order of first use; then each fusion input whose extent a scalar
//! operand needs and no input before binds (a reduced count's `max(i2 - 1, 0)`).
std::vector<Val*> subgraphInputs(const std::vector<Expr*>& exprs);
//! The tensors `exprs` compute that are fusion outputs or are used by an expr outside
//! `exprs`, in topological order.
std::vector<Val*> subgraphOutputs(const std::vector<Expr*>& exprs);

}  // namespace mf
