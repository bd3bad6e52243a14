// validateSchedule: reject schedules the later passes cannot lower, with a message that
// names the tensor and the axis.
#include <algorithm>
#include <optional>
#include <set>
#include <unordered_set>

#include "ir/exprs.h"
#include "ir/id_model.h"
#include "ir/logical_domain_map.h"
#include "ir/op_traits.h"
#include "ir/traversal.h"
#include "lower/index_compute.h"
#include "lower/passes.h"

namespace mf {
namespace {

// Serial, unrolled and unswitched axes are loops every thread runs (Group is one only after
// a block reduction's axes, in its group).
bool isLoop(ParallelType p) {
  return p == ParallelType::Serial || p == ParallelType::Unroll || p == ParallelType::Unswitch;
}

// A whole-vector copy reads and writes adjacent elements: the vectorized axis of `tv` must
// run along the innermost allocation axis of each global operand.
void checkVectorContiguity(TensorView* tv, IterDomain* vec) {
  for (Val* v : {static_cast<Val*>(tv), tv->definition()->input(0)}) {
    auto* g = v->as<TensorView>();
    if (g->getMemoryType() != MemoryType::Global) continue;
    const auto& alloc = g->getMaybeAllocationDomain();
    auto inner = std::find_if(alloc.rbegin(), alloc.rend(),
                              [](IterDomain* id) { return !id->isBroadcast(); });
    if (inner == alloc.rend()) continue;
    const auto& logical = g->getLogicalDomain();
    auto q = std::find(logical.begin(), logical.end(), *inner);
    MF_CHECK(q != logical.end() && runsAlong(vec, tv->getLogicalDomain()[q - logical.begin()]),
             "{}: vectorized axis {} does not run along {}, the innermost allocation axis of {}, "
             "so the elements of a vector are not adjacent in memory; vectorize an inner split "
             "of that axis",
             tv->toString(), vec->toString(), (*inner)->toString(), g->toString());
  }
}

// A vector of a buffer with padded rows (TensorView::padBufferRows) stays aligned and within
// one row only when the row and its pad are whole vectors.
void checkPaddedVector(TensorView* tv, int64_t width) {
  for (Val* v : {static_cast<Val*>(tv), tv->definition()->input(0)}) {
    auto* b = v->as<TensorView>();
    MF_CHECK(b->bufferRow() % width == 0 && b->bufferRowPad() % width == 0,
             "{}: a vector of {} elements moves {}, whose rows of {} are padded by {}, so the "
             "vector would be misaligned; copy it element by element or pad by whole vectors",
             tv->toString(), width, b->toString(), b->bufferRow(), b->bufferRowPad());
  }
}

// Registers are per thread and nothing synchronizes global writes within the kernel: the
// thread that computes an element must be the one that reads it.
void checkSameThread(const IdModel& model, TensorView* tv) {
  for (TensorView* c : consumerTvsOf(tv)) {
    for (int64_t i = 0; i < tv->nDims(); ++i) {
      ParallelType p = tv->axis(i)->parallelType();
      if (!isThreadDim(p) && !isBlockDim(p)) continue;
      // Shared memory is the block's: threads may read what others wrote (insertSyncs).
      if (isThreadDim(p) && tv->getMemoryType() == MemoryType::Shared) continue;
      // A block reduction into registers is an all-reduce: every thread holds the result.
      // A grid reduction (blockIdx.x or .y) leaves the result in every thread of the last
      // block of a column, the only one that goes on (runtime/block_reduction.cuh).
      if ((p == ParallelType::TIDx || p == ParallelType::TIDy || p == ParallelType::BIDx ||
           p == ParallelType::BIDy) &&
          tv->axis(i)->isReduction() && tv->getMemoryType() == MemoryType::Local)
        continue;
      bool mapped = false;
      for (int64_t j = 0; j < c->nDims(); ++j)
        mapped = mapped || (c->axis(j)->parallelType() == p &&
                            model.areMapped(tv->axis(i), c->axis(j), IdMappingMode::Permissive));
      // Inlined, the loop runs over the consumer's extent and every thread computes its copy.
      MF_CHECK(i < tv->computeAtPosition() || !coversBroadcastAgainst(tv, i, c),
               "{}: axis {} ({}) is bound to {} but covers a broadcast axis that its consumer {} "
               "iterates, so one thread would compute what every thread reads; leave broadcast "
               "axes serial or inline the tensor into its consumer",
               tv->toString(), i, tv->axis(i)->toString(), toString(p), c->toString());
      MF_CHECK(mapped,
               "{}: axis {} ({}) is bound to {} but its consumer {} binds no matching axis to "
               "{}, so threads would read elements other threads computed; split, merge and "
               "parallelize the two alike",
               tv->toString(), i, tv->axis(i)->toString(), toString(p), c->toString(), toString(p));
    }
  }
}

// The tile form's runtime function takes block b's threads to own the THREADS * W
// consecutive positions from b * THREADS * W: the loops must be the padded buffer merged,
// split by W (Vectorize) and by THREADS (TIDx, a multiple of 128), with THREADS * W whole
// 128x4 tiles' column quads (a multiple of 512).
void checkLayoutTile(TensorView* out) {
  auto fail = [&](std::string_view why) {
    MF_CHECK(false,
             "preprocessGroupedMatmulInputSf: {} is scheduled in the tile form, which needs the "
             "loop domain [BIDx, TIDx, Vectorize] made by merge(0)->split(0, W)->split(0, "
             "threads) of the padded buffer, threads a multiple of 128 and threads * W a "
             "multiple of 512; {}",
             out->toString(), why);
  };
  if (out->nDims() != 3) fail(fmt::format("it has {} loop axes", out->nDims()));
  const ParallelType want[] = {ParallelType::BIDx, ParallelType::TIDx, ParallelType::Vectorize};
  for (int64_t i = 0; i < 3; ++i)
    if (out->axis(i)->parallelType() != want[i])
      fail(fmt::format("axis {} is bound to {}", i, toString(out->axis(i)->parallelType())));
  auto* vec = dynamic_cast<Split*>(out->axis(2)->definition());
  auto* thr = dynamic_cast<Split*>(out->axis(1)->definition());
  if (vec == nullptr || vec->inner() != out->axis(2) || thr == nullptr ||
      thr->inner() != out->axis(1) || thr->outer() != out->axis(0) || thr->in() != vec->outer() ||
      !dynamic_cast<Merge*>(vec->in()->definition()))
    fail("its axes are not made that way");
  const int64_t threads = out->axis(1)->extent()->constInt().value_or(0);
  const int64_t width = out->axis(2)->extent()->constInt().value_or(0);
  if (threads <= 0 || threads % 128 != 0 || width <= 0 || threads * width % 512 != 0)
    fail(fmt::format("got {} threads of {} elements", threads, width));
  // The runtime function moves each thread's elements as U vectors of 16 bytes (or one of
  // fewer elements), U at most 8.
  const int64_t vector =
      std::min<int64_t>(width, std::max<int64_t>(16 / dataTypeSize(out->dtype()), 1));
  if (width % vector != 0 || width / vector > 8)
    fail(fmt::format("{} elements per thread are not 1 to 8 vectors of {}", width, vector));
}

// The layout op reads its offsets whole and writes a data-dependent swizzled position: the
// offsets must be in global memory when the kernel starts and nothing else may read its output.
void checkLayoutOp(PreprocessGroupedMatmulInputSf* op) {
  for (auto [name, v] : {std::pair{"input_offsets", op->inputOffsets()},
                         std::pair{"output_offsets", op->outputOffsets()}})
    MF_CHECK(v->isFusionInput(),
             "preprocessGroupedMatmulInputSf: {} {} is computed in the kernel, but the op reads "
             "the offsets whole, so they must be fusion inputs",
             name, v->toString());
  auto* out = op->out()->as<TensorView>();
  MF_CHECK(!out->domain()->loopFromAllocation() || op->in()->isFusionInput(),
           "preprocessGroupedMatmulInputSf: {} is scheduled over its padded buffer (gather form), "
           "which reads its input {} at data-dependent rows, so the input must be a fusion input",
           out->toString(), op->in()->toString());
  const std::vector<Expr*>& uses = op->out()->uses();
  MF_CHECK(uses.empty(), "{}", readOfRuntimeFunctionOutputMessage(op, uses.front()));
  if (op->form() == LayoutOpForm::Tile) checkLayoutTile(out);
}

// Inputs and outputs are global buffers the executor binds.
void checkMemoryType(TensorView* tv) {
  bool io = tv->isFusionInput() || tv->isFusionOutput();
  MF_CHECK(!io || tv->getMemoryType() == MemoryType::Global,
           "{}: a fusion {} must be in global memory, got MemoryType::{}; leave the memory "
           "type {} set",
           tv->toString(), tv->isFusionInput() ? "input" : "output",
           tv->getMemoryType() == MemoryType::Shared ? "Shared" : "Local",
           tv->isFusionInput() ? "addInput" : "addOutput");
}

// A reduction is lowered as its loops nested inside its iteration loops: `acc = init` goes
// before the first reduction loop. Iteration axes after a reduction axis (the vector of an
// outer reduction's rfactor, [.., r serial, r unroll, i vector]) are loops inside the
// reduction loops, which the init covers with loops of its own; they must be serial or
// unrolled, and, for a block reduction (whose values of those axes are reduced in one
// runtime call, a group), constant and across threadIdx.y. A reduction axis is serial or,
// for a block reduction, bound to threadIdx.x or threadIdx.y (one of them per reduction);
// a grid reduction also binds one to blockIdx.x or blockIdx.y (see checkGridReduction).
void checkReduction(const ReductionOp* red) {
  auto* out = red->out()->as<TensorView>();
  const IterDomain* first_reduction = nullptr;
  const IterDomain* block_axis = nullptr;
  const IterDomain* grid_axis = nullptr;
  for (int64_t i = 0; i < out->nDims(); ++i) {
    IterDomain* id = out->axis(i);
    ParallelType p = id->parallelType();
    if (id->isReduction()) {
      if (first_reduction == nullptr) first_reduction = id;
      // Not across threadIdx.z or blockIdx.z: the runtime's all-reduces cover threadIdx.x/y
      // and blockIdx.x/y only.
      MF_CHECK(isLoop(p) || p == ParallelType::TIDx || p == ParallelType::TIDy ||
                   p == ParallelType::BIDx || p == ParallelType::BIDy,
               "{}: reduction axis {} is bound to {}; reductions are serial, across threadIdx.x "
               "or threadIdx.y, or across blockIdx.x or blockIdx.y (the runtime's block and grid "
               "all-reduces have no z form); bind the axis to the x or y dimension, or leave it "
               "serial",
               out->toString(), id->toString(), toString(p));
      if (isBlockDim(p)) {
        MF_CHECK(grid_axis == nullptr,
                 "{}: reduction axes {} and {} are both bound to blocks; a grid reduction "
                 "reduces across one block dimension: rFactor one of them",
                 out->toString(), grid_axis->toString(), id->toString());
        grid_axis = id;
      }
      if (isThreadDim(p)) {
        MF_CHECK(block_axis == nullptr,
                 "{}: reduction axes {} and {} are both bound to threads; a block reduction "
                 "reduces across one thread dimension: rFactor one of them",
                 out->toString(), block_axis->toString(), id->toString());
        block_axis = id;
      }
    } else if (first_reduction != nullptr) {
      // Thread- and block-bound iteration axes are no loops, wherever they stand (the
      // rfactor's [BIDy, r serial, BIDx, TIDx]; nvFuser's FusionReduction5 [BIDy, rTIDy, TIDx]).
      MF_CHECK(isLoop(p) || p == ParallelType::Group || isThreadDim(p) || isBlockDim(p),
               "{}: iteration axis {} after the reduction axis {} is bound to {}; iteration axes "
               "inside the reduction loops must be serial, unrolled, or bound to threads or "
               "blocks; move it before the reduction axes to vectorize it",
               out->toString(), id->toString(), first_reduction->toString(), toString(p));
    }
  }
  if (block_axis == nullptr) return;
  std::optional<int64_t> first_group;
  for (int64_t i = 0; i < out->nDims(); ++i) {
    IterDomain* id = out->axis(i);
    if (id->isReduction() || first_reduction == nullptr ||
        i < std::find(out->getLoopDomain().begin(), out->getLoopDomain().end(), first_reduction) -
                out->getLoopDomain().begin())
      continue;
    if (isThreadDim(id->parallelType()) || isBlockDim(id->parallelType())) {
      // The group's loops are the innermost: codegen gathers the values in them.
      MF_CHECK(!first_group,
               "{}: iteration axis {} is bound to {} but follows {}, a loop of the block "
               "reduction's group; move it before the group's axes",
               out->toString(), id->toString(), toString(id->parallelType()),
               first_group ? out->axis(*first_group)->toString() : "");
      continue;
    }
    MF_CHECK(block_axis->parallelType() == ParallelType::TIDy && id->extent()->constInt(),
             "{}: iteration axis {} after the reduction axis {} groups the block reduction's "
             "values (one runtime call for all of them), which needs a constant extent and a "
             "reduction across threadIdx.y; split it by a constant, or move it before the "
             "reduction axes",
             out->toString(), id->toString(), first_reduction->toString());
    if (!first_group) first_group = i;
  }
  if (!first_group) return;
  // The group's loops hold the reduction alone: codegen gathers, reduces and scatters them.
  std::vector<Val*> sharers = red->inputs();
  sharers.push_back(out);
  for (Val* v : sharers)
    if (auto* in = dynamic_cast<TensorView*>(v))
      MF_CHECK(in->computeAtPosition() <= *first_group,
               "{} shares {}, the group loop of the block reduction {}, which must hold the "
               "reduction alone (its values are reduced in one call); inline it at position {} "
               "at most",
               in->toString(), out->axis(*first_group)->toString(), out->toString(), *first_group);
}

// A grid reduction (a reduction axis bound to blockIdx.x or .y; the runtime combines each
// thread's value, all-reduced across the block first when a thread dimension is reduced too)
// has no loop around it. The
// blocks that do not finish it return from the kernel there, so it is the kernel's only one
// and everything else feeds it or follows it; unless it writes a fusion output nothing reads
// (gridReductionsFinishInPlace): then every block goes on and only the last writes, so a
// kernel may hold several, beside other work (the inner-outer schedule's column sums).
void checkGridReduction(const Fusion& ir) {
  std::vector<TensorView*> grids;
  for (Expr* e : ir.exprs()) {
    auto* red = dynamic_cast<ReductionOp*>(e);
    if (red == nullptr) continue;
    auto* out = red->out()->as<TensorView>();
    const auto& loop = out->getLoopDomain();
    auto bound = [&](auto pred) { return std::any_of(loop.begin(), loop.end(), pred); };
    if (!bound([](IterDomain* id) { return id->isReduction() && isBlockDim(id->parallelType()); }))
      continue;
    grids.push_back(out);
    // Iteration axes after the reduction axes are its group (checkReduction), reduced in the
    // same runtime call: not a loop around it.
    const auto first =
        std::find_if(loop.begin(), loop.end(), [](IterDomain* id) { return id->isReduction(); });
    for (IterDomain* id : std::vector<IterDomain*>(loop.begin(), first))
      MF_CHECK(
          id->isReduction() || isThreadDim(id->parallelType()) || isBlockDim(id->parallelType()),
          "{}: iteration axis {} of a grid reduction is a loop; bind every iteration axis "
          "to a thread or block dimension",
          out->toString(), id->toString());
  }
  if (grids.empty()) return;
  for (const TensorView* g : grids)
    MF_CHECK(gridReductionDim(g) == gridReductionDim(grids[0]),
             "{} reduces across {} but {} across {}; the grid reductions of a kernel reduce "
             "across one block dimension",
             grids[0]->toString(), toString(gridReductionDim(grids[0])), g->toString(),
             toString(gridReductionDim(g)));
  if (gridReductionsFinishInPlace(ir)) {
    for (const TensorView* g : grids)
      MF_CHECK(computeType(g->dtype()) == computeType(grids[0]->dtype()),
               "{} and {} reduce across blocks in different types; the grid reductions of a "
               "kernel share one work buffer",
               grids[0]->toString(), g->toString());
    return;
  }
  MF_CHECK(gridReductionCalls(grids) == 1,
           "{} and {} both reduce across blocks; a kernel holds one grid reduction (or one "
           "group of groupReductions), or several that each write a fusion output nothing reads",
           grids[0]->toString(), grids[1]->toString());
  const TensorView* grid = grids[0];
  // Every tensor the kernel computes feeds the grid reduction (the group's members) or is
  // computed from its result.
  std::unordered_set<const Val*> related;
  for (TensorView* tv : tensorViews(std::vector<Val*>(grids.begin(), grids.end())))
    related.insert(tv);
  std::unordered_set<const Val*> after(grids.begin(), grids.end());
  for (Expr* e : ir.exprs()) {
    const bool follows = std::any_of(e->inputs().begin(), e->inputs().end(),
                                     [&](Val* v) { return after.count(v) > 0; });
    for (Val* out : e->outputs()) {
      if (follows) after.insert(out);
      MF_CHECK(follows || related.count(out) || out->kind() != ValKind::TensorView,
               "{} is computed beside the grid reduction {}, but the blocks that do not finish "
               "that reduction return from the kernel there; compute it in another kernel",
               out->toString(), grid->toString());
    }
  }
}

// A scalar the kernel reads must have a value at launch: a constant, a fusion input, an
// extent of an input tensor (bound from its sizes), or computed from those.
class ScalarBindingCheck {
 public:
  explicit ScalarBindingCheck(const Fusion& ir) {
    for (Val* v : ir.inputs()) {
      bound_.insert(v);
      if (auto* tv = dynamic_cast<TensorView*>(v))
        for (IterDomain* id : tv->domain()->allIds()) bound_.insert(id->extent());
    }
  }

  void check(Val* v, const std::string& where) {
    if (v->isConst() || bound_.count(v)) return;
    if (Expr* def = v->definition()) {
      for (Val* in : def->inputs()) check(in, where);
      return;
    }
    MF_CHECK(false,
             "{} uses the scalar {}, which is neither a fusion input nor computed from fusion "
             "inputs and constants; add it with addInput",
             where, v->toString());
  }

 private:
  std::unordered_set<Val*> bound_;
};

void checkScalarsBound(const Fusion& ir) {
  ScalarBindingCheck scalars(ir);
  for (Expr* e : ir.exprs())
    for (Val* v : e->inputs())
      if (v->kind() != ValKind::TensorView) scalars.check(v, e->toString());
  for (TensorView* tv : ir.allTvs()) {
    if (tv->isFusionInput()) continue;
    for (IterDomain* id : tv->domain()->allIds()) scalars.check(id->extent(), tv->toString());
    for (Expr* t : tv->domain()->allTransforms())
      visitIdExpr(
          t, [&](Split* split) { scalars.check(split->factor(), tv->toString()); },
          [](Merge*) {},  // a merge has no scalar operand
          [&](Resize* resize) {
            scalars.check(resize->left(), tv->toString());
            scalars.check(resize->right(), tv->toString());
          });
  }
}

}  // namespace

void validateSchedule(Kernel& kernel) {
  for (TensorView* tv : kernel.ir().allTvs()) checkMemoryType(tv);
  checkScalarsBound(kernel.ir());
  for (Expr* e : kernel.ir().exprs()) {
    if (auto* op = dynamic_cast<PreprocessGroupedMatmulInputSf*>(e)) checkLayoutOp(op);
    if (auto* red = dynamic_cast<ReductionOp*>(e)) checkReduction(red);
  }
  checkGridReduction(kernel.ir());
  IdModel model(kernel.ir());
  for (TensorView* tv : kernel.ir().allTvs()) {
    std::set<ParallelType> bound;
    for (int64_t i = 0; i < tv->nDims(); ++i) {
      IterDomain* id = tv->axis(i);
      ParallelType p = id->parallelType();
      if (isLoop(p) || p == ParallelType::Group) continue;
      MF_CHECK(bound.insert(p).second, "{}: {} is bound to two axes", tv->toString(), toString(p));
      if (p != ParallelType::Vectorize) continue;
      // The tile-form layout op's innermost axis is the positions each thread owns, moved by
      // its runtime function as whole vectors (checkLayoutTile).
      if (auto* op = dynamic_cast<PreprocessGroupedMatmulInputSf*>(tv->definition());
          op != nullptr && op->form() == LayoutOpForm::Tile)
        continue;
      // A block quantization's innermost axis is the blocks (scales) or their values (codes)
      // that one call of its runtime function quantizes, bounded by the function at a row's end.
      if (tv->definition() != nullptr && isBlockQuantization(tv->definition())) {
        MF_CHECK(i == tv->nDims() - 1 && id->extent()->constInt().has_value(),
                 "{}: a block quantization's vectorized axis {} must be its innermost, of a "
                 "constant extent",
                 tv->toString(), id->toString());
        continue;
      }
      MF_CHECK(i == tv->nDims() - 1, "{}: vectorized axis {} must be the innermost loop axis",
               tv->toString(), id->toString());
      std::optional<int64_t> w = id->extent()->constInt();
      MF_CHECK(w.has_value(), "{}: vectorized axis {} needs a constant extent", tv->toString(),
               id->toString());
      const int64_t vector_bits = *w * dataTypeSizeBit(tv->dtype());
      MF_CHECK(vector_bits <= 128 && (*w & (*w - 1)) == 0,
               "{}: vector width {} of {} bytes is not a power of two of at most 16 bytes",
               tv->toString(), *w, vector_bits / 8.0);
      bool is_copy = tv->definition() && tv->definition()->isA<LoadStoreOp>();
      // The gather-form layout op writes whole vectors of its padded buffer itself.
      bool is_gather = tv->definition() &&
                       tv->definition()->isA<PreprocessGroupedMatmulInputSf>() &&
                       tv->domain()->loopFromAllocation();
      if (is_gather) continue;
      MF_CHECK(tv->isFusionInput() || is_copy,
               "{}: only the output of a set() copy can be vectorized; vectorize the copy that "
               "stages it and compute on registers",
               tv->toString());
      if (is_copy) {
        checkVectorContiguity(tv, id);
        checkPaddedVector(tv, *w);
      }
    }
    if (tv->isFusionInput()) continue;
    checkSameThread(model, tv);
    int64_t max_pos = tv->uses().empty() ? tv->nDims() : maxSharedLoopPosition(model, tv);
    MF_CHECK(tv->computeAtPosition() <= max_pos,
             "{}: compute-at position {} is past {}, the last position whose axes map to all its "
             "consumers' (scheduled after inlineAt?); inline after the last split, merge or "
             "parallelize",
             tv->toString(), tv->computeAtPosition(), max_pos);
    // Shared buffers of symbolic size take dynamic shared memory (analyzeKernel).
    if (tv->getMemoryType() != MemoryType::Local) continue;
    Val* size = localBufferSize(tv);
    MF_CHECK(size->constInt().has_value(),
             "{} is held in registers but needs a buffer of symbolic size {}; inline it "
             "(inlineAt / inlineMost), bind its axes to threads, or split by constants",
             tv->toString(), size->toInlineString());
  }
}

}  // namespace mf
