#include "ops/resize.h"

#include "ir/builder.h"
#include "ir/fusion.h"
#include "ops/operands.h"

namespace mf {
namespace {

// An integer scalar operand of `op` as an Index value.
Val* indexOperand(std::string_view op, std::string_view what, Val* v, TensorView* x) {
  checkOperand(op, what, v, x->fusion(), "the input's");
  MF_CHECK(isIntegralType(v->dtype()), "{}: {} {} of {} must be an integer scalar, got {}", op,
           what, v->toInlineString(), x->toInlineString(), v->dtype());
  return SimplifyingIrBuilder::cast(DataType::Index, v);
}

// A tensor whose root copies x's logical axes and whose logical axes are Resize(root[a],
// left[a], right[a]) where either width is nonzero, the root axis itself elsewhere.
TensorView* resizedOutput(std::string_view op, TensorView* x, const std::vector<Val*>& left,
                          const std::vector<Val*>& right) {
  const std::vector<IterDomain*> in_ids = TensorDomain::noReductions(x->getLogicalDomain());
  std::vector<IterDomain*> root, logical;
  for (size_t a = 0; a < in_ids.size(); ++a) {
    IterDomain* r = in_ids[a]->freshCopy();
    root.push_back(r);
    if (left[a]->constInt() == 0 && right[a]->constInt() == 0) {
      logical.push_back(r);
      continue;
    }
    if (std::optional<int64_t> e = r->extent()->constInt();
        e && left[a]->constInt() && right[a]->constInt())
      MF_CHECK(*e + *left[a]->constInt() + *right[a]->constInt() >= 0,
               "{}: axis {} of {} has extent {}; widths {} and {} would leave {} elements", op, a,
               x->toString(), *e, *left[a]->constInt(), *right[a]->constInt(),
               *e + *left[a]->constInt() + *right[a]->constInt());
    logical.push_back(IterDomain::resize(r, left[a], right[a]));
  }
  auto* td = IrBuilder::create<TensorDomain>(root, logical, std::vector<IterDomain*>{}, logical,
                                             TensorDomain::filledContiguity(logical, true), false);
  return IrBuilder::create<TensorView>(td, x->dtype());
}

// pad with per-axis widths, outer axis first.
TensorView* padAxes(TensorView* x, const std::vector<Val*>& left, const std::vector<Val*>& right,
                    Val* value) {
  TensorView* out = resizedOutput("pad", x, left, right);
  std::vector<Val*> inputs{x, value};
  for (size_t a = 0; a < left.size(); ++a) {
    inputs.push_back(left[a]);
    inputs.push_back(right[a]);
  }
  IrBuilder::create<PadOp>(std::move(inputs), std::vector<Val*>{out});
  return out;
}

// Python's rule for one end of a range: negative counts from the end, then clamped to
// [lo, extent].
Val* normalizeEnd(Val* v, Val* lo, Val* extent) {
  Val* zero = constInt(0);
  Val* wrapped = SimplifyingIrBuilder::where(SimplifyingIrBuilder::lt(v, zero),
                                             SimplifyingIrBuilder::add(v, extent), v);
  return SimplifyingIrBuilder::max(lo, SimplifyingIrBuilder::min(extent, wrapped));
}

}  // namespace

TensorView* pad(TensorView* x, const std::vector<Val*>& pad_widths, Val* value) {
  checkOperand("pad", "x", x, activeFusion("pad"));
  FusionGuard fg(x->fusion());
  const size_t rank = TensorDomain::noReductions(x->getLogicalDomain()).size();
  MF_CHECK(pad_widths.size() % 2 == 0,
           "pad: {} widths given for {}; widths come in (left, right) pairs, innermost axis first",
           pad_widths.size(), x->toString());
  MF_CHECK(pad_widths.size() <= 2 * rank,
           "pad: {} widths given for {}, which has {} axes: at most two widths per axis",
           pad_widths.size(), x->toString(), rank);
  std::vector<Val*> left(rank, constInt(0)), right(rank, constInt(0));
  for (size_t i = 0; i < pad_widths.size() / 2; ++i) {
    const size_t axis = rank - 1 - i;
    left[axis] = indexOperand("pad", "width", pad_widths[2 * i], x);
    right[axis] = indexOperand("pad", "width", pad_widths[2 * i + 1], x);
  }
  if (value == nullptr) {
    value = constValue(int64_t{0}, x->dtype());
  } else {
    checkOperand("pad", "value", value, x->fusion(), "the input's");
    MF_CHECK(value->kind() == ValKind::Scalar, "pad: the value {} for {} must be a scalar",
             value->toInlineString(), x->toInlineString());
    value = SimplifyingIrBuilder::cast(x->dtype(), value);
  }
  return padAxes(x, left, right, value);
}

TensorView* slice(TensorView* x, const std::vector<Slice>& ranges) {
  checkOperand("slice", "x", x, activeFusion("slice"));
  FusionGuard fg(x->fusion());
  const std::vector<IterDomain*> in_ids = TensorDomain::noReductions(x->getLogicalDomain());
  MF_CHECK(ranges.size() == in_ids.size(), "slice: {} ranges given for {}, which has {} axes",
           ranges.size(), x->toString(), in_ids.size());
  std::vector<Val*> inputs{x}, left, right;
  for (size_t a = 0; a < ranges.size(); ++a) {
    Val* extent = in_ids[a]->extent();
    const Slice& r = ranges[a];
    Val* step = r.step == nullptr ? constInt(1) : indexOperand("slice", "step", r.step, x);
    MF_CHECK(step->constInt() == 1,
             "slice: axis {} of {} has step {}; only step 1 is supported (slice, then use a "
             "reshape to take every n-th element)",
             a, x->toString(), step->toInlineString());
    Val* start = r.start == nullptr ? constInt(0)
                                    : normalizeEnd(indexOperand("slice", "start", r.start, x),
                                                   constInt(0), extent);
    Val* stop = r.stop == nullptr
                    ? extent
                    : normalizeEnd(indexOperand("slice", "stop", r.stop, x), start, extent);
    inputs.insert(inputs.end(), {start, stop, step});
    const bool whole =
        start->constInt() == 0 &&
        (stop == extent || (stop->constInt() && stop->constInt() == extent->constInt()));
    left.push_back(whole ? constInt(0) : SimplifyingIrBuilder::sub(constInt(0), start));
    right.push_back(whole ? constInt(0) : SimplifyingIrBuilder::sub(stop, extent));
  }
  TensorView* out = resizedOutput("slice", x, left, right);
  IrBuilder::create<SliceOp>(std::move(inputs), std::vector<Val*>{out});
  return out;
}

TensorView* slice(TensorView* x, const std::vector<int64_t>& starts,
                  const std::vector<int64_t>& stops) {
  checkOperand("slice", "x", x, activeFusion("slice"));
  MF_CHECK(starts.size() == stops.size(), "slice: {} starts but {} stops given for {}",
           starts.size(), stops.size(), x->toString());
  FusionGuard fg(x->fusion());
  std::vector<Slice> ranges;
  for (size_t a = 0; a < starts.size(); ++a)
    ranges.push_back({constInt(starts[a]), constInt(stops[a]), nullptr});
  return slice(x, ranges);
}

TensorView* cat(const std::vector<TensorView*>& inputs, int64_t dim) {
  Fusion* f = activeFusion("cat");
  MF_CHECK(!inputs.empty(), "cat: no inputs given");
  for (TensorView* tv : inputs) checkOperand("cat", "input", tv, f);
  FusionGuard fg(f);
  TensorView* first = inputs[0];
  const std::vector<IterDomain*> first_ids = TensorDomain::noReductions(first->getLogicalDomain());
  const size_t rank = first_ids.size();
  MF_CHECK(rank > 0, "cat: {} has no axes to concatenate along", first->toString());
  const size_t d =
      static_cast<size_t>(TensorDomain::wrapAxis(dim, static_cast<int64_t>(rank), "cat"));
  for (TensorView* tv : inputs) {
    const std::vector<IterDomain*> ids = TensorDomain::noReductions(tv->getLogicalDomain());
    MF_CHECK(ids.size() == rank, "cat: inputs {} and {} have ranks {} and {}", first->toString(),
             tv->toString(), rank, ids.size());
    MF_CHECK(tv->dtype() == first->dtype(), "cat: inputs {} and {} have dtypes {} and {}",
             first->toString(), tv->toString(), first->dtype(), tv->dtype());
    for (size_t a = 0; a < rank; ++a) {
      if (a == d) continue;
      auto e0 = first_ids[a]->extent()->constInt(), e1 = ids[a]->extent()->constInt();
      MF_CHECK(!e0 || !e1 || *e0 == *e1,
               "cat: inputs {} and {} disagree on axis {} (not the concatenated axis {}): {} vs {}",
               first->toString(), tv->toString(), a, d, *e0, *e1);
    }
  }
  if (inputs.size() == 1) return first;
  std::vector<Val*> extents;
  for (TensorView* tv : inputs)
    extents.push_back(TensorDomain::noReductions(tv->getLogicalDomain())[d]->extent());
  Val* total = constInt(0);
  for (Val* e : extents) total = SimplifyingIrBuilder::add(total, e);
  std::vector<Val*> padded;
  Val* before = constInt(0);
  for (size_t k = 0; k < inputs.size(); ++k) {
    Val* after = constInt(0);
    for (size_t j = k + 1; j < inputs.size(); ++j)
      after = SimplifyingIrBuilder::add(after, extents[j]);
    std::vector<Val*> left(rank, constInt(0)), right(rank, constInt(0));
    left[d] = before;
    right[d] = after;
    padded.push_back(padAxes(inputs[k], left, right, constValue(int64_t{0}, first->dtype())));
    before = SimplifyingIrBuilder::add(before, extents[k]);
  }
  // The output's axes: along dim the total, elsewhere the first input's non-broadcast axis.
  std::vector<IterDomain*> out_ids;
  for (size_t a = 0; a < rank; ++a) {
    IterDomain* pick = nullptr;
    for (Val* p : padded) {
      IterDomain* id = p->as<TensorView>()->getLogicalDomain()[a];
      if (pick == nullptr || (pick->isBroadcast() && !id->isBroadcast())) pick = id;
    }
    if (a != d) {
      out_ids.push_back(pick->freshCopy());
      continue;
    }
    IterType t = IterType::Symbolic;
    if (std::optional<int64_t> e = total->constInt())
      t = *e == 1 ? IterType::Broadcast : IterType::Iteration;
    else if (pick->iterType() == IterType::Iteration)
      t = IterType::Iteration;
    out_ids.push_back(IterDomainBuilder(total).iterType(t).build());
  }
  auto* out =
      IrBuilder::create<TensorView>(IrBuilder::create<TensorDomain>(out_ids), first->dtype());
  IrBuilder::create<CatOp>(padded, std::vector<Val*>{out}, static_cast<int64_t>(d));
  return out;
}

}  // namespace mf
