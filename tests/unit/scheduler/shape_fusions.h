// The shape-op fusions the scheduling tests (CPU: lowered kernels on the interpreter) and the
// GPU tests share: reshape chains, squeeze, expand, permute, flatten and the benchmark fusion.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "minifuser.h"

namespace mf {

using BuildFn = std::function<void(Fusion&)>;

//! One fusion, built in the current fusion, and the sizes of its (Float) inputs.
struct ShapeCase {
  std::string name;
  BuildFn build;
  std::vector<std::vector<int64_t>> input_sizes;
  //! Constant extents everywhere: the unscheduled kernel's register intermediates have
  //! constant sizes.
  bool constant_sizes = true;
  //! Non-empty: the pointwise scheduler refuses the fusion with a reason holding this.
  std::string refused = {};
};

//! Random Float inputs of `c` (never zeros).
inline std::vector<Tensor> randomInputs(const ShapeCase& c, uint64_t seed) {
  std::vector<Tensor> inputs;
  for (const auto& sizes : c.input_sizes)
    inputs.push_back(Tensor::random(sizes, DataType::Float, seed++));
  return inputs;
}

//! Sizes 1, primes and non-divisible extents.
inline std::vector<ShapeCase> shapeCases() {
  std::vector<ShapeCase> cases;
  auto chain = [&](std::string name, std::vector<int64_t> in, std::vector<int64_t> mid,
                   std::vector<int64_t> out, std::string refused = {}) {
    cases.push_back({name,
                     [=](Fusion& f) {
                       TensorView* t0 = makeContigConcreteTensor(in);
                       f.addInput(t0);
                       TensorView* t1 = reshape(mul(t0, constFloat(2.0)), in, mid);
                       f.addOutput(add(reshape(t1, mid, out), constFloat(1.0)));
                     },
                     {in},
                     true,
                     refused});
  };
  chain("chain_4x3_3x4_12", {4, 3}, {3, 4}, {12});
  // Size-1 output axes are a broadcast after the reshape: refused (docs/shape_ops.md).
  chain("chain_4x3_3x1x4_12x1", {4, 3}, {3, 1, 4}, {12, 1}, "follows the shape op");
  chain("chain_4x3_1x2x1x3x2_3x4", {4, 3}, {1, 2, 1, 3, 2}, {3, 4}, "follows the shape op");
  chain("chain_7x5_5x7_35", {7, 5}, {5, 7}, {35});
  chain("chain_1x13_13x1_13", {1, 13}, {13, 1}, {13}, "follows the shape op");
  cases.push_back({"symbolic_input_static_reshape",
                   [](Fusion& f) {
                     TensorView* t0 = makeContigTensor(2);
                     f.addInput(t0);
                     f.addOutput(neg(reshape(t0, {6, 10}, {4, 15})));
                   },
                   {{6, 10}},
                   false});
  cases.push_back({"reshape_plus_concrete_tensor",
                   [](Fusion& f) {
                     TensorView* t0 = makeContigConcreteTensor({5, 6});
                     TensorView* t1 = makeContigConcreteTensor({3, 10});
                     f.addInput(t0);
                     f.addInput(t1);
                     f.addOutput(add(reshape(t0, {5, 6}, {3, 10}), t1));
                   },
                   {{5, 6}, {3, 10}}});
  cases.push_back({"squeeze_of_reshape_made_axis",
                   [](Fusion& f) {
                     TensorView* t0 = makeContigConcreteTensor({4, 3});
                     f.addInput(t0);
                     TensorView* t1 = reshape(t0, {4, 3}, {3, 1, 4});
                     f.addOutput(mul(squeeze(t1, {1}), constFloat(3.0)));
                   },
                   {{4, 3}},
                   true,
                   "follows the shape op"});
  cases.push_back(
      {"expand_after_reshape",
       [](Fusion& f) {
         TensorView* t0 = makeContigConcreteTensor({6});
         f.addInput(t0);
         TensorView* t1 = reshape(t0, {6}, {2, 1, 3});
         f.addOutput(add(expand(t1, {constInt(-1), constInt(5), constInt(-1)}), constFloat(1.0)));
       },
       {{6}},
       true,
       "follows the shape op"});
  cases.push_back({"expand_broadcast_input",
                   [](Fusion& f) {
                     TensorView* t0 = makeContigConcreteTensor({1, 7});
                     TensorView* t1 = makeContigConcreteTensor({3, 7});
                     f.addInput(t0);
                     f.addInput(t1);
                     f.addOutput(mul(expand(t0, {constInt(3), constInt(-1)}), t1));
                   },
                   {{1, 7}, {3, 7}}});
  cases.push_back({"transpose_2d",
                   [](Fusion& f) {
                     TensorView* t0 = makeContigTensor(2);
                     f.addInput(t0);
                     f.addOutput(add(transpose(t0, 0, 1), constFloat(1.0)));
                   },
                   {{5, 7}},
                   false});
  cases.push_back({"permute_moves_innermost",
                   [](Fusion& f) {
                     TensorView* t0 = makeContigTensor(3);
                     f.addInput(t0);
                     f.addOutput(mul(permute(t0, {2, 0, 1}), constFloat(2.0)));
                   },
                   {{3, 1, 11}},
                   false});
  cases.push_back({"flatten_then_bias",
                   [](Fusion& f) {
                     TensorView* t0 = makeContigConcreteTensor({3, 5, 4});
                     TensorView* bias = makeContigConcreteTensor({20});
                     f.addInput(t0);
                     f.addInput(bias);
                     f.addOutput(add(flatten(t0, 1), broadcast(bias, {true, false})));
                   },
                   {{3, 5, 4}, {20}}});
  cases.push_back({"benchmark_fusion_small",
                   [](Fusion& f) {
                     TensorView* x = makeContigConcreteTensor({64, 32});
                     TensorView* bias = makeContigConcreteTensor({16});
                     f.addInput(x);
                     f.addInput(bias);
                     TensorView* y = reshape(mul(x, constFloat(2.0)), {64, 32}, {128, 16});
                     f.addOutput(add(y, broadcast(bias, {true, false})));
                   },
                   {{64, 32}, {16}}});
  cases.push_back({"reshape_is_output",
                   [](Fusion& f) {
                     TensorView* t0 = makeContigConcreteTensor({5, 6});
                     f.addInput(t0);
                     f.addOutput(reshape(neg(t0), {5, 6}, {2, 15}));
                   },
                   {{5, 6}}});
  cases.push_back({"reshape_and_its_input_are_outputs",
                   [](Fusion& f) {
                     TensorView* t0 = makeContigConcreteTensor({5, 6});
                     f.addInput(t0);
                     TensorView* t1 = neg(t0);
                     f.addOutput(t1);
                     f.addOutput(reshape(t1, {5, 6}, {3, 10}));
                   },
                   {{5, 6}}});
  cases.push_back({"permute_is_output",
                   [](Fusion& f) {
                     TensorView* t0 = makeContigTensor(3);
                     f.addInput(t0);
                     f.addOutput(permute(neg(t0), {1, 2, 0}));
                   },
                   {{2, 7, 3}},
                   false});
  cases.push_back(
      {"reshape_of_permute",
       [](Fusion& f) {
         TensorView* t0 = makeContigConcreteTensor({6, 5});
         f.addInput(t0);
         f.addOutput(add(reshape(transpose(t0, 0, 1), {5, 6}, {3, 10}), constFloat(0.5)));
       },
       {{6, 5}}});
  return cases;
}

}  // namespace mf
