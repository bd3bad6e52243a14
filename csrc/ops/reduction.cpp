#include "ops/reduction.h"

#include <fmt/ranges.h>

#include <limits>

#include "ir/builder.h"
#include "ir/fusion.h"
#include "ir/traversal.h"
#include "ops/arith.h"
#include "ops/shape.h"

namespace mf {
namespace {

// The largest finite value is not the identity of max for floats: -inf is, so that a row of
// -inf (or an empty row) reduces to -inf as in PyTorch.
ScalarValue extremeValue(DataType dtype, bool lowest) {
  switch (dtype) {
    case DataType::Bool:
      return !lowest;
    case DataType::Int32:
      return lowest ? int64_t{std::numeric_limits<int32_t>::min()}
                    : int64_t{std::numeric_limits<int32_t>::max()};
    case DataType::Int64:
    case DataType::Index:
      return lowest ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
    default:
      return lowest ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  }
}

// The positions of `axes` among `rank` axes, each once, or a UserError naming `tv`.
std::vector<bool> reducedPositions(std::string_view op, TensorView* tv,
                                   const std::vector<int64_t>& axes, int64_t rank) {
  std::vector<bool> reduced(rank, axes.empty());
  for (int64_t axis : axes) {
    int64_t a = axis < 0 ? axis + rank : axis;
    MF_CHECK(a >= 0 && a < rank, "{}: axis {} is out of range for {} of rank {}", op, axis,
             tv->toString(), rank);
    MF_CHECK(!reduced[a], "{}: axis {} of {} appears twice in the axes {{{}}}", op, axis,
             tv->toString(), fmt::join(axes, ", "));
    reduced[a] = true;
  }
  return reduced;
}

// `init`: the accumulator's first value (null: the identity of `op`).
TensorView* reduceAxes(BinaryOpType op, std::string_view name, TensorView* tv,
                       const std::vector<int64_t>& axes, bool keep_dim,
                       std::optional<DataType> dtype, Val* init = nullptr) {
  MF_CHECK(tv != nullptr, "{}: the input tensor is null", name);
  FusionGuard fg(tv->fusion());
  const std::vector<IterDomain*> in_ids = TensorDomain::noReductions(tv->getLogicalDomain());
  const int64_t rank = static_cast<int64_t>(in_ids.size());
  const std::vector<bool> reduced = reducedPositions(name, tv, axes, rank);

  const bool additive = op == BinaryOpType::Add || op == BinaryOpType::Mul;
  const bool integral = isIntegralType(tv->dtype()) || tv->dtype() == DataType::Bool;
  if (dtype.has_value())
    MF_CHECK(isTensorDataType(*dtype), "{}: dtype {} of the result is not a tensor dtype", name,
             *dtype);
  const DataType out_dtype = dtype.value_or(additive && integral ? DataType::Int64 : tv->dtype());
  // The accumulator: narrow floats accumulate in Float (as PyTorch does internally).
  const DataType acc_dtype = isNarrowFloat(out_dtype) ? DataType::Float : out_dtype;

  // Only size-1 broadcast axes reduced, from the op's identity: nothing to reduce, a squeeze
  // of those axes (nvFuser's trivial reduction).
  std::vector<int64_t> squeezed;
  bool broadcast_only = true;
  for (int64_t i = 0; i < rank; ++i)
    if (reduced[i]) {
      broadcast_only = broadcast_only && in_ids[i]->isBroadcast();
      squeezed.push_back(i);
    }
  if (broadcast_only && !squeezed.empty() &&
      (init == nullptr || constValue(*init->constValue(), acc_dtype)->constValue() ==
                              reductionIdentity(op, acc_dtype)->constValue())) {
    TensorView* result = squeeze(tv, squeezed);
    if (result->dtype() != out_dtype) result = castOp(out_dtype, result);
    return keep_dim ? broadcast(result, reduced) : result;
  }

  // A given dtype converts the input first (torch.sum(x, dtype=...)); then to the accumulator.
  TensorView* x = tv;
  if (dtype.has_value() && x->dtype() != *dtype) x = castOp(*dtype, x);
  if (x->dtype() != acc_dtype) x = castOp(acc_dtype, x);

  if (rank == 0) return x == tv ? set(tv) : (acc_dtype == out_dtype ? x : castOp(out_dtype, x));

  std::vector<IterDomain*> out_ids;
  for (int64_t i = 0; i < rank; ++i) {
    out_ids.push_back(reduced[i] ? IterDomainBuilder(in_ids[i])
                                       .iterType(IterType::Reduction)
                                       .parallelType(ParallelType::Serial)
                                       .build()
                                 : in_ids[i]->freshCopy());
  }
  auto* out = IrBuilder::create<TensorView>(IrBuilder::create<TensorDomain>(out_ids), acc_dtype);
  Val* first = init ? constValue(*init->constValue(), acc_dtype) : reductionIdentity(op, acc_dtype);
  IrBuilder::create<ReductionOp>(std::vector<Val*>{x, first}, std::vector<Val*>{out}, op);
  TensorView* result = acc_dtype == out_dtype ? out : castOp(out_dtype, out);
  return keep_dim ? broadcast(result, reduced) : result;
}

}  // namespace

void groupReductions(const std::vector<TensorView*>& reduction_outputs, bool /*with_grid_reduce*/) {
  MF_CHECK(!reduction_outputs.empty(), "groupReductions: no reductions given");
  TensorView* first = reduction_outputs.front();
  for (const TensorView* tv : reduction_outputs) {
    MF_CHECK(tv->definition() != nullptr && tv->definition()->isA<ReductionOp>(),
             "groupReductions: {} is not the output of a reduction", tv->toString());
    bool alike = tv->nDims() == first->nDims();
    for (int64_t i = 0; alike && i < tv->nDims(); ++i)
      alike = tv->axis(i)->isReduction() == first->axis(i)->isReduction() &&
              tv->axis(i)->parallelType() == first->axis(i)->parallelType() &&
              tv->axis(i)->extent()->toInlineString() == first->axis(i)->extent()->toInlineString();
    MF_CHECK(alike,
             "groupReductions: {} is not scheduled as {} (the same loop axes, extents and "
             "parallel types); schedule them alike",
             tv->toString(), first->toString());
  }
  // One call reduces them all at once: none may read another's result.
  for (TensorView* tv : reduction_outputs)
    for (TensorView* producer : tensorViews({tv->definition()->input(0)}))
      for (const TensorView* other : reduction_outputs)
        MF_CHECK(producer != other,
                 "groupReductions: {} depends on {}; reductions reduced in one call cannot "
                 "read each other's results",
                 tv->toString(), other->toString());
  for (TensorView* tv : reduction_outputs)
    tv->definition()->as<ReductionOp>()->setGroup(first->name());
}

Val* reductionIdentity(BinaryOpType op, DataType dtype) {
  switch (op) {
    case BinaryOpType::Add:
      return constValue(int64_t{0}, dtype);
    case BinaryOpType::Mul:
      return constValue(int64_t{1}, dtype);
    case BinaryOpType::Maximum:
      return constValue(extremeValue(dtype, /*lowest=*/true), dtype);
    case BinaryOpType::Minimum:
      return constValue(extremeValue(dtype, /*lowest=*/false), dtype);
    default:
      MF_ASSERT(false, "{} is not a reduction op", toString(op));
  }
  return nullptr;
}

TensorView* reductionOp(BinaryOpType op, const std::vector<int64_t>& axes, Val* init,
                        TensorView* tv, bool keep_dim) {
  const bool reduces = op == BinaryOpType::Add || op == BinaryOpType::Mul ||
                       op == BinaryOpType::Maximum || op == BinaryOpType::Minimum;
  MF_CHECK(reduces, "reductionOp: {} is not a reduction op (Add, Mul, Max or Min)", toString(op));
  MF_CHECK(init != nullptr && init->isConst(),
           "reductionOp: the initial value must be a constant scalar, got {}",
           init ? init->toString() : "null");
  return reduceAxes(op, "reductionOp", tv, axes, keep_dim, std::nullopt, init);
}

TensorView* sum(TensorView* tv, const std::vector<int64_t>& axes, bool keep_dim,
                std::optional<DataType> dtype) {
  return reduceAxes(BinaryOpType::Add, "sum", tv, axes, keep_dim, dtype);
}

TensorView* prod(TensorView* tv, const std::vector<int64_t>& axes, bool keep_dim,
                 std::optional<DataType> dtype) {
  return reduceAxes(BinaryOpType::Mul, "prod", tv, axes, keep_dim, dtype);
}

TensorView* max(TensorView* tv, const std::vector<int64_t>& axes, bool keep_dim,
                std::optional<DataType> dtype) {
  return reduceAxes(BinaryOpType::Maximum, "max", tv, axes, keep_dim, dtype);
}

TensorView* min(TensorView* tv, const std::vector<int64_t>& axes, bool keep_dim,
                std::optional<DataType> dtype) {
  return reduceAxes(BinaryOpType::Minimum, "min", tv, axes, keep_dim, dtype);
}

}  // namespace mf
