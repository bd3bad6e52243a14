//! Helpers of the concretization tests: binding sizes, a fusion that is a chain of dynamic
//! reshapes, and the check that a concretized fusion has no Symbolic axis in any domain.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "minifuser.h"

namespace mf {

inline void bindSizes(ExpressionEvaluator& ee, TensorView* tv, const std::vector<int64_t>& sizes) {
  ee.bindTensorSizes(tv, sizes);
}

//! What `f` prints on stdout; the capture ends even when `f` throws (then rethrown).
inline std::string capturedStdout(const std::function<void()>& f) {
  ::testing::internal::CaptureStdout();
  try {
    f();
  } catch (...) {
    ::testing::internal::GetCapturedStdout();
    throw;
  }
  return ::testing::internal::GetCapturedStdout();
}

//! A 0-dim Int64 tensor: how a scalar input is passed.
inline Tensor scalarTensor(int64_t v) {
  return Tensor::fromVector<int64_t>({v}, {});
}

inline std::string shapesString(const std::vector<std::vector<int64_t>>& shapes) {
  std::string s;
  for (const auto& shape : shapes) {
    s += s.empty() ? "[" : " -> [";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    s += "]";
  }
  return s;
}

//! tv0 (rank of shapes[0]) reshaped to shapes[1], then to shapes[2], ..., each size a
//! scalar input; the last tensor is the output.
struct ReshapeChain {
  std::unique_ptr<Fusion> fusion = std::make_unique<Fusion>();
  std::vector<TensorView*> tvs;
  std::vector<std::vector<Val*>> sizes;

  explicit ReshapeChain(const std::vector<std::vector<int64_t>>& shapes) {
    FusionGuard fg(fusion.get());
    tvs.push_back(makeSymbolicTensor(static_cast<int64_t>(shapes[0].size())));
    fusion->addInput(tvs[0]);
    for (size_t i = 1; i < shapes.size(); ++i) {
      std::vector<Val*> s;
      for (size_t d = 0; d < shapes[i].size(); ++d) {
        s.push_back(newScalar(DataType::Index));
        fusion->addInput(s.back());
      }
      tvs.push_back(reshape(tvs.back(), s));
      sizes.push_back(s);
    }
    fusion->addOutput(tvs.back());
  }
  void bind(ExpressionEvaluator& ee, const std::vector<std::vector<int64_t>>& shapes) const {
    bindSizes(ee, tvs[0], shapes[0]);
    for (size_t i = 1; i < shapes.size(); ++i)
      for (size_t d = 0; d < shapes[i].size(); ++d) ee.bind(sizes[i - 1][d], shapes[i][d]);
  }
  std::vector<Tensor> inputs(const Tensor& in,
                             const std::vector<std::vector<int64_t>>& shapes) const {
    std::vector<Tensor> out = {in};
    for (size_t i = 1; i < shapes.size(); ++i)
      for (int64_t s : shapes[i]) out.push_back(scalarTensor(s));
    return out;
  }
};

//! No dynamic transform is left: no Symbolic axis in any domain of any tensor, or among the
//! axes between them.
inline void expectConcrete(const Fusion& fusion) {
  EXPECT_FALSE(fusion.hasDynamicTransform()) << fusion.transformsString();
  for (TensorView* tv : fusion.allTvs())
    for (IterDomain* id : tv->domain()->allIds())
      EXPECT_FALSE(id->isSymbolic()) << id->toString() << " of " << tv->toString();
  DynamicTransformInitialInfo info = DynamicTransform::getInitialInfo(const_cast<Fusion*>(&fusion));
  EXPECT_TRUE(info.getDynamicReshapedTensorViews().empty() ||
              !info.getDynamicReshapedTensorViews()[0]->domain()->hasSymbolicAxis());
  EXPECT_TRUE(info.getDynamicResizedIterDomains().empty());
}

}  // namespace mf
