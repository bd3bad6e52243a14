//! The NaN-reach analysis indexTensors runs on each fusion expr it lowers: whether the value
//! written may carry any NaN's bits, because no reader passes those bits on to memory. Codegen
//! prints the cheaper instruction where the lowered write says so (TensorIndex::anyNaNBits).
#pragma once

namespace mf {

class Expr;
class TensorView;

//! Whether `e` (a fusion expr), writing `out`, may give any NaN's bits for a NaN: `out` is a
//! Float register whose NaN bits reach only arithmetic (+ - * /, comparisons, transcendental
//! functions; no arithmetic result's NaN bits are part of the contract, docs/numerics.md),
//! following readers that pass a value on unchanged (maximum/minimum, a max/min reduction, a
//! copy or broadcast into registers): softmax's max(x) feeds only x - max. A fusion output, a
//! cast, neg/abs/relu or where would pass the bits on. True only where it changes the code: a
//! float maximum/minimum (binary or reduction: mf_maximumAnyNaN, one instruction) and a
//! narrow-float widening to Float (mf_toFloatForArithmetic: no canonicalizing select).
bool nanBitsMayBeAny(const Expr* e, const TensorView* out);

}  // namespace mf
