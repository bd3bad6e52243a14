// Hand-scheduled serial reductions of every op and dtype (a row or a column per thread):
// the CPU test compiles each with NVRTC, the GPU test runs them against the reference.
#pragma once

#include <string>
#include <vector>

#include "minifuser/minifuser.h"

namespace mf::testing {

using ReduceFn = TensorView* (*)(TensorView*, const std::vector<int64_t>&, bool,
                                 std::optional<DataType>);

struct ReductionCase {
  std::string name;
  ReduceFn fn;
  BinaryOpType op;
  DataType dtype;
  bool inner;  // reduce the last axis (a row per thread) or the first (a column per thread)
};

// Builds fn(T0, {axis}) and schedules every computed tensor [BIDx, TIDx by 128, reduction].
inline void buildScheduled(Fusion& fusion, const ReductionCase& c) {
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2, c.dtype);
  fusion.addInput(t0);
  fusion.addOutput(c.fn(t0, {c.inner ? 1 : 0}, false, std::nullopt));
  for (TensorView* tv : fusion.allTvs()) {
    if (tv->isFusionInput()) continue;
    if (!c.inner && tv->nDims() == 2) tv->reorder({{0, 1}});
    tv->split(0, 128);
    tv->axis(0)->parallelize(ParallelType::BIDx);
    tv->axis(1)->parallelize(ParallelType::TIDx);
  }
  inlineMost();
}

inline std::vector<ReductionCase> reductionCases() {
  std::vector<ReductionCase> out;
  struct Op {
    std::string name;
    ReduceFn fn;
    BinaryOpType op;
  };
  for (const Op& op :
       {Op{"sum", sum, BinaryOpType::Add}, Op{"prod", prod, BinaryOpType::Mul},
        Op{"max", max, BinaryOpType::Maximum}, Op{"min", min, BinaryOpType::Minimum}})
    for (DataType t : {DataType::Bool, DataType::Int32, DataType::Int64, DataType::Half,
                       DataType::BFloat16, DataType::Float, DataType::Double})
      for (bool inner : {true, false})
        out.push_back({op.name + "_" + std::string(toString(t)) + (inner ? "_inner" : "_outer"),
                       op.fn, op.op, t, inner});
  return out;
}

}  // namespace mf::testing
