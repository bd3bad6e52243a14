#include "segmenter/alias_analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/shape_exprs.h"

namespace mf {
namespace {

std::vector<int64_t> extentsOf(const TensorView* tv, ExpressionEvaluator& ee) {
  std::vector<int64_t> sizes;
  for (IterDomain* id : TensorDomain::noReductions(tv->getLogicalDomain()))
    sizes.push_back(ee.evaluateInt(id->extent(), fmt::format("extent of {}", tv->toString())));
  return sizes;
}

// The strides of a reshape of `in` to `sizes` as a view, or nullopt when it merges axes that
// are not dense with each other. Size-1 axes of the input take no part; the others form
// blocks, runs of axes each dense with the next (stride = next stride * next size), and each
// block must be exactly covered by consecutive output axes, whose strides then step through
// the block from its innermost stride outward.
std::optional<std::vector<int64_t>> reshapeStrides(const ViewLayout& in,
                                                   const std::vector<int64_t>& sizes) {
  const int64_t n = static_cast<int64_t>(sizes.size());
  std::vector<int64_t> strides(n, 1);
  if (std::find(in.sizes.begin(), in.sizes.end(), 0) != in.sizes.end()) {
    for (int64_t j = n - 2; j >= 0; --j)
      strides[j] = strides[j + 1] * std::max<int64_t>(sizes[j + 1], 1);
    return strides;  // no element: any strides address none
  }
  struct Block {
    int64_t numel;
    int64_t inner_stride;
  };
  std::vector<Block> blocks;
  int64_t last = -1;  // the last input axis of more than one element
  for (size_t d = 0; d < in.sizes.size(); ++d) {
    if (in.sizes[d] == 1) continue;
    if (last >= 0 && in.strides[last] == in.strides[d] * in.sizes[d]) {
      blocks.back().numel *= in.sizes[d];
      blocks.back().inner_stride = in.strides[d];
    } else {
      blocks.push_back({in.sizes[d], in.strides[d]});
    }
    last = static_cast<int64_t>(d);
  }
  int64_t j = 0;
  for (const Block& block : blocks) {
    const int64_t first = j;
    int64_t covered = 1;
    while (covered < block.numel && j < n) covered *= sizes[j++];
    if (covered != block.numel) return std::nullopt;
    int64_t s = block.inner_stride;
    for (int64_t k = j - 1; k >= first; --k) {
      strides[k] = s;
      s *= sizes[k];
    }
  }
  // What remains are size-1 axes (the element counts agree): stride 1, never stepped along.
  for (; j < n; ++j)
    if (sizes[j] != 1) return std::nullopt;
  return strides;
}

// A set whose logical axes are its root axes in some order: the positions, per logical axis,
// of its root axis (the operand's axis of the same position). nullopt for anything else.
std::optional<std::vector<int64_t>> setPermutation(const LoadStoreOp* op) {
  auto* out = op->out()->as<TensorView>();
  const std::vector<IterDomain*>& root = out->getMaybeRootDomain();
  const std::vector<IterDomain*>& logical = out->getLogicalDomain();
  if (root.size() != logical.size()) return std::nullopt;
  std::vector<int64_t> perm;
  for (IterDomain* id : logical) {
    auto it = std::find(root.begin(), root.end(), id);
    if (it == root.end()) return std::nullopt;
    perm.push_back(it - root.begin());
  }
  return perm;
}

// Stride 1 for the innermost axis, else the next axis's extent in memory: how a size-1 axis
// a view inserts is laid out (its stride is never used to address an element).
void fillInsertedStrides(ViewLayout& out, const std::vector<bool>& inserted) {
  for (int64_t j = static_cast<int64_t>(out.sizes.size()) - 1; j >= 0; --j)
    if (inserted[j])
      out.strides[j] = j + 1 == static_cast<int64_t>(out.sizes.size())
                           ? 1
                           : out.strides[j + 1] * std::max<int64_t>(out.sizes[j + 1], 1);
}

// The layout the user's allocation domain asks of output `tv`, as layoutOf builds it
// (contiguous in allocation order), or nullopt when that is not a permutation of the logical
// axes (a declared or split allocation: never a view).
std::optional<std::vector<int64_t>> askedStrides(const TensorView* tv,
                                                 const std::vector<int64_t>& sizes) {
  const std::vector<IterDomain*> logical = TensorDomain::noReductions(tv->getLogicalDomain());
  const std::vector<IterDomain*> alloc = TensorDomain::noReductions(tv->getMaybeAllocationDomain());
  if (tv->domain()->allocationDeclared() || alloc.size() != logical.size()) return std::nullopt;
  std::vector<int64_t> strides(logical.size(), 0);
  int64_t s = 1;
  for (int64_t a = static_cast<int64_t>(alloc.size()) - 1; a >= 0; --a) {
    auto it = std::find(logical.begin(), logical.end(), alloc[a]);
    if (it == logical.end()) return std::nullopt;
    strides[it - logical.begin()] = s;
    s *= sizes[it - logical.begin()];
  }
  return strides;
}

// True when `view` addresses exactly the elements `strides` would: equal strides on every
// axis of more than one element (an axis of size 1 is never stepped along), or no elements.
bool sameLayout(const ViewLayout& view, const std::vector<int64_t>& strides) {
  if (std::find(view.sizes.begin(), view.sizes.end(), 0) != view.sizes.end()) return true;
  for (size_t d = 0; d < view.sizes.size(); ++d)
    if (view.sizes[d] > 1 && view.strides[d] != strides[d]) return false;
  return true;
}

}  // namespace

bool isViewExpr(const Expr* e) {
  if (const auto* op = dynamic_cast<const LoadStoreOp*>(e))
    return op->opType() == LoadStoreOpType::Set && op->in()->isA<TensorView>() &&
           op->in()->dtype() == op->out()->dtype() && setPermutation(op).has_value();
  return e->isA<BroadcastOp>() || e->isA<ViewOp>() || e->isA<SqueezeOp>() || e->isA<ExpandOp>();
}

std::optional<ViewLayout> viewLayoutOf(const Expr* e, const ViewLayout& in,
                                       ExpressionEvaluator& ee) {
  MF_ASSERT(isViewExpr(e), "viewLayoutOf: {} is not a view expr", e->toString());
  ViewLayout out;
  out.sizes = extentsOf(e->output(0)->as<TensorView>(), ee);
  out.strides.assign(out.sizes.size(), 0);
  if (const auto* op = dynamic_cast<const LoadStoreOp*>(e)) {
    const std::vector<int64_t> perm = *setPermutation(op);
    if (perm.size() != in.sizes.size()) return std::nullopt;
    for (size_t j = 0; j < perm.size(); ++j) {
      if (out.sizes[j] != in.sizes[perm[j]]) return std::nullopt;
      out.strides[j] = in.strides[perm[j]];
    }
    return out;
  }
  if (e->isA<ViewOp>()) {
    std::optional<std::vector<int64_t>> strides = reshapeStrides(in, out.sizes);
    if (!strides) return std::nullopt;
    out.strides = std::move(*strides);
    return out;
  }
  if (const auto* op = dynamic_cast<const SqueezeOp*>(e)) {
    const std::vector<bool>& removed = op->isSqueezeDims();
    if (removed.size() != in.sizes.size()) return std::nullopt;
    size_t j = 0;
    for (size_t i = 0; i < removed.size(); ++i) {
      if (removed[i]) {
        if (in.sizes[i] != 1) return std::nullopt;  // the reference names the error
        continue;
      }
      if (j >= out.sizes.size() || out.sizes[j] != in.sizes[i]) return std::nullopt;
      out.strides[j++] = in.strides[i];
    }
    if (j != out.sizes.size()) return std::nullopt;
    return out;
  }
  if (e->isA<ExpandOp>()) {
    // An expanded axis repeats its one element: stride 0.
    if (out.sizes.size() != in.sizes.size()) return std::nullopt;
    for (size_t i = 0; i < in.sizes.size(); ++i) {
      if (out.sizes[i] == in.sizes[i])
        out.strides[i] = in.strides[i];
      else if (in.sizes[i] == 1)
        out.strides[i] = 0;
      else
        return std::nullopt;
    }
    return out;
  }
  const auto* op = e->as<BroadcastOp>();
  const std::vector<bool>& inserted = op->isBroadcastDims();
  if (inserted.size() != out.sizes.size()) return std::nullopt;
  size_t i = 0;
  for (size_t j = 0; j < inserted.size(); ++j) {
    if (inserted[j]) continue;
    if (i >= in.sizes.size() || out.sizes[j] != in.sizes[i]) return std::nullopt;
    out.strides[j] = in.strides[i++];
  }
  if (i != in.sizes.size()) return std::nullopt;
  fillInsertedStrides(out, inserted);
  return out;
}

std::vector<AliasedOutput> findAliasedOutputs(Fusion& fusion, SchedulerRuntimeInfo& info) {
  ExpressionEvaluator& ee = info.expressionEvaluator();
  // Every tensor reached from a fusion input by view exprs, with its layout and chain.
  std::unordered_map<const Val*, AliasedOutput> views;
  for (Val* in : fusion.inputs()) {
    auto* tv = dynamic_cast<TensorView*>(in);
    const TensorMetadata* m = tv != nullptr ? info.inputMetadata(tv) : nullptr;
    if (m == nullptr || tv->getLogicalDomain().empty()) continue;
    views[tv] = AliasedOutput{tv, tv, {}, ViewLayout{m->sizes, m->strides}};
  }
  const std::vector<Expr*> exprs = fusion.exprs();
  for (Expr* e : exprs) {
    if (!isViewExpr(e)) continue;
    auto it = views.find(e->input(0));
    if (it == views.end()) continue;
    std::optional<ViewLayout> layout = viewLayoutOf(e, it->second.layout, ee);
    if (!layout) continue;
    AliasedOutput view = it->second;
    view.output = e->output(0)->as<TensorView>();
    view.chain.push_back(e);
    view.layout = std::move(*layout);
    views[view.output] = std::move(view);
  }
  // Candidates: computed outputs that are views with the layout their allocation asks for.
  std::vector<AliasedOutput> found;
  for (Val* out : fusion.outputs()) {
    auto it = views.find(out);
    if (it == views.end() || out->isFusionInput()) continue;
    const AliasedOutput& view = it->second;
    if (view.output->domain()->hasAllocation()) {
      std::optional<std::vector<int64_t>> asked = askedStrides(view.output, view.layout.sizes);
      if (!asked || !sameLayout(view.layout, *asked)) continue;
    }
    if (std::none_of(found.begin(), found.end(),
                     [&](const AliasedOutput& a) { return a.output == view.output; }))
      found.push_back(view);
  }
  // A candidate read by an expr outside the candidates' chains is computed instead; that
  // may free another candidate's chain of a reader, so repeat until nothing changes.
  for (bool changed = true; changed;) {
    changed = false;
    std::unordered_set<const Expr*> chains;
    for (const AliasedOutput& a : found) chains.insert(a.chain.begin(), a.chain.end());
    std::unordered_set<const Expr*> live(exprs.begin(), exprs.end());
    auto read_elsewhere = [&](const AliasedOutput& a) {
      const std::vector<Expr*>& uses = a.output->uses();
      return std::any_of(uses.begin(), uses.end(),
                         [&](Expr* u) { return live.count(u) && !chains.count(u); });
    };
    auto it = std::find_if(found.begin(), found.end(), read_elsewhere);
    if (it != found.end()) {
      found.erase(it);
      changed = true;
    }
  }
  return found;
}

std::vector<Tensor> evaluateViews(Fusion& fusion, const std::vector<Tensor>& inputs) {
  SchedulerRuntimeInfo info(&fusion, inputs);
  const std::vector<AliasedOutput> aliases = findAliasedOutputs(fusion, info);
  const std::vector<Val*>& fusion_inputs = fusion.inputs();
  std::vector<Tensor> outputs;
  for (Val* out : fusion.outputs()) {
    auto a = std::find_if(aliases.begin(), aliases.end(),
                          [&](const AliasedOutput& x) { return x.output == out; });
    MF_ASSERT(a != aliases.end(), "evaluateViews: output {} is not a view of an input",
              out->toString());
    const Tensor& in = inputs.at(std::find(fusion_inputs.begin(), fusion_inputs.end(), a->input) -
                                 fusion_inputs.begin());
    outputs.push_back(in.asStrided(a->layout.sizes, a->layout.strides, in.storageOffset()));
  }
  return outputs;
}

}  // namespace mf
