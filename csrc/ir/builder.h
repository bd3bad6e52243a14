//! Scalar construction: constants, symbolic scalars, and a simplifying builder for extent
//! and index math (constant folding, x+0, x*1, ceilDiv(x,1), ...). Every extent and index
//! expression in minifuser is built through it, so printed kernels stay readable.
#pragma once

#include "ir/exprs.h"
#include "ir/statement.h"

namespace mf {

//! A fresh symbolic scalar (no value) in the current fusion.
Val* newScalar(DataType dtype);
//! Constants in the current fusion (a new node per call).
Val* constInt(int64_t v, DataType dtype = DataType::Index);
Val* constBool(bool v);
Val* constFloat(double v, DataType dtype = DataType::Double);
Val* constValue(const ScalarValue& v, DataType dtype);

//! Scalar math in the current fusion. Results fold when both sides are constant; identities
//! (x+0, x-0, x*1, x/1, ceilDiv(x,1), x%1, true&&x, ...) return an operand. Arithmetic
//! takes the promoted dtype of its operands; comparisons and logical ops yield Bool.
struct SimplifyingIrBuilder {
  static Val* add(Val* a, Val* b);
  static Val* sub(Val* a, Val* b);
  static Val* mul(Val* a, Val* b);
  static Val* div(Val* a, Val* b);
  static Val* mod(Val* a, Val* b);
  static Val* ceilDiv(Val* a, Val* b);
  static Val* min(Val* a, Val* b);
  static Val* max(Val* a, Val* b);
  static Val* lt(Val* a, Val* b);
  static Val* le(Val* a, Val* b);
  static Val* eq(Val* a, Val* b);
  static Val* ne(Val* a, Val* b);
  static Val* logicalAnd(Val* a, Val* b);
  static Val* logicalOr(Val* a, Val* b);
  static Val* where(Val* cond, Val* a, Val* b);
  static Val* cast(DataType dtype, Val* v);
  //! Any binary op; the named functions above forward here.
  static Val* binary(BinaryOpType op, Val* a, Val* b);
};

}  // namespace mf
