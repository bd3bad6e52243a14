#include "codegen/codegen.h"

#include <fmt/ranges.h>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "ir/dispatch.h"
#include "ir/exprs.h"
#include "ir/scalar_ops.h"
#include "lower/hoist_common_scalars.h"
#include "support/hash.h"
#include "support/shared_memory.h"

namespace mf {

std::string_view cudaTypeName(DataType t) {
  switch (t) {
    case DataType::Bool:
      return "bool";
    case DataType::Int32:
      return "int";
    case DataType::Int64:
      return "long long";
    case DataType::Index:
      return "mf_index_t";
    case DataType::Half:
      return "mf_half";
    case DataType::BFloat16:
      return "mf_bfloat16";
    case DataType::Float:
      return "float";
    case DataType::Double:
      return "double";
    case DataType::Float8_e4m3fn:
      return "mf_fp8e4m3";
    case DataType::Float4_e2m1fn:
      return "mf_fp4e2m1x2";  // a pair (kernels address fp4 tensors by the byte)
  }
  return "?";
}

namespace {

std::string floatLiteral(double v, DataType t) {
  bool f32 = t != DataType::Double;
  if (std::isnan(v))
    return f32 ? "__int_as_float(0x7fc00000)" : "__longlong_as_double(0x7ff8000000000000LL)";
  if (std::isinf(v)) {
    std::string inf =
        f32 ? "__int_as_float(0x7f800000)" : "__longlong_as_double(0x7ff0000000000000LL)";
    return v > 0 ? inf : "(-" + inf + ")";
  }
  std::string s = fmt::format("{}", f32 ? static_cast<double>(static_cast<float>(v)) : v);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return f32 ? s + "f" : s;
}

class CudaPrinter final : public KirVisitor {
 public:
  explicit CudaPrinter(const Kernel& kernel) : kernel_(kernel), keys_(kernel.summary()) {}

  std::string run(const std::string& name) {
    const KernelSummary& summary = kernel_.summary();
    std::vector<std::string> params;
    for (const KernelParameter& p : summary.params) {
      if (p.kind == KernelParameter::Kind::ErrorFlag) {
        params.push_back("int* mf_error");
      } else if (p.kind == KernelParameter::Kind::GridWork) {
        params.push_back("void* mf_grid_work");
      } else if (p.kind == KernelParameter::Kind::GridSemaphores) {
        params.push_back("unsigned* mf_grid_semaphores");
      } else if (auto* tv = dynamic_cast<TensorView*>(p.val)) {
        params.push_back(fmt::format(
            "Tensor<{}, {}, {}> T{}", cudaTypeName(tv->dtype()),
            TensorDomain::noReductions(tv->getLogicalDomain()).size(),
            TensorDomain::noReductions(tv->getMaybeAllocationDomain()).size(), tv->name()));
      } else {
        params.push_back(fmt::format("{} {}", cudaTypeName(p.val->dtype()), p.val->toString()));
      }
    }
    std::string bounds;
    if (summary.block_threads) {
      const std::string min_blocks =
          summary.min_blocks_per_sm ? fmt::format(", {}", *summary.min_blocks_per_sm) : "";
      bounds = fmt::format("__launch_bounds__({}{}) ", *summary.block_threads, min_blocks);
    }
    out_ += fmt::format("extern \"C\" __global__ void {}{}({}) {{\n", bounds, name,
                        fmt::join(params, ", "));
    indent_ = 1;
    // What the block size lets nvcc fold: KernelSummary::assume_block_size says why.
    if (summary.assume_block_size)
      for (const ParallelDimension& dim : summary.parallel_dims)
        if (isThreadDim(dim.type) && dim.constant_size) {
          line(fmt::format("__builtin_assume({} < {});", toString(dim.type), *dim.constant_size));
          const char axis = toString(dim.type).back();  // threadIdx.x: blockDim.x
          line(fmt::format("__builtin_assume(blockDim.{} == {});", axis, *dim.constant_size));
        }
    emitScope(kernel_.body().exprs());
    out_ += "}\n";
    // Kernel-local helpers go before the kernel, so the prelude (and with it the name of
    // every kernel that does not use them) stays as it is.
    return uses_integer_pow_ ? std::string(kIntegerPow) + out_ : out_;
  }

 private:
  void line(const std::string& s) { out_ += std::string(2 * indent_, ' ') + s + "\n"; }

  // One C++ block. The scalars it declares (hoistCommonScalars) go out of scope with it.
  void emitScope(const std::vector<Expr*>& exprs) {
    std::unordered_map<std::string, std::string> outer = declared_;
    for (Expr* e : exprs) dispatch(e);
    declared_ = std::move(outer);
  }

  void handle(ScalarDef* def) override {
    Val* v = def->value();
    line(fmt::format("const {} {} = {};", cudaTypeName(v->dtype()), v->toString(), scalar(v)));
    declared_[keys_.key(v)] = v->toString();
  }

  // A scalar as a C++ expression, naming the declared scalars it contains.
  std::string scalar(Val* v) {
    if (!declared_.empty() && keys_.isCompound(v))
      if (auto it = declared_.find(keys_.key(v)); it != declared_.end()) return it->second;
    if (auto c = v->constValue()) {
      if (std::holds_alternative<double>(*c)) return floatLiteral(std::get<double>(*c), v->dtype());
      if (std::holds_alternative<bool>(*c)) return std::get<bool>(*c) ? "true" : "false";
      return fmt::format("{}", std::get<int64_t>(*c));
    }
    if (const std::string* name = keys_.extentName(v)) return *name;
    if (auto* s = dynamic_cast<Scalar*>(v); s && !s->codeName().empty()) return s->codeName();
    Expr* def = v->definition();
    if (def == nullptr || v->isFusionInput()) return v->toString();
    if (auto* b = dynamic_cast<BinaryOp*>(def)) {
      std::string l = scalar(b->lhs()), r = scalar(b->rhs());
      switch (b->opType()) {
        case BinaryOpType::CeilDiv:
          return fmt::format("(({} + {} - 1) / {})", l, r, r);
        case BinaryOpType::Maximum:
        case BinaryOpType::Minimum:
          if (DataType compute = computeType(b); isFloatingType(compute)) {
            // NaN and signed zeros as tensors' maximum/minimum (and the host's).
            return fmt::format("mf_{}({}, {})", toString(b->opType()), operand(b->lhs(), compute),
                               operand(b->rhs(), compute));
          }
          return fmt::format("({0} {2} {1} ? {0} : {1})", l, r,
                             b->opType() == BinaryOpType::Maximum ? ">" : "<");
        default:
          MF_ASSERT(isInfix(b->opType()), "scalar {} in generated code", toString(b->opType()));
          return fmt::format("({} {} {})", l, toString(b->opType()), r);
      }
    }
    if (auto* u = dynamic_cast<UnaryOp*>(def)) {
      if (u->opType() == UnaryOpType::Cast)
        return fmt::format("(({}){})", cudaTypeName(v->dtype()), scalar(u->in()));
      if (u->opType() == UnaryOpType::Neg) return fmt::format("(-{})", scalar(u->in()));
      if (u->opType() == UnaryOpType::LogicalNot) return fmt::format("(!{})", scalar(u->in()));
      return fmt::format("mf_{}({})", toString(u->opType()), scalar(u->in()));
    }
    if (auto* t = dynamic_cast<TernaryOp*>(def); t && t->opType() == TernaryOpType::Where)
      return fmt::format("({} ? {} : {})", scalar(t->input(0)), scalar(t->input(1)),
                         scalar(t->input(2)));
    MF_ASSERT(false, "cannot print scalar {} in generated code", v->toInlineString());
  }

  // An operand (TensorIndex or scalar) converted to `to`.
  std::string operand(Val* v, DataType to) {
    std::string s;
    if (auto* ti = dynamic_cast<TensorIndex*>(v)) {
      s = fmt::format("T{}[{}]", ti->view()->name(), scalar(ti->index()));
    } else if (auto c = v->constValue(); c && isFloatingType(to)) {
      // Converted here with the device's rules (castScalar), printed exactly. No literal has a
      // narrow type: those are written as the exact float and converted with mf_cast.
      std::string literal = floatLiteral(asDouble(castScalar(*c, to)), to);
      if (!isNarrowFloat(to)) return literal;
      return fmt::format("mf_cast<{}>({})", cudaTypeName(to), literal);
    } else {
      s = scalar(v);
    }
    if (v->dtype() == to) return s;
    return fmt::format("mf_cast<{}>({})", cudaTypeName(to), s);
  }

  std::string target(Val* out) {
    auto* ti = out->as<TensorIndex>();
    return fmt::format("T{}[{}]", ti->view()->name(), scalar(ti->index()));
  }

  void assign(Val* out, DataType compute, const std::string& value) {
    std::string v = out->dtype() == compute
                        ? value
                        : fmt::format("mf_cast<{}>({})", cudaTypeName(out->dtype()), value);
    line(fmt::format("{} = {};", target(out), v));
  }

  void handle(ForLoop* loop) override {
    std::vector<const ForLoop*> group;
    if (RuntimeCall* call = kernel_.groupedReduction(loop, group)) {
      emitAllReduce(call, group);
      return;
    }
    if (!loop->isSerial()) {
      // Hardware dims index by thread/block; a vectorized axis is one whole-vector copy.
      for (Expr* e : loop->body().exprs()) dispatch(e);
      return;
    }
    if (loop->parallelType() == ParallelType::Unroll) line("#pragma unroll");
    std::string i = scalar(loop->index());
    line(fmt::format("for (mf_index_t {0} = 0; {0} < {1}; ++{0}) {{", i, scalar(loop->stop())));
    ++indent_;
    emitScope(loop->body().exprs());
    --indent_;
    line("}");
  }

  void handle(IfThenElse* ite) override {
    line(fmt::format("if ({}) {{", scalar(ite->cond())));
    ++indent_;
    emitScope(ite->thenBody().exprs());
    --indent_;
    if (!ite->elseBody().empty()) {
      line("} else {");
      ++indent_;
      emitScope(ite->elseBody().exprs());
      --indent_;
    }
    line("}");
  }

  void handle(Allocate* a) override {
    // A shared buffer of symbolic size is a slice of the launch's dynamic shared memory.
    const auto& dynamic = kernel_.summary().dynamic_smem_offsets;
    auto slice = std::find_if(dynamic.begin(), dynamic.end(),
                              [&](const auto& d) { return d.first == a->buffer(); });
    if (slice != dynamic.end()) {
      const std::string type(cudaTypeName(a->buffer()->dtype()));
      line("extern __shared__ __align__(16) char mf_dynamic_smem[];");
      line(fmt::format("{0}* T{1} = reinterpret_cast<{0}*>(mf_dynamic_smem + {2});", type,
                       a->buffer()->name(), scalar(slice->second)));
      return;
    }
    bool shared = a->buffer()->getMemoryType() == MemoryType::Shared;
    line(fmt::format("{}alignas(16) {} T{}[{}];", shared ? "__shared__ " : "",
                     cudaTypeName(a->buffer()->dtype()), a->buffer()->name(), scalar(a->size())));
  }

  void handle(BlockSync*) override { line("__syncthreads();"); }

  void handle(LoadStoreOp* op) override {
    if (const int64_t width = op->out()->as<TensorIndex>()->vectorWidth(); width > 1) {
      auto* in = op->in()->as<TensorIndex>();
      line(fmt::format("mf_vectorCopy<{}, {}>(&{}, &T{}[{}]);", cudaTypeName(op->out()->dtype()),
                       width, target(op->out()), in->view()->name(), scalar(in->index())));
      return;
    }
    assign(op->out(), op->out()->dtype(), operand(op->in(), op->out()->dtype()));
  }

  void handle(FullOp* op) override {
    assign(op->out(), op->out()->dtype(), operand(op->fillValue(), op->out()->dtype()));
  }

  void handle(BroadcastOp* op) override {
    assign(op->out(), op->out()->dtype(), operand(op->in(), op->out()->dtype()));
  }

  void handle(UnaryOp* op) override {
    DataType out = op->out()->dtype();
    if (op->opType() == UnaryOpType::Cast) {
      std::string value = anyNaNBits(op->out()) ? fmt::format("mf_toFloatForArithmetic({})",
                                                              operand(op->in(), op->in()->dtype()))
                                                : operand(op->in(), out);
      line(fmt::format("{} = {};", target(op->out()), value));
      return;
    }
    DataType compute = computeType(out);
    std::string x = operand(op->in(), compute);
    std::string value;
    if (isFloatingType(compute)) {
      value = fmt::format("mf_{}({})", toString(op->opType()), x);
    } else {
      switch (op->opType()) {
        case UnaryOpType::Neg:
          value = fmt::format("(-{})", x);
          break;
        case UnaryOpType::Abs:
          value = fmt::format("({0} < 0 ? -{0} : {0})", x);
          break;
        case UnaryOpType::Relu:
          value = fmt::format("({0} > 0 ? {0} : 0)", x);
          break;
        case UnaryOpType::LogicalNot:
          value = fmt::format("(!{})", x);
          break;
        case UnaryOpType::Floor:
        case UnaryOpType::Ceil:
          value = x;
          break;
        default:
          MF_THROW("codegen: {} of {} is not supported", toString(op->opType()), compute);
      }
    }
    assign(op->out(), compute, value);
  }

  void handle(BinaryOp* op) override {
    DataType compute = computeType(op);
    std::string a = operand(op->lhs(), compute), b = operand(op->rhs(), compute);
    BinaryOpType t = op->opType();
    assign(op->out(), isPredicateOp(t) ? DataType::Bool : compute,
           binaryValue(t, compute, a, b, anyNaNBits(op->out())));
  }

  // A serial reduction step: out = op(out, in), in the accumulator's compute type. A
  // reduction across threads is a RuntimeCall (emitAllReduce).
  void handle(ReductionOp* op) override {
    DataType compute = computeType(op->out()->dtype());
    assign(op->out(), compute,
           binaryValue(op->opType(), compute, operand(op->out(), compute),
                       operand(op->in(), compute), anyNaNBits(op->out())));
  }

  // Whether lowering found that `out`'s NaN bits reach only arithmetic (lower/nan_bits.h).
  static bool anyNaNBits(Val* out) { return out->as<TensorIndex>()->anyNaNBits(); }

  // Opens `group`'s loops (as written: the same index names) around what `body` emits.
  template <typename Body>
  void emitGroupLoops(const std::vector<const ForLoop*>& group, Body body) {
    for (const ForLoop* loop : group) {
      if (loop->parallelType() == ParallelType::Unroll) line("#pragma unroll");
      std::string i = scalar(loop->index());
      line(fmt::format("for (mf_index_t {0} = 0; {0} < {1}; ++{0}) {{", i, scalar(loop->stop())));
      ++indent_;
    }
    body();
    for (size_t n = 0; n < group.size(); ++n) {
      --indent_;
      line("}");
    }
  }

  // A block or grid all-reduce: every thread calls the block all-reduce (threads without data
  // give the identity), then the writers combine its result into the output. A grouped one
  // (`group` not empty) gathers the values of its loops into `block_values`, reduces them in
  // one call, and scatters the results in the same loops.
  void emitAllReduce(RuntimeCall* call, const std::vector<const ForLoop*>& group) {
    if (call->members() > 1) return emitTupleAllReduce(call, group);
    Val* out = call->output(0);
    const BinaryOpType combine = call->params().combine;
    DataType compute = computeType(out->dtype());
    std::string acc = operand(out, compute), x = operand(call->operand(CallOperand::In), compute);
    const std::string type(cudaTypeName(compute));
    const std::string init = operand(call->operand(CallOperand::Init), compute);
    const bool any_nan = anyNaNBits(out);
    const std::string lambda = fmt::format("[]({0} a, {0} b) {{ return {1}; }}", type,
                                           binaryValue(combine, compute, "a", "b", any_nan));
    // "X" or "Y": the thread dimension the block all-reduce reduces across.
    const std::string_view suffix = call->params().across == ParallelType::TIDy ? "Y" : "X";
    line("{");
    ++indent_;
    auto isTrue = [](Val* pred) { return pred->isConst() && asBool(*pred->constValue()); };
    Val* read = call->readPredicate();
    std::string value = isTrue(read) ? x : fmt::format("{} ? {} : {}", scalar(read), x, init);
    std::string result = "block_result";
    int64_t size = 1;
    // A grid reduction with no thread axis reduced (one value per thread and block) skips the
    // block's part.
    const bool block_part = call->params().across != ParallelType::Serial;
    if (group.empty()) {
      line(block_part ? fmt::format("const {0} block_result = mf_blockAllReduce{4}<{0}>({1}, {2}, "
                                    "{3});",
                                    type, value, lambda, init, suffix)
                      : fmt::format("const {} block_result = {};", type, value));
    } else {
      std::string flat;
      for (const ForLoop* loop : group) {
        size *= *loop->stop()->constInt();
        std::string i = scalar(loop->index());
        flat = flat.empty() ? i : fmt::format("{} * {} + {}", flat, *loop->stop()->constInt(), i);
      }
      result = fmt::format("block_values[{}]", flat);
      line(fmt::format("{} block_values[{}];", type, size));
      emitGroupLoops(group, [&] { line(fmt::format("{} = {};", result, value)); });
      if (block_part)
        line(fmt::format("mf_blockAllReduce{}<{}, {}>(block_values, {}, {});", suffix, type, size,
                         lambda, init));
    }
    const bool in_place = call->form() == RuntimeCallForm::GridAllReduce &&
                          kernel_.summary().grid_reductions_finish_in_place;
    if (in_place) {
      // Every block goes on; only the one that finishes the column writes
      // (gridReductionsFinishInPlace). Call k's part of the work buffer follows the previous
      // calls' slots, its semaphores theirs.
      const std::string buffers =
          fmt::format("static_cast<{}*>(mf_grid_work), mf_grid_semaphores, {}, {}", type,
                      grid_slots_, grid_calls_);
      grid_slots_ += size;
      ++grid_calls_;
      if (group.empty()) {
        line(fmt::format("{} grid_result;", type));
        line(fmt::format("const bool grid_last = {}<{}>(block_result, {}, {}, {}, grid_result);",
                         call->function(), type, lambda, init, buffers));
        result = "grid_result";
      } else {
        line(fmt::format("const bool grid_last = {}<{}, {}>(block_values, {}, {}, {});",
                         call->function(), type, size, lambda, init, buffers));
      }
    } else if (call->form() == RuntimeCallForm::GridAllReduce) {
      // Only the last block to arrive has the result; the others have nothing left to do
      // (validateSchedule: no loop encloses a grid reduction, and it is the kernel's only one).
      if (group.empty()) {
        line(fmt::format("{} grid_result;", type));
        line(
            fmt::format("if (!{0}<{1}>(block_result, {2}, {3}, static_cast<{1}*>(mf_grid_work), "
                        "mf_grid_semaphores, grid_result)) return;",
                        call->function(), type, lambda, init));
        result = "grid_result";
      } else {
        // The executor sized the work buffer for the summary's group.
        MF_ASSERT(size == kernel_.summary().grid_reduction_group,
                  "grid reduction group of {} values, the summary says {}", size,
                  kernel_.summary().grid_reduction_group);
        line(fmt::format(
            "if (!{0}<{1}, {2}>(block_values, {3}, {4}, static_cast<{1}*>(mf_grid_work), "
            "mf_grid_semaphores)) return;",
            call->function(), type, size, lambda, init));
      }
    }
    auto update = [&] {
      Val* write = call->writePredicate();
      const bool guarded = in_place || !isTrue(write);
      if (in_place && !isTrue(write))
        line(fmt::format("if (grid_last && {}) {{", scalar(write)));
      else if (guarded)
        line(fmt::format("if ({}) {{", in_place ? "grid_last" : scalar(write)));
      indent_ += guarded ? 1 : 0;
      assign(out, compute, binaryValue(combine, compute, acc, result, any_nan));
      indent_ -= guarded ? 1 : 0;
      if (guarded) line("}");
    };
    if (group.empty())
      update();
    else
      emitGroupLoops(group, update);
    --indent_;
    line("}");
  }

  // A grouped all-reduce (groupReductionCalls): member m's values (the group loops' values of
  // its input, or the identity where its read predicate fails) in `block_values<m>`, every
  // member reduced by one mf_blockAllReduceTuple call (one barrier sequence; members may differ
  // in op and type), then by one mf_gridAllReduceTuple call across blocks (its work slots of
  // the summary's type, the widest), and each member's writers fold its results into its output.
  void emitTupleAllReduce(RuntimeCall* call, const std::vector<const ForLoop*>& group) {
    auto isTrue = [](Val* pred) { return pred->isConst() && asBool(*pred->constValue()); };
    std::string flat;
    int64_t size = 1;
    for (const ForLoop* loop : group) {
      size *= *loop->stop()->constInt();
      std::string i = scalar(loop->index());
      flat = flat.empty() ? i : fmt::format("{} * {} + {}", flat, *loop->stop()->constInt(), i);
    }
    if (flat.empty()) flat = "0";
    struct Member {
      Val* out = nullptr;
      DataType compute = DataType::Float;
      std::string type = {}, values = {}, init = {}, lambda = {};
      bool any_nan = false;
    };
    std::vector<Member> members;
    std::vector<std::string> args;
    for (size_t m = 0; m < call->members(); ++m) {
      Member mb;
      mb.out = call->output(m);
      mb.compute = computeType(mb.out->dtype());
      mb.type = cudaTypeName(mb.compute);
      mb.values = fmt::format("block_values{}", m);
      mb.init = operand(call->operand(CallOperand::Init, m), mb.compute);
      mb.any_nan = anyNaNBits(mb.out);
      mb.lambda = fmt::format("[]({0} a, {0} b) {{ return {1}; }}", mb.type,
                              binaryValue(call->combineOf(m), mb.compute, "a", "b", mb.any_nan));
      args.push_back(fmt::format("mf_reduceMember({}, {}, {})", mb.values, mb.lambda, mb.init));
      members.push_back(std::move(mb));
    }
    line("{");
    ++indent_;
    for (const Member& mb : members) line(fmt::format("{} {}[{}];", mb.type, mb.values, size));
    emitGroupLoops(group, [&] {
      for (size_t m = 0; m < members.size(); ++m) {
        std::string x = operand(call->operand(CallOperand::In, m), members[m].compute);
        Val* read = call->readPredicate(m);
        line(fmt::format(
            "{}[{}] = {};", members[m].values, flat,
            isTrue(read) ? x : fmt::format("{} ? {} : {}", scalar(read), x, members[m].init)));
      }
    });
    if (call->params().across != ParallelType::Serial)
      line(fmt::format("mf_blockAllReduceTuple{}({});",
                       call->params().across == ParallelType::TIDy ? "Y" : "X",
                       fmt::join(args, ", ")));
    if (call->form() == RuntimeCallForm::GridAllReduce) {
      // The executor sized the work buffer for the summary's values per thread.
      MF_ASSERT(
          size * static_cast<int64_t>(members.size()) == kernel_.summary().grid_reduction_group,
          "grouped grid reduction of {} values, the summary says {}",
          size * static_cast<int64_t>(members.size()), kernel_.summary().grid_reduction_group);
      line(fmt::format("if (!{}(static_cast<{}*>(mf_grid_work), mf_grid_semaphores, {})) return;",
                       call->function(), cudaTypeName(*kernel_.summary().grid_reduction_dtype),
                       fmt::join(args, ", ")));
    }
    emitGroupLoops(group, [&] {
      for (size_t m = 0; m < members.size(); ++m) {
        const Member& mb = members[m];
        Val* write = call->writePredicate(m);
        if (!isTrue(write)) line(fmt::format("if ({}) {{", scalar(write)));
        indent_ += isTrue(write) ? 0 : 1;
        assign(mb.out, mb.compute,
               binaryValue(call->combineOf(m), mb.compute, operand(mb.out, mb.compute),
                           fmt::format("{}[{}]", mb.values, flat), mb.any_nan));
        indent_ -= isTrue(write) ? 0 : 1;
        if (!isTrue(write)) line("}");
      }
    });
    --indent_;
    line("}");
  }

  std::string binaryValue(BinaryOpType t, DataType compute, const std::string& a,
                          const std::string& b, bool any_nan_bits = false) {
    std::string value;
    bool fp = isFloatingType(compute);
    if (t == BinaryOpType::Pow && !fp) {
      // a^b of bools is a || !b (0^0 = 1); integers call the kernel's own helper.
      if (compute == DataType::Bool) return fmt::format("({} || !{})", a, b);
      uses_integer_pow_ = true;
      return fmt::format("mf_integerPow<{}, unsigned {}>({}, {})", cudaTypeName(compute),
                         compute == DataType::Int32 ? "int" : "long long", a, b);
    }
    if (t == BinaryOpType::Maximum || t == BinaryOpType::Minimum || t == BinaryOpType::Pow) {
      if (fp) {
        value = fmt::format("mf_{}{}({}, {})", toString(t), any_nan_bits ? "AnyNaN" : "", a, b);
      } else {
        value =
            fmt::format("({0} {2} {1} ? {0} : {1})", a, b, t == BinaryOpType::Maximum ? ">" : "<");
      }
    } else {
      MF_CHECK(isInfix(t) && !(fp && t == BinaryOpType::Mod),
               "codegen: {} of {} tensors is not supported", toString(t), compute);
      value = fmt::format("({} {} {})", a, toString(t), b);
    }
    return value;
  }

  void handle(TernaryOp* op) override {
    DataType out = op->out()->dtype();
    if (op->opType() == TernaryOpType::Where) {
      assign(op->out(), out,
             fmt::format("({} ? {} : {})", operand(op->input(0), DataType::Bool),
                         operand(op->input(1), out), operand(op->input(2), out)));
      return;
    }
    DataType compute = computeType(out);
    std::string x = operand(op->input(0), compute), lo = operand(op->input(1), compute),
                hi = operand(op->input(2), compute);
    // clamp(x, lo, hi) = minimum(maximum(x, lo), hi), also for integers (lo > hi gives hi).
    std::string value;
    if (isFloatingType(compute)) {
      value = fmt::format("mf_minimum(mf_maximum({}, {}), {})", x, lo, hi);
    } else {
      // An integer literal is an int: name the type to pick the mf_max / mf_min overload.
      value =
          fmt::format("mf_min(mf_max({0}, ({3}){1}), ({3}){2})", x, lo, hi, cudaTypeName(compute));
    }
    assign(op->out(), compute, value);
  }

  void handle(RuntimeCall* call) override {
    switch (call->form()) {
      case RuntimeCallForm::BlockAllReduce:
      case RuntimeCallForm::GridAllReduce:
        emitAllReduce(call, {});
        return;
      case RuntimeCallForm::LayoutScatter:
      case RuntimeCallForm::LayoutGather:
      case RuntimeCallForm::LayoutTile:
        emitLayoutOp(call);
        return;
      case RuntimeCallForm::BlockQuantize:
      case RuntimeCallForm::GroupedBlockQuantize:
        emitBlockQuantize(call);
        return;
    }
  }

  // The block quantizations' runtime functions (runtime/block_quantize.cuh), templated on the
  // blocks W of a call and the block's threads (0 when not a constant): the first block's
  // first value and the input's stride along its last axis, the global scale in float, the
  // codes' byte (a float4 index is even: a block starts at a multiple of 16), and the scales:
  // the first one's element, the stride along the scales' last axis, the first block's column
  // and the columns; or (grouped) the padded buffer's base, size and the layout's operands.
  void emitBlockQuantize(RuntimeCall* call) {
    auto* in = call->operand(CallOperand::In)->as<TensorIndex>();
    auto* q = call->output(1)->as<TensorIndex>();
    auto* scales = call->output(0)->as<TensorIndex>();
    const TensorView* in_tv = in->view();
    const int64_t pos = Kernel::lastLogicalStridePos(in_tv);
    const std::string in_args =
        fmt::format("&T{0}[{1}], T{0}.stride[{2}], {3}", in_tv->name(), scalar(in->index()), pos,
                    operand(call->operand(CallOperand::GlobalScale), DataType::Float));
    const std::string q_arg =
        fmt::format("T{}.data + ({}) / 2", q->view()->name(), scalar(q->index()));
    const int64_t w = call->params().vector_width;
    if (call->form() == RuntimeCallForm::BlockQuantize) {
      const TensorView* s_tv = scales->view();
      const int64_t s_pos = Kernel::lastLogicalStridePos(s_tv);
      line(fmt::format("{}<{}, {}, {}>(&T{}[{}], T{}.stride[{}], {}, {}, {}, {});",
                       call->function(), w, call->params().threads, cudaTypeName(in_tv->dtype()),
                       s_tv->name(), scalar(scales->index()), s_tv->name(), s_pos, q_arg, in_args,
                       scalar(call->operand(CallOperand::Col)),
                       scalar(call->operand(CallOperand::K))));
      return;
    }
    auto* in_off = call->operand(CallOperand::InputOffsets)->as<TensorIndex>()->view();
    auto* out_off = call->operand(CallOperand::OutputOffsets)->as<TensorIndex>()->view();
    const auto& s_alloc = scales->view()->getMaybeAllocationDomain();
    line(fmt::format(
        "{}<{}, {}, {}, {}>(T{}.data, {} * {}, {}, {}, T{}.data, T{}.data, {}, {}, {}, {}, {}, "
        "mf_error);",
        call->function(), w, call->params().threads, cudaTypeName(in_tv->dtype()),
        cudaTypeName(in_off->dtype()), scales->view()->name(), scalar(s_alloc[0]->extent()),
        scalar(s_alloc[1]->extent()), q_arg, in_args, in_off->name(), out_off->name(),
        scalar(call->operand(CallOperand::Row)), scalar(call->operand(CallOperand::Col)),
        scalar(scales->view()->getLogicalDomain()[0]->extent()),
        scalar(call->operand(CallOperand::K)), scalar(call->operand(CallOperand::G))));
  }

  // The layout op's runtime functions: the padded buffer's base and size, the offsets' base
  // pointers, M, K and G, and the form's element position.
  void emitLayoutOp(RuntimeCall* call) {
    auto* out = call->output(0)->as<TensorIndex>()->view();
    auto* in = call->operand(CallOperand::In)->as<TensorIndex>();
    auto* in_off = call->operand(CallOperand::InputOffsets)->as<TensorIndex>()->view();
    auto* out_off = call->operand(CallOperand::OutputOffsets)->as<TensorIndex>()->view();
    const std::string k = scalar(call->operand(CallOperand::K));
    const std::string g = scalar(call->operand(CallOperand::G));
    const auto& alloc = out->getMaybeAllocationDomain();
    std::string numel =
        fmt::format("{} * {}", scalar(alloc[0]->extent()), scalar(alloc[1]->extent()));
    std::string m = scalar(out->getLogicalDomain()[0]->extent());
    if (call->form() != RuntimeCallForm::LayoutScatter) {
      // Gather: <T, OffsetT, W>; Tile: <T, OffsetT, W, threads per block>.
      std::string width = fmt::format("{}", call->params().vector_width);
      if (call->form() == RuntimeCallForm::LayoutTile)
        width += fmt::format(", {}", call->params().threads);
      line(fmt::format(
          "{}<{}, {}, {}>(T{}.data, {}, {}, T{}.data, T{}.stride[0], T{}.stride[1], T{}.data, "
          "T{}.data, {}, {}, {}, mf_error);",
          call->function(), cudaTypeName(out->dtype()), cudaTypeName(in_off->dtype()), width,
          out->name(), numel, scalar(call->operand(CallOperand::Position)), in->view()->name(),
          in->view()->name(), in->view()->name(), in_off->name(), out_off->name(), m, k, g));
      return;
    }
    line(fmt::format(
        "{}<{}, {}>(T{}.data, {}, &T{}[{}], 1, {}, {}, T{}.data, T{}.data, {}, {}, {}, mf_error);",
        call->function(), cudaTypeName(out->dtype()), cudaTypeName(in_off->dtype()), out->name(),
        numel, in->view()->name(), scalar(in->index()), scalar(call->operand(CallOperand::Row)),
        scalar(call->operand(CallOperand::Col)), in_off->name(), out_off->name(), m, k, g));
  }

  // Integer pow by squaring, wrapping as two's complement (U is T's unsigned type), with
  // nvFuser's and PyTorch's rules for a negative exponent: 1 for a base of 1, +-1 by parity for
  // -1, 0 for any other base. Evaluated on the host as ir/scalar_ops.cpp's integerBinary.
  static constexpr std::string_view kIntegerPow =
      "template <typename T, typename U>\n"
      "__device__ inline T mf_integerPow(T a, T b) {\n"
      "  if (b < 0) return a == 1 ? T(1) : a == -1 ? ((b & 1) ? T(-1) : T(1)) : T(0);\n"
      "  U r = 1, x = static_cast<U>(a);\n"
      "  for (; b != 0; b >>= 1, x *= x)\n"
      "    if (b & 1) r *= x;\n"
      "  return static_cast<T>(r);\n"
      "}\n";

  const Kernel& kernel_;
  // Grid reductions finished in place emitted so far, and their groups' slots per thread.
  int64_t grid_calls_ = 0;
  int64_t grid_slots_ = 0;
  ScalarKeys keys_;
  bool uses_integer_pow_ = false;
  //! The key of each scalar declared in the scopes open here -> its name.
  std::unordered_map<std::string, std::string> declared_;
  std::string out_;
  int indent_ = 0;
};

// The kernel's values renamed in order of first appearance, each prefix on its own (tensors
// T0, T1, ..., scalars i0, b0, f0, d0, ...: the IR's names, Scalar::toString's prefixes): two
// kernels that differ only in the IR's numbering (two segments of the same math) have the
// same canonical source, hence the same name and one compile (the kernel cache's key).
std::string canonicalNames(std::string_view code) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::unordered_map<std::string_view, std::string> renamed;
  std::unordered_map<char, int> next;
  std::string out;
  out.reserve(code.size());
  size_t i = 0;
  while (i < code.size()) {
    const char c = code[i];
    const bool starts = (i == 0 || !word(code[i - 1])) &&
                        (c == 'T' || c == 'i' || c == 'b' || c == 'f' || c == 'd') &&
                        i + 1 < code.size() && digit(code[i + 1]);
    if (!starts) {
      out += c;
      ++i;
      continue;
    }
    size_t end = i + 1;
    while (end < code.size() && digit(code[end])) ++end;
    if (end < code.size() && word(code[end])) {  // part of a longer identifier: kept
      out.append(code.substr(i, end - i));
      i = end;
      continue;
    }
    const std::string_view name = code.substr(i, end - i);
    auto [it, fresh] = renamed.try_emplace(name);
    if (fresh) it->second = fmt::format("{}{}", c, next[c]++);
    out += it->second;
    i = end;
  }
  return out;
}

// The block reductions' shared scratch (runtime/block_reduction.cuh: 16 KiB, one buffer for
// every block reduction of the kernel) is 8 KiB, enough for 1024 threads' 8-byte cells, when
// the kernel's own static shared buffers would otherwise pass the 48 KiB a kernel may declare
// statically (the inner-outer schedule's column sums in shared memory).
std::string scratchSize(const KernelSummary& summary) {
  if (summary.static_smem_bytes + kBlockReduceScratchBytes + kRuntimeSharedFlagBytes <=
      kStaticSharedBytes)
    return "";
  return fmt::format("#define MF_BLOCK_REDUCE_Y_BYTES {}\n", kSmallBlockReduceScratchBytes);
}

}  // namespace

GeneratedKernel generateCuda(const Kernel& kernel, std::string_view prelude) {
  // The name hashes everything NVRTC compiles (index typedef, prelude, kernel) printed under
  // a placeholder name with canonical value names: equal sources share a name (also when the
  // IR numbered their values differently), and the Int32 and Int64 variants of one kernel, or
  // one kernel under two preludes, do not. The printed kernel keeps the IR's names (dumps
  // match the IR dumps); the kernel cache is keyed by the canonical source.
  constexpr std::string_view kPlaceholder = "MF_KERNEL_NAME";
  std::string code = CudaPrinter(kernel).run(std::string(kPlaceholder));
  std::string canonical = canonicalNames(code);
  auto source = [&](std::string_view name, std::string_view kernel_code) {
    return fmt::format("// minifuser generated kernel {}\ntypedef {} mf_index_t;\n{}{}\n{}", name,
                       cudaTypeName(kernel.indexType()), scratchSize(kernel.summary()), prelude,
                       kernel_code);
  };
  std::string name = fmt::format("kernel_{:016x}", hashBytes(source(kPlaceholder, canonical)));
  code.replace(code.find(kPlaceholder), kPlaceholder.size(), name);
  canonical.replace(canonical.find(kPlaceholder), kPlaceholder.size(), name);
  GeneratedKernel g;
  g.name = name;
  g.kernel_code = code;
  g.full_source = source(name, code);
  g.canonical_source = source(name, canonical);
  return g;
}

}  // namespace mf
