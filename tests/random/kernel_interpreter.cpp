#include "random/kernel_interpreter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "ir/expr_evaluator.h"
#include "ir/exprs.h"
#include "ir/scalar_ops.h"
#include "random/layout_runtime_host.h"
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

// One thread of the launch: its coordinates, loop indices and register arrays.
struct Thread {
  std::unordered_map<ParallelType, int64_t> coordinate;
  std::unordered_map<const Val*, ScalarValue> env;
  std::unordered_map<const TensorView*, std::vector<ScalarValue>> registers;
  int64_t id = 0;       // launch position
  int64_t block = 0;    // linear block index, for its shared memory
  bool exited = false;  // returned (a block past a grid reduction that is not the last)
};

// The last accesses to a shared element, for race checks: the thread that wrote it and the
// one that read it (kSeveral: more than one), each in which barrier epoch of its block.
constexpr int64_t kSeveral = -2;
struct SharedAccess {
  int64_t write_epoch = -1, writer = -1;
  int64_t read_epoch = -1, reader = -1;
};
struct SharedArray {
  std::vector<ScalarValue> values;
  std::vector<SharedAccess> last;
};

class Interpreter {
 public:
  Interpreter(Kernel& kernel, const std::vector<Tensor>& inputs)
      : kernel_(kernel), inputs_(inputs) {
    const Fusion& ir = kernel.ir();
    for (size_t i = 0; i < ir.inputs().size(); ++i) {
      auto* tv = dynamic_cast<TensorView*>(ir.inputs()[i]);
      if (tv == nullptr) {
        // A scalar input: every thread reads its value.
        ee_.bind(ir.inputs()[i], inputs.at(i).scalarValue());
        continue;
      }
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
      // A declared allocation: the layout op's buffer (and groupedBlockQuantize's scales).
      if (tv->domain()->allocationDeclared()) {
        PaddedStorage& o = padded_.emplace(tv, PaddedStorage(tv, ee_)).first->second;
        buffers_[tv] = {o.base(), o.numel(), tv->dtype()};
        continue;
      }
      std::vector<int64_t> sizes;
      for (IterDomain* id : TensorDomain::noReductions(tv->getLogicalDomain()))
        sizes.push_back(ee_.evaluateInt(id->extent(), "output extent"));
      outputs_.emplace(tv, OutputStorage(tv, sizes));
      OutputStorage& o = outputs_.at(tv);
      buffers_[tv] = {o.bytes.data(), o.numel, tv->dtype()};
      bindStrides(tv, o.strides);
    }
  }

  // Runs every thread of the launch in lockstep: each statement for every active thread
  // before the next, so a barrier needs nothing and a block or grid reduction sees every
  // participant's value at once.
  std::vector<Tensor> run() {
    const KernelSummary& summary = kernel_.summary();
    for (const KernelParameter& p : summary.params)
      if (p.kind == KernelParameter::Kind::Intermediate) throw Unsupported();
    const std::vector<int64_t> sizes = summary.launchSizes(ee_);
    int64_t positions = 1;
    for (int64_t s : sizes) positions *= s;
    threads_.resize(static_cast<size_t>(positions));
    int64_t blocks = 0;
    std::map<std::vector<int64_t>, int64_t> block_ids;
    for (int64_t p = 0; p < positions; ++p) {
      Thread& t = threads_[static_cast<size_t>(p)];
      t.id = p;
      int64_t rest = p;
      std::vector<int64_t> block;
      for (size_t d = 0; d < sizes.size(); ++d) {
        const ParallelType type = summary.parallel_dims[d].type;
        t.coordinate[type] = rest % sizes[d];
        rest /= sizes[d];
        if (isBlockDim(type)) block.push_back(t.coordinate[type]);
      }
      auto [it, inserted] = block_ids.emplace(block, blocks);
      blocks += inserted ? 1 : 0;
      t.block = it->second;
    }
    shared_.resize(static_cast<size_t>(blocks));
    epoch_.assign(static_cast<size_t>(blocks), 0);
    std::vector<Thread*> all;
    for (Thread& t : threads_) all.push_back(&t);
    runScope(kernel_.body(), all);
    // As the executor: the layout op's flag is a UserError after the kernel.
    MF_CHECK(error_flag_ == 0, "{}", summary.describeError(error_flag_));
    std::vector<Tensor> out;
    for (Val* v : kernel_.ir().outputs()) {
      auto* tv = v->as<TensorView>();
      auto it = outputs_.find(tv);
      auto padded = padded_.find(tv);
      out.push_back(it != outputs_.end()      ? it->second.toTensor()
                    : padded != padded_.end() ? padded->second.toTensor()
                                              : Tensor());
    }
    for (const PaddedOutput& p : summary.padded_outputs)
      out[p.output].setUsedRows(layoutUsedRows(inputs_[p.input_offsets], inputs_[p.output_offsets],
                                               out[p.output].sizes()[0]));
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
      bytes.assign(static_cast<size_t>(storageBytes(dtype, numel)), std::byte{0xff});
    }

    Tensor toTensor() const {
      Tensor t = Tensor::empty(sizes, dtype);
      for (int64_t linear = 0; linear < numel; ++linear) {
        int64_t offset = 0, rest = linear;
        for (size_t d = sizes.size(); d-- > 0;) {
          offset += rest % sizes[d] * logical_strides[d];
          rest /= sizes[d];
        }
        // (a float4 element goes through its value: its codes are exact)
        storeElementAt(static_cast<std::byte*>(t.rawData()), linear, dtype,
                       loadElementAt(bytes.data(), offset, dtype));
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

  // The layout op's padded buffer [rows, Kp] (its declared allocation), filled with 0xFF as
  // RunOptions::poison_outputs fills it, between two guard zones that a write outside the
  // buffer would change (the runtime functions write through raw pointers).
  class PaddedStorage {
   public:
    PaddedStorage(TensorView* tv, ExpressionEvaluator& ee) : dtype_(tv->dtype()) {
      for (IterDomain* id : tv->getLogicalDomain())
        logical_.push_back(ee.evaluateInt(id->extent(), "layout op output extent"));
      for (IterDomain* id : tv->getMaybeAllocationDomain())
        allocation_.push_back(ee.evaluateInt(id->extent(), "layout op buffer extent"));
      numel_ = allocation_[0] * allocation_[1];
      bytes_.assign(static_cast<size_t>(numel_ * dataTypeSize(dtype_) + 2 * kGuard),
                    std::byte{kGuardByte});
      std::fill(bytes_.begin() + kGuard, bytes_.end() - kGuard, std::byte{0xff});
    }
    std::byte* base() { return bytes_.data() + kGuard; }
    int64_t numel() const { return numel_; }
    Tensor toTensor() const {
      for (size_t i = 0; i < kGuard; ++i)
        if (bytes_[i] != std::byte{kGuardByte} ||
            bytes_[bytes_.size() - 1 - i] != std::byte{kGuardByte})
          throw std::runtime_error("the layout op wrote outside its padded buffer");
      Tensor t = Tensor::withAllocation(logical_, allocation_, dtype_);
      std::memcpy(t.rawData(), bytes_.data() + kGuard, bytes_.size() - 2 * kGuard);
      return t;
    }

   private:
    static constexpr size_t kGuard = 256;
    static constexpr unsigned char kGuardByte = 0xA5;
    DataType dtype_;
    std::vector<int64_t> logical_, allocation_;
    int64_t numel_ = 0;
    std::vector<std::byte> bytes_;
  };

  // A layout op's runtime call (codegen's emitLayoutOp), run by the host build of the same
  // runtime function (layout_runtime_host.h): scatter and gather per thread, the tile form a
  // whole block at a time (its load phase for every thread, then its store phase).
  void runLayoutCall(RuntimeCall* call, const std::vector<Thread*>& active) {
    const TensorView* out = call->output(0)->as<TensorIndex>()->view();
    const Buffer& ob = buffers_.at(out);
    LayoutCall c;
    c.out = ob.base;
    c.out_numel = ob.span;
    c.elem_bytes = dataTypeSize(out->dtype());
    auto base = [&](CallOperand role) -> const Buffer& {
      return buffers_.at(call->operand(role)->as<TensorIndex>()->view());
    };
    c.in_off = base(CallOperand::InputOffsets).base;
    c.out_off = base(CallOperand::OutputOffsets).base;
    c.offsets64 = base(CallOperand::InputOffsets).dtype == DataType::Int64;
    c.m = ee_.evaluateInt(out->getLogicalDomain()[0]->extent(), "layout op rows");
    c.error_flag = &error_flag_;
    current_ = active.front();
    c.k = asInt(eval(call->operand(CallOperand::K)));
    c.g = asInt(eval(call->operand(CallOperand::G)));
    if (call->form() == RuntimeCallForm::LayoutScatter) {
      std::vector<std::byte> value(static_cast<size_t>(c.elem_bytes));
      for (Thread* t : active) {
        current_ = t;
        storeElement(value.data(), out->dtype(), read(call->operand(CallOperand::In)));
        runLayoutScatter(c, value.data(), 1, asInt(eval(call->operand(CallOperand::Row))),
                         asInt(eval(call->operand(CallOperand::Col))));
      }
      return;
    }
    TensorView* in = call->operand(CallOperand::In)->as<TensorIndex>()->view();
    c.in = buffers_.at(in).base;
    c.in_stride0 = asInt(eval(kernel_.strideOf(in, 0)));
    c.in_stride1 = asInt(eval(kernel_.strideOf(in, 1)));
    const int64_t width = call->params().vector_width;
    if (call->form() == RuntimeCallForm::LayoutGather) {
      for (Thread* t : active)
        runLayoutGather(c, width, asInt(evalAt(t, call->operand(CallOperand::Position))));
      return;
    }
    requireWholeBlocks(active, "the tile-form layout op");
    std::map<int64_t, std::vector<int64_t>> blocks;
    for (Thread* t : active)
      blocks[t->block].push_back(asInt(evalAt(t, call->operand(CallOperand::Position))));
    for (const auto& [block, positions] : blocks)
      runLayoutTileBlock(c, width, call->params().threads, positions);
  }

  // A block quantization's call (codegen's emitBlockQuantize) per thread: its W blocks (those
  // below the row's K columns), each one's 16 values from the input at the call's index plus
  // 16 values per block (every read inside the input's buffer), its scale and codes by the
  // host's NVFP4 arithmetic (support/numerics.h: runtime/fp4.cuh's functions, the device's
  // code), the codes packed at the quantized output's index, the scales stored at the scales'
  // index on along their last axis or, grouped, through the host build of the layout op's
  // scatter.
  void runQuantizeCall(RuntimeCall* call, const std::vector<Thread*>& active) {
    auto* in_ti = call->operand(CallOperand::In)->as<TensorIndex>();
    TensorView* in = in_ti->view();
    const Buffer& ib = buffers_.at(in);
    const int64_t pos = Kernel::lastLogicalStridePos(in);
    auto* q_ti = call->output(1)->as<TensorIndex>();
    const Buffer& qb = buffers_.at(q_ti->view());
    auto* s_ti = call->output(0)->as<TensorIndex>();
    const Buffer& sb = buffers_.at(s_ti->view());
    const bool grouped = call->form() == RuntimeCallForm::GroupedBlockQuantize;
    LayoutCall c;
    if (grouped) {
      c.out = sb.base;
      c.out_numel = sb.span;
      c.elem_bytes = 1;
      c.in_off =
          buffers_.at(call->operand(CallOperand::InputOffsets)->as<TensorIndex>()->view()).base;
      c.out_off =
          buffers_.at(call->operand(CallOperand::OutputOffsets)->as<TensorIndex>()->view()).base;
      c.offsets64 = call->operand(CallOperand::InputOffsets)->dtype() == DataType::Int64;
      c.m = ee_.evaluateInt(s_ti->view()->getLogicalDomain()[0]->extent(), "quantize rows");
      c.error_flag = &error_flag_;
    }
    const int64_t width = call->params().vector_width;
    TensorView* s_tv = s_ti->view();
    const int64_t s_pos = Kernel::lastLogicalStridePos(s_tv);
    for (Thread* t : active) {
      current_ = t;
      const int64_t stride = asInt(eval(kernel_.strideOf(in, pos)));
      const int64_t first = asInt(evalAt(t, in_ti->index()));
      const int64_t q0 = asInt(evalAt(t, q_ti->index()));
      const int64_t col0 = asInt(evalAt(t, call->operand(CallOperand::Col)));
      const int64_t columns = asInt(eval(call->operand(CallOperand::K)));
      const int64_t blocks = std::min(width, columns - col0);
      const float gs = static_cast<float>(asDouble(read(call->operand(CallOperand::GlobalScale))));
      std::vector<std::byte> scale_bytes;
      for (int64_t b = 0; b < blocks; ++b) {
        float x[16];
        float amax = 0.0f;
        for (int j = 0; j < 16; ++j) {
          const int64_t at = first + (16 * b + j) * stride;
          if (at < 0 || at >= ib.span)
            throw std::runtime_error(fmt::format(
                "blockQuantize reads {}[{}] outside its {} elements", in->toString(), at, ib.span));
          x[j] = static_cast<float>(
              asDouble(loadElement(ib.base + at * dataTypeSize(ib.dtype), ib.dtype)));
          amax = nvfp4AbsMax(amax, x[j]);
        }
        const Float8e4m3 s = floatToFloat8e4m3(nvfp4BlockScale(amax, gs));
        const int64_t q = q0 + 16 * b;
        if (q < 0 || q % 2 != 0 || q + 16 > qb.span)
          throw std::runtime_error(
              fmt::format("blockQuantize writes codes {}..{} of {} outside its {}", q, q + 15,
                          q_ti->view()->toString(), qb.span));
        for (int j = 0; j < 16; j += 2)
          qb.base[(q + j) / 2] = static_cast<std::byte>(
              nvfp4Quantize(x[j], float8e4m3ToFloat(s), gs, amax).bits |
              (nvfp4Quantize(x[j + 1], float8e4m3ToFloat(s), gs, amax).bits << 4));
        scale_bytes.push_back(static_cast<std::byte>(s.bits));
      }
      if (grouped) {
        c.k = columns;
        c.g = asInt(eval(call->operand(CallOperand::G)));
        runLayoutScatter(c, scale_bytes.data(), static_cast<int>(blocks),
                         asInt(evalAt(t, call->operand(CallOperand::Row))), col0);
      } else {
        const int64_t at0 = asInt(evalAt(t, s_ti->index()));
        const int64_t s_stride = asInt(eval(kernel_.strideOf(s_tv, s_pos)));
        for (int64_t b = 0; b < blocks; ++b) {
          const int64_t at = at0 + b * s_stride;
          if (at < 0 || at >= sb.span)
            throw std::runtime_error(
                fmt::format("blockQuantize writes its scale outside {}", s_tv->toString()));
          sb.base[at] = scale_bytes[static_cast<size_t>(b)];
        }
      }
    }
  }

  void bindStrides(TensorView* tv, const std::vector<int64_t>& strides) {
    for (size_t pos = 0; pos < strides.size(); ++pos)
      env_[kernel_.strideOf(tv, static_cast<int64_t>(pos))] = strides[pos];
  }

  ScalarValue eval(const Val* v) {
    if (auto c = v->constValue()) return *c;
    if (auto it = current_->env.find(v); it != current_->env.end()) return it->second;
    if (auto it = env_.find(v); it != env_.end()) return it->second;
    const Expr* def = v->definition();
    if (def == nullptr) {
      // A thread index outside its loops (insertPredicates' write guard of a thread
      // dimension the output has no axis on; a grouped call's member from a sibling loop).
      for (ParallelType p : {ParallelType::TIDx, ParallelType::TIDy, ParallelType::TIDz,
                             ParallelType::BIDx, ParallelType::BIDy, ParallelType::BIDz})
        if (v->toString() == fmt::format("((mf_index_t){})", toString(p)))
          return coord(current_, p);
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
    const MemoryType memory = tv->getMemoryType();
    auto outside = [&](std::string_view what) {
      return std::runtime_error(
          fmt::format("{} access {}[{}] outside its array", what, tv->toString(), offset));
    };
    if (memory == MemoryType::Local) {
      auto it = current_->registers.find(tv);
      if (it == current_->registers.end() || offset < 0 ||
          offset >= static_cast<int64_t>(it->second.size()))
        throw outside("register");
      if (value != nullptr)
        it->second[static_cast<size_t>(offset)] = castScalar(*value, tv->dtype());
      return it->second[static_cast<size_t>(offset)];
    }
    if (memory == MemoryType::Shared) {
      auto& arrays = shared_[static_cast<size_t>(current_->block)];
      auto it = arrays.find(tv);
      if (it == arrays.end() || offset < 0 ||
          offset >= static_cast<int64_t>(it->second.values.size()))
        throw outside("shared");
      checkRace(tv, it->second.last[static_cast<size_t>(offset)], offset, value != nullptr);
      ScalarValue& element = it->second.values[static_cast<size_t>(offset)];
      if (value != nullptr) element = castScalar(*value, tv->dtype());
      return element;
    }
    if (memory != MemoryType::Global) throw Unsupported();
    const Buffer& b = buffers_.at(tv);
    if (offset < 0 || offset >= b.span)
      throw std::runtime_error(fmt::format("global access {}[{}] outside its {} elements",
                                           tv->toString(), offset, b.span));
    std::byte* p = b.base + offset * dataTypeSize(b.dtype);
    if (value != nullptr) storeElement(p, b.dtype, *value);
    return loadElement(p, b.dtype);
  }

  // A shared element written by one thread and read or written by another with no barrier
  // between (read-after-write, write-after-read, write-after-write) is a race on the GPU,
  // whatever order lockstep happens to run them in.
  void checkRace(const TensorView* tv, SharedAccess& last, int64_t offset, bool writing) {
    const int64_t now = epoch_[static_cast<size_t>(current_->block)], me = current_->id;
    const bool written_by_other = last.write_epoch == now && last.writer != me;
    const bool read_by_other = last.read_epoch == now && last.reader != me;
    if (written_by_other || (writing && read_by_other))
      throw std::runtime_error(fmt::format(
          "shared memory race on {}[{}]: thread {} {} it after thread {} {} it, with no "
          "barrier between",
          tv->toString(), offset, me, writing ? "writes" : "reads",
          written_by_other ? last.writer : last.reader, written_by_other ? "wrote" : "read"));
    if (writing) {
      last.write_epoch = now;
      last.writer = me;
    } else if (last.read_epoch != now) {
      last.read_epoch = now;
      last.reader = me;
    } else if (last.reader != me) {
      last.reader = kSeveral;
    }
  }

  // Every block in `active` passes a barrier: accesses before it no longer race with
  // accesses after it.
  void barrier(const std::vector<Thread*>& active, std::string_view what) {
    requireWholeBlocks(active, what);
    std::set<int64_t> blocks;
    for (const Thread* t : active) blocks.insert(t->block);
    for (int64_t b : blocks) ++epoch_[static_cast<size_t>(b)];
  }

  void write(const Val* out, const ScalarValue& value) {
    access(out->as<TensorIndex>(), 0, &value);
  }

  void runScope(const Scope& scope, std::vector<Thread*> active) {
    for (Expr* e : scope.exprs()) {
      std::erase_if(active, [](const Thread* t) { return t->exited; });
      if (active.empty()) return;
      if (auto* loop = dynamic_cast<ForLoop*>(e)) {
        runLoop(loop, active);
      } else if (auto* ite = dynamic_cast<IfThenElse*>(e)) {
        std::vector<Thread*> taken, other;
        for (Thread* t : active) (asBool(evalAt(t, ite->cond())) ? taken : other).push_back(t);
        runScope(ite->thenBody(), taken);
        if (!ite->elseBody().empty()) runScope(ite->elseBody(), other);
      } else if (auto* a = dynamic_cast<Allocate*>(e)) {
        allocate(a, active);
      } else if (e->isA<BlockSync>()) {
        barrier(active, "__syncthreads()");
      } else if (e->isA<ScalarDef>()) {
        // A name for a scalar each thread computes from its definition when it reads it.
      } else if (auto* call = dynamic_cast<RuntimeCall*>(e)) {
        if (call->isLayoutOp()) {
          runLayoutCall(call, active);
        } else if (call->isBlockQuantize()) {
          runQuantizeCall(call, active);
        } else {
          runAllReduce(call, active);
        }
      } else {
        for (Thread* t : active) {
          current_ = t;
          runExpr(e);
        }
      }
    }
  }

  void runLoop(ForLoop* loop, const std::vector<Thread*>& active) {
    std::vector<const ForLoop*> group;
    if (group_ == nullptr && kernel_.groupedReduction(loop, group)) group_ = loop;
    const ParallelType p = loop->parallelType();
    if (!loop->isSerial()) {
      // A thread runs its own index; a vectorized axis is one whole-vector copy.
      for (Thread* t : active)
        t->env[loop->index()] = p == ParallelType::Vectorize ? 0 : t->coordinate.at(p);
      runScope(loop->body(), active);
    } else {
      std::vector<int64_t> stops;
      int64_t longest = 0;
      for (Thread* t : active) {
        stops.push_back(asInt(evalAt(t, loop->stop())));
        longest = std::max(longest, stops.back());
      }
      for (int64_t i = 0; i < longest; ++i) {
        std::vector<Thread*> iterating;
        for (size_t k = 0; k < active.size(); ++k) {
          if (i >= stops[k]) continue;
          active[k]->env[loop->index()] = i;
          iterating.push_back(active[k]);
        }
        runScope(loop->body(), iterating);
      }
    }
    if (group_ == loop) {
      group_ = nullptr;
      exitPending();
    }
  }

  void allocate(const Allocate* a, const std::vector<Thread*>& active) {
    const TensorView* tv = a->buffer();
    const ScalarValue poison = castScalar(std::nan(""), tv->dtype());
    if (tv->getMemoryType() == MemoryType::Local) {
      for (Thread* t : active)
        t->registers[tv].assign(static_cast<size_t>(asInt(evalAt(t, a->size()))), poison);
      return;
    }
    if (tv->getMemoryType() != MemoryType::Shared) throw Unsupported();
    // One array per block, declared once (a __shared__ array in a loop keeps its storage).
    for (Thread* t : active) {
      auto& arrays = shared_[static_cast<size_t>(t->block)];
      if (arrays.count(tv)) continue;
      const auto size = static_cast<size_t>(asInt(evalAt(t, a->size())));
      arrays[tv] = {std::vector<ScalarValue>(size, poison), std::vector<SharedAccess>(size)};
    }
  }

  // A barrier or a block reduction is reached by every thread of its block that has not
  // returned, or the kernel would hang or read garbage on the GPU.
  void requireWholeBlocks(const std::vector<Thread*>& active, std::string_view what) {
    std::map<int64_t, int64_t> arrived, expected;
    for (const Thread* t : active) ++arrived[t->block];
    for (const Thread& t : threads_)
      if (!t.exited && arrived.count(t.block)) ++expected[t.block];
    if (arrived != expected)
      throw std::runtime_error(fmt::format("{} reached by part of a block only", what));
  }

  // A block or grid all-reduce call (codegen's emitAllReduce): every thread gives its value
  // (the identity where the read predicate fails), the threads that differ only in the
  // reduced parallel dimensions (the call's thread dimension, and blockIdx.y for a grid
  // all-reduce) combine theirs, and the writers fold the result into the output. After a grid
  // reduction only the last block of each column goes on (the others return once the group of
  // values reduced in one call is done).
  void runAllReduce(RuntimeCall* call, const std::vector<Thread*>& active) {
    const bool grid = call->collectiveScope() == CollectiveScope::Grid;
    std::set<ParallelType> reduced = {call->params().across};
    if (grid) reduced.insert(kernel_.summary().grid_reduction_dim);
    if (call->readPredicate() == nullptr)
      throw std::runtime_error("an all-reduce call without its predicates: " + call->toString());
    if (grid) {
      std::vector<Thread*> everyone;
      for (Thread& t : threads_)
        if (!t.exited) everyone.push_back(&t);
      if (everyone.size() != active.size())
        throw std::runtime_error("a grid reduction reached by part of the grid only");
    }
    // The runtime's all-reduce synchronizes the block before and after its shared slots (once
    // for all members of a grouped call).
    barrier(active, grid ? "a grid reduction" : "a block reduction");
    auto key = [&](const Thread* t) {
      std::vector<int64_t> k;
      for (const ParallelDimension& d : kernel_.summary().parallel_dims)
        if (!reduced.count(d.type)) k.push_back(t->coordinate.at(d.type));
      return k;
    };
    // Finished in place (KernelSummary::grid_reductions_finish_in_place): every block goes on.
    const bool in_place = grid && kernel_.summary().grid_reductions_finish_in_place;
    const std::map<int64_t, int64_t> last =
        grid ? lastBlocks(active) : std::map<int64_t, int64_t>{};
    // Every member reads its input before any writes its output (one call).
    std::vector<std::map<std::vector<int64_t>, ScalarValue>> results(call->members());
    for (size_t m = 0; m < call->members(); ++m) {
      Val* out = call->output(m);
      const DataType compute = computeType(out->dtype());
      const ScalarValue init = castScalar(eval(call->operand(CallOperand::Init, m)), compute);
      Val* in = call->operand(CallOperand::In, m);
      for (Thread* t : active) {
        current_ = t;
        const ScalarValue x =
            asBool(eval(call->readPredicate(m))) ? castScalar(read(in), compute) : init;
        ScalarValue& acc = results[m].try_emplace(key(t), init).first->second;
        acc = evalBinary(call->combineOf(m), compute, compute, acc, x);
      }
    }
    for (size_t m = 0; m < call->members(); ++m) {
      Val* out = call->output(m);
      const DataType compute = computeType(out->dtype());
      for (Thread* t : active) {
        current_ = t;
        // Only the last block of a column has the result (the others return, or go on).
        if (grid && row(t) != last.at(column(t))) continue;
        if (!asBool(eval(call->writePredicate(m)))) continue;
        write(out, evalBinary(call->combineOf(m), out->dtype(), compute, read(out),
                              results[m].at(key(t))));
      }
    }
    if (grid && !in_place) scheduleGridExit(active);
  }

  // The blocks of a column but the last (the highest blockIdx.y here) return after the
  // grid reduction's call, which covers the loops codegen groups into it
  // (Kernel::groupedReduction): at the end of the group's outermost loop, or at once.
  static int64_t coord(const Thread* t, ParallelType p) {
    auto it = t->coordinate.find(p);
    return it == t->coordinate.end() ? int64_t{0} : it->second;
  }

  // A grid reduction's row of a block (its index along the reduced block dimension) and
  // its column (the other block indices, linearized).
  int64_t row(const Thread* t) const { return coord(t, kernel_.summary().grid_reduction_dim); }
  int64_t column(const Thread* t) const {
    const bool x = kernel_.summary().grid_reduction_dim == ParallelType::BIDx;
    return (coord(t, ParallelType::BIDz) << 40) +
           (coord(t, x ? ParallelType::BIDy : ParallelType::BIDx));
  }

  // column -> the largest row of the active threads: the block taken to arrive last.
  std::map<int64_t, int64_t> lastBlocks(const std::vector<Thread*>& active) const {
    std::map<int64_t, int64_t> last;
    for (const Thread* t : active) {
      int64_t& y = last[column(t)];
      y = std::max(y, row(t));
    }
    return last;
  }

  void scheduleGridExit(const std::vector<Thread*>& active) {
    const std::map<int64_t, int64_t> last = lastBlocks(active);
    pending_exit_.clear();
    for (Thread* t : active)
      if (row(t) != last.at(column(t))) pending_exit_.push_back(t);
    if (group_ == nullptr) exitPending();
  }

  void exitPending() {
    for (Thread* t : pending_exit_) t->exited = true;
    pending_exit_.clear();
  }

  ScalarValue evalAt(Thread* t, const Val* v) {
    current_ = t;
    return eval(v);
  }

  void runExpr(Expr* e) {
    const DataType out = e->output(0)->dtype();
    if (auto* op = dynamic_cast<LoadStoreOp*>(e)) {
      const int64_t width = op->out()->as<TensorIndex>()->vectorWidth();
      if (width == 1) return write(op->out(), castScalar(read(op->in()), out));
      for (int64_t k = 0; k < width; ++k) {
        const ScalarValue v = access(op->in()->as<TensorIndex>(), k, nullptr);
        access(op->out()->as<TensorIndex>(), k, &v);
      }
    } else if (auto* b = dynamic_cast<BroadcastOp*>(e)) {
      write(b->out(), castScalar(read(b->in()), out));
    } else if (auto* f = dynamic_cast<FullOp*>(e)) {
      write(f->out(), castScalar(read(f->fillValue()), out));
    } else if (auto* u = dynamic_cast<UnaryOp*>(e)) {
      write(u->out(), evalUnary(u->opType(), out, read(u->in())));
    } else if (auto* b = dynamic_cast<BinaryOp*>(e)) {
      write(b->out(), evalBinary(b->opType(), out, computeType(b), read(b->lhs()), read(b->rhs())));
    } else if (auto* t = dynamic_cast<TernaryOp*>(e); t && t->opType() == TernaryOpType::Where) {
      // Codegen's `c ? a : b` reads one branch only (a pad reads its input inside it only).
      const ScalarValue v = read(t->input(asBool(read(t->input(0))) ? 1 : 2));
      write(t->out(), evalTernary(t->opType(), out, true, v, v));
    } else if (auto* t = dynamic_cast<TernaryOp*>(e)) {
      write(t->out(),
            evalTernary(t->opType(), out, read(t->input(0)), read(t->input(1)), read(t->input(2))));
    } else if (auto* r = dynamic_cast<ReductionOp*>(e)) {
      write(r->out(),
            evalBinary(r->opType(), out, computeType(out), read(r->out()), read(r->in())));
    } else {
      throw Unsupported();
    }
  }

  Kernel& kernel_;
  const std::vector<Tensor>& inputs_;
  ExpressionEvaluator ee_;
  int error_flag_ = 0;                                           // the layout op's (mf_error)
  std::unordered_map<const TensorView*, PaddedStorage> padded_;  // layout op outputs
  std::unordered_map<const Val*, ScalarValue> env_;  // strides: the same for every thread
  std::unordered_map<const TensorView*, Buffer> buffers_;
  std::unordered_map<const TensorView*, OutputStorage> outputs_;
  std::vector<Thread> threads_;
  std::vector<std::unordered_map<const TensorView*, SharedArray>> shared_;  // per block
  std::vector<int64_t> epoch_;         // per block: barriers passed
  Thread* current_ = nullptr;          // the thread eval, read and write act for
  std::vector<Thread*> pending_exit_;  // blocks that return after a grid reduction ...
  const ForLoop* group_ = nullptr;     // ... once this grouped reduction's loops are done
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

std::vector<Tensor> interpretKernelOrThrow(Kernel& kernel, const std::vector<Tensor>& inputs) {
  std::optional<std::vector<Tensor>> outputs = interpretKernel(kernel, inputs);
  if (!outputs) throw std::runtime_error("the kernel interpreter does not model this kernel");
  return *std::move(outputs);
}

}  // namespace mf::testing
