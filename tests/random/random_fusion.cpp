#include "random/random_fusion.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <set>

// The shape ops, when this build has them: RandomFusionOptions::view_ops draws the view ops
// (ops/shape.h: reshape, squeeze, expand, permute), resize_ops the resize ops (ops/resize.h:
// pad, slice, cat), and dynamic expands with ir/dynamic_transform.h.
#if __has_include("ops/shape.h")
#define MF_RANDOM_VIEW_OPS 1
#include "ops/shape.h"
#else
#define MF_RANDOM_VIEW_OPS 0
#endif
#if __has_include("ops/resize.h")
#define MF_RANDOM_RESIZE_OPS 1
#include "ops/resize.h"
#else
#define MF_RANDOM_RESIZE_OPS 0
#endif
#define MF_RANDOM_SHAPE_OPS (MF_RANDOM_VIEW_OPS || MF_RANDOM_RESIZE_OPS)
#if MF_RANDOM_VIEW_OPS && __has_include("ir/dynamic_transform.h")
#define MF_RANDOM_DYNAMIC_SHAPES 1
#else
#define MF_RANDOM_DYNAMIC_SHAPES 0
#endif

namespace mf::testing {
namespace {

// Extents: 1, primes, powers of two and their neighbours (non-divisible by any vector).
constexpr int64_t kSizes[] = {1,  2,   3,   5,   7,   13,  16,   31,  32,
                              64, 100, 127, 128, 129, 255, 1000, 1023};
constexpr int64_t kMaxNumel = int64_t{1} << 16;
// One fusion in ten is "large": past 128Ki elements, some past 1Mi (enough blocks to unroll),
// with odd or prime extents.
constexpr int64_t kLargeShapes[][2] = {{1100009, 0}, {1031, 1067}, {131071, 0}, {4099, 65}};

constexpr DataType kDtypes[] = {
    DataType::Float,  DataType::Float, DataType::Float, DataType::Half, DataType::BFloat16,
    DataType::Double, DataType::Int32, DataType::Int64, DataType::Bool, DataType::Float8_e4m3fn};

// A value of the DAG, of the full rank. `exact`: computed without transcendental functions,
// so comparing it is safe (see the header).
struct Value {
  TensorView* tv;
  bool exact;
};

class Generator {
 public:
  Generator(uint64_t seed, RandomFusionOptions options)
      : rng_(seed),
        extra_rng_(seed ^ 0x9e3779b97f4a7c15ull),
        broadcast_rng_(seed ^ 0x5851f42d4c957f2dull),
        options_(options) {
    result_.seed = seed;
  }

  RandomFusion run();
  std::vector<int64_t> shape() {
    chooseShape();
    return sizes_;
  }

 private:
  int64_t pick(int64_t n) { return static_cast<int64_t>(rng_() % static_cast<uint64_t>(n)); }
  bool chance(int64_t percent) { return pick(100) < percent; }
  template <typename T, size_t N>
  const T& pickOf(const T (&a)[N]) {
    return a[pick(N)];
  }

  void chooseShape();
  void addInput(int64_t index);
  Tensor layoutTensor(const Tensor& dense, InputLayout layout, const std::vector<int64_t>& perm,
                      std::vector<int64_t>& strides);
  Value& operand() { return pool_[pick(static_cast<int64_t>(pool_.size()))]; }
  void addOp();
  bool tryUnary(Value& a);
  bool tryBinary(Value& a, Value& b);
  bool tryScalarBinary(Value& a);
  bool tryWhere();
  bool tryCast(Value& a);
  bool tryReduction(Value& a);
  bool tryShapeOp(Value& a);
#if MF_RANDOM_SHAPE_OPS
  bool tryExpand(Value& a);
  std::vector<int64_t> randomReshape(const std::vector<int64_t>& sizes);
  TensorView* midOp(TensorView* t);
  Val* padValue(DataType dtype);
  void maybeOutput(TensorView* tv);
#endif
  TensorView* combineSinks();
  TensorView* lowerRank(const Value& v);

  std::mt19937_64 rng_;
  // Draws added after seeds were pinned as regressions (tryReduction's complementary
  // reduction): a stream of their own, so every earlier draw, and each pinned fusion's ops,
  // stay as they were.
  std::mt19937_64 extra_rng_;
  // Whether an operand explicitly broadcast on leading axes enters an op as it was before,
  // broadcast implicitly (lowerRank): a stream of its own, for the same reason.
  std::mt19937_64 broadcast_rng_;
  RandomFusionOptions options_;
  RandomFusion result_;
  std::set<TensorView*> lowered_;             // values lowerRank replaced at least once
  std::vector<TensorView*> reduced_outputs_;  // reductions without keep_dim, outputs
  std::vector<TensorView*> shaped_outputs_;   // values of other shapes (shape ops), outputs
  int64_t rank_ = 1;
  std::vector<int64_t> sizes_;
  std::vector<Value> pool_;
};

void Generator::chooseShape() {
  if (!options_.small && chance(10)) {
    const auto& shape = pickOf(kLargeShapes);
    sizes_ =
        shape[1] == 0 ? std::vector<int64_t>{shape[0]} : std::vector<int64_t>{shape[0], shape[1]};
  } else {
    rank_ = 1 + pick(4);
    sizes_.clear();
    for (int64_t i = 0; i < rank_; ++i) sizes_.push_back(pickOf(kSizes));
    // Shrink the largest axis until the fusion is cheap to evaluate on the CPU.
    auto numel = [&] {
      return std::accumulate(sizes_.begin(), sizes_.end(), int64_t{1}, std::multiplies<>());
    };
    while (numel() > (options_.small ? kSmallNumel : kMaxNumel)) {
      auto it = std::max_element(sizes_.begin(), sizes_.end());
      *it = std::max<int64_t>(*it / 7, 1);
    }
    if (chance(5)) sizes_[pick(rank_)] = 0;
    if ((options_.view_ops || options_.resize_ops) && chance(10)) sizes_[pick(rank_)] = 0;
  }
  rank_ = static_cast<int64_t>(sizes_.size());
}

Tensor Generator::layoutTensor(const Tensor& dense, InputLayout layout,
                               const std::vector<int64_t>& perm, std::vector<int64_t>& strides) {
  const std::vector<int64_t>& sizes = dense.sizes();
  const size_t rank = sizes.size();
  strides.assign(rank, 1);
  if (layout == InputLayout::Permuted) {
    // Dense in the order perm (outer to inner).
    int64_t stride = 1;
    for (size_t i = rank; i-- > 0;) {
      strides[perm[i]] = stride;
      stride *= std::max<int64_t>(sizes[perm[i]], 1);
    }
  } else {
    // Rows padded by 0-3 elements, an inner stride of 1 or 2, sometimes an expanded axis.
    int64_t stride = chance(50) ? 1 : 2;
    for (size_t i = rank; i-- > 0;) {
      strides[i] = stride;
      stride = stride * std::max<int64_t>(sizes[i], 1) + pick(4);
    }
    if (rank > 1 && chance(25)) strides[pick(static_cast<int64_t>(rank) - 1)] = 0;
  }
  int64_t storage = 1;
  for (size_t d = 0; d < rank; ++d) storage += std::max<int64_t>(sizes[d] - 1, 0) * strides[d];
  Tensor t = Tensor::emptyStrided(sizes, strides, storage, dense.dtype());
  // Copy the dense values element by element (an expanded axis keeps the last write).
  const int64_t bytes = dataTypeSize(dense.dtype());
  std::vector<int64_t> idx(rank, 0);
  for (int64_t linear = 0; linear < dense.numel(); ++linear) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d) offset += idx[d] * strides[d];
    storeElement(static_cast<std::byte*>(t.rawData()) + offset * bytes, dense.dtype(),
                 dense.value(linear));
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
    }
  }
  return t;
}

void Generator::addInput(int64_t index) {
  const DataType dtype = pickOf(kDtypes);
  // Input 0 has every axis, so a value depending on it covers the whole shape.
  enum { kFull, kDeclaredBroadcast, kLowerRank } shape_kind = kFull;
  if (index > 0 && rank_ > 1) {
    const int64_t r = pick(4);
    shape_kind = r == 2 ? kDeclaredBroadcast : r == 3 ? kLowerRank : kFull;
  }
  // Which full-rank axes the input has (the others are broadcast).
  std::vector<bool> has(rank_, true);
  if (shape_kind != kFull) {
    int64_t dropped = 0;
    for (int64_t i = 0; i < rank_; ++i)
      if (chance(50) && dropped + 1 < rank_) has[i] = false, ++dropped;
    if (dropped == 0) has[pick(rank_)] = false;
  }
  std::vector<int64_t> shape, sizes;  // the TensorView's shape (-1 symbolic, 1 broadcast)
  for (int64_t i = 0; i < rank_; ++i) {
    if (has[i]) {
      shape.push_back(-1);
      sizes.push_back(sizes_[i]);
    } else if (shape_kind == kDeclaredBroadcast) {
      shape.push_back(1);
      sizes.push_back(1);
    }
  }
  const int64_t rank = static_cast<int64_t>(shape.size());
  InputLayout layout = InputLayout::Contiguous;
  if (const int64_t r = pick(10); r >= 6)
    layout = (r >= 8 && rank >= 2) ? InputLayout::Permuted : InputLayout::Strided;

  std::vector<int64_t> perm(rank);
  std::iota(perm.begin(), perm.end(), 0);
  if (layout == InputLayout::Permuted)
    while (std::is_sorted(perm.begin(), perm.end())) std::shuffle(perm.begin(), perm.end(), rng_);

  TensorViewBuilder builder;
  builder.shape(shape).dtype(dtype);
  if (layout == InputLayout::Strided) {
    builder.contiguity(false);
  } else {
    builder.contiguity(true);
  }
  TensorView* tv = builder.build();
  if (layout == InputLayout::Permuted) {
    std::vector<IterDomain*> alloc;
    for (int64_t p : perm) alloc.push_back(tv->axis(p));
    tv->setAllocationDomain(alloc, true);
  }
  result_.fusion->addInput(tv);

  Tensor dense = Tensor::random(sizes, dtype, result_.seed * 7919 + static_cast<uint64_t>(index));
  std::vector<int64_t> strides;
  result_.inputs.push_back(
      layout == InputLayout::Contiguous ? dense : layoutTensor(dense, layout, perm, strides));
  result_.layouts.push_back(layout);

  if (shape_kind == kLowerRank) {
    std::vector<bool> flags;
    for (bool h : has) flags.push_back(!h);
    pool_.push_back({broadcast(tv, flags), true});
  } else {
    pool_.push_back({tv, true});
  }
}

bool Generator::tryUnary(Value& a) {
  const DataType t = a.tv->dtype();
  if (t == DataType::Bool) {
    pool_.push_back({logicalNot(a.tv), a.exact});
    return true;
  }
  // Correctly rounded (or exact) ops keep `exact`; transcendental ones do not.
  static TensorView* (*const kExact[])(TensorView*) = {neg, abs, relu, sqrt, reciprocal};
  static TensorView* (*const kTranscendental[])(TensorView*) = {exp,     log, rsqrt, tanh,
                                                                sigmoid, sin, cos};
  const int64_t r = pick(10);
  using Unary = TensorView* (*)(TensorView*);
  auto is = [](Unary op, Unary f) { return op == f; };
  // 1/x, rsqrt(x) and log(x) of an inexact x near 0 turn its last-place error into any
  // result (1 / (sum - x) with the sum's rounding): apply them to |x| + 1 instead.
  auto awayFromZero = [&](Unary op, TensorView* x) {
    if (a.exact || !(is(op, reciprocal) || is(op, rsqrt) || is(op, log))) return x;
    return add(abs(x), constFloat(1.0, DataType::Double));
  };
  if (r < 4) {
    const Unary op = pickOf(kExact);
    pool_.push_back({op(awayFromZero(op, a.tv)), a.exact});
  } else if (r < 8) {
    const Unary op = pickOf(kTranscendental);
    // sin and cos of an inexact value lose its relative error at large magnitudes (sin(1e20)
    // is noise): clamp the argument where a last-place difference cannot grow.
    TensorView* arg = awayFromZero(op, a.tv);
    if ((is(op, sin) || is(op, cos)) && !a.exact)
      arg = minimum(maximum(arg, constFloat(-8.0, DataType::Double)),
                    constFloat(8.0, DataType::Double));
    pool_.push_back({op(arg), false});
  } else {
    if (!a.exact) return false;
    pool_.push_back({chance(50) ? floor(a.tv) : ceil(a.tv), true});
  }
  return true;
}

// Mostly, when `v` is an explicit broadcast with leading Broadcast axes, `v` without them
// (the broadcast of the other axes alone, or its input): the op taking it broadcasts it
// implicitly to the same shape. Else `v`. Called only where the op is built, so that
// implicit_broadcasts counts ops.
TensorView* Generator::lowerRank(const Value& v) {
  auto* bcast = dynamic_cast<BroadcastOp*>(v.tv->definition());
  if (bcast == nullptr || !bcast->isBroadcastDims().front() || broadcast_rng_() % 4 == 0)
    return v.tv;
  std::vector<bool> rest = bcast->isBroadcastDims();
  rest.erase(rest.begin(), std::find(rest.begin(), rest.end(), false));
  ++result_.implicit_broadcasts;
  lowered_.insert(v.tv);
  auto* in = bcast->in()->as<TensorView>();
  return std::find(rest.begin(), rest.end(), true) == rest.end() ? in : broadcast(in, rest);
}

bool Generator::tryBinary(Value& a, Value& b) {
  const DataType ta = a.tv->dtype(), tb = b.tv->dtype();
  // The operands as the op takes them: at most one of rank lower than the fusion's.
  auto operands = [&] {
    TensorView* lhs = lowerRank(a);
    return std::pair{lhs, lhs == a.tv ? lowerRank(b) : b.tv};
  };
  if (ta == DataType::Bool && tb == DataType::Bool) {
    auto [x, y] = operands();
    pool_.push_back({chance(50) ? logicalAnd(x, y) : logicalOr(x, y), a.exact && b.exact});
    return true;
  }
  const bool exact = a.exact && b.exact;
  const bool floating = isFloatingType(promoteTypes(ta, tb));
  const int64_t r = pick(10);
  if (r < 3) {
    if (!exact) return false;
    static TensorView* (*const kCompare[])(TensorView*, TensorView*) = {lt, le, gt, ge, eq, ne};
    auto [x, y] = operands();
    pool_.push_back({pickOf(kCompare)(x, y), true});
    return true;
  }
  if (ta == DataType::Bool || tb == DataType::Bool) return false;  // no Bool arithmetic
  static TensorView* (*const kAlways[])(TensorView*, TensorView*) = {add, sub, maximum, minimum};
  auto [x, y] = operands();
  if (r < 7 || !floating) {
    pool_.push_back({pickOf(kAlways)(x, y), exact});
  } else if (chance(50)) {
    pool_.push_back({mul(x, y), exact});
  } else {
    // An inexact divisor near 0 turns its last-place error into any quotient: divide by
    // |b| + 1 instead, which is at least 1.
    TensorView* divisor = b.exact ? y : add(abs(y), constFloat(1.0, DataType::Double));
    pool_.push_back({div(x, divisor), exact});
  }
  return true;
}

bool Generator::tryScalarBinary(Value& a) {
  const DataType t = a.tv->dtype();
  if (t == DataType::Bool) return false;
  const int64_t r = pick(6);
  if (isIntegralType(t) && r < 3) {
    Val* s = constInt(pick(7) - 3, DataType::Int64);
    pool_.push_back({r == 0 ? add(a.tv, s) : r == 1 ? sub(a.tv, s) : maximum(a.tv, s), a.exact});
    return true;
  }
  static const double kScalars[] = {0.5, -1.25, 3.0, 1e-3};
  Val* s = constFloat(pickOf(kScalars), DataType::Double);
  switch (r) {
    case 0:
      pool_.push_back({add(a.tv, s), a.exact});
      return true;
    case 1:
      pool_.push_back({mul(a.tv, s), a.exact});
      return true;
    case 2:
      pool_.push_back({div(a.tv, s), a.exact});
      return true;
    case 3:
      pool_.push_back({pow(a.tv, constFloat(2.0, DataType::Double)), false});
      return true;
    default:
      if (!a.exact) return false;
      pool_.push_back({gt(a.tv, s), true});
      return true;
  }
}

bool Generator::tryWhere() {
  std::vector<Value*> conds;
  for (Value& v : pool_)
    if (v.tv->dtype() == DataType::Bool && v.exact) conds.push_back(&v);
  if (conds.empty()) return false;
  Value& c = *conds[pick(static_cast<int64_t>(conds.size()))];
  Value& a = operand();
  Value& b = operand();
  if ((a.tv->dtype() == DataType::Bool) != (b.tv->dtype() == DataType::Bool)) return false;
  TensorView* cond = lowerRank(c);
  TensorView* x = cond == c.tv ? lowerRank(a) : a.tv;
  TensorView* y = cond == c.tv && x == a.tv ? lowerRank(b) : b.tv;
  pool_.push_back({where(cond, x, y), a.exact && b.exact});
  return true;
}

bool Generator::tryCast(Value& a) {
  const DataType from = a.tv->dtype(), to = pickOf(kDtypes);
  if (isFloatingType(from) && (isIntegralType(to))) return false;
  if (to == DataType::Bool && !a.exact) return false;
  pool_.push_back({castOp(to, a.tv), a.exact});
  return true;
}

bool Generator::tryReduction(Value& a) {
  const DataType t = a.tv->dtype();
  if (t == DataType::Float8_e4m3fn) return false;  // no fp8 reductions in the API's dtypes
  // Reduce a random non-empty subset of the axes that are not broadcasts in `a`.
  std::vector<int64_t> candidates, axes;
  const std::vector<IterDomain*> logical = TensorDomain::noReductions(a.tv->getLogicalDomain());
  for (int64_t i = 0; i < static_cast<int64_t>(logical.size()); ++i)
    if (!logical[i]->isBroadcast()) candidates.push_back(i);
  if (candidates.empty()) return false;
  for (int64_t i : candidates)
    if (chance(40)) axes.push_back(i);
  if (axes.empty()) axes.push_back(candidates[pick(static_cast<int64_t>(candidates.size()))]);
  const int64_t op = t == DataType::Bool ? 0 : pick(3);
  auto reduce = [&](bool keep_dim) {
    return op == 0   ? sum(a.tv, axes, keep_dim)
           : op == 1 ? max(a.tv, axes, keep_dim)
                     : min(a.tv, axes, keep_dim);
  };
  const bool exact = a.exact && (op != 0 || !isFloatingType(a.tv->dtype()));
  if (chance(25)) reduced_outputs_.push_back(reduce(false));
  TensorView* operand = a.tv;  // `a` lives in pool_, which the push_back may move
  pool_.push_back({reduce(true), exact});
  // Sometimes also a sum over the other axes of the same operand, an output: a row sum and a
  // column sum of one input, as in layer norm backward (the inner-outer persistent
  // scheduler's shape, or the segmenter's cut between the two).
  if (op == 0 && axes.size() < candidates.size() && extra_rng_() % 100 < 30) {
    std::vector<int64_t> rest;
    for (int64_t i : candidates)
      if (std::find(axes.begin(), axes.end(), i) == axes.end()) rest.push_back(i);
    reduced_outputs_.push_back(sum(operand, rest));
  }
  return true;
}

#if MF_RANDOM_SHAPE_OPS
// An exact op in a transformed space (after a reshape, permute, pad...), half of the time, so
// that the scheduler carries the transform through a computation. Keeps the dtype (cat's
// parts must agree).
TensorView* Generator::midOp(TensorView* t) {
  if (chance(50)) return t;
  if (t->dtype() == DataType::Bool) return logicalNot(t);
  return chance(50) ? neg(t) : abs(t);
}

// A pad value of `dtype`'s kind, or nullptr (pad's default, zero).
Val* Generator::padValue(DataType dtype) {
  if (chance(50)) return nullptr;
  if (dtype == DataType::Bool) return constBool(true);
  if (isIntegralType(dtype)) return constInt(pick(7) - 3, DataType::Int64);
  static const double kValues[] = {1.5, -2.0, 0.25};
  return constFloat(pickOf(kValues), DataType::Double);
}

// A value of another shape is sometimes also an output (outputs of several shapes: the
// segmenter cuts where no scheduler covers them all).
void Generator::maybeOutput(TensorView* tv) {
  if (chance(15)) shaped_outputs_.push_back(tv);
}

// New sizes of the same element count: one or two merges of adjacent axes, splits of an
// axis by a divisor, or inserted 1s.
std::vector<int64_t> Generator::randomReshape(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> to = sizes;
  for (int64_t step = 1 + pick(2); step > 0; --step) {
    const int64_t r = static_cast<int64_t>(to.size()), kind = pick(3);
    if (kind == 0 && r >= 2) {
      const int64_t i = pick(r - 1);
      to[i] *= to[i + 1];
      to.erase(to.begin() + i + 1);
    } else if (kind == 1) {
      const int64_t i = pick(r), n = to[i];
      std::vector<int64_t> divisors;
      for (int64_t d = 2; d < n; ++d)
        if (n % d == 0) divisors.push_back(d);
      if (divisors.empty()) continue;
      const int64_t d = divisors[pick(static_cast<int64_t>(divisors.size()))];
      to[i] = d;
      to.insert(to.begin() + i + 1, n / d);
    } else if (to.size() < 6) {
      to.insert(to.begin() + pick(r + 1), 1);
    }
  }
  return to;
}

#if MF_RANDOM_VIEW_OPS
// expand of some broadcast axes of `a` to the fusion's extents (the other axes kept: -1).
bool Generator::tryExpand(Value& a) {
  const std::vector<IterDomain*> logical = TensorDomain::noReductions(a.tv->getLogicalDomain());
  std::vector<Val*> sizes;
  bool any = false;
  for (int64_t i = 0; i < rank_; ++i) {
    if (logical[i]->isBroadcast() && sizes_[i] != 1 && chance(70)) {
      any = true;
#if MF_RANDOM_DYNAMIC_SHAPES
      // Input 0 has every axis: its extent is the symbolic size (a dynamic expand).
      if (chance(50)) {
        sizes.push_back(
            result_.fusion->inputs()[0]->as<TensorView>()->getLogicalDomain()[i]->extent());
        continue;
      }
#endif
      sizes.push_back(constInt(sizes_[i], DataType::Int64));
    } else {
      sizes.push_back(constInt(-1, DataType::Int64));
    }
  }
  if (!any) return false;
  pool_.push_back({expand(a.tv, sizes), a.exact});
  return true;
}
#else
bool Generator::tryExpand(Value&) {
  return false;
}
#endif
#endif

// A round trip through shape ops that gives a value of the fusion's shape again: `a`'s
// broadcast axes squeezed, then one of
//   reshape to random sizes and back;            permute and back;
//   pad (positive widths), then slice back;      crop (negative pad or slice), pad back;
//   slices (some empty) cat back together;
// with an op between (midOp) and the intermediate sometimes an output, then the broadcast
// axes restored. Or an expand of broadcast axes. Every parameter is drawn before an op is
// built (no dead ops).
bool Generator::tryShapeOp(Value& a) {
#if MF_RANDOM_SHAPE_OPS
  if (chance(20)) return options_.view_ops && tryExpand(a);
  const std::vector<IterDomain*> logical = TensorDomain::noReductions(a.tv->getLogicalDomain());
  std::vector<bool> bcast;
  std::vector<int64_t> dims, s;
  for (int64_t i = 0; i < rank_; ++i) {
    bcast.push_back(logical[i]->isBroadcast());
    if (bcast.back())
      dims.push_back(i);
    else
      s.push_back(sizes_[i]);
  }
  const int64_t r = static_cast<int64_t>(s.size());
  if (r == 0) return false;
  const int64_t kind = pick(5), ax = pick(r), n = s[ax];
  // Only the families asked for (and built: a build without one draws the other only).
  const bool view = options_.view_ops && MF_RANDOM_VIEW_OPS;
  const bool resize = options_.resize_ops && MF_RANDOM_RESIZE_OPS;
  if ((!view && (kind < 2 || !dims.empty())) || (!resize && kind >= 2)) return false;
  std::vector<int64_t> to, perm(r);
  std::iota(perm.begin(), perm.end(), 0);
  if (kind == 0) {
    // A static reshape of an empty shape is a UserError at definition (analyzeView: remove
    // empty tensors first, or the dynamic form).
    if (std::find(s.begin(), s.end(), 0) != s.end()) return false;
    to = randomReshape(s);
    if (to == s) return false;
  } else if (kind == 1) {
    if (r < 2) return false;
    while (std::is_sorted(perm.begin(), perm.end())) std::shuffle(perm.begin(), perm.end(), rng_);
  }
  // Pad widths in PyTorch order (innermost axis first) for axis `ax`.
  auto widths = [&](int64_t left, int64_t right) {
    std::vector<Val*> w;
    for (int64_t d = r - 1; d >= ax; --d) {
      w.push_back(constInt(d == ax ? left : 0));
      w.push_back(constInt(d == ax ? right : 0));
    }
    return w;
  };
  std::vector<int64_t> starts(r, 0), stops = s;
  const DataType dtype = a.tv->dtype();

#if MF_RANDOM_VIEW_OPS
  TensorView* t = dims.empty() ? a.tv : squeeze(a.tv, dims);
#else
  TensorView* t = a.tv;
#endif
  TensorView* back = nullptr;
  switch (kind) {
#if MF_RANDOM_VIEW_OPS
    case 0: {
      TensorView* f = reshape(t, s, to);
      maybeOutput(f);
      back = reshape(midOp(f), to, s);
      break;
    }
    case 1: {
      std::vector<int64_t> inverse(r);
      for (int64_t i = 0; i < r; ++i) inverse[perm[i]] = i;
      TensorView* f = permute(t, perm);
      maybeOutput(f);
      back = permute(midOp(f), inverse);
      break;
    }
#endif
#if MF_RANDOM_RESIZE_OPS
    case 2: {
      const int64_t left = pick(4), right = left == 0 ? 1 + pick(3) : pick(4);
      TensorView* f = pad(t, widths(left, right), padValue(dtype));
      maybeOutput(f);
      starts[ax] = left;
      stops[ax] = left + n;
      back = slice(midOp(f), starts, stops);
      break;
    }
    case 3: {
      // Crop (to empty when left + right == n: the pad back is all pad value), pad back.
      const int64_t left = pick(std::min<int64_t>(n, 2) + 1);
      int64_t right = pick(std::min<int64_t>(n - left, 2) + 1);
      if (left + right == 0 && n > 0) right = 1;
      TensorView* f = nullptr;
      if (chance(50)) {
        f = pad(t, widths(-left, -right));
      } else {
        starts[ax] = left;
        stops[ax] = n - right;
        f = slice(t, starts, stops);
      }
      maybeOutput(f);
      back = pad(midOp(f), widths(left, right), padValue(dtype));
      break;
    }
    case 4: {
      // Two or three parts, empty where the cuts coincide.
      const int64_t k1 = pick(n + 1), k2 = k1 + pick(n - k1 + 1);
      std::vector<int64_t> cuts = {0, k1};
      if (chance(50)) cuts.push_back(k2);
      cuts.push_back(n);
      std::vector<TensorView*> parts;
      for (size_t i = 0; i + 1 < cuts.size(); ++i) {
        starts[ax] = cuts[i];
        stops[ax] = cuts[i + 1];
        parts.push_back(midOp(slice(t, starts, stops)));
      }
      back = cat(parts, ax);
      maybeOutput(back);
      break;
    }
#endif
  }
  if (!dims.empty()) back = broadcast(back, bcast);
  pool_.push_back({back, a.exact});
  return true;
#else
  (void)a;
  return false;
#endif
}

void Generator::addOp() {
  // Retry until an op fits its operands' dtypes (each try draws fresh operands).
  for (int attempt = 0; attempt < 20; ++attempt) {
    if (options_.reductions && chance(15) && tryReduction(operand())) return;
    if ((options_.view_ops || options_.resize_ops) && chance(30) && tryShapeOp(operand())) return;
    const int64_t r = pick(100);
    bool ok = false;
    if (r < 25)
      ok = tryUnary(operand());
    else if (r < 55)
      ok = tryBinary(operand(), operand());
    else if (r < 70)
      ok = tryScalarBinary(operand());
    else if (r < 82)
      ok = tryWhere();
    else
      ok = tryCast(operand());
    if (ok) return;
  }
}

// Every value nothing consumes (a failed attempt of addOp builds nothing), cast to Float and added
// up: one output that depends on every input (so it covers every axis) and keeps every op live.
TensorView* Generator::combineSinks() {
  TensorView* acc = nullptr;
  for (const Value& v : pool_) {
    if (!v.tv->uses().empty()) continue;
    // An explicit broadcast that every consumer took implicitly instead is no sink: the
    // fusion computes what it computed with the explicit one.
    if (lowered_.count(v.tv) > 0) continue;
    TensorView* term = v.tv->dtype() == DataType::Float ? v.tv : castOp(DataType::Float, v.tv);
    acc = acc == nullptr ? term : add(acc, term);
  }
  if (acc->isFusionInput()) acc = set(acc);
  return acc;
}

RandomFusion Generator::run() {
  result_.fusion = std::make_unique<Fusion>();
  FusionGuard fg(result_.fusion.get());
  chooseShape();
  const int64_t n_inputs = 1 + pick(4);
  for (int64_t i = 0; i < n_inputs; ++i) addInput(i);
  const int64_t n_inputs_values = static_cast<int64_t>(pool_.size());
  const int64_t n_ops = 1 + pick(8);
  for (int64_t i = 0; i < n_ops; ++i) addOp();

  // Extra outputs among the intermediate values, chosen before the sinks are combined.
  std::vector<TensorView*> extra;
  for (int64_t i = n_inputs_values; i < static_cast<int64_t>(pool_.size()); ++i)
    if (chance(20)) extra.push_back(pool_[i].tv);
  TensorView* out0 = combineSinks();
  result_.fusion->addOutput(out0);
  for (TensorView* tv : extra)
    if (tv != out0) result_.fusion->addOutput(tv);
  for (TensorView* tv : reduced_outputs_) result_.fusion->addOutput(tv);
  std::set<TensorView*> outputs(extra.begin(), extra.end());
  outputs.insert(out0);
  for (TensorView* tv : shaped_outputs_)
    if (outputs.insert(tv).second) result_.fusion->addOutput(tv);

  for (TensorView* tv : lowered_)  // dead: out of the fusion
    if (tv->uses().empty() && !tv->isFusionOutput()) result_.fusion->removeExpr(tv->definition());

  // One fusion in ten also computes something unrelated to the rest.
  if (chance(10)) {
    TensorView* lone = TensorViewBuilder().ndims(rank_).contiguity(true).build();
    result_.fusion->addInput(lone);
    result_.fusion->addOutput(neg(lone));
    result_.inputs.push_back(Tensor::random(sizes_, DataType::Float, result_.seed + 1));
    result_.layouts.push_back(InputLayout::Contiguous);
    result_.connected = false;
  }
  return std::move(result_);
}

}  // namespace

std::string_view toString(InputLayout l) {
  switch (l) {
    case InputLayout::Contiguous:
      return "contiguous";
    case InputLayout::Permuted:
      return "permuted";
    case InputLayout::Strided:
      return "strided";
  }
  return "?";
}

std::string RandomFusion::toString() const {
  std::string s = fmt::format("seed {}{}\n", seed, connected ? "" : " (disconnected)");
  for (size_t i = 0; i < inputs.size(); ++i)
    s += fmt::format("  input {}: {}[{}] strides [{}] {}\n", i, inputs[i].dtype(),
                     fmt::join(inputs[i].sizes(), ", "), fmt::join(inputs[i].strides(), ", "),
                     mf::testing::toString(layouts[i]));
  return s + fusion->mathString();
}

RandomFusion makeRandomFusion(uint64_t seed, RandomFusionOptions options) {
  return Generator(seed, options).run();
}

RandomFusion makeRandomPointwiseFusion(uint64_t seed) {
  return makeRandomFusion(seed, {});
}

std::vector<int64_t> randomFusionShape(uint64_t seed, RandomFusionOptions options) {
  return Generator(seed, options).shape();
}

std::vector<uint64_t> interpretedSeeds(const std::vector<uint64_t>& seeds,
                                       RandomFusionOptions options, int64_t max_numel) {
  if (!kSanitizerBuild) return seeds;
  std::vector<uint64_t> kept;
  for (uint64_t seed : seeds) {
    const std::vector<int64_t> shape = randomFusionShape(seed, options);
    const int64_t numel =
        std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
    if (numel <= max_numel) kept.push_back(seed);
  }
  return kept;
}

std::vector<uint64_t> seedRange(uint64_t first, uint64_t count) {
  std::vector<uint64_t> seeds(count);
  std::iota(seeds.begin(), seeds.end(), first);
  return seeds;
}

bool randomShapeOpsAvailable() {
  return MF_RANDOM_VIEW_OPS && MF_RANDOM_RESIZE_OPS;
}

bool closeToReference(double got, double ref, DataType dtype, double slack) {
  if (std::isnan(got) || std::isnan(ref)) return std::isnan(got) && std::isnan(ref);
  if (!isFloatingType(dtype)) return got == ref;
  if (std::isinf(got) || std::isinf(ref)) return got == ref;
  // Float math (and Double outputs of Float math) differ in the last place of a
  // transcendental function, which later ops can amplify: relative 1e-3.
  double rtol = 1e-3, atol = 1e-5;
  if (dtype == DataType::Half || dtype == DataType::BFloat16) rtol = 2e-2, atol = 1e-2;
  if (dtype == DataType::Float8_e4m3fn) rtol = 0.13, atol = 0.02;
  return std::abs(got - ref) <= atol + rtol * std::abs(ref) + slack;
}

}  // namespace mf::testing
