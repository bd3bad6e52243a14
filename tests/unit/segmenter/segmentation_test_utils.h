// Helpers for the segmentation tests: what a group holds, in words a test can compare, and
// running a segmentation group by group on the CPU reference.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "minifuser.h"

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

//! Same sizes and the same value at every element (NaN where the other has NaN).
inline void expectSameTensor(const Tensor& actual, const Tensor& expected) {
  ASSERT_EQ(actual.sizes(), expected.sizes());
  ASSERT_EQ(actual.dtype(), expected.dtype());
  for (int64_t i = 0; i < expected.numel(); ++i) {
    double a = actual.item(i), e = expected.item(i);
    if (std::isnan(e)) {
      EXPECT_TRUE(std::isnan(a)) << "element " << i;
    } else {
      EXPECT_EQ(a, e) << "element " << i;
    }
  }
}

}  // namespace mf::segtest
