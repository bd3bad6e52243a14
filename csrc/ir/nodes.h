//! The one list of IR node kinds. It generates the kind enums, forward declarations and the
//! visitor dispatch (ir/dispatch.h); adding a node means adding it here first.
#pragma once

// Values: things that have a data type.
#define MF_FOR_ALL_VALS(X) \
  X(Scalar)                \
  X(IterDomain)            \
  X(TensorDomain)          \
  X(TensorView)            \
  X(TensorIndex)

// Expressions: fusion math, IterDomain transforms, and kernel-IR structure.
#define MF_FOR_ALL_EXPRS(X)         \
  X(UnaryOp)                        \
  X(BinaryOp)                       \
  X(TernaryOp)                      \
  X(LoadStoreOp)                    \
  X(BroadcastOp)                    \
  X(ReductionOp)                    \
  X(PreprocessGroupedMatmulInputSf) \
  X(Split)                          \
  X(Merge)                          \
  X(ForLoop)                        \
  X(IfThenElse)                     \
  X(Allocate)                       \
  X(BlockSync)

namespace mf {

#define MF_FORWARD_DECLARE(T) class T;
MF_FOR_ALL_VALS(MF_FORWARD_DECLARE)
MF_FOR_ALL_EXPRS(MF_FORWARD_DECLARE)
#undef MF_FORWARD_DECLARE

enum class ValKind {
#define MF_KIND_ENUM(T) T,
  MF_FOR_ALL_VALS(MF_KIND_ENUM)
};
enum class ExprKind { MF_FOR_ALL_EXPRS(MF_KIND_ENUM) };
#undef MF_KIND_ENUM

}  // namespace mf
