// Helpers for the scheduler tests: input metadata without data, and one call from a fusion
// and its inputs' metadata to the registry's proposal.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "minifuser.h"

namespace mf::schedtest {

//! Row-major strides of `sizes`.
inline std::vector<int64_t> denseStrides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (size_t d = sizes.size(); d-- > 1;)
    strides[d - 1] = strides[d] * std::max<int64_t>(sizes[d], 1);
  return strides;
}

//! A contiguous input of `sizes`.
inline TensorMetadata contiguous(std::vector<int64_t> sizes, DataType dtype = DataType::Float) {
  TensorMetadata m;
  m.dtype = dtype;
  m.strides = denseStrides(sizes);
  m.sizes = std::move(sizes);
  return m;
}

//! An input of `sizes` with `strides` (elements) and `storage_offset` (elements).
inline TensorMetadata strided(std::vector<int64_t> sizes, std::vector<int64_t> strides,
                              DataType dtype = DataType::Float, int64_t storage_offset = 0) {
  TensorMetadata m;
  m.dtype = dtype;
  m.sizes = std::move(sizes);
  m.strides = std::move(strides);
  m.storage_offset = storage_offset;
  return m;
}

//! X[M, N] + broadcast(bias[N]): the outer-broadcast fusion, built in `f` (current).
struct BiasAdd {
  TensorView* x;
  TensorView* bias;
  TensorView* out;
};
inline BiasAdd biasAdd(Fusion& f) {
  TensorView* x = makeContigTensor(2);
  TensorView* bias = makeContigTensor(1);
  f.addInput(x);
  f.addInput(bias);
  TensorView* out = add(x, broadcast(bias, {true, false}));
  f.addOutput(out);
  return {x, bias, out};
}

//! The layout op's three inputs (data of `dtype`, Int32 offsets), added to `f` (current).
struct LayoutInputs {
  TensorView* in;
  TensorView* in_off;
  TensorView* out_off;
};
inline LayoutInputs layoutInputs(Fusion& f, DataType dtype = DataType::Float) {
  LayoutInputs l{makeContigTensor(2, dtype), makeContigTensor(1, DataType::Int32),
                 makeContigTensor(1, DataType::Int32)};
  f.addInput(l.in);
  f.addInput(l.in_off);
  f.addInput(l.out_off);
  return l;
}

//! The registry's proposal for `fusion` with these inputs on the default (H200) device.
inline HeuristicsProposal propose(Fusion& fusion, std::vector<TensorMetadata> inputs) {
  SchedulerRuntimeInfo info(&fusion, std::move(inputs));
  return proposeHeuristics(&fusion, info);
}

//! The pointwise parameters the registry chose; fails the test when it chose another.
inline PointwiseParams pointwiseParams(Fusion& fusion, std::vector<TensorMetadata> inputs) {
  HeuristicsProposal p = propose(fusion, std::move(inputs));
  EXPECT_EQ(p.type, SchedulerType::PointWise) << p.rejectionsString();
  if (p.type != SchedulerType::PointWise) return {};
  return *static_cast<const PointwiseParams*>(p.params.get());
}

}  // namespace mf::schedtest
