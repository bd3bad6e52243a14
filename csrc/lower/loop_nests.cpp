// generateLoopNests and insertAllocations: the loop structure of the kernel.
#include <algorithm>

#include "ir/builder.h"
#include "ir/inlining.h"
#include "lower/index_compute.h"
#include "lower/passes.h"

namespace mf {
namespace {

struct OpenLoop {
  ForLoop* loop;
  std::vector<TensorView*> members;  // tensors computed inside this loop
};

bool isProducerOf(const TensorView* p, Expr* e) {
  return std::find(e->inputs().begin(), e->inputs().end(), p) != e->inputs().end();
}

bool shareConsumer(const TensorView* a, const TensorView* b) {
  for (Expr* ua : a->uses())
    for (Expr* ub : b->uses())
      if (ua->output(0) == ub->output(0)) return true;
  return false;
}

// Loop `depth` (opened for `open.members`) can hold `out`'s axis `depth` when one of its
// members is inlined there into `out` (or next to it, into a common consumer) and the axes
// map.
bool canReuse(const OpenLoop& open, int64_t depth, Expr* e, TensorView* out) {
  for (TensorView* m : open.members) {
    if (m->computeAtPosition() <= depth) continue;
    bool related =
        isProducerOf(m, e) || (out->computeAtPosition() > depth && shareConsumer(m, out));
    if (!related || depth >= out->nDims()) continue;
    std::vector<int64_t> map =
        isProducerOf(m, e) ? producerToConsumerPositions(m, out) : std::vector<int64_t>{};
    if (loopAxisSignature(m, depth, map) == loopAxisSignature(out, depth)) return true;
  }
  return false;
}

Val* loopIndex(Fusion& ir, IterDomain* id) {
  switch (id->parallelType()) {
#define MF_HW(P, name)  \
  case ParallelType::P: \
    return IrBuilder::createIn<Scalar>(&ir, DataType::Index, "((mf_index_t)" name ")");
    MF_HW(TIDx, "threadIdx.x")
    MF_HW(TIDy, "threadIdx.y")
    MF_HW(TIDz, "threadIdx.z")
    MF_HW(BIDx, "blockIdx.x")
    MF_HW(BIDy, "blockIdx.y")
    MF_HW(BIDz, "blockIdx.z")
#undef MF_HW
    default:
      return IrBuilder::createIn<Scalar>(&ir, DataType::Index);
  }
}

}  // namespace

void generateLoopNests(Kernel& kernel) {
  Fusion& ir = kernel.ir();
  std::vector<OpenLoop> stack;
  for (Expr* e : ir.exprs()) {
    auto* out = e->output(0)->as<TensorView>();
    size_t share = 0;
    while (share < stack.size() && canReuse(stack[share], static_cast<int64_t>(share), e, out))
      ++share;
    stack.resize(share);
    for (int64_t i = static_cast<int64_t>(share); i < out->nDims(); ++i) {
      IterDomain* id = out->axis(i);
      auto* loop = IrBuilder::createIn<ForLoop>(&ir, id, loopIndex(ir, id), id->extent());
      (stack.empty() ? kernel.body() : stack.back().loop->body()).push_back(loop);
      stack.push_back({loop, {}});
      ParallelType p = id->parallelType();
      if (isThreadDim(p) || isBlockDim(p)) kernel.parallelExtents()[p].push_back(id->extent());
    }
    (stack.empty() ? kernel.body() : stack.back().loop->body()).push_back(e);
    std::vector<ForLoop*> loops;
    for (size_t i = 0; i < static_cast<size_t>(out->nDims()); ++i) {
      stack[i].members.push_back(out);
      loops.push_back(stack[i].loop);
    }
    kernel.loopsOf()[e] = std::move(loops);
    kernel.computeOrder().push_back(e);
  }
}

void insertAllocations(Kernel& kernel) {
  for (Expr* e : kernel.computeOrder()) {
    auto* tv = e->output(0)->as<TensorView>();
    if (tv->getMemoryType() == MemoryType::Global) continue;
    int64_t pos = tv->computeAtPosition();
    const std::vector<ForLoop*>& loops = kernel.loopsOf().at(e);
    Scope& scope = pos == 0 ? kernel.body() : loops[pos - 1]->body();
    auto* alloc = IrBuilder::createIn<Allocate>(&kernel.ir(), tv, localBufferSize(tv));
    scope.exprs().insert(scope.exprs().begin(), alloc);
  }
}

}  // namespace mf
