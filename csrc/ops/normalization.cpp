#include "ops/normalization.h"

#include <fmt/ranges.h>

#include <numeric>

#include "ir/builder.h"
#include "ir/fusion.h"
#include "ops/arith.h"
#include "ops/operands.h"
#include "ops/reduction.h"

namespace mf {
namespace {

int64_t rankOf(TensorView* x) {
  return static_cast<int64_t>(TensorDomain::noReductions(x->getLogicalDomain()).size());
}

// The fusion of `x`, the input of `op` (the op builds there, as the reductions do).
Fusion* fusionOf(std::string_view op, TensorView* x) {
  MF_CHECK(x != nullptr, "{}: the input tensor is null", op);
  return x->fusion();
}

// The composite ops compute narrow floats in Float, as nvFuser's frontends and PyTorch do.
TensorView* upcast(TensorView* x) {
  return isNarrowFloat(x->dtype()) ? castOp(DataType::Float, x) : x;
}

TensorView* castTo(TensorView* y, DataType dtype) {
  return y->dtype() == dtype ? y : castOp(dtype, y);
}

// `dims` in [0, rank), each once; empty means every axis (sum's convention).
std::vector<int64_t> wrapDims(std::string_view op, TensorView* x, std::vector<int64_t> dims) {
  const int64_t rank = rankOf(x);
  if (dims.empty()) {
    dims.resize(rank);
    std::iota(dims.begin(), dims.end(), 0);
  }
  for (int64_t& d : dims) {
    MF_CHECK(d >= -rank && d < rank, "{}: dim {} is out of range for {} of rank {}", op, d,
             x->toString(), rank);
    if (d < 0) d += rank;
  }
  return dims;
}

// The number of elements the axes `dims` of `x` hold, an Index scalar.
Val* numFeatures(TensorView* x, const std::vector<int64_t>& dims) {
  const std::vector<IterDomain*> ids = TensorDomain::noReductions(x->getLogicalDomain());
  Val* n = nullptr;
  for (int64_t d : dims) n = n == nullptr ? ids[d]->extent() : mul(n, ids[d]->extent());
  return n == nullptr ? constInt(1) : n;
}

// The last `num_dims` axes of `x`, for layer_norm and rms_norm.
std::vector<int64_t> normAxes(std::string_view op, TensorView* x, int64_t num_dims) {
  const int64_t rank = rankOf(x);
  MF_CHECK(num_dims >= 1 && num_dims <= rank,
           "{}: the normalized shape has {} dims; {} has rank {}, expected 1 to {}", op, num_dims,
           x->toString(), rank, rank);
  std::vector<int64_t> axes(num_dims);
  std::iota(axes.begin(), axes.end(), rank - num_dims);
  return axes;
}

// The broadcast flags that put a value reduced over `axes` back over `x`'s shape.
std::vector<bool> rowMask(TensorView* x, const std::vector<int64_t>& axes) {
  std::vector<bool> mask(rankOf(x), false);
  for (int64_t a : axes) mask[a] = true;
  return mask;
}

// weight or bias of a norm over `num_dims` axes, as Float (null stays null).
TensorView* normParam(std::string_view op, std::string_view arg, TensorView* p, int64_t num_dims) {
  if (p == nullptr) return nullptr;
  checkOperand(op, arg, p, FusionGuard::current(), "the input's");
  MF_CHECK(rankOf(p) == num_dims,
           "{}: {} {} has rank {}; expected {}, one axis per normalized axis", op, arg,
           p->toString(), rankOf(p), num_dims);
  return upcast(p);
}

// Two-pass moments of `x` over `axes` (wrapped), in Float for narrow floats: the element
// count n, the mean (the axes reduced), x - mean, and the sum of squares of x - mean (the axes
// kept with `keepdim`).
struct Moments {
  Val* n;
  TensorView* mean;
  TensorView* centered;
  TensorView* squares;
};
Moments momentsOf(TensorView* x, const std::vector<int64_t>& axes, bool keepdim) {
  TensorView* xf = upcast(x);
  Val* n = numFeatures(x, axes);
  TensorView* m = div(sum(xf, axes), n);
  TensorView* centered = sub(xf, broadcast(m, rowMask(x, axes)));
  return {n, m, centered, sum(mul(centered, centered), axes, keepdim)};
}

// The variance from its moments: squares / max(n - correction, 0).
TensorView* varianceOf(const Moments& moments, Val* correction) {
  return div(moments.squares, maximum(sub(moments.n, correction), constInt(0)));
}

void checkEps(std::string_view op, Val* eps) {
  MF_CHECK(eps != nullptr, "{}: eps is null", op);
  MF_CHECK(eps->kind() == ValKind::Scalar && isFloatingType(eps->dtype()),
           "{}: eps {} must be a floating scalar, got {}", op, eps->toString(), eps->dtype());
}

}  // namespace

TensorView* mean(TensorView* x, const std::vector<int64_t>& dims, bool keepdim) {
  FusionGuard fg(fusionOf("mean", x));
  std::vector<int64_t> axes = wrapDims("mean", x, dims);
  return castTo(div(sum(upcast(x), axes, keepdim), numFeatures(x, axes)), x->dtype());
}

TensorView* variance(TensorView* x, const std::vector<int64_t>& dims, bool unbiased, bool keepdim) {
  return variance(x, dims, int64_t{unbiased ? 1 : 0}, keepdim);
}

TensorView* variance(TensorView* x, const std::vector<int64_t>& dims, int64_t correction,
                     bool keepdim) {
  MF_CHECK(correction >= 0, "variance: correction must be non-negative, got {}", correction);
  FusionGuard fg(fusionOf("variance", x));
  return variance(x, dims, constInt(correction), keepdim);
}

TensorView* variance(TensorView* x, const std::vector<int64_t>& dims, Val* correction,
                     bool keepdim) {
  FusionGuard fg(fusionOf("variance", x));
  checkOperand("variance", "correction", correction, x->fusion(), "the input's");
  MF_CHECK(correction->kind() == ValKind::Scalar && isIntegralType(correction->dtype()),
           "variance: correction {} must be an integer scalar, got {}", correction->toString(),
           correction->dtype());
  std::vector<int64_t> axes = wrapDims("variance", x, dims);
  const Moments moments = momentsOf(x, axes, keepdim);
  return castTo(varianceOf(moments, correction), x->dtype());
}

VarMeanResult variance_mean(TensorView* x, const std::vector<int64_t>& dims, int64_t correction,
                            bool keepdim) {
  MF_CHECK(correction >= 0, "variance_mean: correction must be non-negative, got {}", correction);
  FusionGuard fg(fusionOf("variance_mean", x));
  std::vector<int64_t> axes = wrapDims("variance_mean", x, dims);
  const Moments moments = momentsOf(x, axes, keepdim);
  TensorView* var = varianceOf(moments, constInt(correction));
  // The mean kept as an output gets a broadcast of its own (nothing else reads it).
  TensorView* m = keepdim ? broadcast(moments.mean, rowMask(x, axes)) : moments.mean;
  return {castTo(var, x->dtype()), castTo(m, x->dtype())};
}

VarMeanResult var_mean(TensorView* x, const std::vector<int64_t>& dims, int64_t correction,
                       bool keepdim) {
  return variance_mean(x, dims, correction, keepdim);
}

TensorView* standard_deviation(TensorView* x, const std::vector<int64_t>& dims, bool unbiased,
                               bool keepdim) {
  TensorView* var = variance(x, dims, unbiased, keepdim);
  FusionGuard fg(x->fusion());
  return castTo(sqrt(upcast(var)), x->dtype());
}

TensorView* softmax(TensorView* x, int64_t dim) {
  FusionGuard fg(fusionOf("softmax", x));
  std::vector<int64_t> axis = wrapDims("softmax", x, {dim});
  TensorView* xf = upcast(x);
  TensorView* e = exp(sub(xf, max(xf, axis, /*keep_dim=*/true)));
  return castTo(div(e, sum(e, axis, /*keep_dim=*/true)), x->dtype());
}

TensorView* log_softmax(TensorView* x, int64_t dim) {
  FusionGuard fg(fusionOf("log_softmax", x));
  std::vector<int64_t> axis = wrapDims("log_softmax", x, {dim});
  TensorView* xf = upcast(x);
  TensorView* shifted = sub(xf, max(xf, axis, /*keep_dim=*/true));
  TensorView* lse = log(sum(exp(shifted), axis, /*keep_dim=*/true));
  return castTo(sub(shifted, lse), x->dtype());
}

ForwardNormResult layer_norm(TensorView* x, const std::vector<int64_t>& norm_shape,
                             TensorView* weight, TensorView* bias, Val* eps) {
  return layer_norm(x, static_cast<int64_t>(norm_shape.size()), weight, bias, eps);
}

ForwardNormResult layer_norm(TensorView* x, int64_t kNormShapeNumDims, TensorView* weight,
                             TensorView* bias, Val* eps) {
  FusionGuard fg(fusionOf("layer_norm", x));
  checkEps("layer_norm", eps);
  std::vector<int64_t> axes = normAxes("layer_norm", x, kNormShapeNumDims);
  TensorView* w = normParam("layer_norm", "weight", weight, kNormShapeNumDims);
  TensorView* b = normParam("layer_norm", "bias", bias, kNormShapeNumDims);
  const Moments moments = momentsOf(x, axes, /*keepdim=*/false);
  TensorView* invstd = rsqrt(add(div(moments.squares, moments.n), eps));
  TensorView* y = mul(moments.centered, broadcast(invstd, rowMask(x, axes)));
  if (w != nullptr) y = mul(y, w);  // implicit broadcasting over the outer axes
  if (b != nullptr) y = add(y, b);
  return {castTo(y, x->dtype()), broadcast(moments.mean, rowMask(x, axes)),
          broadcast(invstd, rowMask(x, axes))};
}

ForwardRMSNormResult rms_norm(TensorView* x, const std::vector<int64_t>& norm_shape,
                              TensorView* weight, Val* eps) {
  return rms_norm(x, static_cast<int64_t>(norm_shape.size()), weight, eps);
}

ForwardRMSNormResult rms_norm(TensorView* x, int64_t kNormShapeNumDims, TensorView* weight,
                              Val* eps) {
  FusionGuard fg(fusionOf("rms_norm", x));
  checkEps("rms_norm", eps);
  std::vector<int64_t> axes = normAxes("rms_norm", x, kNormShapeNumDims);
  TensorView* w = normParam("rms_norm", "weight", weight, kNormShapeNumDims);
  TensorView* xf = upcast(x);
  TensorView* ms = div(sum(mul(xf, xf), axes), numFeatures(x, axes));
  TensorView* invstd = rsqrt(add(ms, eps));
  TensorView* y = mul(xf, broadcast(invstd, rowMask(x, axes)));
  if (w != nullptr) y = mul(y, w);
  return {castTo(y, x->dtype()), broadcast(invstd, rowMask(x, axes))};
}

}  // namespace mf
