// Helpers for the segmentation tests: the public ones (computed, names, edgeStrings,
// runGroupByGroup, tensorDifference: <minifuser/testing/segmentation.h>, csrc/testing/) and
// the GoogleTest ones below, which run the fusion through FusionExecutorCache. The segmentation
// tests build twice: test_segmenter (CPU; the cache schedules, lowers and compiles every segment,
// the CPU reference computes the outputs) and test_segmenter_gpu (label gpu,
// MF_SEGMENTATION_ON_GPU: the segments run on the device with poisoned outputs, from host and from
// device inputs).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "cuda/driver.h"
#include "minifuser.h"
#include "testing/segmentation.h"

namespace mf::segtest {

//! Same sizes and the same value at every element (NaN where the other has NaN).
inline void expectSameTensor(const Tensor& actual, const Tensor& expected) {
  EXPECT_EQ(tensorDifference(actual, expected), "");
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
