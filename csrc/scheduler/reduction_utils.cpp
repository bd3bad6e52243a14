#include "scheduler/reduction_utils.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/id_model.h"
#include "ir/shape_exprs.h"
#include "ir/traversal.h"
#include "scheduler/tools/transform_propagator.h"

namespace mf {
namespace {

bool isPointwiseOrBroadcast(const Expr* e) {
  // Not the shape ops (reshape, squeeze, expand, permute): this schedule does not replay them.
  return e->isA<UnaryOp>() || e->isA<BinaryOp>() || e->isA<TernaryOp>() ||
         (e->isA<LoadStoreOp>() && !isPermute(e)) || e->isA<BroadcastOp>();
}

// The logical positions of `red`'s reduction axes.
std::vector<int64_t> reducedPositions(const TensorView* red) {
  std::vector<int64_t> positions;
  const auto& logical = red->getLogicalDomain();
  for (size_t i = 0; i < logical.size(); ++i)
    if (logical[i]->isReduction()) positions.push_back(static_cast<int64_t>(i));
  return positions;
}

}  // namespace

std::vector<ReductionOp*> reductionOps(Fusion* fusion) {
  std::vector<ReductionOp*> ops;
  for (Expr* e : fusion->exprs())
    if (auto* red = dynamic_cast<ReductionOp*>(e)) ops.push_back(red);
  return ops;
}

std::vector<TensorView*> reductionTvs(Fusion* fusion) {
  std::vector<TensorView*> tvs;
  for (ReductionOp* op : reductionOps(fusion)) tvs.push_back(op->out()->as<TensorView>());
  return tvs;
}

bool isInnerReduction(const TensorView* red) {
  auto* in = red->definition()->input(0)->as<TensorView>();
  const auto& alloc = in->getMaybeAllocationDomain();
  auto inner =
      std::find_if(alloc.rbegin(), alloc.rend(), [](IterDomain* id) { return !id->isBroadcast(); });
  if (inner == alloc.rend()) return true;
  const auto& logical = in->getLogicalDomain();
  const auto pos = std::find(logical.begin(), logical.end(), *inner) - logical.begin();
  MF_ASSERT(pos < static_cast<int64_t>(logical.size()),
            "{}: allocation axis {} is not a logical axis", in->toString(), (*inner)->toString());
  return red->getLogicalDomain()[pos]->isReduction();
}

namespace {

// The product of the extents of the axes at the end of `red`'s logical domain that are
// reduction axes (`reduced`) or not.
int64_t innerRun(SchedulerRuntimeInfo& runtime_info, const TensorView* red, bool reduced) {
  int64_t run = 1;
  const auto& logical = red->getLogicalDomain();
  for (auto it = logical.rbegin(); it != logical.rend() && (*it)->isReduction() == reduced; ++it)
    run *= runtime_info.extent(*it);
  return run;
}

}  // namespace

int64_t innerReducedRun(SchedulerRuntimeInfo& runtime_info, const TensorView* red) {
  return innerRun(runtime_info, red, /*reduced=*/true);
}

int64_t innerIterationRun(SchedulerRuntimeInfo& runtime_info, const TensorView* red) {
  return innerRun(runtime_info, red, /*reduced=*/false);
}

std::optional<std::string> reductionPatternRejectReason(Fusion* fusion) {
  const std::vector<ReductionOp*> ops = reductionOps(fusion);
  if (ops.empty()) return std::string("the fusion has no reduction");
  for (Expr* e : fusion->exprs())
    if (!e->isA<ReductionOp>() && !isPointwiseOrBroadcast(e))
      return fmt::format("`{}` is neither a pointwise op, a broadcast nor a reduction",
                         e->toString());
  auto* first = ops.front()->out()->as<TensorView>();
  const std::vector<int64_t> positions = reducedPositions(first);
  auto* first_in = ops.front()->in()->as<TensorView>();
  for (ReductionOp* op : ops) {
    auto* red = op->out()->as<TensorView>();
    auto* in = op->in()->as<TensorView>();
    if (reducedPositions(red) != positions)
      return fmt::format("{} and {} reduce different axes; one kernel tiles one reduction pattern",
                         first->toString(), red->toString());
    const auto& a = first_in->getLogicalDomain();
    const auto& b = in->getLogicalDomain();
    bool same = a.size() == b.size();
    for (size_t i = 0; same && i < a.size(); ++i) same = a[i]->isBroadcast() == b[i]->isBroadcast();
    if (!same)
      return fmt::format("the reductions read {} and {}, which are not of one shape",
                         first_in->toString(), in->toString());
  }
  if (ops.size() == 1) return std::nullopt;
  // The schedule transforms the first reduction and replays it along propagateTransforms'
  // tree; every other reduction must get the transforms of its reduction axes that way (two
  // reductions of unrelated tensors, or related only through a broadcast, do not).
  const auto reached = propagatedAxes(first);
  for (ReductionOp* op : ops) {
    auto* red = op->out()->as<TensorView>();
    auto it = reached.find(red);
    for (int64_t p : positions) {
      IterDomain* ref_id = first->getLogicalDomain()[p];
      const bool mapped = it != reached.end() && it->second.count(ref_id) > 0 &&
                          it->second.at(ref_id) == red->getLogicalDomain()[p];
      if (!mapped)
        return fmt::format(
            "{} and {} reduce tensors whose reduction axes are not connected through the fusion "
            "(the schedule of one does not reach the other); one kernel tiles one reduction",
            first->toString(), red->toString());
    }
  }
  return std::nullopt;
}

std::optional<std::string> sameReductionExtentsRejectReason(Fusion* fusion,
                                                            SchedulerRuntimeInfo& runtime_info) {
  const std::vector<ReductionOp*> ops = reductionOps(fusion);
  if (ops.empty()) return std::nullopt;
  auto* first = ops.front()->in()->as<TensorView>();
  for (ReductionOp* op : ops) {
    auto* in = op->in()->as<TensorView>();
    for (size_t i = 0; i < in->getLogicalDomain().size(); ++i) {
      const int64_t a = runtime_info.extent(first->getLogicalDomain()[i]);
      const int64_t b = runtime_info.extent(in->getLogicalDomain()[i]);
      if (a != b)
        return fmt::format("the reductions read {} and {}, whose axis {} has extents {} and {}",
                           first->toInlineString(), in->toInlineString(), i, a, b);
    }
  }
  return std::nullopt;
}

std::vector<TensorView*> postReductionTvs(Fusion* fusion) {
  std::unordered_set<const Val*> after;
  std::vector<TensorView*> tvs;
  for (Expr* e : fusion->exprs()) {
    bool downstream = std::any_of(e->inputs().begin(), e->inputs().end(), [&](Val* v) {
      return after.count(v) > 0 || (v->definition() && v->definition()->isA<ReductionOp>());
    });
    if (!downstream) continue;
    for (Val* out : e->outputs())
      if (auto* tv = dynamic_cast<TensorView*>(out); tv && after.insert(tv).second)
        tvs.push_back(tv);
  }
  return tvs;
}

std::optional<std::string> unmappedAxisRejectReason(Fusion* fusion, const TensorView* red) {
  IdModel model(*fusion);
  std::vector<TensorView*> ends;
  for (Val* v : fusion->inputs())
    if (auto* tv = dynamic_cast<TensorView*>(v); tv != nullptr && !tv->uses().empty())
      ends.push_back(tv);
  for (Val* v : fusion->outputs())
    if (auto* tv = dynamic_cast<TensorView*>(v)) ends.push_back(tv);
  // Every reduction's axes: the reductions are aligned by position (their extents are
  // checked equal at run time), so an axis of any of them is one of the loop nest's.
  std::vector<IterDomain*> have;
  for (TensorView* r : reductionTvs(fusion))
    have.insert(have.end(), r->getLogicalDomain().begin(), r->getLogicalDomain().end());
  for (TensorView* tv : ends)
    for (IterDomain* id : TensorDomain::noReductions(tv->getLogicalDomain())) {
      if (id->isBroadcast() || std::any_of(have.begin(), have.end(), [&](IterDomain* h) {
            return model.areMapped(h, id, IdMappingMode::Exact);
          }))
        continue;
      return fmt::format(
          "{} of {} maps to no axis of the reduction {} (a tensor of another shape: another "
          "segment)",
          id->toString(), tv->toInlineString(), red->toString());
    }
  return std::nullopt;
}

std::optional<std::string> besideBroadcastRejectReason(Fusion* fusion) {
  const std::vector<ReductionOp*> ops = reductionOps(fusion);
  if (ops.empty()) return std::nullopt;
  auto* first = ops.front()->out()->as<TensorView>();
  std::vector<Val*> outs;
  for (ReductionOp* op : ops) outs.push_back(op->out());
  // `before`: feed a reduction (inputs included) and follow none; `after`: follow one.
  const std::vector<TensorView*> after = postReductionTvs(fusion);
  std::unordered_set<const TensorView*> before;
  for (TensorView* tv : tensorViews(outs))
    if ((tv->definition() == nullptr || !tv->definition()->isA<ReductionOp>()) &&
        std::find(after.begin(), after.end(), tv) == after.end())
      before.insert(tv);
  // A tensor after the reductions reading one that feeds them (an input's register copy
  // included): that one lives inside the reductions' loops.
  for (TensorView* tv : after)
    for (Val* in : tv->definition()->inputs())
      if (auto* in_tv = dynamic_cast<TensorView*>(in); in_tv != nullptr && before.count(in_tv))
        return fmt::format(
            "{} follows the reductions but reads {}, computed before them inside their loops "
            "(another segment)",
            tv->toString(), in_tv->toString());
  // A fusion input read after the reductions and beside them (neither feeding nor
  // following): its one register copy (stageInputsAndOutputs) is computed inside the
  // reductions' loops for the tensor beside them, so the tensor after them would read it
  // from inside those loops, as above (seed 7147 of the random fusions).
  for (Val* v : fusion->inputs()) {
    auto* in = dynamic_cast<TensorView*>(v);
    if (in == nullptr || before.count(in)) continue;
    const TensorView* reader_after = nullptr;
    const TensorView* reader_beside = nullptr;
    for (Expr* use : in->uses()) {
      if (use->isA<BroadcastOp>()) continue;  // reads the input itself, not the copy
      auto* out = use->output(0)->as<TensorView>();
      (std::find(after.begin(), after.end(), out) != after.end() ? reader_after : reader_beside) =
          out;
    }
    if (reader_after != nullptr && reader_beside != nullptr)
      return fmt::format(
          "{} follows the reductions and {} is computed beside them, but both read {}, whose "
          "register copy lives inside their loops (another segment)",
          reader_after->toString(), reader_beside->toString(), in->toString());
  }
  // A tensor beside them, neither feeding nor following, with a broadcast axis where they
  // reduce.
  const std::vector<int64_t> reduced = reducedPositions(first);
  const size_t rank = first->getLogicalDomain().size();
  for (TensorView* tv : fusion->allTvs()) {
    if (tv->isFusionInput() || before.count(tv) || tv->definition()->isA<ReductionOp>() ||
        std::find(after.begin(), after.end(), tv) != after.end())
      continue;
    const std::vector<IterDomain*>& ids = tv->getLogicalDomain();
    if (ids.size() != rank) continue;
    for (int64_t p : reduced)
      if (ids[p]->isBroadcast())
        return fmt::format(
            "{} is computed beside the reductions with a broadcast axis where {} reduces "
            "(another segment)",
            tv->toString(), first->toString());
  }
  return std::nullopt;
}

bool everyTensorFeedsOrFollowsReductions(Fusion* fusion) {
  std::vector<Val*> reduced;
  for (ReductionOp* op : reductionOps(fusion)) reduced.push_back(op->out());
  std::unordered_set<const TensorView*> related;
  for (TensorView* tv : tensorViews(reduced)) related.insert(tv);
  for (TensorView* tv : postReductionTvs(fusion)) related.insert(tv);
  // A fusion input counts only when it feeds a reduction: one read after the reductions alone
  // (`max(x) + v`) is staged through a register copy computed beside them. (An output that
  // feeds a reduction: reduction.cpp's anyOutputFeedsReduction.)
  const std::vector<TensorView*> all = fusion->allTvs();
  return std::all_of(all.begin(), all.end(), [&](TensorView* tv) { return related.count(tv); });
}

int64_t concreteAxisCount(const TensorView* tv) {
  const auto& ids = tv->getLogicalDomain();
  return std::count_if(ids.begin(), ids.end(),
                       [](IterDomain* id) { return !id->isReduction() && !id->isBroadcast(); });
}

std::vector<TensorView*> fullShapeInputs(Fusion* fusion, const TensorView* red) {
  std::vector<TensorView*> tvs;
  const int64_t rank = static_cast<int64_t>(red->getLogicalDomain().size());
  for (Val* v : fusion->inputs())
    if (auto* tv = dynamic_cast<TensorView*>(v);
        tv && !tv->uses().empty() && concreteAxisCount(tv) == rank &&
        static_cast<int64_t>(tv->getLogicalDomain().size()) == rank)
      tvs.push_back(tv);
  return tvs;
}

int64_t innerVectorizationFactor(SchedulerRuntimeInfo& runtime_info,
                                 const std::vector<TensorView*>& tvs, int64_t inner_elems,
                                 int64_t max_width) {
  int64_t width = max_width;
  for (TensorView* tv : tvs) {
    const TensorMetadata* meta = runtime_info.inputMetadata(tv);
    if (meta == nullptr) return 1;
    // A declared allocation order other than the logical one: the schedule's vector runs
    // along the logical innermost axis, which lowering requires to be the allocation's.
    if (tv->getMaybeAllocationDomain() != tv->getLogicalDomain()) return 1;
    // Row-major and dense: a vector of the innermost run never crosses a row.
    int64_t expected = 1;
    for (size_t i = meta->sizes.size(); i-- > 0;) {
      if (meta->sizes[i] != 1 && meta->strides[i] != expected) return 1;
      expected *= meta->sizes[i];
    }
    const int64_t align_elems = meta->dataAlignment() * 8 / dataTypeSizeBit(tv->dtype());
    while (width > 1 && (inner_elems % width != 0 || align_elems % width != 0)) width /= 2;
  }
  return std::max<int64_t>(width, 1);
}

}  // namespace mf
