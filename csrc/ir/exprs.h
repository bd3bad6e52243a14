//! The tensor (and scalar) math exprs: unary, binary, ternary, set, broadcast, and the
//! layout op. Scalars use the same Unary/Binary/TernaryOp classes as tensors, so one
//! printer, evaluator and code generator serve extents, indices and data.
#pragma once

#include <string_view>
#include <vector>

#include "ir/statement.h"

namespace mf {

class TensorView;

#define MF_UNARY_OPS(X)        \
  X(Neg, "neg")                \
  X(Abs, "abs")                \
  X(Exp, "exp")                \
  X(Log, "log")                \
  X(Sqrt, "sqrt")              \
  X(Rsqrt, "rsqrt")            \
  X(Reciprocal, "reciprocal")  \
  X(Tanh, "tanh")              \
  X(Sigmoid, "sigmoid")        \
  X(Relu, "relu")              \
  X(Sin, "sin")                \
  X(Cos, "cos")                \
  X(Floor, "floor")            \
  X(Ceil, "ceil")              \
  X(LogicalNot, "logical_not") \
  X(Cast, "cast")

#define MF_BINARY_OPS(X) \
  X(Add, "+")            \
  X(Sub, "-")            \
  X(Mul, "*")            \
  X(Div, "/")            \
  X(Mod, "%")            \
  X(CeilDiv, "ceilDiv")  \
  X(Maximum, "maximum")  \
  X(Minimum, "minimum")  \
  X(Pow, "pow")          \
  X(Eq, "==")            \
  X(Ne, "!=")            \
  X(Lt, "<")             \
  X(Le, "<=")            \
  X(Gt, ">")             \
  X(Ge, ">=")            \
  X(LogicalAnd, "&&")    \
  X(LogicalOr, "||")

#define MF_TERNARY_OPS(X) \
  X(Where, "where")       \
  X(Clamp, "clamp")

#define MF_OP_ENUM(e, s) e,
enum class UnaryOpType { MF_UNARY_OPS(MF_OP_ENUM) };
//! Max and Min: nvFuser's names of Maximum and Minimum.
enum class BinaryOpType { MF_BINARY_OPS(MF_OP_ENUM) Max = Maximum, Min = Minimum };
enum class TernaryOpType { MF_TERNARY_OPS(MF_OP_ENUM) };
#undef MF_OP_ENUM

std::string_view toString(UnaryOpType t);
std::string_view toString(BinaryOpType t);
std::string_view toString(TernaryOpType t);
//! True for ops printed infix (+, <, &&); false for function-style ones (ceilDiv, pow).
bool isInfix(BinaryOpType t);
//! True when the op yields Bool whatever its operands (comparisons, logical ops).
bool isPredicateOp(BinaryOpType t);
//! True for the floating-point functions (exp, log, sqrt, rsqrt, reciprocal, tanh, sigmoid,
//! sin, cos): an integer or Bool operand is computed in Float.
bool isFloatOnlyOp(UnaryOpType t);

//! out = op(in). Cast converts to out's dtype.
class UnaryOp : public Expr {
 public:
  UnaryOp(Fusion* f, std::vector<Val*> inputs, std::vector<Val*> outputs, UnaryOpType op);
  MF_DECLARE_EXPR(UnaryOp)
  UnaryOpType opType() const { return op_; }
  UnaryOpType getUnaryOpType() const { return op_; }  // nvFuser's spelling
  Val* in() const { return input(0); }
  Val* out() const { return output(0); }
  std::string toString() const override;

 private:
  UnaryOpType op_;
};

//! out = lhs op rhs.
class BinaryOp : public Expr {
 public:
  BinaryOp(Fusion* f, std::vector<Val*> inputs, std::vector<Val*> outputs, BinaryOpType op);
  MF_DECLARE_EXPR(BinaryOp)
  BinaryOpType opType() const { return op_; }
  BinaryOpType getBinaryOpType() const { return op_; }  // nvFuser's spelling
  Val* lhs() const { return input(0); }
  Val* rhs() const { return input(1); }
  Val* out() const { return output(0); }
  //! The group groupReductions put this reduction in (reduced with the others of the group in
  //! one runtime call: lower/passes.h, groupReductionCalls), or -1.
  int64_t group() const { return group_; }
  void setGroup(int64_t group) { group_ = group; }
  std::string toString() const override;

 private:
  BinaryOpType op_;
  int64_t group_ = -1;
};

//! The dtype a binary op computes in, in generated code and on the host: comparisons in the
//! promoted operand type (a scalar operand only changes the category, as for tensors), other
//! ops in the output's dtype; narrow floats (half, bf16, fp8) compute in Float.
DataType computeType(const BinaryOp* op);

//! where(cond, a, b) or clamp(x, lo, hi).
class TernaryOp : public Expr {
 public:
  TernaryOp(Fusion* f, std::vector<Val*> inputs, std::vector<Val*> outputs, TernaryOpType op);
  MF_DECLARE_EXPR(TernaryOp)
  TernaryOpType opType() const { return op_; }
  TernaryOpType getTernaryOpType() const { return op_; }  // nvFuser's spelling
  Val* out() const { return output(0); }
  std::string toString() const override;

 private:
  TernaryOpType op_;
};

//! Set: a plain copy. SegmentSet: a copy that marks a segment boundary (mf::segment_set);
//! no scheduler takes a fusion holding one, and the segmenter ends a segment at it.
//! SegmenterSet is nvFuser's spelling of SegmentSet.
enum class LoadStoreOpType { Set, SegmentSet, SegmenterSet = SegmentSet };

//! out = set(in): a copy; schedules use it to stage data (e.g. global -> registers).
//! out = segment_set(in): the same copy, as a segmentation hint.
class LoadStoreOp : public Expr {
 public:
  LoadStoreOp(Fusion* f, std::vector<Val*> inputs, std::vector<Val*> outputs,
              LoadStoreOpType op = LoadStoreOpType::Set);
  MF_DECLARE_EXPR(LoadStoreOp)
  LoadStoreOpType opType() const { return op_; }
  Val* in() const { return input(0); }
  Val* out() const { return output(0); }
  std::string toString() const override;

 private:
  LoadStoreOpType op_;
};

//! True for `out = segment_set(in)`.
bool isSegmentSet(const Expr* e);

//! out = broadcast(in, flags): out has a new size-1 Broadcast axis where flags[i] is true.
class BroadcastOp : public Expr {
 public:
  BroadcastOp(Fusion* f, std::vector<Val*> inputs, std::vector<Val*> outputs,
              std::vector<bool> is_broadcast_dims);
  MF_DECLARE_EXPR(BroadcastOp)
  Val* in() const { return input(0); }
  Val* out() const { return output(0); }
  const std::vector<bool>& isBroadcastDims() const { return is_broadcast_dims_; }
  std::string toString() const override;

 private:
  std::vector<bool> is_broadcast_dims_;
};

//! out = reduction(in, op, init): combines, with the associative `op` (Add, Mul, Maximum or
//! Minimum), the elements of `in` along the axes that are Reduction axes in out's root (or
//! logical) domain, starting from `init`, the op's identity in out's dtype. out's dtype is the
//! accumulator's: the op functions (ops/reduction.h) cast narrow floats to Float around it.
class ReductionOp : public Expr {
 public:
  ReductionOp(Fusion* f, std::vector<Val*> inputs, std::vector<Val*> outputs, BinaryOpType op);
  MF_DECLARE_EXPR(ReductionOp)
  BinaryOpType opType() const { return op_; }
  BinaryOpType getReductionOpType() const { return op_; }  // nvFuser's spelling
  Val* in() const { return input(0); }
  //! The identity the accumulator starts from: a constant scalar of out's dtype.
  Val* init() const { return input(1); }
  Val* out() const { return output(0); }
  //! The group groupReductions put this reduction in (reduced with the others of the group in
  //! one runtime call: lower/passes.h, groupReductionCalls), or -1.
  int64_t group() const { return group_; }
  void setGroup(int64_t group) { group_ = group; }
  std::string toString() const override;

 private:
  BinaryOpType op_;
  int64_t group_ = -1;
};

//! "add", "mul", "max" or "min": how a ReductionOp names its op in the IR printout.
std::string_view reductionOpName(BinaryOpType t);

enum class BlockScalingFactorLayout { Block128x4 };
std::string_view toString(BlockScalingFactorLayout l);

//! How a scheduled layout op is written (docs/layout_op.md, "Three schedules"): one logical
//! element per call (Scatter: the loop domain is logical), one vector of the padded buffer
//! per call (Gather: the loop domain is the padded buffer's), or a block per slab of a
//! 128-row tile staged in shared memory (Tile: the gather loops [blocks, threads, vector],
//! chosen with setForm).
enum class LayoutOpForm { Scatter, Gather, Tile };

//! The layout op (docs/layout_op.md). Scatters each group's rows of a
//! [M, K] block-scale matrix into the padded, 128x4-swizzled layout of a block-scaled
//! grouped GEMM. Inputs: {in, input_offsets, output_offsets, k, g}; output: {out}, whose
//! allocation domain [M + 127*G, ceil(K/4)*4] is declared, not derived from logical [M, K].
class PreprocessGroupedMatmulInputSf : public Expr {
 public:
  PreprocessGroupedMatmulInputSf(Fusion* f, std::vector<Val*> inputs, std::vector<Val*> outputs,
                                 BlockScalingFactorLayout layout);
  MF_DECLARE_EXPR(PreprocessGroupedMatmulInputSf)
  Val* in() const { return input(0); }
  Val* inputOffsets() const { return input(1); }
  Val* outputOffsets() const { return input(2); }
  Val* k() const { return input(3); }
  Val* g() const { return input(4); }
  Val* out() const { return output(0); }
  BlockScalingFactorLayout layout() const { return layout_; }
  //! Scatter when the output's loop domain is logical; else Gather unless setForm(Tile).
  LayoutOpForm form() const;
  //! A scheduling choice: Tile (or Gather) needs the loop domain of the padded buffer
  //! (out->setLoopDomain(out->getMaybeAllocationDomain()), then [blocks, threads, vector]).
  void setForm(LayoutOpForm form) { tile_ = form == LayoutOpForm::Tile; }
  std::string toString() const override;

 private:
  BlockScalingFactorLayout layout_;
  bool tile_ = false;
};

//! NVFP4 block quantization (ops/quantization.h; docs/numerics.md states the arithmetic): per
//! block of `blockSize()` values along the last axis of `in`, a scale (block_scales, e4m3)
//! and the values divided by it (quantized, e2m1, stored two per byte). Inputs: {in} or {in,
//! global_scale} (a 0-dim tensor); outputs: {block_scales [.., K/16], quantized [.., K]}.
class BlockQuantizationOp : public Expr {
 public:
  BlockQuantizationOp(Fusion* f, std::vector<Val*> inputs, std::vector<Val*> outputs,
                      int64_t block_size);
  MF_DECLARE_EXPR(BlockQuantizationOp)
  Val* in() const { return input(0); }
  //! Null without one (a global scale of 1).
  Val* globalScale() const { return inputs().size() > 1 ? input(1) : nullptr; }
  Val* blockScales() const { return output(0); }
  Val* quantized() const { return output(1); }
  int64_t blockSize() const { return block_size_; }
  std::string toString() const override;

 private:
  int64_t block_size_;
};

//! blockQuantize of a grouped input [M, K] whose block_scales are written in the layout op's
//! padded, swizzled layout (PreprocessGroupedMatmulInputSf's output for the [M, K/16] scales).
//! Inputs: {in, input_offsets, output_offsets, K / block_size, G} and then the global scale
//! if any; outputs: {block_scales (logical [M, K/16], declared allocation [M + 127*G,
//! ceil(K/64)*4]), quantized [M, K]}.
class GroupedBlockQuantizationOp : public Expr {
 public:
  GroupedBlockQuantizationOp(Fusion* f, std::vector<Val*> inputs, std::vector<Val*> outputs,
                             BlockScalingFactorLayout layout, int64_t block_size);
  MF_DECLARE_EXPR(GroupedBlockQuantizationOp)
  Val* in() const { return input(0); }
  Val* inputOffsets() const { return input(1); }
  Val* outputOffsets() const { return input(2); }
  //! The scales' columns (K / block size) and the groups.
  Val* scaleCols() const { return input(3); }
  Val* g() const { return input(4); }
  Val* globalScale() const { return inputs().size() > 5 ? input(5) : nullptr; }
  Val* blockScales() const { return output(0); }
  Val* quantized() const { return output(1); }
  BlockScalingFactorLayout layout() const { return layout_; }
  int64_t blockSize() const { return block_size_; }
  std::string toString() const override;

 private:
  BlockScalingFactorLayout layout_;
  int64_t block_size_;
};

//! out = full(fill_value): every element of out (its logical shape) is the scalar fill_value
//! converted to out's dtype. Reads no tensor. Inputs: {fill_value}; output: {out}.
//! RemoveEmpty (passes/) makes one for an empty tensor and for a reduction over an empty axis.
class FullOp : public Expr {
 public:
  FullOp(Fusion* f, std::vector<Val*> inputs, std::vector<Val*> outputs);
  MF_DECLARE_EXPR(FullOp)
  Val* fillValue() const { return input(0); }
  Val* out() const { return output(0); }
  std::string toString() const override;
};

}  // namespace mf

// The resize ops' exprs (pad, slice, cat) live in their own header.
#include "ir/resize_exprs.h"  // IWYU pragma: export
