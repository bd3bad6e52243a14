// The transpose fusions the CPU tests (test_transpose_scheduler.cpp) and the GPU tests
// (tests/gpu/test_transpose_gpu.cpp) run: permutes of rank 2 to 4, pointwise ops before and
// after, inputs and outputs of both layouts, each with the sizes it runs at.
#pragma once

#include <string>
#include <vector>

#include "minifuser.h"

namespace mf::testing {

struct TransposeCase {
  std::string name;
  //! Builds the fusion in `f` (current) with inputs of `dtype`.
  void (*build)(Fusion& f, DataType dtype);
  //! The sizes of each run: one entry per input.
  std::vector<std::vector<std::vector<int64_t>>> sizes;
  //! Sizes at which the registry picks the transpose scheduler for every dtype.
  std::vector<std::vector<int64_t>> registry_sizes;
  std::vector<DataType> dtypes;
};

//! y = x.t() * 2.
inline void transpose2d(Fusion& f, DataType t) {
  TensorView* x = makeContigTensor(2, t);
  f.addInput(x);
  f.addOutput(mul(transpose(x, 0, 1), constFloat(2.0)));
}

//! y = relu(permute(exp(x) * 0.5 + b[N]) + w), w of the output's layout: ops on both sides,
//! a broadcast input of neither group.
inline void beforeAndAfter(Fusion& f, DataType t) {
  TensorView* x = makeContigTensor(2, t);
  TensorView* b = makeContigTensor(1, t);
  TensorView* w = makeContigTensor(2, t);
  f.addInput(x);
  f.addInput(b);
  f.addInput(w);
  TensorView* before = add(mul(exp(x), constFloat(0.5)), broadcast(b, {true, false}));
  f.addOutput(relu(add(transpose(before, 0, 1), w)));
}

//! y = sin(x) written with a permuted allocation domain (column-major).
inline void permutedAllocation(Fusion& f, DataType t) {
  TensorView* x = makeContigTensor(2, t);
  f.addInput(x);
  TensorView* y = sin(x);
  f.addOutput(y);
  y->setAllocationDomain({y->axis(1), y->axis(0)}, true);
}

//! Outputs of both layouts: t = x * 2 (x's layout) and permute(t) + 1.
inline void bothLayouts(Fusion& f, DataType t) {
  TensorView* x = makeContigTensor(2, t);
  f.addInput(x);
  TensorView* twice = mul(x, constFloat(2.0));
  f.addOutput(twice);
  f.addOutput(add(transpose(twice, 0, 1), constFloat(1.0)));
}

//! [B, M, N] -> permute(0, 2, 1) * 2.
inline void permute3d(Fusion& f, DataType t) {
  TensorView* x = makeContigTensor(3, t);
  f.addInput(x);
  f.addOutput(mul(permute(x, {0, 2, 1}), constFloat(2.0)));
}

//! [B, S, H, D] -> permute(0, 3, 2, 1) - 1: the moved axes (S, D) are not adjacent.
inline void permute4d(Fusion& f, DataType t) {
  TensorView* x = makeContigTensor(4, t);
  f.addInput(x);
  f.addOutput(sub(permute(x, {0, 3, 2, 1}), constFloat(1.0)));
}

//! (q.permute(0, 2, 1, 3) * 0.5): the innermost axis stays innermost (nothing to transpose).
inline void permute0213(Fusion& f, DataType t) {
  TensorView* q = makeContigTensor(4, t);
  f.addInput(q);
  f.addOutput(mul(permute(q, {0, 2, 1, 3}), constFloat(0.5)));
}

inline std::vector<TransposeCase> transposeCases() {
  const std::vector<DataType> all = {DataType::Float, DataType::BFloat16, DataType::Float8_e4m3fn};
  const std::vector<DataType> wide = {DataType::Float, DataType::BFloat16};
  return {
      {"Transpose2d",
       transpose2d,
       {{{1, 67}}, {{31, 67}}, {{67, 97}}, {{128, 96}}, {{130, 200}}},
       {{130, 200}},
       all},
      {"BeforeAndAfter",
       beforeAndAfter,
       {{{67, 97}, {97}, {97, 67}}, {{64, 33}, {33}, {33, 64}}},
       {{67, 97}, {97}, {97, 67}},
       wide},
      {"PermutedAllocation",
       permutedAllocation,
       {{{67, 97}}, {{1, 40}}, {{96, 128}}},
       {{96, 128}},
       wide},
      {"BothLayouts", bothLayouts, {{{67, 97}}, {{33, 1}}}, {{67, 97}}, wide},
      {"Permute3d", permute3d, {{{1, 67, 97}}, {{3, 31, 70}}}, {{3, 70, 97}}, all},
      {"Permute4d",
       permute4d,
       {{{2, 67, 3, 33}}, {{1, 1, 1, 1}}, {{2, 5, 3, 130}}},
       {{2, 67, 3, 65}},
       all},
  };
}

}  // namespace mf::testing
