// Fusions with reductions that the segmentation tests (CPU) and the reduction scheduler's GPU
// tests share: each with a function giving fresh random inputs for sizes m and n.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "minifuser.h"

namespace mf::redtest {

struct ReductionFusion {
  std::unique_ptr<Fusion> fusion;
  //! Fresh random inputs for sizes (m, n) from `seed`.
  std::function<std::vector<Tensor>(int64_t m, int64_t n, uint64_t seed)> inputs;
  //! Names of tensors a test asserts on (`T4`), by role.
  std::map<std::string, std::string> names;
  //! The names of the fusion's outputs.
  std::vector<std::string> outputs;
};

inline std::vector<Tensor> randoms(const std::vector<std::vector<int64_t>>& shapes, uint64_t seed,
                                   DataType dtype = DataType::Float) {
  std::vector<Tensor> out;
  for (const auto& s : shapes) out.push_back(Tensor::random(s, dtype, seed++));
  return out;
}

inline ReductionFusion finish(std::unique_ptr<Fusion> fusion) {
  ReductionFusion rf;
  for (Val* v : fusion->outputs()) rf.outputs.push_back(v->toInlineString());
  rf.fusion = std::move(fusion);
  return rf;
}

//! x[M, N] + 1 -> max over axis 0 -> + v[N] -> broadcast + y[M, N] (nvFuser's
//! FusionSegmentReducePointwise).
inline ReductionFusion reducePointwise() {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* x = makeContigTensor(2);
  TensorView* v = makeContigTensor(1);
  TensorView* y = makeContigTensor(2);
  fusion->addInput(x);
  fusion->addInput(v);
  fusion->addInput(y);
  TensorView* t = add(x, constFloat(1.0));
  TensorView* m = max(t, {0});
  TensorView* mv = add(m, v);
  fusion->addOutput(add(broadcast(mv, {true, false}), y));
  ReductionFusion rf = finish(std::move(fusion));
  rf.names = {{"add", t->toInlineString()},
              {"max", m->toInlineString()},
              {"vector_add", mv->toInlineString()}};
  rf.inputs = [](int64_t m, int64_t n, uint64_t seed) {
    return randoms({{m, n}, {n}, {m, n}}, seed);
  };
  return rf;
}

//! x[M, 3, 4, 5, N]: four sums of the last axis in a chain, then + y[M].
inline ReductionFusion fourChainedSums() {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* x = makeContigTensor(5);
  TensorView* y = makeContigTensor(1);
  fusion->addInput(x);
  fusion->addInput(y);
  TensorView* s = x;
  for (int i = 0; i < 4; ++i) s = sum(s, {-1});
  fusion->addOutput(add(s, y));
  ReductionFusion rf = finish(std::move(fusion));
  rf.inputs = [](int64_t m, int64_t n, uint64_t seed) {
    return randoms({{m, 3, 4, 5, n}, {m}}, seed);
  };
  return rf;
}

//! x[M, N] * a -> sum over axis 1 -> * b -> sum over axis 0 -> + a, with scalar inputs a, b.
inline ReductionFusion scalarsAroundReductions() {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* x = makeContigTensor(2);
  Val* a = newScalar(DataType::Double);
  fusion->addInput(x);
  fusion->addInput(a);
  TensorView* rows = sum(mul(x, a), {1});
  TensorView* total = sum(mul(rows, a), {0});
  fusion->addOutput(add(total, a));
  ReductionFusion rf = finish(std::move(fusion));
  rf.inputs = [](int64_t m, int64_t n, uint64_t seed) {
    std::vector<Tensor> in = randoms({{m, n}}, seed);
    in.push_back(Tensor::full({}, DataType::Double, 0.75));
    return in;
  };
  return rf;
}

//! sum(x, {0}) and sum(x, {1}) of one x[M, N], both outputs.
inline ReductionFusion differentAxes() {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* x = makeContigTensor(2);
  fusion->addInput(x);
  fusion->addOutput(sum(x, {0}));
  fusion->addOutput(sum(x, {1}));
  ReductionFusion rf = finish(std::move(fusion));
  rf.inputs = [](int64_t m, int64_t n, uint64_t seed) { return randoms({{m, n}}, seed); };
  return rf;
}

//! max(x[M, N], {1}) and sum(y[N, M, 3], {0, 1}): unrelated islands.
inline ReductionFusion islands() {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* x = makeContigTensor(2);
  TensorView* y = makeContigTensor(3);
  fusion->addInput(x);
  fusion->addInput(y);
  fusion->addOutput(max(x, {1}));
  fusion->addOutput(sum(exp(y), {0, 1}));
  ReductionFusion rf = finish(std::move(fusion));
  rf.inputs = [](int64_t m, int64_t n, uint64_t seed) {
    return randoms({{m, n}, {n, m, 3}}, seed);
  };
  return rf;
}

//! e = exp(x[M, N]); sum(e, {1}) * 2 and max(e, {1}) - 1, both outputs, and e itself.
inline ReductionFusion sumAndMaxOfRows() {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* x = makeContigTensor(2);
  fusion->addInput(x);
  TensorView* e = exp(x);
  fusion->addOutput(mul(sum(e, {1}), constFloat(2.0)));
  fusion->addOutput(sub(max(e, {1}), constFloat(1.0)));
  fusion->addOutput(e);
  ReductionFusion rf = finish(std::move(fusion));
  rf.inputs = [](int64_t m, int64_t n, uint64_t seed) { return randoms({{m, n}}, seed); };
  return rf;
}

//! max(x[M, N] + broadcast(b[N]), {axis}, keep_dim): broadcasts before and after.
inline ReductionFusion biasMaxKeepDim(int64_t axis) {
  auto fusion = std::make_unique<Fusion>();
  FusionGuard fg(fusion.get());
  TensorView* x = makeContigTensor(2);
  TensorView* b = makeContigTensor(1);
  fusion->addInput(x);
  fusion->addInput(b);
  fusion->addOutput(max(add(x, broadcast(b, {true, false})), {axis}, /*keep_dim=*/true));
  ReductionFusion rf = finish(std::move(fusion));
  rf.inputs = [](int64_t m, int64_t n, uint64_t seed) { return randoms({{m, n}, {n}}, seed); };
  return rf;
}

}  // namespace mf::redtest
