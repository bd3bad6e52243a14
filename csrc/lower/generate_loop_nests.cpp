// generateLoopNests: the loop structure of the kernel.
#include <algorithm>
#include <map>
#include <set>

#include "ir/builder.h"
#include "lower/index_compute.h"
#include "lower/passes.h"

namespace mf {
namespace {

// The output whose loop domain an expr's loops are built from: the first. Its siblings (the
// other outputs of a multi-output expr) are scheduled alike and share those loops.
TensorView* loopOutput(const Expr* e) {
  return e->output(0)->as<TensorView>();
}

// Whether `id` is a broadcast axis or derived from one: then its extent is not the extent
// of the loop it shares with a consumer that iterates there.
bool derivedFromBroadcast(IterDomain* id) {
  if (id->isBroadcast()) return true;
  Expr* def = id->definition();
  if (def == nullptr) return false;
  return std::any_of(def->inputs().begin(), def->inputs().end(), [](Val* v) {
    auto* in = dynamic_cast<IterDomain*>(v);
    return in != nullptr && derivedFromBroadcast(in);
  });
}

// Loop `d` of a tensor is named (tensor, d). A producer's loop d < ca_pos IS each of its
// consumers' loop d, so loops form classes; the classes nest (sharing loop d implies
// sharing every outer loop).
class LoopClasses {
 public:
  using Key = std::pair<const TensorView*, int64_t>;

  explicit LoopClasses(const std::vector<Expr*>& exprs) {
    for (Expr* e : exprs) {
      TensorView* c = loopOutput(e);
      for (Val* o : e->outputs()) {
        auto* sibling = o->as<TensorView>();
        MF_ASSERT(sibling->nDims() == c->nDims(), "{} and its sibling {} have different loop axes",
                  c->toString(), sibling->toString());
        for (int64_t d = 0; d < c->nDims(); ++d) unite({sibling, d}, {c, d});
      }
      for (Val* v : e->inputs()) {
        auto* p = dynamic_cast<TensorView*>(v);
        if (p == nullptr) continue;
        for (int64_t d = 0; d < p->computeAtPosition(); ++d) {
          MF_ASSERT(d < c->nDims(), "{} is inlined past the axes of its consumer {}", p->toString(),
                    c->toString());
          unite({p, d}, {c, d});
        }
      }
    }
    // A member axis not derived from a broadcast, per class: a producer's broadcast axis
    // (extent 1) shares the loop of the consumer axis it is broadcast to, which runs over
    // the consumer's extent.
    for (Expr* e : exprs)
      for (Val* o : e->outputs()) {
        auto* out = o->as<TensorView>();
        for (int64_t d = 0; d < out->nDims(); ++d)
          if (!derivedFromBroadcast(out->axis(d)))
            iterating_.try_emplace(find({out, d}), out->axis(d));
      }
  }

  //! The axis loop `d` of `tv` iterates: its own, or the class's iterating axis when its own
  //! is derived from a broadcast.
  IterDomain* loopAxis(const TensorView* tv, int64_t d) {
    IterDomain* id = tv->axis(d);
    if (!derivedFromBroadcast(id)) return id;
    auto it = iterating_.find(find({tv, d}));
    return it != iterating_.end() ? it->second : id;
  }

  Key find(Key k) {
    auto it = parent_.find(k);
    if (it == parent_.end() || it->second == k) return k;
    Key root = find(it->second);
    parent_[k] = root;
    return root;
  }

 private:
  void unite(Key a, Key b) {
    a = find(a);
    b = find(b);
    if (a != b) parent_[a] = b;
  }

  std::map<Key, Key> parent_;
  std::map<Key, IterDomain*> iterating_;
};

// Every group left waits on another one left, so they wait in a cycle; a group of the cycle
// holds two exprs (a loop) and one of them reads a tensor of the next group, which is
// computed outside that loop and waits on it.
[[noreturn]] void throwNoLoopOrder(const std::vector<std::vector<Expr*>>& groups,
                                   const std::vector<std::set<size_t>>& preds,
                                   const std::vector<bool>& done,
                                   const std::unordered_map<const Val*, size_t>& group_of_tv,
                                   int64_t depth) {
  auto waitsOn = [&](size_t g) {
    return *std::find_if(preds[g].begin(), preds[g].end(), [&](size_t p) { return !done[p]; });
  };
  std::vector<bool> seen(groups.size(), false);
  size_t g = std::find(done.begin(), done.end(), false) - done.begin();
  while (!seen[g]) {
    seen[g] = true;
    g = waitsOn(g);
  }
  // g is on the cycle: walk it once.
  for (size_t a = g, n = 0; n < groups.size(); a = waitsOn(a), ++n) {
    if (groups[a].size() < 2) continue;
    size_t b = waitsOn(a);
    for (Expr* e : groups[a])
      for (Val* v : e->inputs())
        if (auto it = group_of_tv.find(v); it != group_of_tv.end() && it->second == b) {
          Expr* other = groups[a].front() != e ? groups[a].front() : groups[a].back();
          MF_THROW(
              "generateLoopNests: {} shares loop {} with {} but reads {}, which is computed "
              "outside that loop from tensors computed inside it; inline {} too, or lower the "
              "compute-at positions",
              e->output(0)->toString(), depth, other->output(0)->toString(), v->toString(),
              v->toString());
        }
  }
  MF_ASSERT(false, "a cycle of loop groups without a loop");
}

// Orders `exprs` (a topological order) so that the exprs of each loop class at `depth` and
// deeper are contiguous, keeping the original order where dependencies allow.
void orderForLoops(const std::vector<Expr*>& exprs, int64_t depth, LoopClasses& classes,
                   std::vector<Expr*>& order) {
  std::vector<std::vector<Expr*>> groups;
  std::map<LoopClasses::Key, size_t> group_of_class;
  std::unordered_map<const Val*, size_t> group_of_tv;
  for (Expr* e : exprs) {
    TensorView* out = loopOutput(e);
    size_t g = groups.size();
    if (depth < out->nDims())
      g = group_of_class.try_emplace(classes.find({out, depth}), g).first->second;
    if (g == groups.size()) groups.emplace_back();
    groups[g].push_back(e);
    for (Val* o : e->outputs()) group_of_tv[o] = g;
  }
  std::vector<std::set<size_t>> preds(groups.size());
  for (size_t g = 0; g < groups.size(); ++g)
    for (Expr* e : groups[g])
      for (Val* v : e->inputs())
        if (auto it = group_of_tv.find(v); it != group_of_tv.end() && it->second != g)
          preds[g].insert(it->second);
  // Among the groups ready, the first that reads global memory goes first: its loads are then
  // in flight before the block-wide reductions and barriers of the others (layer norm
  // backward's second input was read only after the first row reduction).
  std::vector<bool> reads_global(groups.size(), false);
  for (size_t g = 0; g < groups.size(); ++g)
    for (Expr* e : groups[g])
      for (Val* v : e->inputs())
        if (auto* tv = dynamic_cast<TensorView*>(v);
            tv && tv->getMemoryType() == MemoryType::Global)
          reads_global[g] = true;
  std::vector<bool> done(groups.size(), false);
  auto ready = [&](size_t g) {
    return !done[g] &&
           std::none_of(preds[g].begin(), preds[g].end(), [&](size_t p) { return !done[p]; });
  };
  for (size_t n = 0; n < groups.size(); ++n) {
    size_t next = 0;
    while (next < groups.size() && !(ready(next) && reads_global[next])) ++next;
    if (next == groups.size()) {
      next = 0;
      while (next < groups.size() && !ready(next)) ++next;
    }
    if (next == groups.size()) throwNoLoopOrder(groups, preds, done, group_of_tv, depth);
    done[next] = true;
    if (groups[next].size() == 1 && depth >= loopOutput(groups[next].front())->nDims()) {
      order.push_back(groups[next].front());
    } else {
      orderForLoops(groups[next], depth + 1, classes, order);
    }
  }
}

Val* loopIndex(Fusion& ir, IterDomain* id) {
  const ParallelType p = id->parallelType();
  return isThreadDim(p) || isBlockDim(p) ? parallelIndex(ir, p)
                                         : IrBuilder::createIn<Scalar>(&ir, DataType::Index);
}

}  // namespace

void generateLoopNests(Kernel& kernel) {
  Fusion& ir = kernel.ir();
  std::vector<Expr*> exprs = ir.exprs();
  LoopClasses classes(exprs);
  std::vector<Expr*> order;
  orderForLoops(exprs, 0, classes, order);

  std::vector<std::pair<ForLoop*, LoopClasses::Key>> stack;  // the open loops
  for (Expr* e : order) {
    TensorView* out = loopOutput(e);
    size_t share = 0;
    while (share < stack.size() && static_cast<int64_t>(share) < out->nDims() &&
           stack[share].second == classes.find({out, static_cast<int64_t>(share)}))
      ++share;
    stack.resize(share);
    for (int64_t i = static_cast<int64_t>(share); i < out->nDims(); ++i) {
      IterDomain* id = classes.loopAxis(out, i);
      auto* loop = IrBuilder::createIn<ForLoop>(&ir, id, loopIndex(ir, id), id->extent());
      (stack.empty() ? kernel.body() : stack.back().first->body()).push_back(loop);
      stack.emplace_back(loop, classes.find({out, i}));
    }
    (stack.empty() ? kernel.body() : stack.back().first->body()).push_back(e);
  }
}

}  // namespace mf
