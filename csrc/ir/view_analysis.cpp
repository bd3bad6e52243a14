#include "ir/view_analysis.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "ir/builder.h"
#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/shape_exprs.h"
#include "support/hash.h"

namespace mf {
namespace {

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t s : v) p *= s;
  return p;
}

std::string shapeString(const std::vector<int64_t>& v) {
  return fmt::format("[{}]", fmt::join(v, ", "));
}

std::string flagString(const std::vector<bool>& f) {
  std::vector<std::string> s;
  for (bool b : f) s.push_back(b ? "true" : "false");
  return fmt::format("{{{}}}", fmt::join(s, ", "));
}

TensorView* newTensor(Fusion* f, std::vector<IterDomain*> root, std::vector<IterDomain*> logical,
                      DataType dtype) {
  Contiguity contiguity = TensorDomain::filledContiguity(logical, true);
  std::vector<IterDomain*> loop = logical;
  auto* td = IrBuilder::createIn<TensorDomain>(f, std::move(root), std::move(logical),
                                               std::vector<IterDomain*>{}, std::move(loop),
                                               std::move(contiguity), false);
  return IrBuilder::createIn<TensorView>(f, td, dtype);
}

std::vector<IterDomain*> freshCopies(const std::vector<IterDomain*>& ids) {
  std::vector<IterDomain*> out;
  for (IterDomain* id : ids) out.push_back(id->freshCopy());
  return out;
}

}  // namespace

std::string ViewStep::toString() const {
  return kind == Kind::Merge ? fmt::format("merge({})", axis)
                             : fmt::format("split({}, {})", axis, factor);
}

size_t AnalyzeViewResult::hash() const {
  uint64_t h = kFnvOffset;
  auto mixFlags = [&](const std::vector<bool>& f) {
    h = hashCombine(h, f.size());
    for (bool b : f) h = hashCombine(h, b ? 1 : 0);
  };
  mixFlags(squeeze_axes);
  h = hashCombine(h, steps.size());
  for (const ViewStep& s : steps)
    h = hashCombine(
        hashCombine(hashCombine(h, static_cast<uint64_t>(s.kind)), static_cast<uint64_t>(s.axis)),
        static_cast<uint64_t>(s.factor));
  mixFlags(broadcast_axes);
  return static_cast<size_t>(h);
}

std::string AnalyzeViewResult::toString() const {
  std::vector<std::string> s;
  for (const ViewStep& step : steps) s.push_back(step.toString());
  return fmt::format("squeeze {} steps {{{}}} broadcast {}", flagString(squeeze_axes),
                     fmt::join(s, ", "), flagString(broadcast_axes));
}

std::vector<int64_t> inferViewShape(const std::vector<int64_t>& in_sizes,
                                    const std::vector<int64_t>& out_sizes) {
  for (int64_t s : in_sizes)
    MF_CHECK(s >= 0, "reshape: input shape {} has a negative size", shapeString(in_sizes));
  std::vector<int64_t> out = out_sizes;
  int64_t infer = -1, known = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      MF_CHECK(infer < 0, "reshape: only one size of {} may be -1", shapeString(out_sizes));
      infer = static_cast<int64_t>(i);
      continue;
    }
    MF_CHECK(out[i] >= 0, "reshape: size {} of {} is negative; sizes are >= 0 or one -1", out[i],
             shapeString(out_sizes));
    known *= out[i];
  }
  const int64_t numel = product(in_sizes);
  if (infer >= 0) {
    MF_CHECK(known != 0,
             "reshape: cannot infer the -1 of {} from {}: the other sizes multiply to 0",
             shapeString(out_sizes), shapeString(in_sizes));
    MF_CHECK(numel % known == 0,
             "Total element counts across view operation must match: {} ({} elements) cannot "
             "be viewed as {}",
             shapeString(in_sizes), numel, shapeString(out_sizes));
    out[infer] = numel / known;
  }
  MF_CHECK(product(out) == numel,
           "Total element counts across view operation must match: {} has {} elements, {} has {}",
           shapeString(in_sizes), numel, shapeString(out), product(out));
  return out;
}

AnalyzeViewResult analyzeView(const std::vector<int64_t>& in_sizes,
                              const std::vector<int64_t>& out_sizes) {
  const std::vector<int64_t> out = inferViewShape(in_sizes, out_sizes);
  MF_CHECK(product(in_sizes) != 0,
           "analyzeView: reshape of the empty shape {} to {}: remove empty tensors first "
           "(RemoveEmpty) or keep the dynamic form",
           shapeString(in_sizes), shapeString(out));
  AnalyzeViewResult r;
  std::vector<int64_t> cur, target;
  for (int64_t s : in_sizes) {
    r.squeeze_axes.push_back(s == 1);
    if (s != 1) cur.push_back(s);
  }
  for (int64_t s : out) {
    r.broadcast_axes.push_back(s == 1);
    if (s != 1) target.push_back(s);
  }
  // Left to right: make cur[pos] equal target[pos] by merging in the next axis while it is
  // too small or not divisible, then splitting off target[pos] as the outer axis.
  for (size_t pos = 0; pos < target.size(); ++pos) {
    MF_ASSERT(pos < cur.size(), "analyzeView: ran out of axes");
    while (cur[pos] != target[pos]) {
      if (cur[pos] < target[pos] || cur[pos] % target[pos] != 0) {
        MF_ASSERT(pos + 1 < cur.size(), "analyzeView: ran out of axes to merge");
        r.steps.push_back({ViewStep::Kind::Merge, static_cast<int64_t>(pos), 0});
        cur[pos] *= cur[pos + 1];
        cur.erase(cur.begin() + static_cast<int64_t>(pos) + 1);
      } else {
        r.steps.push_back({ViewStep::Kind::Split, static_cast<int64_t>(pos), target[pos]});
        int64_t rest = cur[pos] / target[pos];
        cur[pos] = target[pos];
        cur.insert(cur.begin() + static_cast<int64_t>(pos) + 1, rest);
      }
    }
  }
  MF_ASSERT(cur.size() == target.size(), "analyzeView: {} -> {} left axes over",
            shapeString(in_sizes), shapeString(out));
  return r;
}

TensorView* applyViewTransforms(TensorView* x, const AnalyzeViewResult& view,
                                const std::vector<Val*>& out_sizes) {
  Fusion* f = x->fusion();
  FusionGuard fg(f);
  std::vector<IterDomain*> in_ids = TensorDomain::noReductions(x->getLogicalDomain());
  MF_CHECK(view.squeeze_axes.size() == in_ids.size(),
           "applyViewTransforms: {} has {} axes but the view squeezes {}", x->toString(),
           in_ids.size(), flagString(view.squeeze_axes));
  MF_CHECK(out_sizes.empty() || out_sizes.size() == view.broadcast_axes.size(),
           "applyViewTransforms: {} sizes for {} output axes", out_sizes.size(),
           view.broadcast_axes.size());
  TensorView* tv = x;
  if (std::find(view.squeeze_axes.begin(), view.squeeze_axes.end(), true) !=
      view.squeeze_axes.end()) {
    std::vector<IterDomain*> kept;
    for (size_t i = 0; i < in_ids.size(); ++i)
      if (!view.squeeze_axes[i]) kept.push_back(in_ids[i]->freshCopy());
    TensorView* out = newTensor(f, {}, kept, x->dtype());
    IrBuilder::create<SqueezeOp>(std::vector<Val*>{tv}, std::vector<Val*>{out}, view.squeeze_axes);
    tv = out;
  }
  if (!view.steps.empty()) {
    // The Val of non-broadcast output axis `k`, when sizes are given.
    std::vector<Val*> kept_sizes;
    for (size_t i = 0; i < out_sizes.size(); ++i)
      if (!view.broadcast_axes[i]) kept_sizes.push_back(out_sizes[i]);
    std::vector<IterDomain*> root = freshCopies(TensorDomain::noReductions(tv->getLogicalDomain()));
    std::vector<IterDomain*> cur = root;
    for (const ViewStep& step : view.steps) {
      const auto a = static_cast<size_t>(step.axis);
      MF_CHECK(a < cur.size() && (step.kind == ViewStep::Kind::Split || a + 1 < cur.size()),
               "applyViewTransforms: step {} is out of range for {} axes", step.toString(),
               cur.size());
      if (step.kind == ViewStep::Kind::Merge) {
        cur[a] = IterDomain::merge(cur[a], cur[a + 1]);
        cur.erase(cur.begin() + static_cast<int64_t>(a) + 1);
      } else {
        Val* factor = a < kept_sizes.size() ? kept_sizes[a] : constInt(step.factor);
        auto [outer, inner] = IterDomain::split(cur[a], factor, /*inner_split=*/false);
        cur[a] = outer;
        cur.insert(cur.begin() + static_cast<int64_t>(a) + 1, inner);
      }
    }
    TensorView* out = newTensor(f, root, cur, x->dtype());
    IrBuilder::create<ViewOp>(std::vector<Val*>{tv}, std::vector<Val*>{out});
    tv = out;
  }
  if (std::find(view.broadcast_axes.begin(), view.broadcast_axes.end(), true) !=
      view.broadcast_axes.end()) {
    std::vector<IterDomain*> ids = TensorDomain::noReductions(tv->getLogicalDomain());
    std::vector<IterDomain*> out_ids;
    size_t next = 0;
    for (bool b : view.broadcast_axes)
      out_ids.push_back(b ? IterDomainBuilder(constInt(1)).iterType(IterType::Broadcast).build()
                          : ids.at(next++)->freshCopy());
    MF_CHECK(next == ids.size(), "applyViewTransforms: {} keeps {} axes, the view has {}",
             tv->toString(), ids.size(), next);
    TensorView* out = newTensor(f, {}, out_ids, x->dtype());
    IrBuilder::create<BroadcastOp>(std::vector<Val*>{tv}, std::vector<Val*>{out},
                                   view.broadcast_axes);
    tv = out;
  }
  if (tv == x) {
    TensorView* out = newTensor(f, {}, freshCopies(in_ids), x->dtype());
    IrBuilder::create<LoadStoreOp>(std::vector<Val*>{x}, std::vector<Val*>{out});
    tv = out;
  }
  return tv;
}

AnalyzeViewResult analyzeView(const TensorView* in, const std::vector<int64_t>& in_sizes,
                              const std::vector<int64_t>& out_sizes) {
  const std::vector<IterDomain*> ids = TensorDomain::noReductions(in->getLogicalDomain());
  std::vector<bool> kept_one(ids.size(), false);
  size_t kept = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    kept_one[i] = in_sizes[i] == 1 && ids[i]->iterType() == IterType::Iteration;
    kept += in_sizes[i] != 1 || kept_one[i];
  }
  const bool any_target =
      std::any_of(out_sizes.begin(), out_sizes.end(), [](int64_t s) { return s != 1; });
  AnalyzeViewResult r = analyzeView(in_sizes, out_sizes);
  if (std::find(kept_one.begin(), kept_one.end(), true) == kept_one.end() || !any_target ||
      kept < 2)
    return r;
  // Keep the size-1 Iteration axes, merge each into its left neighbour (the right one when
  // it is first), then analyze the remaining sizes as analyzeView does.
  std::vector<int64_t> cur;
  for (size_t i = 0; i < ids.size(); ++i) {
    r.squeeze_axes[i] = in_sizes[i] == 1 && !kept_one[i];
    if (!r.squeeze_axes[i]) cur.push_back(in_sizes[i]);
  }
  std::vector<ViewStep> merges;
  for (size_t j = 0; j < cur.size() && cur.size() > 1;) {
    if (cur[j] != 1) {
      ++j;
      continue;
    }
    const size_t at = j == 0 ? 0 : j - 1;
    merges.push_back({ViewStep::Kind::Merge, static_cast<int64_t>(at), 0});
    cur[at] *= cur[at + 1];
    cur.erase(cur.begin() + static_cast<int64_t>(at) + 1);
    j = at;
  }
  std::vector<int64_t> target;
  for (int64_t s : out_sizes)
    if (s != 1) target.push_back(s);
  AnalyzeViewResult rest = analyzeView(cur, target);
  r.steps = merges;
  r.steps.insert(r.steps.end(), rest.steps.begin(), rest.steps.end());
  return r;
}

}  // namespace mf
