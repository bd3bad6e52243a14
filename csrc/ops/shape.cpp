#include "ops/shape.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>

#include "ir/builder.h"
#include "ir/fusion.h"
#include "ir/shape_exprs.h"
#include "ir/view_analysis.h"
#include "ops/arith.h"
#include "ops/operands.h"

namespace mf {
namespace {

std::vector<IterDomain*> logicalIds(TensorView* x) {
  return TensorDomain::noReductions(x->getLogicalDomain());
}

TensorView* newTensor(std::vector<IterDomain*> root, std::vector<IterDomain*> logical,
                      DataType dtype) {
  Contiguity contiguity = TensorDomain::filledContiguity(logical, true);
  std::vector<IterDomain*> loop = logical;
  auto* td = IrBuilder::create<TensorDomain>(std::move(root), std::move(logical),
                                             std::vector<IterDomain*>{}, std::move(loop),
                                             std::move(contiguity), false);
  return IrBuilder::create<TensorView>(td, dtype);
}

std::vector<IterDomain*> freshCopies(const std::vector<IterDomain*>& ids) {
  std::vector<IterDomain*> out;
  for (IterDomain* id : ids) out.push_back(id->freshCopy());
  return out;
}

void checkSizes(std::string_view op, const std::vector<Val*>& sizes, Fusion* f) {
  for (size_t i = 0; i < sizes.size(); ++i) {
    checkOperand(op, fmt::format("size {}", i), sizes[i], f);
    MF_CHECK(isIntegralType(sizes[i]->dtype()), "{}: size {} ({}) must be an integer, got {}", op,
             i, sizes[i]->toInlineString(), sizes[i]->dtype());
  }
}

// The dynamic form: root = copies of x's axes, logical = fresh Symbolic axes of `extents`.
TensorView* dynamicReshape(TensorView* x, const std::vector<Val*>& extents) {
  std::vector<IterDomain*> root = freshCopies(logicalIds(x));
  std::vector<IterDomain*> logical;
  for (Val* e : extents)
    logical.push_back(IterDomainBuilder(e).iterType(IterType::Symbolic).build());
  TensorView* out = newTensor(root, logical, x->dtype());
  IrBuilder::create<ViewOp>(std::vector<Val*>{x}, std::vector<Val*>{out});
  return out;
}

}  // namespace

TensorView* reshape(TensorView* x, const std::vector<int64_t>& original_sizes,
                    const std::vector<int64_t>& new_sizes) {
  checkOperand("reshape", "x", x, activeFusion("reshape"));
  std::vector<IterDomain*> ids = logicalIds(x);
  MF_CHECK(ids.size() == original_sizes.size(),
           "reshape: {} has {} axes but original_sizes [{}] has {}", x->toString(), ids.size(),
           fmt::join(original_sizes, ", "), original_sizes.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    std::optional<int64_t> c = ids[i]->extent()->constInt();
    MF_CHECK(!c || *c == original_sizes[i],
             "reshape: axis {} of {} ({}) has extent {}, but original_sizes [{}] says {}", i,
             x->toString(), ids[i]->toString(), c.value_or(0), fmt::join(original_sizes, ", "),
             original_sizes[i]);
  }
  // A symbolic Iteration axis original_sizes says is 1 is merged into a neighbour, not
  // squeezed (a squeeze of it would be checked per run and refused by the pointwise
  // scheduler); other shapes keep analyzeView's.
  bool symbolic_one = false;
  for (size_t i = 0; i < ids.size(); ++i)
    symbolic_one =
        symbolic_one || (original_sizes[i] == 1 && ids[i]->iterType() == IterType::Iteration &&
                         !ids[i]->extent()->constInt());
  return applyViewTransforms(x, symbolic_one ? analyzeView(x, original_sizes, new_sizes)
                                             : analyzeView(original_sizes, new_sizes));
}

TensorView* reshape(TensorView* x, const std::vector<Val*>& new_sizes) {
  Fusion* f = activeFusion("reshape");
  checkOperand("reshape", "x", x, f);
  checkSizes("reshape", new_sizes, f);
  int64_t infer = -1;
  bool all_const = true;
  for (size_t i = 0; i < new_sizes.size(); ++i) {
    std::optional<int64_t> c = new_sizes[i]->constInt();
    all_const = all_const && c.has_value();
    if (!c) continue;
    MF_CHECK(*c >= -1, "reshape: size {} of {} is {}; sizes are >= 0, or one -1", i, x->toString(),
             *c);
    if (*c == -1) {
      MF_CHECK(infer < 0, "reshape: sizes {} and {} of the reshape of {} are both -1", infer, i,
               x->toString());
      infer = static_cast<int64_t>(i);
    }
  }
  std::vector<IterDomain*> ids = logicalIds(x);
  std::vector<int64_t> in_sizes;
  for (IterDomain* id : ids)
    if (std::optional<int64_t> c = id->extent()->constInt()) in_sizes.push_back(*c);
  if (all_const && in_sizes.size() == ids.size()) {
    std::vector<int64_t> out_sizes;
    for (Val* v : new_sizes) out_sizes.push_back(*v->constInt());
    return applyViewTransforms(x, analyzeView(in_sizes, out_sizes));
  }
  std::vector<Val*> extents = new_sizes;
  if (infer >= 0) {
    // numel(x) / (product of the other sizes).
    Val* numel = constInt(1);
    for (IterDomain* id : ids) numel = SimplifyingIrBuilder::mul(numel, id->extent());
    Val* known = constInt(1);
    for (size_t i = 0; i < new_sizes.size(); ++i)
      if (static_cast<int64_t>(i) != infer) known = SimplifyingIrBuilder::mul(known, new_sizes[i]);
    extents[infer] = SimplifyingIrBuilder::div(numel, known);
  }
  return dynamicReshape(x, extents);
}

TensorView* flatten(TensorView* x, int64_t start_dim, int64_t end_dim) {
  checkOperand("flatten", "x", x, activeFusion("flatten"));
  std::vector<IterDomain*> ids = logicalIds(x);
  MF_CHECK(!ids.empty(), "flatten: {} has no axes", x->toString());
  const auto rank = static_cast<int64_t>(ids.size());
  int64_t s = TensorDomain::wrapAxis(start_dim, rank, "flatten start_dim");
  int64_t e = TensorDomain::wrapAxis(end_dim, rank, "flatten end_dim");
  MF_CHECK(s <= e, "flatten of {}: start_dim {} is after end_dim {}", x->toString(), start_dim,
           end_dim);
  if (s == e) return set(x);
  std::vector<IterDomain*> root = freshCopies(ids);
  std::vector<IterDomain*> logical(root.begin(), root.begin() + s);
  IterDomain* merged = root[s];
  for (int64_t i = s + 1; i <= e; ++i) merged = IterDomain::merge(merged, root[i]);
  logical.push_back(merged);
  logical.insert(logical.end(), root.begin() + e + 1, root.end());
  TensorView* out = newTensor(root, logical, x->dtype());
  IrBuilder::create<ViewOp>(std::vector<Val*>{x}, std::vector<Val*>{out});
  return out;
}

TensorView* squeeze(TensorView* x, const std::vector<int64_t>& dims) {
  checkOperand("squeeze", "x", x, activeFusion("squeeze"));
  std::vector<IterDomain*> ids = logicalIds(x);
  std::vector<bool> flags(ids.size(), false);
  for (int64_t d : dims) {
    int64_t a = TensorDomain::wrapAxis(d, static_cast<int64_t>(ids.size()), "squeeze");
    MF_CHECK(!flags[a], "squeeze of {}: axis {} is named twice", x->toString(), d);
    MF_CHECK(ids[a]->isBroadcast() || ids[a]->isSymbolic(),
             "squeeze: cannot squeeze axis {} of {}: {} has extent {} and is not a Broadcast "
             "axis; only size-1 Broadcast axes can be squeezed",
             d, x->toString(), ids[a]->toString(), ids[a]->extent()->toInlineString());
    flags[a] = true;
  }
  std::vector<IterDomain*> kept;
  for (size_t i = 0; i < ids.size(); ++i)
    if (!flags[i]) kept.push_back(ids[i]->freshCopy());
  TensorView* out = newTensor({}, kept, x->dtype());
  IrBuilder::create<SqueezeOp>(std::vector<Val*>{x}, std::vector<Val*>{out}, flags);
  return out;
}

TensorView* unsqueeze(TensorView* x, int64_t dim) {
  checkOperand("unsqueeze", "x", x, activeFusion("unsqueeze"));
  const auto rank = static_cast<int64_t>(logicalIds(x).size());
  int64_t d = TensorDomain::wrapAxis(dim, rank + 1, "unsqueeze");
  std::vector<bool> flags(rank + 1, false);
  flags[d] = true;
  return broadcast(x, flags);
}

TensorView* permute(TensorView* x, const std::vector<int64_t>& new2old) {
  checkOperand("permute", "x", x, activeFusion("permute"));
  std::vector<IterDomain*> ids = logicalIds(x);
  const auto rank = static_cast<int64_t>(ids.size());
  MF_CHECK(static_cast<int64_t>(new2old.size()) == rank,
           "permute: {} has {} axes but the permutation [{}] has {}", x->toString(), rank,
           fmt::join(new2old, ", "), new2old.size());
  std::vector<int64_t> order;
  std::vector<bool> seen(rank, false);
  for (int64_t d : new2old) {
    int64_t a = TensorDomain::wrapAxis(d, rank, "permute");
    MF_CHECK(!seen[a], "permute of {}: [{}] names axis {} twice; it must be a permutation",
             x->toString(), fmt::join(new2old, ", "), a);
    seen[a] = true;
    order.push_back(a);
  }
  std::vector<int64_t> identity(rank);
  std::iota(identity.begin(), identity.end(), 0);
  if (order == identity) return set(x);
  std::vector<IterDomain*> root = freshCopies(ids);
  std::vector<IterDomain*> logical;
  for (int64_t a : order) logical.push_back(root[a]);
  TensorView* out = newTensor(root, logical, x->dtype());
  IrBuilder::create<LoadStoreOp>(std::vector<Val*>{x}, std::vector<Val*>{out});
  return out;
}

TensorView* transpose(TensorView* x, int64_t dim0, int64_t dim1) {
  checkOperand("transpose", "x", x, activeFusion("transpose"));
  const auto rank = static_cast<int64_t>(logicalIds(x).size());
  int64_t a = TensorDomain::wrapAxis(dim0, rank, "transpose");
  int64_t b = TensorDomain::wrapAxis(dim1, rank, "transpose");
  std::vector<int64_t> order(rank);
  std::iota(order.begin(), order.end(), 0);
  std::swap(order[a], order[b]);
  return permute(x, order);
}

TensorView* expand(TensorView* x, const std::vector<Val*>& expanded_sizes) {
  Fusion* f = activeFusion("expand");
  checkOperand("expand", "x", x, f);
  checkSizes("expand", expanded_sizes, f);
  std::vector<IterDomain*> ids = logicalIds(x);
  MF_CHECK(ids.size() == expanded_sizes.size(), "expand: {} has {} axes but {} sizes were given",
           x->toString(), ids.size(), expanded_sizes.size());
  std::vector<IterDomain*> out_ids;
  for (size_t i = 0; i < ids.size(); ++i) {
    Val* size = expanded_sizes[i];
    std::optional<int64_t> c = size->constInt();
    MF_CHECK(!c || *c >= -1, "expand of {}: size {} of axis {} is negative; use -1 to keep it",
             x->toString(), *c, i);
    IterDomain* id = ids[i];
    if ((c && *c == -1) || !id->isBroadcast()) {
      std::optional<int64_t> e = id->extent()->constInt();
      MF_CHECK(!c || *c == -1 || !e || *c == *e,
               "expand: axis {} of {} ({}) is not a Broadcast axis; it keeps its extent {} and "
               "cannot be expanded to {}",
               i, x->toString(), id->toString(), e.value_or(0), c.value_or(0));
      out_ids.push_back(id->freshCopy());
    } else if (c && *c == 1) {
      out_ids.push_back(id->freshCopy());  // stays a size-1 Broadcast
    } else {
      out_ids.push_back(
          IterDomainBuilder(size).iterType(c ? IterType::Iteration : IterType::Symbolic).build());
    }
  }
  TensorView* out = newTensor({}, out_ids, x->dtype());
  std::vector<Val*> inputs{x};
  inputs.insert(inputs.end(), expanded_sizes.begin(), expanded_sizes.end());
  IrBuilder::create<ExpandOp>(std::move(inputs), std::vector<Val*>{out});
  return out;
}

}  // namespace mf
