// Helpers for the segmentation tests: what a group holds, in words a test can compare,
// running a segmentation group by group on the CPU reference, and running the fusion
// through FusionExecutorCache. The segmentation tests build twice: test_segmenter (CPU;
// the cache schedules, lowers and compiles every segment, the CPU reference computes the
// outputs) and test_segmenter_gpu (label gpu, MF_SEGMENTATION_ON_GPU: the segments run on
// the device with poisoned outputs, from host and from device inputs).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "cuda/driver.h"
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

//! Runs a copy of `fusion` through a FusionExecutorCache and checks that the runtime cut it
//! as `sf` and that its outputs match the reference: exactly without a device (the outputs
//! come from the CPU reference); on a device within a few ulps of fp32 (transcendentals differ
//! from the host libm), with poisoned outputs and zero-filled layout pads, from host inputs
//! and, in test_segmenter_gpu, also from device inputs. `device_rel_tol` widens the device
//! tolerance (sums, whose rounding depends on their order).
inline void expectCacheMatchesReference(const Fusion& fusion, const SegmentedFusion& sf,
                                        const std::vector<Tensor>& inputs,
                                        double device_rel_tol = 1e-5) {
  const bool device_present = cuda::cudaAvailable();
#ifdef MF_SEGMENTATION_ON_GPU
  if (!device_present) GTEST_SKIP() << cuda::noDeviceReason();
  const std::vector<bool> on_device = {false, true};
#else
  const std::vector<bool> on_device = {false};
#endif
  FusionExecutorCache fec(std::make_unique<Fusion>(fusion));
  const std::vector<Tensor> expected = ReferenceEvaluator(fec.fusion()).run(inputs);
  for (bool device : on_device) {
    SCOPED_TRACE(device ? "device inputs" : "host inputs");
    std::vector<Tensor> in = inputs;
    if (device)
      for (Tensor& t : in) t = t.toDevice();
    std::vector<Tensor> actual =
        fec.runFusionWithInputs(in, {.poison_outputs = true, .zero_fill_layout_pads = true});
    ASSERT_NE(fec.getMostRecentKernelRuntime(), nullptr);
    EXPECT_EQ(fec.getMostRecentKernelRuntime()->fusionSegments()->toString(), sf.toString());
    EXPECT_EQ(fec.getMostRecentKernelRuntime()->isSegmented(), sf.isSegmented());
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t o = 0; o < expected.size(); ++o) {
      Tensor a = actual[o].toHost();
      if (!device_present) {
        expectSameTensor(a, expected[o]);
        continue;
      }
      ASSERT_EQ(a.sizes(), expected[o].sizes());
      for (int64_t i = 0; i < a.numel(); ++i) {
        const double x = a.item(i), e = expected[o].item(i);
        if (std::isnan(e)) {
          EXPECT_TRUE(std::isnan(x)) << "output " << o << " element " << i;
        } else {
          EXPECT_LE(std::abs(x - e), std::max(device_rel_tol, 1e-5) * (1 + std::abs(e)))
              << "output " << o << " element " << i << ": " << x << " vs " << e;
        }
      }
    }
  }
}

}  // namespace mf::segtest
