#include "scheduler/normalization_utils.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/id_model.h"
#include "ir/shape_exprs.h"

namespace mf {
namespace {

std::vector<IterDomain*> dataAxes(const TensorView* tv) {
  return TensorDomain::noReductions(tv->getLogicalDomain());
}

bool isSupportedExpr(const Expr* e) {
  // Of the shape ops (reshape, squeeze, expand, permute), reshapes only (of a fusion input
  // into the normalized shape, or of it into an output; checked below).
  return e->isA<UnaryOp>() || e->isA<BinaryOp>() || e->isA<TernaryOp>() ||
         (e->isA<LoadStoreOp>() && !isPermute(e)) || e->isA<BroadcastOp>() ||
         e->isA<ReductionOp>() || e->isA<ViewOp>();
}

// Whether every use of `tv` is a reshape.
bool onlyReshaped(const TensorView* tv) {
  return !tv->uses().empty() && std::all_of(tv->uses().begin(), tv->uses().end(),
                                            [](const Expr* e) { return e->isA<ViewOp>(); });
}

}  // namespace

BroadcastOp* findBroadcastAfterReduction(Fusion* fusion) {
  std::unordered_set<const Val*> reduced;
  for (Expr* e : fusion->exprs()) {
    if (auto* bcast = dynamic_cast<BroadcastOp*>(e); bcast && reduced.count(bcast->in()))
      return bcast;
    bool after = e->isA<ReductionOp>();
    for (Val* in : e->inputs()) after = after || reduced.count(in) > 0;
    if (after) reduced.insert(e->outputs().begin(), e->outputs().end());
  }
  return nullptr;
}

std::unordered_set<const Val*> upstreamOf(const std::vector<Expr*>& exprs,
                                          const std::function<bool(const Expr*)>& sink) {
  std::unordered_set<const Val*> up;
  for (auto it = exprs.rbegin(); it != exprs.rend(); ++it) {
    Expr* e = *it;
    bool feeds = sink(e);
    for (Val* out : e->outputs()) feeds = feeds || up.count(out) > 0;
    if (!feeds) continue;
    for (Val* in : e->inputs())
      if (in->kind() == ValKind::TensorView) up.insert(in);
  }
  return up;
}

std::vector<TensorView*> persistentBuffers(Fusion* fusion) {
  const std::unordered_set<const Val*> upstream =
      upstreamOf(fusion->exprs(), [](const Expr* e) { return e->isA<ReductionOp>(); });
  std::vector<TensorView*> buffers;
  for (TensorView* tv : fusion->allTvs()) {
    std::unordered_set<const Expr*> readers(tv->uses().begin(), tv->uses().end());
    if (readers.size() >= 2 && upstream.count(tv)) buffers.push_back(tv);
  }
  return buffers;
}

int64_t InnerNormalization::persistentBytesPerElement() const {
  int64_t bytes = persistent_bytes;
  for (TensorView* tv : row_buffers) bytes += dataTypeSize(tv->dtype());
  return bytes;
}

namespace {

std::variant<InnerNormalization, std::string> analyze(Fusion* fusion) {
  const std::vector<Expr*> exprs = fusion->exprs();
  InnerNormalization norm;
  for (Expr* e : exprs) {
    if (!isSupportedExpr(e))
      return fmt::format("{} is not a pointwise, broadcast or reduction op", e->toString());
    if (e->isA<ReductionOp>()) norm.reductions.push_back(e->output(0)->as<TensorView>());
  }
  if (norm.reductions.empty()) return std::string("the fusion has no reduction");

  // The row: the first reduction's reduced axes, which must be its innermost ones.
  TensorView* first = norm.reductions.front();
  const std::vector<IterDomain*>& first_axes = first->getLogicalDomain();
  const int64_t rank = static_cast<int64_t>(first_axes.size());
  for (IterDomain* id : first_axes) norm.row_rank += id->isReduction() ? 1 : 0;
  for (int64_t i = 0; i < rank; ++i)
    if (first_axes[i]->isReduction() != (i >= rank - norm.row_rank))
      return fmt::format(
          "{} reduces axes that are not the innermost ones; an inner normalization reduces "
          "rows of contiguous innermost axes",
          first->toString());
  if (norm.row_rank == rank)
    return fmt::format("{} reduces every axis: there are no rows to spread over blocks",
                       first->toString());
  norm.reference = first->definition()->as<ReductionOp>()->in()->as<TensorView>();

  IdModel model(*fusion);
  const std::vector<IterDomain*> ref_axes = dataAxes(norm.reference);
  // True when `axes` are concrete and map, in order, to the reference's axes [begin, end).
  auto mapsToReference = [&](const std::vector<IterDomain*>& axes, int64_t begin, int64_t end) {
    if (static_cast<int64_t>(axes.size()) != end - begin) return false;
    for (size_t i = 0; i < axes.size(); ++i)
      if (axes[i]->isBroadcast() ||
          !model.areMapped(axes[i], ref_axes[begin + i], IdMappingMode::Exact))
        return false;
    return true;
  };
  const int64_t first_row_axis = rank - norm.row_rank;
  auto isFull = [&](const TensorView* tv) { return mapsToReference(dataAxes(tv), 0, rank); };
  auto isRowShaped = [&](const TensorView* tv) {
    return mapsToReference(dataAxes(tv), first_row_axis, rank);
  };
  if (!isFull(norm.reference))
    return fmt::format("{} reduces {}, which has broadcast axes", first->toString(),
                       norm.reference->toString());

  for (TensorView* red : norm.reductions) {
    const std::vector<IterDomain*>& axes = red->getLogicalDomain();
    auto* in = red->definition()->as<ReductionOp>()->in()->as<TensorView>();
    bool same = static_cast<int64_t>(axes.size()) == rank && isFull(in);
    for (int64_t i = 0; same && i < rank; ++i)
      same = axes[i]->isReduction() == first_axes[i]->isReduction();
    if (!same)
      return fmt::format(
          "{} and {} reduce different axes or shapes; one persistent kernel "
          "needs every reduction over the same rows",
          first->toString(), red->toString());
  }
  if (findBroadcastAfterReduction(fusion) == nullptr)
    return std::string(
        "no reduction result is broadcast back over the row: nothing persists across a "
        "reduction (the Reduction scheduler's case)");
  // Per-row results, the row's axes left out, or kept as size-1 broadcasts by an output
  // nothing reads (layer_norm's mean and invstd; a reader would need the row's threads).
  auto isRowsShaped = [&](const TensorView* tv) {
    std::vector<IterDomain*> axes = dataAxes(tv);
    if (static_cast<int64_t>(axes.size()) == rank && tv->uses().empty() &&
        std::all_of(axes.begin() + first_row_axis, axes.end(),
                    [](IterDomain* id) { return id->isBroadcast(); }))
      axes.resize(first_row_axis);
    return mapsToReference(axes, 0, first_row_axis);
  };
  // A reshape reads a fusion input as the normalized shape (the propagator replays it onto
  // the input), or writes a full tensor as an output by merging axes (the output's loop is
  // split back into the full shape's axes).
  for (Expr* e : exprs) {
    if (!e->isA<ViewOp>()) continue;
    auto* in = e->input(0)->as<TensorView>();
    auto* out = e->output(0)->as<TensorView>();
    const bool reads_input = in->isFusionInput() && isFull(out);
    const bool writes_output =
        isFull(in) && out->isFusionOutput() && out->uses().empty() && isMergeOnlyReshape(e);
    if (!reads_input && !writes_output)
      return fmt::format(
          "{} reshapes neither a fusion input into the shape of {} nor a tensor of that shape "
          "into an output by merging axes",
          e->toString(), norm.reference->toString());
  }
  for (Val* out : fusion->outputs()) {
    auto* tv = out->as<TensorView>();
    const bool merged = tv->definition() != nullptr && tv->definition()->isA<ViewOp>();
    if (!isFull(tv) && !isRowsShaped(tv) && !merged)
      return fmt::format(
          "output {} has neither the shape of {} nor that of its rows; the inner persistent "
          "scheduler writes only tensors of the normalized shape (or reshaped from it) and "
          "per-row results",
          out->toString(), norm.reference->toString());
  }
  for (Val* in : fusion->inputs()) {
    auto* tv = dynamic_cast<TensorView*>(in);
    if (tv == nullptr || tv->uses().empty() || isFull(tv) || isRowShaped(tv) || onlyReshaped(tv))
      continue;
    return fmt::format("input {} has neither the shape of {} nor that of its row", tv->toString(),
                       norm.reference->toString());
  }

  // A broadcast takes a row's result back over the row, or a row-shaped tensor over the rows.
  for (Expr* e : exprs) {
    auto* bcast = dynamic_cast<BroadcastOp*>(e);
    if (bcast == nullptr) continue;
    auto* in = bcast->in()->as<TensorView>();
    const std::vector<bool>& flags = bcast->isBroadcastDims();
    auto flagsAre = [&](bool row) {
      if (static_cast<int64_t>(flags.size()) != rank) return false;
      for (int64_t i = 0; i < rank; ++i)
        if (flags[i] != ((i >= first_row_axis) == row)) return false;
      return true;
    };
    if (flagsAre(false) && isRowShaped(in)) {
      norm.row_buffers.push_back(in);
      continue;
    }
    if (!flagsAre(true) || !mapsToReference(dataAxes(in), 0, first_row_axis))
      return fmt::format(
          "{} broadcasts neither a result over the row of {} nor a row over its rows",
          e->toString(), norm.reference->toString());
  }
  for (TensorView* tv : persistentBuffers(fusion))
    if (isFull(tv)) norm.persistent_buffers.push_back(tv);
  // A buffer holds its row from its definition (an input's from the start) to its last
  // reader, whole across a reduction; buffers whose lifetimes do not overlap share registers.
  std::unordered_map<const Expr*, int64_t> position;
  for (size_t i = 0; i < exprs.size(); ++i) position[exprs[i]] = static_cast<int64_t>(i);
  auto at = [&](const Expr* e) {
    auto it = position.find(e);
    return it == position.end() ? int64_t{-1} : it->second;
  };
  for (TensorView* r : norm.reductions) {
    std::vector<TensorView*> live;
    int64_t bytes = 0;
    for (TensorView* tv : norm.persistent_buffers) {
      int64_t last = -1;
      for (Expr* use : tv->uses()) last = std::max(last, at(use));
      if (at(tv->definition()) >= at(r->definition()) || last <= at(r->definition())) continue;
      live.push_back(tv);
      bytes += dataTypeSize(tv->dtype());
    }
    if (bytes <= norm.persistent_bytes && !norm.live_buffers.empty()) continue;
    norm.persistent_bytes = bytes;
    norm.live_buffers = std::move(live);
  }
  return norm;
}

}  // namespace

std::variant<InnerNormalization, std::string> analyzeInnerNormalization(Fusion* fusion) {
  // The scheduler asks up to four times per fusion (canSchedule at compile and run time, the
  // heuristics, the schedule): the last answer is kept per thread, by id and version.
  thread_local struct {
    uint64_t id = 0, version = 0;
    std::variant<InnerNormalization, std::string> result;
  } last;
  if (last.id != fusion->id() || last.version != fusion->version()) {
    last.result = analyze(fusion);
    last.id = fusion->id();
    last.version = fusion->version();
  }
  return last.result;
}

}  // namespace mf
