// unswitchLoops: one predicate for a whole unswitched loop nest (nvFuser's Unswitch).
#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "ir/builder.h"
#include "lower/passes.h"

namespace mf {
namespace {

// Each loop index the threads step through inside a nest -> a value of it (its last, or 0).
using IndexValues = std::unordered_map<Val*, Val*>;

bool dependsOn(Val* v, const IndexValues& last) {
  if (last.count(v)) return true;
  Expr* def = v->definition();
  return def != nullptr && std::any_of(def->inputs().begin(), def->inputs().end(),
                                       [&](Val* in) { return dependsOn(in, last); });
}

// Never negative: a constant >= 0, a named scalar (an index, extent or size), or sums,
// products and quotients of such.
bool nonNegative(Val* v) {
  if (auto c = v->constValue(); c && std::holds_alternative<int64_t>(*c))
    return std::get<int64_t>(*c) >= 0;
  auto* b = dynamic_cast<BinaryOp*>(v->definition());
  if (v->definition() == nullptr) return !v->isConst();
  if (b == nullptr) return false;
  const BinaryOpType t = b->opType();
  return (t == BinaryOpType::Add || t == BinaryOpType::Mul || t == BinaryOpType::Div ||
          t == BinaryOpType::CeilDiv) &&
         nonNegative(b->lhs()) && nonNegative(b->rhs());
}

// `index` with the nest's loop indices at the values `at` gives (all last, or all first),
// where that is its largest (or smallest) value over the nest: the index grows with each loop
// index. So do sums, products and quotients of non-negative terms, differences and quotients
// by what the nest does not change (the index math of splits, merges and resizes). Null for
// any other use of a loop index (a merge's inner `i % n` is not largest at the last i).
Val* atExtreme(Val* index, const IndexValues& at) {
  if (auto it = at.find(index); it != at.end()) return it->second;
  if (!dependsOn(index, at)) return index;
  auto* b = dynamic_cast<BinaryOp*>(index->definition());
  if (b == nullptr) return nullptr;
  const BinaryOpType t = b->opType();
  const bool grows = t == BinaryOpType::Add ||
                     (t == BinaryOpType::Sub && !dependsOn(b->rhs(), at)) ||
                     (t == BinaryOpType::Mul && nonNegative(b->lhs()) && nonNegative(b->rhs())) ||
                     (t == BinaryOpType::Div && !dependsOn(b->rhs(), at) && nonNegative(b->rhs()));
  if (!grows) return nullptr;
  Val* lhs = atExtreme(b->lhs(), at);
  Val* rhs = atExtreme(b->rhs(), at);
  return lhs && rhs ? SimplifyingIrBuilder::binary(t, lhs, rhs) : nullptr;
}

// A guard's condition made to hold only where it holds at every iteration of the nest: each
// `index < bound` checked at the index's largest value, each `0 <= index` (a pad's input
// read below 0) at its smallest. Null when a check is of another form.
Val* forWholeNest(Val* pred, const IndexValues& last, const IndexValues& first) {
  if (!dependsOn(pred, last)) return pred;
  auto* b = dynamic_cast<BinaryOp*>(pred->definition());
  if (b == nullptr) return nullptr;
  if (b->opType() == BinaryOpType::LogicalAnd) {
    Val* lhs = forWholeNest(b->lhs(), last, first);
    Val* rhs = forWholeNest(b->rhs(), last, first);
    return lhs && rhs ? SimplifyingIrBuilder::logicalAnd(lhs, rhs) : nullptr;
  }
  if (b->opType() == BinaryOpType::Lt && !dependsOn(b->rhs(), last)) {
    Val* lhs = atExtreme(b->lhs(), last);
    return lhs ? SimplifyingIrBuilder::lt(lhs, b->rhs()) : nullptr;
  }
  if (b->opType() == BinaryOpType::Le && !dependsOn(b->lhs(), last)) {
    Val* rhs = atExtreme(b->rhs(), first);
    return rhs ? SimplifyingIrBuilder::le(b->lhs(), rhs) : nullptr;
  }
  return nullptr;
}

bool touchesShared(const Expr* e) {
  auto shared = [](Val* v) {
    auto* ti = dynamic_cast<TensorIndex*>(v);
    return ti != nullptr && ti->view()->getMemoryType() == MemoryType::Shared;
  };
  return std::any_of(e->inputs().begin(), e->inputs().end(), shared) ||
         std::any_of(e->outputs().begin(), e->outputs().end(), shared);
}

class Unswitcher {
 public:
  explicit Unswitcher(Fusion& ir) : ir_(ir) {}

  void scope(Scope& s) {
    for (Expr*& e : s.exprs()) {
      auto* loop = dynamic_cast<ForLoop*>(e);
      if (loop == nullptr) continue;
      if (loop->parallelType() != ParallelType::Unswitch) {
        scope(loop->body());
      } else if (Expr* branch = unswitch(loop)) {
        e = branch;
      }
    }
  }

 private:
  // `if (every guard at the nest's last indices) { nest unguarded } else { nest }`, or null
  // to keep the nest as it is: nothing guarded, or a guard or statement the one predicate
  // cannot stand for.
  Expr* unswitch(ForLoop* nest) {
    IndexValues last;
    std::vector<Val*> guards;
    if (!collect(nest, last, guards)) return nullptr;
    if (guards.empty()) return nullptr;
    Val* cond = constBool(true);
    IndexValues first;
    for (const auto& [index, value] : last) first[index] = constInt(0);
    std::unordered_set<std::string> seen;  // exprs indexed alike repeat a guard
    for (Val* g : guards) {
      Val* whole = forWholeNest(g, last, first);
      if (whole == nullptr) return nullptr;
      if (seen.insert(whole->toInlineString()).second)
        cond = SimplifyingIrBuilder::logicalAnd(cond, whole);
    }
    auto* branch = IrBuilder::createIn<IfThenElse>(&ir_, cond);
    copyUnguarded({nest}, branch->thenBody());
    branch->elseBody().push_back(nest);
    return branch;
  }

  // The guards inside `e` and the loop indices a thread steps through; false for what the
  // fast path cannot hold: a barrier, a collective call (every thread must reach them, and
  // the branch may differ between threads), shared memory (its barriers) or a branch.
  static bool collect(Expr* e, IndexValues& last, std::vector<Val*>& guards) {
    if (auto* loop = dynamic_cast<ForLoop*>(e)) {
      const ParallelType p = loop->parallelType();
      if (!isThreadDim(p) && !isBlockDim(p))
        last[loop->index()] = SimplifyingIrBuilder::sub(loop->stop(), constInt(1));
      return std::all_of(loop->body().exprs().begin(), loop->body().exprs().end(),
                         [&](Expr* b) { return collect(b, last, guards); });
    }
    if (auto* ite = dynamic_cast<IfThenElse*>(e)) {
      if (!ite->elseBody().empty()) return false;
      guards.push_back(ite->cond());
      return std::all_of(ite->thenBody().exprs().begin(), ite->thenBody().exprs().end(),
                         [&](Expr* b) { return collect(b, last, guards); });
    }
    if (auto* a = dynamic_cast<Allocate*>(e))
      return a->buffer()->getMemoryType() != MemoryType::Shared;
    return !e->isA<BlockSync>() && !e->isA<RuntimeCall>() && !touchesShared(e);
  }

  // The statements of `from` into `to`, the loops copied and each guard replaced by its body.
  // The leaf statements (compute exprs, Allocates, ScalarDefs) stay shared by both paths: no
  // later pass or printer mutates a leaf or keys state by its identity. insertSyncs keys by
  // tensor and never acts here (no shared memory in an unswitched nest); hoistCommonScalars
  // inserts new ScalarDefs per scope and keys scalars by their printed form; codegen scopes
  // its declared scalars per C++ block, so an Allocate or ScalarDef emitted in both branches
  // declares in each; the host interpreter runs each thread down one branch; the verifier and
  // Kernel::computeExprs only read (a shared leaf is listed once per path). The loops are
  // copies so that each path has scopes of its own for those insertions.
  void copyUnguarded(const std::vector<Expr*>& from, Scope& to) {
    for (Expr* e : from) {
      if (auto* loop = dynamic_cast<ForLoop*>(e)) {
        auto* copy =
            IrBuilder::createIn<ForLoop>(&ir_, loop->iterDomain(), loop->index(), loop->stop());
        copyUnguarded(loop->body().exprs(), copy->body());
        to.push_back(copy);
      } else if (auto* ite = dynamic_cast<IfThenElse*>(e)) {
        copyUnguarded(ite->thenBody().exprs(), to);
      } else {
        to.push_back(e);
      }
    }
  }

  Fusion& ir_;
};

}  // namespace

void unswitchLoops(Kernel& kernel) {
  FusionGuard fg(&kernel.ir());
  Unswitcher(kernel.ir()).scope(kernel.body());
}

}  // namespace mf
