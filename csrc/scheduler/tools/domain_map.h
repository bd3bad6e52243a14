//! nvFuser's scheduler_tools::DomainMap and PointwiseDomainMap: the pointwise scheduler's
//! coverage questions (scheduler/pointwise_utils.h) under nvFuser's names, for ported tests
//! (nvFuser's PointwiseTest.DomainMapTestEg* subclass DomainMap to reach the protected
//! areAllTargetIdsCoveredBy).
#pragma once

#include "scheduler/pointwise_utils.h"

namespace mf::scheduler_tools {

class DomainMap : public ::mf::PointwiseDomainMap {
 public:
  explicit DomainMap(Fusion* fusion) : ::mf::PointwiseDomainMap(fusion), fusion_(fusion) {}
  //! `tv` covers every concrete axis of every fusion input and output (covers()).
  bool isValidReference(TensorView* tv) const { return covers(tv); }

 protected:
  //! Every concrete axis of `target` maps to a concrete axis of `reference`.
  bool areAllTargetIdsCoveredBy(TensorView* target, TensorView* reference) const {
    return covers(reference, {target});
  }
  Fusion* fusion_;
};

class PointwiseDomainMap : public DomainMap {
 public:
  using DomainMap::DomainMap;
  //! The output the pointwise scheduler starts from (mf::findReferenceTensor), or nullptr
  //! when none covers, or it has fewer than `minimum_num_axes` logical axes.
  TensorView* findReferenceTensor(int64_t minimum_num_axes = 0) const {
    TensorView* ref = ::mf::findReferenceTensor(fusion_, *this);
    const auto axes = ref ? TensorDomain::noReductions(ref->getLogicalDomain()).size() : 0;
    return static_cast<int64_t>(axes) >= minimum_num_axes ? ref : nullptr;
  }
};

}  // namespace mf::scheduler_tools
