//! Helpers for unit-testing segmentation, public and installed as
//! <minifuser/testing/segmentation.h> (header only; any test framework): what a group
//! holds, in words a test can compare, and a segmentation run group by group on the CPU
//! reference. minifuser's own segmentation tests use them (tests/unit/segmenter), and
//! docs/segmenter.md's example compiles against the installed package (tests/install).
//!
//!   auto sf = mf::SegmentCandidateFinder::segment(fusion, inputs);
//!   EXPECT_THAT(mf::segtest::computed(sf->groups()[0]), ElementsAre("T1", "T2"));
//!   EXPECT_THAT(mf::segtest::edgeStrings(*sf), ElementsAre("0 -> 1: T2"));
//!   EXPECT_EQ(mf::segtest::tensorDifference(mf::segtest::runGroupByGroup(*sf, inputs)[0],
//!                                           expected), "");
#pragma once

#include <cmath>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/fusion.h"
#include "reference/reference_evaluator.h"
#include "segmenter/segmented_fusion.h"
#include "tensor/tensor.h"

namespace mf::segtest {

//! The names of the tensors `group`'s exprs compute, in order: {"T1", "T2"}.
inline std::vector<std::string> computed(const SegmentedGroup* group) {
  std::vector<std::string> names;
  for (Expr* e : group->exprs())
    for (Val* out : e->outputs()) names.push_back(out->toInlineString());
  return names;
}

//! The names of `vals`: {"T0", "T3"}.
inline std::vector<std::string> names(const std::vector<Val*>& vals) {
  std::vector<std::string> out;
  for (Val* v : vals) out.push_back(v->toInlineString());
  return out;
}

//! Each edge as `0 -> 1: T2`.
inline std::vector<std::string> edgeStrings(const SegmentedFusion& sf) {
  std::vector<std::string> out;
  for (SegmentedEdge* e : sf.edges())
    out.push_back(std::to_string(e->from->id()) + " -> " + std::to_string(e->to->id()) + ": " +
                  e->val->toInlineString());
  return out;
}

//! The complete fusion's outputs, computed by running each group's fusion (makeFusion) on
//! the ReferenceEvaluator in run order, intermediates handed from group to group.
inline std::vector<Tensor> runGroupByGroup(const SegmentedFusion& sf,
                                           const std::vector<Tensor>& inputs) {
  Fusion* complete = sf.completeFusion();
  std::unordered_map<const Val*, Tensor> values;
  for (size_t i = 0; i < inputs.size(); ++i) values[complete->inputs()[i]] = inputs[i];
  for (SegmentedGroup* group : sf.groups()) {
    std::unique_ptr<Fusion> fusion = sf.makeFusion(group);
    std::vector<Tensor> group_inputs;
    for (Val* in : group->inputs()) group_inputs.push_back(values.at(in));
    std::vector<Tensor> outs = ReferenceEvaluator(fusion.get()).run(group_inputs);
    for (size_t i = 0; i < outs.size(); ++i) values[group->outputs()[i]] = outs[i];
  }
  std::vector<Tensor> outputs;
  for (Val* out : complete->outputs()) outputs.push_back(values.at(out));
  return outputs;
}

//! Empty when `actual` (a host tensor) has `expected`'s sizes, dtype and the same value at
//! every element (NaN where it has NaN); otherwise the first difference, e.g. "element 3:
//! 1.5 vs 2".
inline std::string tensorDifference(const Tensor& actual, const Tensor& expected) {
  if (actual.sizes() != expected.sizes() || actual.dtype() != expected.dtype())
    return "the tensors differ in sizes or dtype: " + actual.toString(0) + " vs " +
           expected.toString(0);
  for (int64_t i = 0; i < expected.numel(); ++i) {
    const double a = actual.item(i), e = expected.item(i);
    if (std::isnan(e) ? !std::isnan(a) : a != e)
      return "element " + std::to_string(i) + ": " + std::to_string(a) + " vs " + std::to_string(e);
  }
  return "";
}

}  // namespace mf::segtest
