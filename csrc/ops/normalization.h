//! Composite ops with nvFuser's names and signatures (its csrc/ops/normalization.h): mean,
//! variance, var_mean, standard deviation, softmax, log-softmax, layer norm and RMS norm, each
//! built from the primitives of ops/arith.h and ops/reduction.h (sums and maxima kept as
//! size-1 axes and broadcast back: the inner persistent scheduler's pattern). Negative dims
//! count from the end. Half, BFloat16 and float8 inputs compute in Float; the main result is
//! cast back to the input's dtype (mean and invstd of the norms stay Float, as PyTorch's).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/tensor_view.h"

namespace mf {

//! layer_norm's results: the normalized output, and the per-row mean and 1/sqrt(var + eps),
//! both with the normalized axes kept as size-1 Broadcast axes.
struct ForwardNormResult {
  TensorView* output = nullptr;
  TensorView* mean = nullptr;
  TensorView* invstd = nullptr;
};

//! rms_norm's results: the output and 1/sqrt(mean(x^2) + eps) (normalized axes kept, size 1).
struct ForwardRMSNormResult {
  TensorView* output = nullptr;
  TensorView* invstd = nullptr;
};

//! variance_mean's results.
struct VarMeanResult {
  TensorView* var = nullptr;
  TensorView* mean = nullptr;
};

//! sum(x, dims) / (the product of their extents); empty `dims` means every axis, as sum's.
TensorView* mean(TensorView* x, const std::vector<int64_t>& dims, bool keepdim);

//! sum((x - mean)^2, dims) / max(N - correction, 0), N the reduced element count (two
//! passes: the mean first). `unbiased` is correction 1. A correction past N gives inf (or
//! NaN where the sum is 0), as PyTorch. A negative correction is a UserError.
TensorView* variance(TensorView* x, const std::vector<int64_t>& dims, bool unbiased, bool keepdim);
TensorView* variance(TensorView* x, const std::vector<int64_t>& dims, int64_t correction,
                     bool keepdim);
//! The correction as an integer scalar of the fusion (a run-time value).
TensorView* variance(TensorView* x, const std::vector<int64_t>& dims, Val* correction,
                     bool keepdim);

//! variance and mean from one reduction of x for the mean (nvFuser's variance_mean).
VarMeanResult variance_mean(TensorView* x, const std::vector<int64_t>& dims, int64_t correction,
                            bool keepdim);
//! The same, with PyTorch's name (torch.var_mean).
VarMeanResult var_mean(TensorView* x, const std::vector<int64_t>& dims, int64_t correction,
                       bool keepdim);

//! sqrt(variance(x, dims, unbiased, keepdim)).
TensorView* standard_deviation(TensorView* x, const std::vector<int64_t>& dims, bool unbiased,
                               bool keepdim);

//! exp(x - max) / sum(exp(x - max)) along `dim`.
TensorView* softmax(TensorView* x, int64_t dim);
//! (x - max) - log(sum(exp(x - max))) along `dim`.
TensorView* log_softmax(TensorView* x, int64_t dim);

//! (x - mean) * rsqrt(var + eps) [* weight] [+ bias] over the last norm_shape.size() axes
//! (only the count of norm_shape matters, as nvFuser's); variance biased, two passes. weight
//! and bias (null to leave out) have one axis per normalized axis and broadcast over the
//! others. `eps` is a floating scalar.
ForwardNormResult layer_norm(TensorView* x, const std::vector<int64_t>& norm_shape,
                             TensorView* weight, TensorView* bias, Val* eps);
ForwardNormResult layer_norm(TensorView* x, int64_t kNormShapeNumDims, TensorView* weight,
                             TensorView* bias, Val* eps);

//! x * rsqrt(mean(x^2) + eps) [* weight] over the last norm_shape.size() axes.
ForwardRMSNormResult rms_norm(TensorView* x, const std::vector<int64_t>& norm_shape,
                              TensorView* weight, Val* eps);
ForwardRMSNormResult rms_norm(TensorView* x, int64_t kNormShapeNumDims, TensorView* weight,
                              Val* eps);

}  // namespace mf
