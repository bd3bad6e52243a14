// The composite ops of ops/normalization.h (nvFuser's softmax, log_softmax, layer_norm,
// rms_norm, mean, variance, variance_mean/var_mean, standard_deviation): each through
// FusionExecutorCache, its kernels run (on the device with a GPU, on the host interpreter
// without) and compared with the CPU reference and with the same math written here in double.
// The normalizations are one inner persistent kernel at the sizes the issue names.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "cuda/driver.h"
#include "minifuser.h"
#include "random/kernel_interpreter.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// The outputs of `fec`'s kernels for `in`: the device's with a GPU, else the host
// interpreter's (runFusionWithInputs compiles every kernel either way).
std::vector<Tensor> runKernels(FusionExecutorCache& fec, const std::vector<Tensor>& in) {
  std::vector<Tensor> out = fec.runFusionWithInputs(in);
  if (cuda::cudaAvailable()) {
    for (Tensor& t : out) t = t.toHost();
    return out;
  }
  return fec.getMostRecentKernelRuntime()->runOnHost(in, testing::interpretKernelOrThrow);
}

std::vector<double> values(const Tensor& t) {
  std::vector<double> v(t.numel());
  for (int64_t i = 0; i < t.numel(); ++i) v[i] = t.item(i);
  return v;
}

// Tolerances for a result of `dtype` computed in float: float's last places over a row of
// a thousand terms, or the narrow dtype's rounding.
double tolerance(DataType dtype) {
  return dtype == DataType::Float ? 2e-5 : 1.6e-2;
}

void expectClose(const Tensor& got, const std::vector<double>& want, double tol,
                 const std::string& what) {
  ASSERT_EQ(got.numel(), static_cast<int64_t>(want.size())) << what;
  for (int64_t i = 0; i < got.numel(); ++i) {
    if (std::isnan(want[i]) || std::isinf(want[i])) {
      ASSERT_TRUE(std::isnan(want[i]) ? std::isnan(got.item(i)) : got.item(i) == want[i])
          << what << ", element " << i << ": " << got.item(i) << " vs " << want[i];
      continue;
    }
    ASSERT_NEAR(got.item(i), want[i], tol * (1 + std::abs(want[i]))) << what << ", element " << i;
  }
}

// Per row of `n` contiguous elements: softmax, or log-softmax when `log`.
std::vector<double> softmaxRows(const std::vector<double>& x, int64_t n, bool log) {
  std::vector<double> y(x.size());
  for (size_t r = 0; r < x.size() / n; ++r) {
    const double* row = &x[r * n];
    double m = -INFINITY, s = 0;
    for (int64_t i = 0; i < n; ++i) m = std::max(m, row[i]);
    for (int64_t i = 0; i < n; ++i) s += std::exp(row[i] - m);
    for (int64_t i = 0; i < n; ++i)
      y[r * n + i] = log ? row[i] - m - std::log(s) : std::exp(row[i] - m) / s;
  }
  return y;
}

// Per row of `n`: the mean, the biased variance and the mean of squares.
struct RowStats {
  std::vector<double> mean, var, mean_sq;
};
RowStats rowStats(const std::vector<double>& x, int64_t n) {
  RowStats st;
  for (size_t r = 0; r < x.size() / n; ++r) {
    double s = 0, sq = 0, d2 = 0;
    for (int64_t i = 0; i < n; ++i) s += x[r * n + i], sq += x[r * n + i] * x[r * n + i];
    const double m = s / static_cast<double>(n);
    for (int64_t i = 0; i < n; ++i) d2 += (x[r * n + i] - m) * (x[r * n + i] - m);
    st.mean.push_back(m);
    st.var.push_back(d2 / static_cast<double>(n));
    st.mean_sq.push_back(sq / static_cast<double>(n));
  }
  return st;
}

void expectOnePersistentKernel(FusionExecutorCache& fec) {
  FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
  ASSERT_FALSE(rt->isSegmented()) << rt->fusionSegments()->toString();
  EXPECT_EQ(rt->heuristics().at(0)->schedulerType(), SchedulerType::InnerPersistent);
  EXPECT_EQ(rt->kernelCount(), 1);
}

struct SoftmaxCase {
  DataType dtype;
  std::vector<int64_t> shape;
  int64_t dim;
};

// softmax and log_softmax over the last axis (given as -1 or as its index): one persistent
// kernel, the hand-computed values, and the output in the input's dtype.
TEST(CompositeOps, SoftmaxAndLogSoftmax) {
  for (bool log : {false, true}) {
    for (const SoftmaxCase& c :
         {SoftmaxCase{DataType::Float, {8, 1024}, -1}, SoftmaxCase{DataType::Float, {5, 13}, 1},
          SoftmaxCase{DataType::Float, {1, 1}, -1}, SoftmaxCase{DataType::BFloat16, {3, 1031}, 1},
          SoftmaxCase{DataType::Half, {2, 3, 257}, -1}}) {
      const std::string what = fmt::format("{} {} [{}] dim {}", log ? "log_softmax" : "softmax",
                                           c.dtype, fmt::join(c.shape, ", "), c.dim);
      auto fusion = std::make_unique<Fusion>();
      {
        FusionGuard fg(fusion.get());
        TensorView* x = makeContigTensor(static_cast<int64_t>(c.shape.size()), c.dtype);
        fusion->addInput(x);
        TensorView* y = log ? log_softmax(x, c.dim) : softmax(x, c.dim);
        EXPECT_EQ(y->dtype(), c.dtype);
        fusion->addOutput(y);
      }
      FusionExecutorCache fec(std::move(fusion));
      const std::vector<Tensor> in = {Tensor::random(c.shape, c.dtype, 17)};
      const std::vector<Tensor> got = runKernels(fec, in);
      expectOnePersistentKernel(fec);
      const std::vector<Tensor> ref = ReferenceEvaluator(fec.fusion()).run(in);
      expectClose(got.at(0), values(ref.at(0)), tolerance(c.dtype), what + " vs reference");
      expectClose(got.at(0), softmaxRows(values(in[0]), c.shape.back(), log), tolerance(c.dtype),
                  what + " vs double");
    }
  }
}

// layer_norm and rms_norm with weight (and bias) of the row's shape, [N, 1024]-ish rows:
// one persistent kernel; output, mean and invstd as computed in double; mean and invstd in
// Float with the row kept as a size-1 axis, the output in the input's dtype.
TEST(CompositeOps, LayerNormAndRmsNorm) {
  for (DataType dtype : {DataType::Float, DataType::BFloat16}) {
    for (std::vector<int64_t> shape : {std::vector<int64_t>{6, 1024}, {3, 1000}, {7, 13}}) {
      const int64_t n = shape.back();
      const double eps = 1e-5;
      for (bool rms : {false, true}) {
        const std::string what = fmt::format("{} {} [{}]", rms ? "rms_norm" : "layer_norm", dtype,
                                             fmt::join(shape, ", "));
        auto fusion = std::make_unique<Fusion>();
        {
          FusionGuard fg(fusion.get());
          TensorView* x = makeContigTensor(2, dtype);
          TensorView* w = makeContigTensor(1, dtype);
          TensorView* b = makeContigTensor(1, dtype);
          fusion->addInput(x);
          fusion->addInput(w);
          Val* e = constFloat(eps);
          if (rms) {
            ForwardRMSNormResult r = rms_norm(x, std::vector<int64_t>{n}, w, e);
            fusion->addOutput(r.output);
            fusion->addOutput(r.invstd);
            EXPECT_TRUE(r.invstd->axis(1)->isBroadcast());
          } else {
            fusion->addInput(b);
            auto [out, mean, invstd] = layer_norm(x, std::vector<int64_t>{n}, w, b, e);
            EXPECT_EQ(out->dtype(), dtype);
            EXPECT_EQ(mean->dtype(), DataType::Float);
            EXPECT_TRUE(mean->axis(1)->isBroadcast());
            for (TensorView* tv : {out, mean, invstd}) fusion->addOutput(tv);
          }
        }
        FusionExecutorCache fec(std::move(fusion));
        std::vector<Tensor> in = {Tensor::random(shape, dtype, 3), Tensor::random({n}, dtype, 4)};
        if (!rms) in.push_back(Tensor::random({n}, dtype, 5));
        const std::vector<Tensor> got = runKernels(fec, in);
        expectOnePersistentKernel(fec);
        const std::vector<Tensor> ref = ReferenceEvaluator(fec.fusion()).run(in);
        for (size_t o = 0; o < ref.size(); ++o)
          expectClose(got.at(o), values(ref[o]), tolerance(dtype), what + " vs reference");

        const std::vector<double> x = values(in[0]), w = values(in[1]);
        const RowStats st = rowStats(x, n);
        std::vector<double> y(x.size()), invstd;
        for (size_t r = 0; r < st.mean.size(); ++r) {
          invstd.push_back(1 / std::sqrt((rms ? st.mean_sq[r] : st.var[r]) + eps));
          for (int64_t i = 0; i < n; ++i) {
            const double centered = rms ? x[r * n + i] : x[r * n + i] - st.mean[r];
            y[r * n + i] = centered * invstd.back() * w[i] + (rms ? 0 : in[2].item(i));
          }
        }
        expectClose(got[0], y, tolerance(dtype), what + " output vs double");
        expectClose(got[rms ? 1 : 2], invstd, 2e-5, what + " invstd vs double");
        if (!rms) expectClose(got[1], st.mean, 2e-5, what + " mean vs double");
      }
    }
  }
}

// layer_norm over the last two axes of [B, H, W] without weight and bias (norm_shape as a
// count: nvFuser's int64_t overload), and rms_norm with a [H, W] weight: the values computed
// in double.
TEST(CompositeOps, NormsOverTwoAxes) {
  const std::vector<int64_t> shape = {3, 5, 7};
  const int64_t n = 35;
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* x = makeContigTensor(3);
    TensorView* w = makeContigTensor(2);
    fusion->addInput(x);
    fusion->addInput(w);
    fusion->addOutput(layer_norm(x, 2, nullptr, nullptr, constFloat(1e-3)).output);
    fusion->addOutput(rms_norm(x, std::vector<int64_t>{5, 7}, w, constFloat(1e-3)).output);
  }
  FusionExecutorCache fec(std::move(fusion));
  const std::vector<Tensor> in = {Tensor::random(shape, DataType::Float, 8),
                                  Tensor::random({5, 7}, DataType::Float, 9)};
  const std::vector<Tensor> got = runKernels(fec, in);
  const std::vector<double> x = values(in[0]);
  const RowStats st = rowStats(x, n);
  std::vector<double> ln(x.size()), rms(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const size_t r = i / n;
    ln[i] = (x[i] - st.mean[r]) / std::sqrt(st.var[r] + 1e-3);
    rms[i] = x[i] / std::sqrt(st.mean_sq[r] + 1e-3) * in[1].item(static_cast<int64_t>(i % n));
  }
  expectClose(got.at(0), ln, 2e-5, "layer_norm over [H, W]");
  expectClose(got.at(1), rms, 2e-5, "rms_norm over [H, W]");
}

// mean, variance (unbiased, corrections 0 and 2, a Val* correction), var_mean and
// standard_deviation over several and negative dims, with and without keepdim, against
// sums in double; a correction past the element count gives inf, as PyTorch's.
TEST(CompositeOps, MeanVarianceStd) {
  const std::vector<int64_t> shape = {5, 7, 3};
  auto fusion = std::make_unique<Fusion>();
  {
    FusionGuard fg(fusion.get());
    TensorView* x = makeContigTensor(3);
    fusion->addInput(x);
    fusion->addOutput(mean(x, {0, -1}, false));               // [7]
    fusion->addOutput(variance(x, {0, -1}, true, false));     // [7], /14
    fusion->addOutput(variance(x, {-1}, int64_t{2}, true));   // [5, 7, 1], /1
    fusion->addOutput(variance(x, {1}, constInt(2), false));  // [5, 3], /5
    auto [var, m] = var_mean(x, {1}, 0, true);                // [5, 1, 3], /7
    fusion->addOutput(var);
    fusion->addOutput(m);
    fusion->addOutput(standard_deviation(x, {2}, false, false));  // [5, 7], /3
    fusion->addOutput(variance_mean(x, {2}, 4, false).var);       // [5, 7], /0: inf
    EXPECT_TRUE(m->axis(1)->isBroadcast());
  }
  FusionExecutorCache fec(std::move(fusion));
  const std::vector<Tensor> in = {Tensor::random(shape, DataType::Float, 21)};
  const std::vector<Tensor> got = runKernels(fec, in);
  const std::vector<Tensor> ref = ReferenceEvaluator(fec.fusion()).run(in);
  for (size_t o = 0; o < ref.size(); ++o)
    expectClose(got.at(o), values(ref[o]), 2e-5, fmt::format("output {} vs reference", o));

  // Moments of x over `axes`, keeping the others in order; `correction` as torch.var's.
  const Tensor& x = in[0];
  auto at = [&](int64_t i, int64_t j, int64_t k) { return x.item((i * 7 + j) * 3 + k); };
  auto moments = [&](std::vector<bool> reduced, int64_t correction, bool sd, bool want_mean) {
    std::vector<double> out;
    for (int64_t i = 0; i < (reduced[0] ? 1 : 5); ++i)
      for (int64_t j = 0; j < (reduced[1] ? 1 : 7); ++j)
        for (int64_t k = 0; k < (reduced[2] ? 1 : 3); ++k) {
          std::vector<double> terms;
          for (int64_t a = 0; a < 5; ++a)
            for (int64_t b = 0; b < 7; ++b)
              for (int64_t c = 0; c < 3; ++c)
                if ((reduced[0] || a == i) && (reduced[1] || b == j) && (reduced[2] || c == k))
                  terms.push_back(at(a, b, c));
          double s = 0, d2 = 0;
          for (double t : terms) s += t;
          const double m = s / static_cast<double>(terms.size());
          for (double t : terms) d2 += (t - m) * (t - m);
          const double var =
              d2 / std::max<double>(static_cast<double>(terms.size()) - correction, 0);
          out.push_back(want_mean ? m : sd ? std::sqrt(var) : var);
        }
    return out;
  };
  expectClose(got[0], moments({true, false, true}, 0, false, true), 2e-5, "mean");
  expectClose(got[1], moments({true, false, true}, 1, false, false), 2e-5, "unbiased variance");
  expectClose(got[2], moments({false, false, true}, 2, false, false), 2e-5, "correction 2");
  expectClose(got[3], moments({false, true, false}, 2, false, false), 2e-5, "Val* correction");
  expectClose(got[4], moments({false, true, false}, 0, false, false), 2e-5, "var_mean var");
  expectClose(got[5], moments({false, true, false}, 0, false, true), 2e-5, "var_mean mean");
  expectClose(got[6], moments({false, false, true}, 0, true, false), 2e-5, "standard_deviation");
  for (int64_t i = 0; i < got[7].numel(); ++i) EXPECT_EQ(got[7].item(i), INFINITY) << i;
}

// Each composite op's bad input is a UserError naming the op, the tensor, and what was
// expected.
TEST(CompositeOps, Errors) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* x = makeContigTensor(2);
  TensorView* w3 = makeContigTensor(3);
  EXPECT_THAT([&] { softmax(x, 2); },
              ThrowsMessage<UserError>(HasSubstr(
                  "softmax: dim 2 is out of range for T0_l_float[iS0{i0}, iS1{i1}] of rank 2")));
  EXPECT_THAT([&] { log_softmax(x, -3); },
              ThrowsMessage<UserError>(HasSubstr("log_softmax: dim -3 is out of range")));
  EXPECT_THAT([&] { softmax(nullptr, 0); },
              ThrowsMessage<UserError>(HasSubstr("softmax: the input tensor is null")));
  EXPECT_THAT([&] { layer_norm(x, 3, nullptr, nullptr, constFloat(1e-5)); },
              ThrowsMessage<UserError>(HasSubstr(
                  "layer_norm: the normalized shape has 3 dims; T0_l_float[iS0{i0}, iS1{i1}] has "
                  "rank 2, expected 1 to 2")));
  EXPECT_THAT([&] { rms_norm(x, std::vector<int64_t>{4}, w3, constFloat(1e-5)); },
              ThrowsMessage<UserError>(HasSubstr(
                  "rms_norm: weight T1_l_float[iS2{i2}, iS3{i3}, iS4{i4}] has rank 3; expected "
                  "1, one axis per normalized axis")));
  EXPECT_THAT([&] { layer_norm(x, std::vector<int64_t>{4}, nullptr, w3, constFloat(1e-5)); },
              ThrowsMessage<UserError>(HasSubstr("layer_norm: bias T1_l_float")));
  EXPECT_THAT([&] { layer_norm(x, 1, nullptr, nullptr, nullptr); },
              ThrowsMessage<UserError>(HasSubstr("layer_norm: eps is null")));
  EXPECT_THAT(
      [&] { rms_norm(x, 1, nullptr, constInt(1, DataType::Int64)); },
      ThrowsMessage<UserError>(HasSubstr("rms_norm: eps 1 must be a floating scalar, got int64")));
  EXPECT_THAT(
      [&] { variance(x, {0}, int64_t{-1}, false); },
      ThrowsMessage<UserError>(HasSubstr("variance: correction must be non-negative, got -1")));
  EXPECT_THAT([&] { var_mean(x, {0}, -2, false); },
              ThrowsMessage<UserError>(
                  HasSubstr("variance_mean: correction must be non-negative, got -2")));
  EXPECT_THAT([&] { variance(x, {0}, constFloat(1.0), false); },
              ThrowsMessage<UserError>(
                  HasSubstr("variance: correction 1.0 must be an integer scalar, got double")));
  EXPECT_THAT(
      [&] {
        mean(x, {1, 2}, false);
      },
      ThrowsMessage<UserError>(HasSubstr("mean: dim 2 is out of range")));
}

}  // namespace
}  // namespace mf
