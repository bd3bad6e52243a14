// Hand-scheduled reductions of every op and dtype: a row or a column per thread (serial), or
// a row per block (each of 128 threads reduces a strided slice, then a block all-reduce). The
// CPU test compiles each with NVRTC, the GPU test runs them against the reference.
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
  enum class Schedule { RowPerThread, ColumnPerThread, RowPerBlock } schedule;
  bool inner() const { return schedule != Schedule::ColumnPerThread; }
};

constexpr int64_t kReductionBlock = 128;

// A row per block: [BIDx, TIDx, serial] for the rfactor tensor and the tensors computed with
// it, [BIDx, TIDx] (the block reduction) for the reduction, [BIDx] after it.
inline void scheduleRowPerBlock(Fusion& fusion, TensorView* red) {
  red->split(1, kReductionBlock);
  red->axis(0)->parallelize(ParallelType::BIDx);
  red->axis(2)->parallelize(ParallelType::TIDx);
  TensorView* partial = red->rFactor({1});
  partial->reorder({{1, 2}});
  for (TensorView* tv : fusion.allTvs()) {
    if (tv->isFusionInput() || tv == red || tv == partial) continue;
    if (tv->nDims() == 2) {
      tv->split(1, kReductionBlock)->reorder({{1, 2}});
      tv->axis(1)->parallelize(ParallelType::TIDx);
    }
    tv->axis(0)->parallelize(ParallelType::BIDx);
  }
  inlineMost();
}

// Builds fn(T0, {axis}) and schedules it; a thread per row or column: every computed tensor
// [BIDx, TIDx by 128, reduction].
inline void buildScheduled(Fusion& fusion, const ReductionCase& c) {
  FusionGuard fg(&fusion);
  TensorView* t0 = makeContigTensor(2, c.dtype);
  fusion.addInput(t0);
  TensorView* out = c.fn(t0, {c.inner() ? 1 : 0}, false, std::nullopt);
  fusion.addOutput(out);
  if (c.schedule == ReductionCase::Schedule::RowPerBlock) {
    Expr* e = out->definition();
    while (!e->isA<ReductionOp>()) e = e->input(0)->definition();
    scheduleRowPerBlock(fusion, e->output(0)->as<TensorView>());
    return;
  }
  for (TensorView* tv : fusion.allTvs()) {
    if (tv->isFusionInput()) continue;
    if (!c.inner() && tv->nDims() == 2) tv->reorder({{0, 1}});
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
      for (auto [schedule, suffix] :
           {std::pair{ReductionCase::Schedule::RowPerThread, "_row_per_thread"},
            std::pair{ReductionCase::Schedule::ColumnPerThread, "_column_per_thread"},
            std::pair{ReductionCase::Schedule::RowPerBlock, "_row_per_block"}})
        out.push_back(
            {op.name + "_" + std::string(toString(t)) + suffix, op.fn, op.op, t, schedule});
  return out;
}

}  // namespace mf::testing
