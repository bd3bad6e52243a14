//! The semantics of scalar ops on the host, shared by constant folding, the expression
//! evaluator and the CPU reference evaluator, so all three agree with each other and with
//! the device code (docs/numerics.md).
#pragma once

#include <optional>

#include "ir/exprs.h"
#include "ir/statement.h"

namespace mf {

//! Converts `v` to `dtype` with the GPU's rules (narrow floats round to nearest even and
//! are returned as the double they represent; float->int truncates toward zero).
ScalarValue castScalar(const ScalarValue& v, DataType dtype);
//! op(v), computed in `dtype` (the result type).
ScalarValue evalUnary(UnaryOpType op, DataType dtype, const ScalarValue& v);
//! a op b; `dtype` is the result type, `compute` the type the operands are promoted to.
//! Integer division or modulo by zero throws mf::UserError naming `what`.
ScalarValue evalBinary(BinaryOpType op, DataType dtype, DataType compute, const ScalarValue& a,
                       const ScalarValue& b);
ScalarValue evalTernary(TernaryOpType op, DataType dtype, const ScalarValue& a,
                        const ScalarValue& b, const ScalarValue& c);

}  // namespace mf
