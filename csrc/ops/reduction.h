//! Reductions: sum, prod, max and min over axes of a tensor (PyTorch semantics). Each builds
//! one ReductionOp whose output has Reduction axes in its logical domain, with casts around it
//! where the accumulator's dtype differs from the input's or the result's (docs/reductions.md).
#pragma once

#include <optional>
#include <vector>

#include "ir/exprs.h"
#include "ir/tensor_view.h"

namespace mf {

//! The sum of `tv` over `axes` (negative counts from the end; empty reduces every axis, as
//! torch.sum with dim=[]). Integer and Bool inputs sum to Int64 unless `dtype` says otherwise;
//! a given `dtype` converts the input first. Half, BFloat16 and Float8 accumulate in Float and
//! round once to the result's dtype. `keep_dim` broadcasts the result back to `tv`'s rank (a
//! BroadcastOp after the reduction). A reduced axis of extent 0 gives the identity (0).
TensorView* sum(TensorView* tv, const std::vector<int64_t>& axes, bool keep_dim = false,
                std::optional<DataType> dtype = std::nullopt);
//! The product, with sum's dtype rules; the identity is 1.
TensorView* prod(TensorView* tv, const std::vector<int64_t>& axes, bool keep_dim = false,
                 std::optional<DataType> dtype = std::nullopt);
//! The maximum (torch.amax): the result keeps the input's dtype unless `dtype` is given; a NaN
//! anywhere in a row gives NaN; the identity is -inf (the lowest integer, false for Bool).
TensorView* max(TensorView* tv, const std::vector<int64_t>& axes, bool keep_dim = false,
                std::optional<DataType> dtype = std::nullopt);
//! The minimum (torch.amin), as max; the identity is +inf (the largest integer, true for Bool).
TensorView* min(TensorView* tv, const std::vector<int64_t>& axes, bool keep_dim = false,
                std::optional<DataType> dtype = std::nullopt);

//! nvFuser's groupReductions: the reductions `reduction_outputs` (outputs of ReductionOps,
//! scheduled alike: the same loop axes, extents and parallel types; none reading another's
//! result) are reduced together: the block or grid reductions among them lower to one runtime
//! call with one barrier sequence (lower/passes.h, groupReductionCalls). Checked here (a
//! UserError names the first tensor that differs) and again at lowering, where the schedule is
//! final. `with_grid_reduce` is accepted for nvFuser's signature.
void groupReductions(const std::vector<TensorView*>& reduction_outputs,
                     bool with_grid_reduce = true);

//! nvFuser's generic reduction: `op` (Add, Mul, Max, Min) over `axes` of `tv`, starting from
//! `init` (a constant: the identity of `op`, as nvFuser requires; a sum of integers in Int64).
//!   reductionOp(BinaryOpType::Add, {1}, IrBuilder::create<Val>(0.0), tv0)  // sum(tv0, {1})
TensorView* reductionOp(BinaryOpType op, const std::vector<int64_t>& axes, Val* init,
                        TensorView* tv, bool keep_dim = false);

//! The identity of the reduction `op` (Add, Mul, Maximum, Minimum) in `dtype`, as a constant.
Val* reductionIdentity(BinaryOpType op, DataType dtype);

}  // namespace mf
