//! The semantics of scalar ops on the host, shared by constant folding, the expression
//! evaluator and the CPU reference evaluator. Each op is the device's: conversions are
//! castValue (support/numerics.h, the host mf_cast) and floating-point math is mf::math
//! (support/scalar_math.h, the host mf_<op>), applied in the compute type codegen uses, so
//! the host agrees with generated kernels by construction (docs/numerics.md).
#pragma once

#include <cstddef>
#include <optional>

#include "ir/exprs.h"
#include "ir/statement.h"

namespace mf {

//! Converts `v` to `dtype` as mf_cast does from v's type (a bool, an int64 or a double; an
//! int32 or a float value converts the same from either width). Narrow floats are returned
//! as the double they represent; Index converts as Int64.
ScalarValue castScalar(const ScalarValue& v, DataType dtype);
//! op(v) producing a `dtype` value, as generated code computes it: `v` is converted to
//! computeType(dtype) (narrow floats compute in Float), op is applied there, and the result
//! is converted to `dtype`. Cast is castScalar; logicalNot yields Bool.
ScalarValue evalUnary(UnaryOpType op, DataType dtype, const ScalarValue& v);
//! a op b producing a `dtype` value: both operands are converted to computeType(compute)
//! (pass computeType(const BinaryOp*) or the promoted operand type), the op is applied there
//! (integers wrap around in that type), and the result is converted to `dtype`.
//! Integer division, modulo or ceilDiv by zero and a negative integer power throw
//! mf::UserError.
ScalarValue evalBinary(BinaryOpType op, DataType dtype, DataType compute, const ScalarValue& a,
                       const ScalarValue& b);
//! where(a, b, c): b and c converted to `dtype`, then selected by a. clamp(a, b, c) =
//! minimum(maximum(a, b), c), computed in computeType(dtype).
ScalarValue evalTernary(TernaryOpType op, DataType dtype, const ScalarValue& a,
                        const ScalarValue& b, const ScalarValue& c);

//! The CPU reference's row loop: out[i] = op(x[i * x_stride]) for a UnaryOp `e`, or
//! x[i * x_stride] op y[i * y_stride] for a BinaryOp, for i < n, each element what
//! evalUnary or evalBinary gives, for a float or double `dtype` (operands, compute type and
//! result; strides in elements). False, with nothing written, for another dtype or op (a
//! cast, a comparison, a logical op).
bool evalFloatingRow(const Expr* e, DataType dtype, const std::byte* x, int64_t x_stride,
                     const std::byte* y, int64_t y_stride, std::byte* out, int64_t n);

}  // namespace mf
