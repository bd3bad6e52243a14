#include "random/inexact_steps.h"

#include <fmt/ranges.h>

#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "reference/reduction_reference.h"

namespace mf::testing {
namespace {

// One unit in the last place of `dtype` at |v|: the spacing of the binade of v, or the
// subnormal spacing below the normal range; 0 for non-floating types.
double ulp(double v, DataType dtype) {
  int digits = 0, min_exponent = 0;
  switch (dtype) {
    case DataType::Half:
      digits = 11, min_exponent = -14;
      break;
    case DataType::BFloat16:
      digits = 8, min_exponent = -126;
      break;
    case DataType::Float:
      digits = 24, min_exponent = -126;
      break;
    case DataType::Double:
      digits = 53, min_exponent = -1022;
      break;
    case DataType::Float8_e4m3fn:
      digits = 4, min_exponent = -6;
      break;
    default:
      return 0.0;
  }
  const int e = v == 0 || !std::isfinite(v) ? min_exponent : std::max(std::ilogb(v), min_exponent);
  return std::ldexp(1.0, e - (digits - 1));
}

// The functions whose device and host versions round differently (docs/numerics.md's table):
// the float-only functions but sqrt and 1/x, which are correctly rounded (rsqrt is two
// correctly rounded ops, but the generator treats it as inexact, and so do we); and pow.
bool isTranscendental(const Expr* e) {
  if (auto* u = dynamic_cast<const UnaryOp*>(e))
    return isFloatOnlyOp(u->opType()) && u->opType() != UnaryOpType::Sqrt &&
           u->opType() != UnaryOpType::Reciprocal;
  auto* b = dynamic_cast<const BinaryOp*>(e);
  return b != nullptr && b->opType() == BinaryOpType::Pow;
}

bool isFloatingSum(const Expr* e) {
  auto* r = dynamic_cast<const ReductionOp*>(e);
  return r != nullptr && r->opType() == BinaryOpType::Add && isFloatingType(r->out()->dtype());
}

// The libraries' documented bounds added up (CUDA's at most 4 ulp for powf, glibc's a few).
constexpr double kTranscendentalUlps = 8.0;
// Higham and Mary's lambda (docs/numerics.md, "Reductions").
constexpr double kSumLambda = 5.0;

// sum|x| over the reduced axes of `op`, in Double, one element per element of its output.
Tensor sumOfMagnitudes(const ReductionOp* op, const Tensor& in) {
  Tensor magnitudes = Tensor::empty(in.sizes(), DataType::Double);
  auto* bytes = static_cast<std::byte*>(magnitudes.rawData());
  for (int64_t i = 0; i < in.numel(); ++i)
    storeElement(bytes + i * sizeof(double), DataType::Double, std::fabs(in.item(i)));
  std::vector<bool> reduced;
  for (IterDomain* id : op->out()->as<TensorView>()->getLogicalDomain())
    reduced.push_back(id->isReduction());
  return referenceReduction(BinaryOpType::Add, magnitudes, reduced, DataType::Double,
                            ScalarValue(0.0));
}

// The extent of the reduced axes of `op` (the number of terms of each sum).
int64_t termsPerSum(const Tensor& in, const Tensor& out) {
  return out.numel() == 0 ? 0 : in.numel() / out.numel();
}

// The steps of `fusion` in evaluation order (sums and transcendental functions, and narrow
// roundings of what they feed), and the values computed from them.
std::vector<const Expr*> stepsOf(Fusion* fusion, std::unordered_set<const Val*>& inexact) {
  std::vector<const Expr*> steps;
  for (Expr* e : fusion->exprs()) {
    bool from_inexact = false;
    for (Val* in : e->inputs()) from_inexact |= inexact.count(in) > 0;
    const DataType out = e->output(0)->dtype();
    if (isFloatingSum(e) || isTranscendental(e) || (from_inexact && isNarrowFloat(out)))
      steps.push_back(e);
    if (from_inexact || isFloatingSum(e) || isTranscendental(e)) inexact.insert(e->output(0));
  }
  return steps;
}

}  // namespace

std::vector<bool> inexactOutputs(Fusion* fusion) {
  std::unordered_set<const Val*> inexact;
  stepsOf(fusion, inexact);
  std::vector<bool> result;
  for (Val* out : fusion->outputs()) result.push_back(inexact.count(out) > 0);
  return result;
}

std::vector<InexactStep> inexactSteps(const RandomFusion& rf) {
  Fusion* fusion = rf.fusion.get();
  std::unordered_set<const Val*> inexact;
  const std::vector<const Expr*> steps = stepsOf(fusion, inexact);
  if (steps.empty()) return {};

  // The sums' inputs, for their error bounds.
  std::unordered_map<const Val*, Tensor> values;
  for (size_t i = 0; i < fusion->inputs().size(); ++i) values[fusion->inputs()[i]] = rf.inputs[i];
  ReferenceOptions capture;
  capture.after_expr = [&](const Expr* e, Tensor& out) { values[e->output(0)] = out; };
  const std::vector<Tensor> ref = ReferenceEvaluator(fusion).run(rf.inputs, capture);

  std::vector<InexactStep> result;
  for (const Expr* step : steps) {
    ReferenceOptions perturb;
    perturb.after_expr = [&](const Expr* e, Tensor& out) {
      if (e != step) return;
      const DataType dtype = out.dtype();
      std::vector<double> bound(static_cast<size_t>(out.numel()), 0.0);
      if (isFloatingSum(e)) {
        const Tensor& in = values.at(e->input(0));
        const Tensor magnitudes = sumOfMagnitudes(e->as<ReductionOp>(), in);
        const double u =
            ulp(1.0, dtype == DataType::Double ? DataType::Double : DataType::Float) / 2;
        const double scale = kSumLambda * std::sqrt(static_cast<double>(termsPerSum(in, out))) * u;
        for (int64_t i = 0; i < out.numel(); ++i)
          bound[i] = scale * magnitudes.item(i) + ulp(out.item(i), dtype);
      } else {
        for (int64_t i = 0; i < out.numel(); ++i) {
          const double v = out.item(i);
          if (isTranscendental(e)) bound[i] = kTranscendentalUlps * ulp(v, computeType(dtype));
          if (isNarrowFloat(dtype)) bound[i] += ulp(v, dtype);
        }
      }
      Tensor moved = Tensor::empty(out.sizes(), dtype);
      auto* bytes = static_cast<std::byte*>(moved.rawData());
      const int64_t size = dataTypeSize(dtype);
      for (int64_t i = 0; i < out.numel(); ++i)
        storeElement(bytes + i * size, dtype, out.item(i) + bound[i]);
      out = std::move(moved);
    };
    const std::vector<Tensor> moved = ReferenceEvaluator(fusion).run(rf.inputs, perturb);
    InexactStep s{step, {}};
    for (size_t o = 0; o < ref.size(); ++o) {
      Tensor shift = Tensor::empty(ref[o].sizes(), DataType::Double);
      auto* bytes = static_cast<std::byte*>(shift.rawData());
      for (int64_t i = 0; i < ref[o].numel(); ++i) {
        const double r = ref[o].item(i), m = moved[o].item(i);
        const double d = std::isfinite(r) && !std::isfinite(m) ? INFINITY : std::fabs(m - r);
        storeElement(bytes + i * sizeof(double), DataType::Double, std::isnan(d) ? 0.0 : d);
      }
      s.output_shift.push_back(std::move(shift));
    }
    result.push_back(std::move(s));
  }
  return result;
}

double inexactSlack(const std::vector<InexactStep>& steps, size_t output, int64_t element) {
  double slack = 0.0;
  for (const InexactStep& s : steps) slack += s.output_shift[output].item(element);
  return slack;
}

std::optional<std::string> firstMismatch(const RandomFusion& rf, const std::vector<Tensor>& ref,
                                         const std::vector<Tensor>& got) {
  std::optional<std::vector<InexactStep>> steps;
  const std::vector<bool> inexact = inexactOutputs(rf.fusion.get());
  for (size_t o = 0; o < ref.size(); ++o) {
    const Tensor out = got.at(o).toHost();
    if (out.sizes() != ref[o].sizes())
      return fmt::format("seed {}: output {}: sizes [{}], reference [{}]", rf.seed, o,
                         fmt::join(out.sizes(), ", "), fmt::join(ref[o].sizes(), ", "));
    for (int64_t i = 0; i < ref[o].numel(); ++i) {
      const double g = out.item(i), r = ref[o].item(i);
      if (!inexact[o]) {
        if (g == r || (std::isnan(g) && std::isnan(r))) continue;
        return fmt::format("seed {}: output {} element {}: got {}, reference {} (exact)", rf.seed,
                           o, i, g, r);
      }
      if (closeToReference(g, r, ref[o].dtype())) continue;
      if (!steps) steps = inexactSteps(rf);
      const double slack = inexactSlack(*steps, o, i);
      if (closeToReference(g, r, ref[o].dtype(), slack)) continue;
      return fmt::format("seed {}: output {} element {}: got {}, reference {} (slack {})", rf.seed,
                         o, i, g, r, slack);
    }
  }
  return std::nullopt;
}

}  // namespace mf::testing
