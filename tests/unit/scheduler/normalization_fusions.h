// The normalizations the inner persistent scheduler is for, built over a [rows..., row]
// input of `dtype` (math in float, the output in `dtype`, as PyTorch's bf16 kernels): softmax
// and log-softmax over the last axis, RMS norm and layer norm with a [row] weight, NVFP4's
// block scaling x / max(|x|) over the last axis of [M, G, 16], and the backward of layer
// norm and RMS norm (an inner and an outer reduction of the same rows, the inner-outer
// scheduler's), and residual add + RMS norm. Shared by the CPU tests,
// the GPU tests, the golden kernels and tools/bench/persistent_bench.cpp.
#pragma once

#include "minifuser.h"

namespace mf::testing {

//! The input as float (a cast only when it is not float already).
inline TensorView* asFloat(TensorView* x) {
  return x->dtype() == DataType::Float ? x : castOp(DataType::Float, x);
}

inline TensorView* asDtype(TensorView* x, DataType dtype) {
  return dtype == DataType::Float ? x : castOp(dtype, x);
}

//! Broadcasts a tensor reduced over the last axis of a rank-`rank` tensor back over it.
inline TensorView* backOverRow(TensorView* reduced, int64_t rank) {
  std::vector<bool> flags(static_cast<size_t>(rank), false);
  flags.back() = true;
  return broadcast(reduced, flags);
}

//! softmax(x) over the last axis: exp(x - max) / sum(exp(x - max)).
inline void buildSoftmax(Fusion& f, DataType dtype, int64_t rank = 2) {
  TensorView* in = makeContigTensor(rank, dtype);
  f.addInput(in);
  TensorView* x = asFloat(in);
  TensorView* m = max(x, {-1});
  TensorView* e = exp(sub(x, backOverRow(m, rank)));
  TensorView* s = sum(e, {-1});
  f.addOutput(asDtype(div(e, backOverRow(s, rank)), dtype));
}

//! log_softmax(x) over the last axis: (x - max) - log(sum(exp(x - max))).
inline void buildLogSoftmax(Fusion& f, DataType dtype) {
  TensorView* in = makeContigTensor(2, dtype);
  f.addInput(in);
  TensorView* x = asFloat(in);
  TensorView* shifted = sub(x, backOverRow(max(x, {-1}), 2));
  TensorView* lse = log(sum(exp(shifted), {-1}));
  f.addOutput(asDtype(sub(shifted, backOverRow(lse, 2)), dtype));
}

//! x * rsqrt(mean(x^2) + eps) * w, w of shape [row].
inline void buildRmsNorm(Fusion& f, DataType dtype, double eps = 1e-6) {
  TensorView* in = makeContigTensor(2, dtype);
  TensorView* w = makeContigTensor(1, dtype);
  f.addInput(in);
  f.addInput(w);
  TensorView* x = asFloat(in);
  TensorView* ms = div(sum(mul(x, x), {-1}), in->axis(1)->extent());
  TensorView* inv = rsqrt(add(ms, constFloat(eps, DataType::Float)));
  TensorView* wb = broadcast(asFloat(w), {true, false});
  TensorView* y = mul(mul(x, backOverRow(inv, 2)), wb);
  f.addOutput(asDtype(y, dtype));
}

//! (x - mean) * rsqrt(var + eps) * w + b (two-pass variance), w and b of shape [row].
inline void buildLayerNorm(Fusion& f, DataType dtype, double eps = 1e-5) {
  TensorView* in = makeContigTensor(2, dtype);
  TensorView* w = makeContigTensor(1, dtype);
  TensorView* b = makeContigTensor(1, dtype);
  f.addInput(in);
  f.addInput(w);
  f.addInput(b);
  TensorView* x = asFloat(in);
  Val* n = in->axis(1)->extent();
  TensorView* d = sub(x, backOverRow(div(sum(x, {-1}), n), 2));
  TensorView* var = div(sum(mul(d, d), {-1}), n);
  TensorView* inv = rsqrt(add(var, constFloat(eps, DataType::Float)));
  TensorView* wb = broadcast(asFloat(w), {true, false});
  TensorView* bb = broadcast(asFloat(b), {true, false});
  TensorView* y = add(mul(mul(d, backOverRow(inv, 2)), wb), bb);
  f.addOutput(asDtype(y, dtype));
}

//! Residual add + RMS norm forward: h = x + r, y = rms_norm(h) * w; inputs x, r [M, N] and w
//! [N] of `dtype`, outputs h and y of `dtype` (h rounded to `dtype` first, as PyTorch's).
inline void buildResidualRmsNorm(Fusion& f, DataType dtype, double eps = 1e-6) {
  TensorView* x = makeContigTensor(2, dtype);
  TensorView* r = makeContigTensor(2, dtype);
  TensorView* w = makeContigTensor(1, dtype);
  for (TensorView* tv : {x, r, w}) f.addInput(tv);
  TensorView* h_out = asDtype(add(asFloat(x), asFloat(r)), dtype);
  f.addOutput(h_out);
  TensorView* h = asFloat(h_out);
  TensorView* ms = div(sum(mul(h, h), {-1}), x->axis(1)->extent());
  TensorView* inv = rsqrt(add(ms, constFloat(eps, DataType::Float)));
  TensorView* y = mul(mul(h, backOverRow(inv, 2)), broadcast(asFloat(w), {true, false}));
  f.addOutput(asDtype(y, dtype));
}

//! A per-row value [M] broadcast over the row of a [M, N] tensor.
inline TensorView* overRow(TensorView* per_row) {
  return broadcast(per_row, {false, true});
}

//! Layer norm backward from primitives (the inner-outer pattern): inputs dy, x [M, N] of
//! `dtype`, mean, rstd [M] float, w [N] of `dtype`; outputs dx [M, N] of `dtype`, dw and db
//! [N] float. xhat = (x - mean) * rstd, g = w * dy,
//! dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), dw = sum over rows of dy * xhat,
//! db = sum over rows of dy; math in float.
inline void buildLayerNormBackward(Fusion& f, DataType dtype) {
  TensorView* dy_in = makeContigTensor(2, dtype);
  TensorView* x_in = makeContigTensor(2, dtype);
  TensorView* mean = makeContigTensor(1);
  TensorView* rstd = makeContigTensor(1);
  TensorView* w = makeContigTensor(1, dtype);
  for (TensorView* tv : {dy_in, x_in, mean, rstd, w}) f.addInput(tv);
  TensorView* dy = asFloat(dy_in);
  TensorView* xhat = mul(sub(asFloat(x_in), overRow(mean)), overRow(rstd));
  TensorView* g = mul(broadcast(asFloat(w), {true, false}), dy);
  Val* n = x_in->axis(1)->extent();
  TensorView* mean_g = div(sum(g, {1}), n);
  TensorView* mean_gx = div(sum(mul(g, xhat), {1}), n);
  TensorView* centered = sub(sub(g, backOverRow(mean_g, 2)), mul(xhat, backOverRow(mean_gx, 2)));
  f.addOutput(asDtype(mul(centered, overRow(rstd)), dtype));
  f.addOutput(sum(mul(dy, xhat), {0}));
  f.addOutput(sum(dy, {0}));
}

//! RMS norm backward from primitives: inputs dy, x [M, N] of `dtype`, rstd [M] float, w [N]
//! of `dtype`; outputs dx [M, N] of `dtype` and dw [N] float. xhat = x * rstd, g = w * dy,
//! dx = rstd * (g - xhat * mean(g * xhat)), dw = sum over rows of dy * xhat.
inline void buildRmsNormBackward(Fusion& f, DataType dtype) {
  TensorView* dy_in = makeContigTensor(2, dtype);
  TensorView* x_in = makeContigTensor(2, dtype);
  TensorView* rstd = makeContigTensor(1);
  TensorView* w = makeContigTensor(1, dtype);
  for (TensorView* tv : {dy_in, x_in, rstd, w}) f.addInput(tv);
  TensorView* dy = asFloat(dy_in);
  TensorView* xhat = mul(asFloat(x_in), overRow(rstd));
  TensorView* g = mul(broadcast(asFloat(w), {true, false}), dy);
  TensorView* mean_gx = div(sum(mul(g, xhat), {1}), x_in->axis(1)->extent());
  TensorView* dx = mul(sub(g, mul(xhat, backOverRow(mean_gx, 2))), overRow(rstd));
  f.addOutput(asDtype(dx, dtype));
  f.addOutput(sum(mul(dy, xhat), {0}));
}

//! NVFP4's block scaling before the scales are laid out: x / max(|x|) over blocks of 16, the
//! input [M, G, 16].
inline void buildBlockScale(Fusion& f, DataType dtype) {
  TensorView* in = makeContigTensor(3, dtype);
  f.addInput(in);
  TensorView* x = asFloat(in);
  TensorView* amax = max(abs(x), {-1});
  f.addOutput(asDtype(div(x, backOverRow(amax, 3)), dtype));
}

}  // namespace mf::testing
