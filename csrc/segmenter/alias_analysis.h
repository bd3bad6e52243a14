//! Alias analysis: which fusion outputs are only views of a fusion input (nvFuser's
//! AliasAnalysis and expression-evaluator segment). Such an output launches no kernel: the
//! segmenter puts it in an ExprEval group ("view" in dumps), and the runtime makes it on the
//! host as a Tensor sharing the input's storage with new sizes and strides (evaluateViews).
//! The rules are in docs/segmenter.md, "Outputs that are views".
//!
//!   T1 = set(T0); T2 = broadcast(T1, {false, true}); T3 = T0 + 1     outputs T2, T3
//!   group 0 (expr_eval, view): T1 = set(T0); T2 = broadcast(T1)     T2: a view of T0
//!   group 1 (pointwise):       T3 = T0 + 1
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "scheduler/runtime_info.h"

namespace mf {

//! A strided layout over a fusion input's storage: sizes and strides in elements, from the
//! input's first element (a view keeps the input's storage offset).
struct ViewLayout {
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
};

//! True for an expr whose output may be a view of its tensor operand: a `set` (not a
//! `segment_set`) of the same dtype, whose logical domain is its root or a permutation of
//! it (permute), a broadcast (unsqueeze), a reshape (ViewOp), a squeeze and an expand.
bool isViewExpr(const Expr* e);

//! The layout of `e`'s output (isViewExpr) as a view of its operand laid out as `in`, the
//! output's extents from `ee`; nullopt when no strided view expresses it: a reshape that
//! merges axes not dense with each other (e.g. the two axes of a transposed [5, 7] merged
//! to [35]), a squeeze of an axis whose size is not 1, an expand of an axis whose size is
//! not 1 to another size. A permute permutes the strides, a squeeze drops axes, an expand
//! gives its expanded axes stride 0, a broadcast inserts a size-1 axis.
std::optional<ViewLayout> viewLayoutOf(const Expr* e, const ViewLayout& in,
                                       ExpressionEvaluator& ee);

//! One fusion output that is a view of a fusion input.
struct AliasedOutput {
  TensorView* output = nullptr;
  TensorView* input = nullptr;  //!< the fusion input whose storage it shares
  std::vector<Expr*> chain;     //!< the view exprs from `input` to `output`, in order
  ViewLayout layout;            //!< at the sizes and strides it was found for
};

//! The outputs of `fusion` that are views of its inputs for the inputs `info` describes, in
//! the fusion's output order. An output is one when: it is reached from a fusion input by
//! view exprs only (isViewExpr), each step's layout is a view (viewLayoutOf), no expr other
//! than these view chains reads it (a computed consumer would read a contiguous copy), and
//! its allocation domain, when the user set one, asks for exactly the view's layout. A
//! fusion input that is also an output is not listed (it needs no expr at all).
std::vector<AliasedOutput> findAliasedOutputs(Fusion& fusion, SchedulerRuntimeInfo& info);

//! The outputs of `fusion` (every one an AliasedOutput of it, as an ExprEval segment's
//! fusion is) for `inputs`: Tensors sharing the inputs' storage (host or device), no copy.
//! Internal error when an output is not a view at these inputs.
std::vector<Tensor> evaluateViews(Fusion& fusion, const std::vector<Tensor>& inputs);

}  // namespace mf
