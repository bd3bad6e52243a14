//! The user-facing fusion-building API for math: unary and binary ops on tensors and
//! scalars, where/clamp, casts, set and explicit broadcast. Each op creates a fresh output
//! TensorView (fresh IterDomains, nvFuser style) in the current fusion.
//!
//! Type promotion follows PyTorch (docs/ir.md): bool < integer < floating; the wider type
//! wins within a category; Half with BFloat16 gives Float; a scalar operand only changes the
//! category (int tensor * 2.5 -> Float, half tensor * 2.5 -> Half). Exceptions, as nvFuser:
//! `div` of integers truncates toward zero; float-only math (exp, sqrt, ...) on integers
//! computes in Float. Broadcasting is implicit, as nvFuser's: a tensor operand of lower rank
//! (Reduction axes not counted) gets leading Broadcast axes (numpy's right alignment).
#pragma once

#include <vector>

#include "ir/exprs.h"
#include "ir/tensor_view.h"

namespace mf {

//! op(x) for a tensor or a scalar.
Val* unaryOp(UnaryOpType op, Val* x);
TensorView* unaryOp(UnaryOpType op, TensorView* x);
//! lhs op rhs; either side may be a scalar.
Val* binaryOp(BinaryOpType op, Val* lhs, Val* rhs);

#define MF_DECLARE_UNARY(name)     \
  TensorView* name(TensorView* x); \
  Val* name(Val* x);
MF_DECLARE_UNARY(neg)
MF_DECLARE_UNARY(abs)
MF_DECLARE_UNARY(exp)
MF_DECLARE_UNARY(log)
MF_DECLARE_UNARY(sqrt)
MF_DECLARE_UNARY(rsqrt)
MF_DECLARE_UNARY(reciprocal)
MF_DECLARE_UNARY(tanh)
MF_DECLARE_UNARY(sigmoid)
MF_DECLARE_UNARY(relu)
MF_DECLARE_UNARY(sin)
MF_DECLARE_UNARY(cos)
MF_DECLARE_UNARY(floor)
MF_DECLARE_UNARY(ceil)
MF_DECLARE_UNARY(logicalNot)
#undef MF_DECLARE_UNARY

#define MF_DECLARE_BINARY(name)                   \
  Val* name(Val* a, Val* b);                      \
  TensorView* name(TensorView* a, TensorView* b); \
  TensorView* name(TensorView* a, Val* b);        \
  TensorView* name(Val* a, TensorView* b);
MF_DECLARE_BINARY(add)
MF_DECLARE_BINARY(sub)
MF_DECLARE_BINARY(mul)
MF_DECLARE_BINARY(div)
MF_DECLARE_BINARY(maximum)
MF_DECLARE_BINARY(minimum)
MF_DECLARE_BINARY(pow)
MF_DECLARE_BINARY(eq)
MF_DECLARE_BINARY(ne)
MF_DECLARE_BINARY(lt)
MF_DECLARE_BINARY(le)
MF_DECLARE_BINARY(gt)
MF_DECLARE_BINARY(ge)
MF_DECLARE_BINARY(logicalAnd)
MF_DECLARE_BINARY(logicalOr)
#undef MF_DECLARE_BINARY

//! cond ? a : b, elementwise; `cond` must be Bool.
TensorView* where(Val* cond, Val* a, Val* b);
//! minimum(maximum(x, lo), hi); NaN in x stays NaN.
TensorView* clamp(TensorView* x, Val* lo, Val* hi);
//! Converts to `dtype` (narrowing floats round to nearest even; docs/numerics.md).
TensorView* castOp(DataType dtype, TensorView* x);
//! A copy of `x` (used to stage data: global -> registers -> global).
TensorView* set(TensorView* x);
//! A copy of `x` that ends a segment (nvFuser's segment_set): the segmenter puts it in the
//! segment of its producer and its consumers in later segments, so `x` crosses a kernel
//! boundary in global memory. No scheduler takes a fusion holding one; a segment's fusion
//! (SegmentedFusion::makeFusion) holds it as a plain set. The name is nvFuser's.
TensorView* segment_set(TensorView* x);
//! Inserts size-1 Broadcast axes where `is_broadcast_dim` is true; the false entries must
//! be as many as x's axes.
TensorView* broadcast(TensorView* x, const std::vector<bool>& is_broadcast_dim);

// computeType(const BinaryOp*), the dtype a binary op computes in, is declared in ir/exprs.h
// (included above): codegen, the reference evaluator and the expression evaluator share it.

}  // namespace mf
