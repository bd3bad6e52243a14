#include "reference/reference_evaluator.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <unordered_map>

#include "ir/expr_evaluator.h"
#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/logical_domain_map.h"
#include "ir/op_traits.h"
#include "ir/scalar_ops.h"
#include "ir/shape_exprs.h"
#include "ir/tensor_view.h"
#include "reference/layout_reference.h"
#include "reference/quantization_reference.h"
#include "reference/reduction_reference.h"
#include "reference/resize_reference.h"
#include "reference/shape_reference.h"
#include "tensor/arguments.h"

namespace mf {
namespace {

constexpr std::string_view kWho = "ReferenceEvaluator";
// Operands of a pointwise expr: at most three (where, clamp).
constexpr size_t kMaxOperands = 3;

// "CeilDiv" -> "ceilDiv": the enumerator spelled as the API function that builds the op.
std::string apiName(std::string_view enumerator) {
  std::string s(enumerator);
  s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

std::string opName(const Expr* e) {
  if (auto* u = dynamic_cast<const UnaryOp*>(e)) {
    switch (u->opType()) {
#define MF_UNARY_NAME(op, s) \
  case UnaryOpType::op:      \
    return UnaryOpType::op == UnaryOpType::Cast ? "castOp" : apiName(#op);
      MF_UNARY_OPS(MF_UNARY_NAME)
#undef MF_UNARY_NAME
    }
  }
  if (auto* b = dynamic_cast<const BinaryOp*>(e)) {
    switch (b->opType()) {
#define MF_BINARY_NAME(op, s) \
  case BinaryOpType::op:      \
    return apiName(#op);
      MF_BINARY_OPS(MF_BINARY_NAME)
#undef MF_BINARY_NAME
    }
  }
  if (auto* t = dynamic_cast<const TernaryOp*>(e)) return std::string(toString(t->opType()));
  if (e->isA<LoadStoreOp>()) return isSegmentSet(e) ? "segment_set" : "set";
  if (e->isA<BroadcastOp>()) return "broadcast";
  return std::string(e->opName());
}

// One operand of an elementwise loop: a tensor read through per-output-axis strides (0 on
// broadcast axes), or a scalar value.
struct Operand {
  const std::byte* data = nullptr;  // null for a scalar
  DataType dtype = DataType::Float;
  int64_t bytes = 0;
  std::vector<int64_t> strides;
  ScalarValue scalar;
};

// Calls body(i, offsets) for every output element i in row-major order over `sizes`, where
// offsets[k] is operand k's element offset. An odometer: O(1) amortized per element.
template <typename Body>
void forEachElement(const std::vector<int64_t>& sizes, const std::vector<Operand>& operands,
                    Body&& body) {
  const size_t rank = sizes.size(), n_ops = operands.size();
  MF_ASSERT(n_ops <= kMaxOperands);
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  std::vector<int64_t> idx(rank, 0);
  std::array<int64_t, kMaxOperands> off{};
  for (int64_t i = 0; i < numel; ++i) {
    body(i, off);
    for (size_t d = rank; d-- > 0;) {
      for (size_t k = 0; k < n_ops; ++k) off[k] += operands[k].strides[d];
      if (++idx[d] < sizes[d]) break;
      for (size_t k = 0; k < n_ops; ++k) off[k] -= operands[k].strides[d] * sizes[d];
      idx[d] = 0;
    }
  }
}

// The state of one run: tensor values by TensorView, scalars in the expression evaluator.
class ReferenceRun {
 public:
  ReferenceRun(Fusion* fusion, const ReferenceOptions& options)
      : fusion_(fusion), options_(options) {}

  void bindInputs(const std::vector<Tensor>& inputs);
  void evaluate(Expr* e);
  // Frees v's value (no later expr reads it).
  void release(const Val* v) { values_.erase(v); }
  std::vector<Tensor> outputs();

 private:
  // `value` copied into the layout `tv`'s allocation domain gives (a permuted output gets
  // permuted strides, as the executor's does); `value` itself without one.
  Tensor laidOut(TensorView* tv, const Tensor& value);
  const Tensor& valueOf(const Val* v, const Expr* use) const;
  // Operands of a pointwise `e` aligned to its output's axes, and the output sizes; two
  // non-broadcast operand axes of different sizes are a UserError.
  std::vector<Operand> alignOperands(const Expr* e, std::vector<int64_t>& out_sizes);
  // pointwise's values by rows (evalFloatingRow) for a float or double unary or binary op
  // whose tensor operands hold its dtype; nullopt for other exprs.
  std::optional<Tensor> floatingRows(const Expr* e);
  // Applies f(const ScalarValue* values) -> ScalarValue per element of e's output.
  template <typename F>
  Tensor pointwise(const Expr* e, F&& f);
  // Copies elements bit for bit (set, broadcast, a cast to the same dtype): no conversion
  // touches NaN payloads.
  static Tensor copy(const Operand& src, const std::vector<int64_t>& sizes, DataType dtype);
  // where(cond, a, b): a branch of the output's dtype is copied bit for bit, as generated code
  // does (a narrow NaN keeps its payload); another is converted with castScalar.
  Tensor select(const Expr* e);
  Tensor evalLayout(const PreprocessGroupedMatmulInputSf* op);
  Tensor evalReduction(const ReductionOp* op);
  // full(v): the output's logical extents, every element castScalar(v, dtype).
  Tensor evalFull(const FullOp* op);
  // pad, slice and cat (reference/resize_reference.h), their widths evaluated here.
  Tensor evalResize(const Expr* e);
  // The shape ops (reference/shape_reference.h), sizes from the IR's extents.
  Tensor evalView(const ViewOp* op);
  Tensor evalPermute(const LoadStoreOp* op);
  Tensor evalExpand(const ExpandOp* op);
  int64_t evaluateSize(Val* v, const Expr* e);

  Fusion* fusion_;
  const ReferenceOptions& options_;
  ExpressionEvaluator ee_;
  std::unordered_map<const Val*, Tensor> values_;
};

void ReferenceRun::bindInputs(const std::vector<Tensor>& inputs) {
  // The argument layer's checks: the messages every entry point gives.
  checkAndBindInputs(*fusion_, inputs, ee_, kWho);
  for (size_t i = 0; i < inputs.size(); ++i)
    if (fusion_->inputs()[i]->kind() == ValKind::TensorView)
      values_.insert_or_assign(fusion_->inputs()[i], inputs[i].toHost());
}

const Tensor& ReferenceRun::valueOf(const Val* v, const Expr* use) const {
  auto it = values_.find(v);
  MF_CHECK(it != values_.end(),
           "{}: {} (an operand of {}) is neither a fusion input nor computed "
           "from them",
           kWho, v->toInlineString(), use->toString());
  return it->second;
}

std::vector<Operand> ReferenceRun::alignOperands(const Expr* e, std::vector<int64_t>& out_sizes) {
  auto* out_tv = e->output(0)->as<TensorView>();
  const size_t rank = TensorDomain::noReductions(out_tv->getLogicalDomain()).size();
  out_sizes.assign(rank, 1);
  std::vector<const Val*> owner(rank, nullptr);  // first operand with a real axis d
  std::vector<Operand> operands;
  for (Val* v : e->inputs()) {
    Operand op;
    if (v->kind() != ValKind::TensorView) {
      std::optional<ScalarValue> s = ee_.evaluate(v);
      MF_CHECK(s.has_value(),
               "{}: cannot evaluate the scalar operand {} of {}: it depends on "
               "a value that is not a fusion input",
               kWho, v->toInlineString(), e->toString());
      op.scalar = *s;
      op.strides.assign(rank, 0);
      operands.push_back(std::move(op));
      continue;
    }
    const Tensor& t = valueOf(v, e);
    const std::vector<IterDomain*> ids =
        TensorDomain::noReductions(v->as<TensorView>()->getLogicalDomain());
    MF_ASSERT(ids.size() == rank && t.dim() == static_cast<int64_t>(rank),
              "{}: operand rank mismatch", e->toString());
    op.data = static_cast<const std::byte*>(t.rawData());
    op.dtype = t.dtype();
    op.bytes = isSubByteType(t.dtype()) ? 0 : dataTypeSize(t.dtype());  // 0: packed
    op.strides.assign(rank, 0);
    for (size_t d = 0; d < rank; ++d) {
      if (ids[d]->isBroadcast()) continue;
      op.strides[d] = t.strides()[d];
      if (owner[d] == nullptr) {
        owner[d] = v;
        out_sizes[d] = t.sizes()[d];
      } else {
        MF_CHECK(out_sizes[d] == t.sizes()[d], "{}: {} and {} disagree on axis {}: {} vs {}",
                 opName(e), owner[d]->toInlineString(), v->toInlineString(), d, out_sizes[d],
                 t.sizes()[d]);
      }
    }
    operands.push_back(std::move(op));
  }
  return operands;
}

template <typename F>
Tensor ReferenceRun::pointwise(const Expr* e, F&& f) {
  std::vector<int64_t> sizes;
  const std::vector<Operand> operands = alignOperands(e, sizes);
  const DataType dtype = e->output(0)->dtype();
  Tensor out = Tensor::empty(sizes, dtype);
  auto* dst = static_cast<std::byte*>(out.rawData());
  std::array<ScalarValue, kMaxOperands> vals;
  for (size_t k = 0; k < operands.size(); ++k) vals[k] = operands[k].scalar;
  forEachElement(sizes, operands, [&](int64_t i, const std::array<int64_t, kMaxOperands>& off) {
    for (size_t k = 0; k < operands.size(); ++k) {
      const Operand& op = operands[k];
      if (op.data != nullptr) vals[k] = loadElementAt(op.data, off[k], op.dtype);
    }
    storeElementAt(dst, i, dtype, f(vals.data()));
  });
  return out;
}

std::optional<Tensor> ReferenceRun::floatingRows(const Expr* e) {
  const DataType dtype = e->output(0)->dtype();
  auto* b = dynamic_cast<const BinaryOp*>(e);
  // evalFloatingRow of no elements says whether it takes the op.
  if ((b != nullptr && computeType(b) != dtype) ||
      !evalFloatingRow(e, dtype, nullptr, 0, nullptr, 0, nullptr, 0))
    return std::nullopt;
  for (Val* v : e->inputs())
    if (v->kind() == ValKind::TensorView && v->dtype() != dtype) return std::nullopt;
  std::vector<int64_t> sizes;
  const std::vector<Operand> operands = alignOperands(e, sizes);
  // By rows of the last axis; a scalar operand converted once, read at stride 0.
  std::array<std::array<std::byte, 8>, kMaxOperands> scalars{};
  std::array<int64_t, kMaxOperands> stride{};
  for (size_t k = 0; k < operands.size(); ++k)
    if (operands[k].data == nullptr)
      storeElement(scalars[k].data(), dtype, operands[k].scalar);
    else if (!sizes.empty())
      stride[k] = operands[k].strides.back();
  Tensor out = Tensor::empty(sizes, dtype);
  auto* dst = static_cast<std::byte*>(out.rawData());
  const int64_t bytes = dataTypeSize(dtype), n = sizes.empty() ? 1 : sizes.back();
  auto at = [&](size_t k, const std::array<int64_t, kMaxOperands>& off) {
    if (k >= operands.size()) return static_cast<const std::byte*>(nullptr);
    return operands[k].data ? operands[k].data + off[k] * bytes : scalars[k].data();
  };
  const std::vector<int64_t> rows(sizes.begin(), sizes.end() - (sizes.empty() ? 0 : 1));
  forEachElement(rows, operands, [&](int64_t r, const std::array<int64_t, kMaxOperands>& off) {
    evalFloatingRow(e, dtype, at(0, off), stride[0], at(1, off), stride[1], dst + r * n * bytes, n);
  });
  return out;
}

Tensor ReferenceRun::copy(const Operand& src, const std::vector<int64_t>& sizes, DataType dtype) {
  Tensor out = Tensor::empty(sizes, dtype);
  auto* dst = static_cast<std::byte*>(out.rawData());
  forEachElement(sizes, {src}, [&](int64_t i, const std::array<int64_t, kMaxOperands>& off) {
    if (src.bytes == 0)  // packed: an element is a nibble, copied as its code
      storeElementAt(dst, i, dtype, loadElementAt(src.data, off[0], src.dtype));
    else
      std::memcpy(dst + i * src.bytes, src.data + off[0] * src.bytes, src.bytes);
  });
  return out;
}

Tensor ReferenceRun::select(const Expr* e) {
  std::vector<int64_t> sizes;
  const std::vector<Operand> operands = alignOperands(e, sizes);
  const DataType dtype = e->output(0)->dtype();
  Tensor out = Tensor::empty(sizes, dtype);
  auto* dst = static_cast<std::byte*>(out.rawData());
  const int64_t out_bytes = isSubByteType(dtype) ? 0 : dataTypeSize(dtype);
  auto load = [&](const Operand& op, int64_t off) {
    return op.data != nullptr ? loadElementAt(op.data, off, op.dtype) : op.scalar;
  };
  forEachElement(sizes, operands, [&](int64_t i, const std::array<int64_t, kMaxOperands>& off) {
    const size_t k = asBool(load(operands[0], off[0])) ? 1 : 2;
    const Operand& op = operands[k];
    if (out_bytes == 0)
      storeElementAt(dst, i, dtype, load(op, off[k]));  // packed: codes are exact values
    else if (op.data != nullptr && op.dtype == dtype)
      std::memcpy(dst + i * out_bytes, op.data + off[k] * op.bytes, out_bytes);
    else
      storeElement(dst + i * out_bytes, dtype, load(op, off[k]));  // castScalar first
  });
  return out;
}

Tensor ReferenceRun::evalFull(const FullOp* op) {
  std::vector<int64_t> sizes;
  for (IterDomain* id : TensorDomain::noReductions(op->out()->as<TensorView>()->getLogicalDomain()))
    sizes.push_back(ee_.evaluateInt(id->extent(), "full's extent"));
  const DataType dtype = op->out()->dtype();
  std::optional<ScalarValue> fill = ee_.evaluate(op->fillValue());
  MF_CHECK(fill.has_value(), "{}: cannot evaluate the fill value of {}", kWho, op->toString());
  Tensor out = Tensor::empty(sizes, dtype);
  auto* dst = static_cast<std::byte*>(out.rawData());
  const int64_t bytes = dataTypeSize(dtype);
  for (int64_t i = 0; i < out.numel(); ++i) storeElement(dst + i * bytes, dtype, *fill);
  return out;
}

Tensor ReferenceRun::evalLayout(const PreprocessGroupedMatmulInputSf* op) {
  Tensor out = evalLayoutOp(op, valueOf(op->in(), op), valueOf(op->inputOffsets(), op),
                            valueOf(op->outputOffsets(), op), options_);
  // The IR's allocation extents (expressions of M, K and G) must describe the same buffer.
  const auto& alloc = op->out()->as<TensorView>()->getMaybeAllocationDomain();
  MF_ASSERT(alloc.size() == out.allocationSizes().size());
  for (size_t d = 0; d < alloc.size(); ++d) {
    std::optional<ScalarValue> extent = ee_.evaluate(alloc[d]->extent());
    MF_ASSERT(!extent || asInt(*extent) == out.allocationSizes()[d],
              "allocation axis {} of {} evaluates to {}, the reference allocated {}", d,
              op->out()->toInlineString(), asInt(*extent), out.allocationSizes()[d]);
  }
  return out;
}

namespace {
bool isRFactorTensor(const TensorView* tv) {
  return tv->domain()->hasRoot() && tv->definition() != nullptr &&
         tv->definition()->isA<ReductionOp>();
}
}  // namespace

Tensor ReferenceRun::evalReduction(const ReductionOp* op) {
  auto* out = op->out()->as<TensorView>();
  auto* in = op->in()->as<TensorView>();
  std::vector<bool> reduced;
  const ReductionOp* source = op;
  if (isRFactorTensor(in)) {
    // The second half of an rFactor'ed reduction: reduce the first half's input at once over
    // the original axes. An axis of the rfactor tensor's root (a copy of that input's logical
    // domain) was reduced if the first half reduces it or its image here is a reduction axis.
    source = in->definition()->as<ReductionOp>();
    MF_CHECK(!isRFactorTensor(source->in()->as<TensorView>()),
             "{}: {} reads a tensor rFactor'ed twice; evaluate the fusion before scheduling", kWho,
             op->toString());
    IdMap p2c = PairwiseLogicalDomainMap(in, out).mapProducerToConsumer();
    for (IterDomain* id : in->getMaybeRootDomain()) {
      auto it = p2c.find(id);
      reduced.push_back(id->isReduction() || (it != p2c.end() && it->second->isReduction()));
    }
  } else {
    for (IterDomain* id : out->getLogicalDomain()) reduced.push_back(id->isReduction());
  }
  return referenceReduction(op->opType(), valueOf(source->in(), op), reduced, out->dtype(),
                            *op->init()->constValue());
}

Tensor ReferenceRun::evalResize(const Expr* e) {
  auto integer = [&](Val* v) {
    return ee_.evaluateInt(v, fmt::format("{}: {}", kWho, e->toString()));
  };
  if (auto* cat = dynamic_cast<const CatOp*>(e)) {
    std::vector<const Tensor*> ins;
    std::vector<int64_t> offsets, extents;
    for (size_t k = 0; k < e->inputs().size(); ++k) {
      ins.push_back(&valueOf(e->input(k), e));
      offsets.push_back(integer(cat->offset(k)));
      extents.push_back(integer(cat->extent(k)));
    }
    return referenceCat(ins, offsets, extents, cat->dim());
  }
  const Tensor& in = valueOf(e->input(0), e);
  std::vector<int64_t> left, right;
  ScalarValue value = int64_t{0};
  if (auto* pad = dynamic_cast<const PadOp*>(e)) {
    for (int64_t a = 0; a < in.dim(); ++a) {
      auto [l, r] = pad->widths(static_cast<size_t>(a));
      left.push_back(integer(l));
      right.push_back(integer(r));
    }
    std::optional<ScalarValue> v = ee_.evaluate(pad->value());
    MF_CHECK(v.has_value(), "{}: cannot evaluate the pad value {} of {}", kWho,
             pad->value()->toInlineString(), e->toString());
    value = *v;
  } else {
    auto* slice = e->as<SliceOp>();
    for (int64_t a = 0; a < in.dim(); ++a) {
      const int64_t start = integer(slice->start(static_cast<size_t>(a)));
      const int64_t stop = integer(slice->stop(static_cast<size_t>(a)));
      left.push_back(-start);
      right.push_back(stop - in.sizes()[static_cast<size_t>(a)]);
    }
  }
  return referenceResize(in, left, right, value);
}

int64_t ReferenceRun::evaluateSize(Val* v, const Expr* e) {
  std::optional<ScalarValue> s = ee_.evaluate(v);
  MF_CHECK(
      s.has_value(),
      "{}: cannot evaluate the size {} of {}: it depends on a value that is not a fusion input",
      kWho, v->toInlineString(), e->toString());
  return asInt(*s);
}

Tensor ReferenceRun::evalView(const ViewOp* op) {
  std::vector<int64_t> sizes;
  for (IterDomain* id : op->out()->as<TensorView>()->getLogicalDomain()) {
    int64_t s = evaluateSize(id->extent(), op);
    MF_CHECK(s != -1 || !op->isDynamic(),
             "Values of -1 passed to reshape must be constant at definition: {}: the size {} "
             "evaluates to -1",
             op->toString(), id->extent()->toInlineString());
    MF_CHECK(s >= 0, "{}: {}: the size {} evaluates to {}", kWho, op->toString(),
             id->extent()->toInlineString(), s);
    sizes.push_back(s);
  }
  return referenceReshape(valueOf(op->in(), op), sizes, op->toString());
}

Tensor ReferenceRun::evalPermute(const LoadStoreOp* op) {
  const TensorDomain* td = op->out()->as<TensorView>()->domain();
  std::vector<int64_t> new2old;
  for (IterDomain* id : td->logical()) {
    auto it = std::find(td->root().begin(), td->root().end(), id);
    MF_ASSERT(it != td->root().end(), "{}: logical axis {} is not a root axis", op->toString(),
              id->toString());
    new2old.push_back(it - td->root().begin());
  }
  return referencePermute(valueOf(op->in(), op), new2old);
}

Tensor ReferenceRun::evalExpand(const ExpandOp* op) {
  std::vector<int64_t> sizes;
  std::vector<bool> expandable;
  const auto in_ids = TensorDomain::noReductions(op->in()->as<TensorView>()->getLogicalDomain());
  for (size_t i = 0; i < in_ids.size(); ++i) {
    sizes.push_back(evaluateSize(op->expandedSizes().at(i), op));
    expandable.push_back(in_ids[i]->isBroadcast());
  }
  return referenceExpand(valueOf(op->in(), op), sizes, expandable, op->toString());
}

void ReferenceRun::evaluate(Expr* e) {
  // Each case below computes output 0; a multi-output op (the block quantizations) binds
  // its other outputs itself.
  const bool binds_others = isBlockQuantization(e);
  MF_CHECK(e->outputs().size() == 1 || binds_others,
           "{}: {} has {} outputs; the CPU reference evaluates one-output exprs only: {}", kWho,
           e->opName(), e->outputs().size(), e->toString());
  Tensor out;
  if (std::optional<Tensor> rows = floatingRows(e)) {
    out = std::move(*rows);
  } else if (auto* u = dynamic_cast<UnaryOp*>(e);
             u && u->opType() == UnaryOpType::Cast && u->in()->dtype() == u->out()->dtype()) {
    std::vector<int64_t> sizes;
    std::vector<Operand> operands = alignOperands(e, sizes);
    out = copy(operands[0], sizes, u->out()->dtype());
  } else if (u != nullptr) {
    const DataType dtype = u->out()->dtype();
    const UnaryOpType type = u->opType();
    out = pointwise(e, [&](const ScalarValue* v) { return evalUnary(type, dtype, v[0]); });
  } else if (auto* b = dynamic_cast<BinaryOp*>(e)) {
    const DataType dtype = b->out()->dtype(), compute = computeType(b);
    const BinaryOpType type = b->opType();
    out = pointwise(
        e, [&](const ScalarValue* v) { return evalBinary(type, dtype, compute, v[0], v[1]); });
  } else if (auto* t = dynamic_cast<TernaryOp*>(e); t && t->opType() == TernaryOpType::Where) {
    out = select(e);
  } else if (t != nullptr) {
    const DataType dtype = t->out()->dtype();
    const TernaryOpType type = t->opType();
    out = pointwise(
        e, [&](const ScalarValue* v) { return evalTernary(type, dtype, v[0], v[1], v[2]); });
  } else if (isPermute(e)) {
    out = evalPermute(e->as<LoadStoreOp>());
  } else if (e->isA<LoadStoreOp>()) {
    std::vector<int64_t> sizes;
    std::vector<Operand> operands = alignOperands(e, sizes);
    out = copy(operands[0], sizes, e->output(0)->dtype());
  } else if (auto* bc = dynamic_cast<BroadcastOp*>(e)) {
    const Tensor& in = valueOf(bc->in(), e);
    Operand src{
        static_cast<const std::byte*>(in.rawData()), in.dtype(), dataTypeSize(in.dtype()), {}, {}};
    std::vector<int64_t> sizes;
    size_t next = 0;
    for (bool is_bcast : bc->isBroadcastDims()) {
      sizes.push_back(is_bcast ? 1 : in.sizes()[next]);
      src.strides.push_back(is_bcast ? 0 : in.strides()[next]);
      next += is_bcast ? 0 : 1;
    }
    MF_ASSERT(next == static_cast<size_t>(in.dim()), "{}: flags do not match the input rank",
              e->toString());
    out = copy(src, sizes, in.dtype());
  } else if (auto* red = dynamic_cast<ReductionOp*>(e)) {
    // An rfactor tensor holds partial results of a schedule: its consumer reduces its input.
    if (isRFactorTensor(red->out()->as<TensorView>())) return;
    out = evalReduction(red);
  } else if (auto* layout = dynamic_cast<PreprocessGroupedMatmulInputSf*>(e)) {
    out = evalLayout(layout);
  } else if (isBlockQuantization(e)) {
    auto* bq = dynamic_cast<BlockQuantizationOp*>(e);
    auto* gq = dynamic_cast<GroupedBlockQuantizationOp*>(e);
    const Val* gs = bq ? bq->globalScale() : gq->globalScale();
    QuantizedTensors q =
        quantizeBlocks(runtimeFunctionOpName(e), e->input(0), valueOf(e->input(0), e),
                       gs ? &valueOf(gs, e) : nullptr, blockQuantizationBlockSize(e));
    values_.insert_or_assign(e->output(1), std::move(q.quantized));
    out = gq ? scatterToLayout(layoutOperands(gq), q.block_scales, valueOf(gq->inputOffsets(), e),
                               valueOf(gq->outputOffsets(), e), options_)
             : std::move(q.block_scales);
  } else if (auto* full = dynamic_cast<FullOp*>(e)) {
    out = evalFull(full);
  } else if (isResizeOp(e)) {
    out = evalResize(e);
  } else if (auto* view = dynamic_cast<ViewOp*>(e)) {
    out = evalView(view);
  } else if (auto* sq = dynamic_cast<SqueezeOp*>(e)) {
    out = referenceSqueeze(valueOf(sq->in(), e), sq->isSqueezeDims(), e->toString());
  } else if (auto* ex = dynamic_cast<ExpandOp*>(e)) {
    out = evalExpand(ex);
  } else {
    MF_THROW("{}: {} is not supported by the CPU reference: {}", kWho, e->opName(), e->toString());
  }
  if (options_.after_expr) options_.after_expr(e, out);
  values_.insert_or_assign(e->output(0), std::move(out));
}

Tensor ReferenceRun::laidOut(TensorView* tv, const Tensor& value) {
  if (!tv->domain()->hasAllocation() || tv->domain()->allocationDeclared() || tv->isFusionInput())
    return value;
  Tensor out = allocateOutput(tv, layoutOf(tv, ee_), Device::Host);
  MF_ASSERT(out.sizes() == value.sizes(), "{}: laid out as [{}], computed as [{}]", tv->toString(),
            fmt::join(out.sizes(), ", "), fmt::join(value.sizes(), ", "));
  Operand src{static_cast<const std::byte*>(value.rawData()),
              value.dtype(),
              dataTypeSize(value.dtype()),
              value.strides(),
              {}};
  Operand dst{
      static_cast<const std::byte*>(out.rawData()), out.dtype(), src.bytes, out.strides(), {}};
  auto* dst_bytes = static_cast<std::byte*>(out.rawData());
  forEachElement(
      out.sizes(), {src, dst}, [&](int64_t, const std::array<int64_t, kMaxOperands>& off) {
        std::memcpy(dst_bytes + off[1] * src.bytes, src.data + off[0] * src.bytes, src.bytes);
      });
  return out;
}

std::vector<Tensor> ReferenceRun::outputs() {
  std::vector<Tensor> result;
  for (Val* v : fusion_->outputs()) {
    auto it = values_.find(v);
    MF_CHECK(it != values_.end(), "{}: output {} is neither a fusion input nor computed from them",
             kWho, v->toString());
    result.push_back(laidOut(v->as<TensorView>(), it->second));
  }
  return result;
}

}  // namespace

ReferenceEvaluator::ReferenceEvaluator(Fusion* fusion) : fusion_(fusion) {
  MF_CHECK(fusion != nullptr, "{}: the fusion is null", kWho);
}

std::vector<Tensor> ReferenceEvaluator::run(const std::vector<Tensor>& inputs,
                                            const ReferenceOptions& options) const {
  ReferenceRun run(fusion_, options);
  run.bindInputs(inputs);
  // Each value is freed after its last reader (the second half of an rFactor'ed reduction
  // reads the first half's input): a long chain keeps two tensors, not all.
  const std::vector<Expr*> exprs = fusion_->exprs();
  std::unordered_map<const Val*, size_t> last_read;
  for (size_t i = 0; i < exprs.size(); ++i) {
    for (Val* v : exprs[i]->inputs()) last_read[v] = i;
    if (auto* red = dynamic_cast<ReductionOp*>(exprs[i]);
        red != nullptr && isRFactorTensor(red->in()->as<TensorView>()))
      last_read[red->in()->definition()->input(0)] = i;
  }
  for (size_t i = 0; i < exprs.size(); ++i) {
    run.evaluate(exprs[i]);
    for (Val* v : exprs[i]->inputs())
      if (last_read.at(v) == i && !v->isFusionOutput()) run.release(v);
  }
  return run.outputs();
}

}  // namespace mf
