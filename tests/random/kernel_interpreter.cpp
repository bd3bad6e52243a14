#include "random/kernel_interpreter.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <unordered_map>

#include "ir/expr_evaluator.h"
#include "ir/exprs.h"
#include "ir/scalar_ops.h"
#include "tensor/arguments.h"

namespace mf::testing {
namespace {

class Unsupported {};

// One global tensor: its elements from `base`, `span` of them addressable.
struct Buffer {
  std::byte* base = nullptr;
  int64_t span = 0;
  DataType dtype = DataType::Float;
};

class Interpreter {
 public:
  Interpreter(Kernel& kernel, const std::vector<Tensor>& inputs) : kernel_(kernel) {
    const Fusion& ir = kernel.ir();
    for (Expr* e : ir.exprs())
      if (e->isA<PreprocessGroupedMatmulInputSf>()) throw Unsupported();
    for (size_t i = 0; i < ir.inputs().size(); ++i) {
      auto* tv = dynamic_cast<TensorView*>(ir.inputs()[i]);
      if (tv == nullptr) throw Unsupported();
      const Tensor& t = inputs.at(i);
      ee_.bindTensorSizes(tv, t.sizes());
      int64_t span = t.numel() == 0 ? 0 : 1;
      for (int64_t d = 0; d < t.dim(); ++d) span += (t.sizes()[d] - 1) * t.strides()[d];
      buffers_[tv] = {static_cast<std::byte*>(const_cast<void*>(t.rawData())), span, t.dtype()};
      bindStrides(tv, allocationStrides(tv, t));
    }
    for (Val* v : ir.outputs()) {
      auto* tv = v->as<TensorView>();
      if (buffers_.count(tv)) continue;
      std::vector<int64_t> sizes;
      for (IterDomain* id : TensorDomain::noReductions(tv->getLogicalDomain()))
        sizes.push_back(ee_.evaluateInt(id->extent(), "output extent"));
      outputs_.emplace(tv, OutputStorage(tv, sizes));
      OutputStorage& o = outputs_.at(tv);
      buffers_[tv] = {o.bytes.data(), o.numel, tv->dtype()};
      bindStrides(tv, o.strides);
    }
  }

  std::vector<Tensor> run() {
    const KernelSummary& summary = kernel_.summary();
    for (const KernelParameter& p : summary.params)
      if (p.kind == KernelParameter::Kind::Intermediate ||
          p.kind == KernelParameter::Kind::ErrorFlag)
        throw Unsupported();
    const std::vector<int64_t> sizes = summary.launchSizes(ee_);
    int64_t positions = 1;
    for (int64_t s : sizes) positions *= s;
    for (int64_t p = 0; p < positions; ++p) {
      int64_t rest = p;
      for (size_t d = 0; d < sizes.size(); ++d) {
        coordinate_[summary.parallel_dims[d].type] = rest % sizes[d];
        rest /= sizes[d];
      }
      registers_.clear();
      runScope(kernel_.body());
    }
    std::vector<Tensor> out;
    for (Val* v : kernel_.ir().outputs()) {
      auto* tv = v->as<TensorView>();
      auto it = outputs_.find(tv);
      out.push_back(it != outputs_.end() ? it->second.toTensor() : Tensor());
    }
    return out;
  }

 private:
  // An output laid out as the executor allocates it: dense in allocation order, its bytes
  // first filled with 0xFF (NaN for floats), as RunOptions::poison_outputs does.
  struct OutputStorage {
    OutputStorage(TensorView* tv, std::vector<int64_t> logical_sizes)
        : dtype(tv->dtype()), sizes(std::move(logical_sizes)) {
      const std::vector<int64_t> perm = allocationPermutation(tv);
      numel = 1;
      for (int64_t s : sizes) numel *= s;
      strides.assign(perm.size(), 0);
      logical_strides.assign(sizes.size(), 0);
      int64_t dense = 1;
      for (size_t j = perm.size(); j-- > 0;) {
        strides[j] = dense;
        logical_strides[static_cast<size_t>(perm[j])] = dense;
        dense *= sizes[static_cast<size_t>(perm[j])];
      }
      bytes.assign(static_cast<size_t>(numel * dataTypeSize(dtype)), std::byte{0xff});
    }

    Tensor toTensor() const {
      Tensor t = Tensor::empty(sizes, dtype);
      for (int64_t linear = 0; linear < numel; ++linear) {
        int64_t offset = 0, rest = linear;
        for (size_t d = sizes.size(); d-- > 0;) {
          offset += rest % sizes[d] * logical_strides[d];
          rest /= sizes[d];
        }
        storeElement(static_cast<std::byte*>(t.rawData()) + linear * dataTypeSize(dtype), dtype,
                     loadElement(bytes.data() + offset * dataTypeSize(dtype), dtype));
      }
      return t;
    }

    DataType dtype;
    std::vector<int64_t> sizes;
    std::vector<int64_t> strides;          // per allocation axis
    std::vector<int64_t> logical_strides;  // per logical axis
    int64_t numel = 0;
    std::vector<std::byte> bytes;
  };

  void bindStrides(TensorView* tv, const std::vector<int64_t>& strides) {
    for (size_t pos = 0; pos < strides.size(); ++pos)
      env_[kernel_.strideOf(tv, static_cast<int64_t>(pos))] = strides[pos];
  }

  ScalarValue eval(const Val* v) {
    if (auto c = v->constValue()) return *c;
    if (auto it = env_.find(v); it != env_.end()) return it->second;
    const Expr* def = v->definition();
    if (def == nullptr) {
      std::optional<ScalarValue> bound = ee_.evaluate(v);
      if (!bound) throw std::runtime_error("unbound scalar " + v->toString());
      return *bound;
    }
    if (auto* b = dynamic_cast<const BinaryOp*>(def))
      return evalBinary(b->opType(), v->dtype(), promoteTypes(b->lhs()->dtype(), b->rhs()->dtype()),
                        eval(b->lhs()), eval(b->rhs()));
    if (auto* u = dynamic_cast<const UnaryOp*>(def))
      return evalUnary(u->opType(), v->dtype(), eval(u->in()));
    if (auto* t = dynamic_cast<const TernaryOp*>(def))
      return evalTernary(t->opType(), v->dtype(), eval(t->input(0)), eval(t->input(1)),
                         eval(t->input(2)));
    throw std::runtime_error("cannot evaluate " + v->toString());
  }

  int64_t offsetOf(const TensorIndex* ti) { return asInt(eval(ti->index())); }

  ScalarValue read(const Val* v) {
    auto* ti = dynamic_cast<const TensorIndex*>(v);
    if (ti == nullptr) return eval(v);
    return access(ti, 0, nullptr);
  }

  // Reads (value null) or writes element `k` past `ti`.
  ScalarValue access(const TensorIndex* ti, int64_t k, const ScalarValue* value) {
    const TensorView* tv = ti->view();
    const int64_t offset = offsetOf(ti) + k;
    if (tv->getMemoryType() == MemoryType::Local) {
      auto it = registers_.find(tv);
      if (it == registers_.end() || offset < 0 || offset >= static_cast<int64_t>(it->second.size()))
        throw std::runtime_error(
            fmt::format("register access {}[{}] outside its array", tv->toString(), offset));
      if (value != nullptr)
        it->second[static_cast<size_t>(offset)] = castScalar(*value, tv->dtype());
      return it->second[static_cast<size_t>(offset)];
    }
    if (tv->getMemoryType() != MemoryType::Global) throw Unsupported();
    const Buffer& b = buffers_.at(tv);
    if (offset < 0 || offset >= b.span)
      throw std::runtime_error(fmt::format("global access {}[{}] outside its {} elements",
                                           tv->toString(), offset, b.span));
    std::byte* p = b.base + offset * dataTypeSize(b.dtype);
    if (value != nullptr) storeElement(p, b.dtype, *value);
    return loadElement(p, b.dtype);
  }

  void write(const Val* out, const ScalarValue& value) {
    access(out->as<TensorIndex>(), 0, &value);
  }

  void runScope(const Scope& scope) {
    for (Expr* e : scope.exprs()) {
      if (auto* loop = dynamic_cast<ForLoop*>(e)) {
        const ParallelType p = loop->parallelType();
        if (isThreadDim(p) || isBlockDim(p) || p == ParallelType::Vectorize) {
          // A thread runs its own index; a vectorized axis is one whole-vector copy.
          env_[loop->index()] = p == ParallelType::Vectorize ? 0 : coordinate_.at(p);
          runScope(loop->body());
          continue;
        }
        const int64_t stop = asInt(eval(loop->stop()));
        for (int64_t i = 0; i < stop; ++i) {
          env_[loop->index()] = i;
          runScope(loop->body());
        }
      } else if (auto* ite = dynamic_cast<IfThenElse*>(e)) {
        if (asBool(eval(ite->cond()))) runScope(ite->thenBody());
      } else if (auto* a = dynamic_cast<Allocate*>(e)) {
        if (a->buffer()->getMemoryType() != MemoryType::Local) throw Unsupported();
        const ScalarValue poison = castScalar(std::nan(""), a->buffer()->dtype());
        registers_[a->buffer()].assign(static_cast<size_t>(asInt(eval(a->size()))), poison);
      } else {
        runExpr(e);
      }
    }
  }

  void runExpr(Expr* e) {
    const DataType out = e->output(0)->dtype();
    if (auto* op = dynamic_cast<LoadStoreOp*>(e)) {
      auto width = kernel_.vectorWidth().find(op);
      if (width == kernel_.vectorWidth().end())
        return write(op->out(), castScalar(read(op->in()), out));
      for (int64_t k = 0; k < width->second; ++k) {
        const ScalarValue v = access(op->in()->as<TensorIndex>(), k, nullptr);
        access(op->out()->as<TensorIndex>(), k, &v);
      }
    } else if (auto* b = dynamic_cast<BroadcastOp*>(e)) {
      write(b->out(), castScalar(read(b->in()), out));
    } else if (auto* u = dynamic_cast<UnaryOp*>(e)) {
      write(u->out(), evalUnary(u->opType(), out, read(u->in())));
    } else if (auto* b = dynamic_cast<BinaryOp*>(e)) {
      write(b->out(), evalBinary(b->opType(), out, computeType(b), read(b->lhs()), read(b->rhs())));
    } else if (auto* t = dynamic_cast<TernaryOp*>(e)) {
      write(t->out(),
            evalTernary(t->opType(), out, read(t->input(0)), read(t->input(1)), read(t->input(2))));
    } else if (auto* r = dynamic_cast<ReductionOp*>(e)) {
      if (kernel_.inlinePredicates().count(r)) throw Unsupported();
      write(r->out(),
            evalBinary(r->opType(), out, computeType(out), read(r->out()), read(r->in())));
    } else {
      throw Unsupported();
    }
  }

  Kernel& kernel_;
  ExpressionEvaluator ee_;
  std::unordered_map<const Val*, ScalarValue> env_;
  std::unordered_map<const TensorView*, Buffer> buffers_;
  std::unordered_map<const TensorView*, OutputStorage> outputs_;
  std::unordered_map<const TensorView*, std::vector<ScalarValue>> registers_;
  std::unordered_map<ParallelType, int64_t> coordinate_;
};

}  // namespace

std::optional<std::vector<Tensor>> interpretKernel(Kernel& kernel,
                                                   const std::vector<Tensor>& inputs) {
  try {
    Interpreter interpreter(kernel, inputs);
    return interpreter.run();
  } catch (const Unsupported&) {
    return std::nullopt;
  }
}

}  // namespace mf::testing
