//! The one list of IR node kinds. It generates the kind enums, forward declarations and the
//! visitor dispatch (ir/dispatch.h); adding a node means adding it here first.
#pragma once

// Fusion values: things that have a data type.
#define MF_FOR_ALL_FUSION_VALS(X) \
  X(Scalar)                       \
  X(IterDomain)                   \
  X(TensorDomain)                 \
  X(TensorView)

// The IterDomain transforms: the exprs that define an IterDomain. visitIdExpr
// (ir/iter_domain.h) dispatches over exactly this list, so a kind added here is a compile
// error at every place that must handle it.
#define MF_FOR_ALL_ID_EXPRS(X) \
  X(Split)                     \
  X(Merge)                     \
  X(Resize)

// Fusion expressions: tensor and scalar math, the resize ops (ir/resize_exprs.h), and
// IterDomain transforms.
#define MF_FOR_ALL_FUSION_EXPRS(X)  \
  X(UnaryOp)                        \
  X(BinaryOp)                       \
  X(TernaryOp)                      \
  X(LoadStoreOp)                    \
  X(BroadcastOp)                    \
  X(ReductionOp)                    \
  X(PreprocessGroupedMatmulInputSf) \
  X(BlockQuantizationOp)            \
  X(GroupedBlockQuantizationOp)     \
  X(FullOp)                         \
  X(ViewOp)                         \
  X(SqueezeOp)                      \
  X(ExpandOp)                       \
  X(PadOp)                          \
  X(SliceOp)                        \
  X(CatOp)                          \
  MF_FOR_ALL_ID_EXPRS(X)

// Kernel IR (ir/kernel_ir.h), made by lowering only: an indexed tensor element, the
// structure of the kernel body, and calls of runtime functions.
#define MF_FOR_ALL_KERNEL_VALS(X) X(TensorIndex)
#define MF_FOR_ALL_KERNEL_EXPRS(X) \
  X(ForLoop)                       \
  X(IfThenElse)                    \
  X(Allocate)                      \
  X(BlockSync)                     \
  X(RuntimeCall)                   \
  X(ScalarDef)

// Every kind; the kind enums cover both lists.
#define MF_FOR_ALL_VALS(X) MF_FOR_ALL_FUSION_VALS(X) MF_FOR_ALL_KERNEL_VALS(X)
#define MF_FOR_ALL_EXPRS(X) MF_FOR_ALL_FUSION_EXPRS(X) MF_FOR_ALL_KERNEL_EXPRS(X)
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
