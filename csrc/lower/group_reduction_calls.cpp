// groupReductionCalls: the block and grid all-reduce calls of one group of groupReductions
// become one call (nvFuser's GroupedReductionOp / GroupedGridReduction).
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "ir/builder.h"
#include "lower/passes.h"

namespace mf {
namespace {

// An all-reduce call where it stands: the scope holding it (or its group loops) and the
// group loops (Kernel::groupedReduction's form; a nest shared by several calls ends in all).
struct Member {
  size_t order;  // in the flattened scope (Flattener)
  RuntimeCall* call;
  std::vector<const ForLoop*> loops;
};

int64_t groupOf(const RuntimeCall* call) {
  auto* red = dynamic_cast<ReductionOp*>(call->output(0)->as<TensorIndex>()->view()->definition());
  return red != nullptr ? red->group() : -1;
}

// The all-reduce calls `e` is, or ends in through serial loops of one statement each (the group
// loops), with those loops.
std::vector<RuntimeCall*> callsOf(Expr* e, std::vector<const ForLoop*>& loops) {
  if (auto* call = dynamic_cast<RuntimeCall*>(e)) {
    if (call->isAllReduce()) return {call};
    return {};
  }
  auto* loop = dynamic_cast<ForLoop*>(e);
  if (loop == nullptr || !loop->isSerial() || loop->iterDomain()->isReduction()) return {};
  loops.push_back(loop);
  const std::vector<Expr*>& body = loop->body().exprs();
  if (body.size() == 1 && body[0]->isA<ForLoop>()) return callsOf(body[0], loops);
  std::vector<RuntimeCall*> calls;
  for (Expr* b : body) {
    auto* call = dynamic_cast<RuntimeCall*>(b);
    if (call == nullptr || !call->isAllReduce()) return {};
    calls.push_back(call);
  }
  return calls;
}

// Thread and block loops print no code of their own: the statements of a scope and of the
// thread and block loops inside it run in one C++ block, in this order. A call may move within
// it (its operands' thread and block indices print the same in every loop).
struct Flattened {
  std::vector<Expr*> statements;  // leaves: statements that are no thread or block loop
  std::vector<Scope*> holders;    // the scope holding each
};

void flatten(Scope& s, Flattened& out) {
  for (Expr* e : s.exprs()) {
    auto* loop = dynamic_cast<ForLoop*>(e);
    if (loop != nullptr &&
        (isThreadDim(loop->parallelType()) || isBlockDim(loop->parallelType()))) {
      flatten(loop->body(), out);
      continue;
    }
    out.statements.push_back(e);
    out.holders.push_back(&s);
  }
}

std::string loopsString(const std::vector<const ForLoop*>& loops) {
  std::string s;
  for (const ForLoop* l : loops) s += (s.empty() ? "" : ", ") + l->iterDomain()->toString();
  return s.empty() ? "none" : s;
}

// The tensors `e` (and the statements inside it) reads and writes.
void tensorsOf(Expr* e, std::set<const TensorView*>& reads, std::set<const TensorView*>& writes) {
  auto scope = [&](const Scope& body) {
    for (Expr* b : body.exprs()) tensorsOf(b, reads, writes);
  };
  if (auto* loop = dynamic_cast<ForLoop*>(e)) return scope(loop->body());
  if (auto* ite = dynamic_cast<IfThenElse*>(e)) {
    scope(ite->thenBody());
    return scope(ite->elseBody());
  }
  for (Val* v : e->inputs())
    if (auto* ti = dynamic_cast<TensorIndex*>(v)) reads.insert(ti->view());
  for (Val* v : e->outputs())
    if (auto* ti = dynamic_cast<TensorIndex*>(v)) writes.insert(ti->view());
}

bool intersects(const std::set<const TensorView*>& a, const std::set<const TensorView*>& b) {
  return std::any_of(a.begin(), a.end(), [&](const TensorView* tv) { return b.count(tv) > 0; });
}

// `v` with the loop indices `rename` maps replaced (the scalar expressions rebuilt).
Val* renamed(Fusion& ir, Val* v, const std::unordered_map<Val*, Val*>& rename) {
  if (auto it = rename.find(v); it != rename.end()) return it->second;
  Expr* def = v->definition();
  if (def == nullptr || rename.empty()) return v;
  std::vector<Val*> ins;
  for (Val* in : def->inputs()) ins.push_back(renamed(ir, in, rename));
  if (ins == def->inputs()) return v;
  Val* out = IrBuilder::createIn<Scalar>(&ir, v->dtype());
  def->newObject(&ir, ins, {out});
  return out;
}

// A member's operand or output moved into other group loops: its index (and what lowering
// recorded on a write) in their indices.
Val* renamedIndex(Fusion& ir, Val* v, const std::unordered_map<Val*, Val*>& rename) {
  auto* ti = dynamic_cast<TensorIndex*>(v);
  if (ti == nullptr || rename.empty()) return v;
  auto* copy = IrBuilder::createIn<TensorIndex>(&ir, ti->view(), renamed(ir, ti->index(), rename));
  IndexMap axes;
  for (const auto& [id, index] : ti->axisIndices()) axes[id] = renamed(ir, index, rename);
  copy->setAxisIndices(std::move(axes));
  copy->setVectorWidth(ti->vectorWidth());
  if (ti->startsReduction()) copy->setStartsReduction();
  if (ti->anyNaNBits()) copy->setAnyNaNBits();
  return copy;
}

class Grouper {
 public:
  explicit Grouper(Kernel& kernel) : kernel_(kernel) {
    // The cross-thread reductions of each group: all of them must meet in one call.
    for (Expr* e : kernel.ir().exprs()) {
      auto* red = dynamic_cast<ReductionOp*>(e);
      if (red == nullptr || red->group() < 0) continue;
      const auto& loop = red->out()->as<TensorView>()->getLoopDomain();
      if (std::any_of(loop.begin(), loop.end(), [](IterDomain* id) {
            return id->isReduction() && isThreadDim(id->parallelType());
          }))
        expected_[red->group()].push_back(red->out()->as<TensorView>());
    }
  }

  // The calls in the C++ block of `s` (flatten); then the scopes inside it.
  void scope(Scope& s) {
    Flattened flat;
    flatten(s, flat);
    std::map<int64_t, std::vector<Member>> found;
    for (size_t i = 0; i < flat.statements.size(); ++i) {
      Expr* e = flat.statements[i];
      std::vector<const ForLoop*> loops;
      const std::vector<RuntimeCall*> calls = callsOf(e, loops);
      if (calls.empty()) {
        if (auto* loop = dynamic_cast<ForLoop*>(e)) scope(loop->body());
        if (auto* ite = dynamic_cast<IfThenElse*>(e)) {
          scope(ite->thenBody());
          scope(ite->elseBody());
        }
        continue;
      }
      for (RuntimeCall* call : calls)
        if (const int64_t g = groupOf(call); g >= 0) found[g].push_back({i, call, loops});
    }
    for (auto& [group, members] : found) {
      if (members.size() == 1 && expected_.at(group).size() == 1) continue;
      // An in-place grid reduction's calls each take their own part of the work buffer
      // (kernel summary): they stay apart.
      if (members.front().call->form() == RuntimeCallForm::GridAllReduce &&
          kernel_.summary().grid_reductions_finish_in_place)
        continue;
      check(group, members);
      merge(members, flat, deferred(members, flat.statements));
    }
    if (!found.empty()) pruneEmptyLoops(s);
  }

 private:
  static const TensorView* viewOf(Val* v) { return v->as<TensorIndex>()->view(); }

  // The members reduce alike, sit in one scope in loops alike, and nothing between the first
  // and the last uses a result early (it moves to the last one's place).
  void check(int64_t group, const std::vector<Member>& members) {
    const Member& first = members.front();
    const std::vector<TensorView*>& all = expected_.at(group);
    for (const TensorView* tv : all) {
      const bool here = std::any_of(members.begin(), members.end(), [&](const Member& m) {
        return viewOf(m.call->output(0)) == tv;
      });
      MF_CHECK(here,
               "groupReductions: {} and {} are not computed in one loop nest (inlined at "
               "different positions or in different loops), so one call cannot reduce both; "
               "inline the grouped reductions alike",
               viewOf(first.call->output(0))->toString(), tv->toString());
    }
    for (const Member& m : members) {
      const std::string what = viewOf(m.call->output(0))->toString();
      const std::string with = viewOf(first.call->output(0))->toString();
      MF_CHECK(m.call->form() == first.call->form() &&
                   m.call->function() == first.call->function() &&
                   m.call->params().across == first.call->params().across,
               "groupReductions: {} ({}) does not reduce across the dimensions of {} ({}); "
               "schedule the grouped reductions alike",
               what, m.call->function(), with, first.call->function());
      // Group loops alike (one nest, or nests of the same extents: the call takes the last's).
      bool same_loops = m.loops.size() == first.loops.size();
      for (size_t l = 0; same_loops && l < m.loops.size(); ++l)
        same_loops =
            m.loops[l]->stop()->toInlineString() == first.loops[l]->stop()->toInlineString();
      MF_CHECK(same_loops,
               "groupReductions: {} is reduced in group loops ({}), {} in ({}); one call needs "
               "group loops alike: schedule the grouped reductions alike",
               what, loopsString(m.loops), with, loopsString(first.loops));
    }
  }

  // The statements between the first member and the last that read a result of an earlier
  // member (or of such a statement): they move after the call. None may write what the call
  // reads, nor what a statement left in place reads after it or writes before it is read.
  std::vector<size_t> deferred(const std::vector<Member>& members, const std::vector<Expr*>& flat) {
    std::set<const TensorView*> results, moved_reads, moved_writes;
    std::vector<size_t> moved;
    size_t next = 0;
    for (size_t q = members.front().order; q < members.back().order; ++q) {
      bool member = false;
      for (; next < members.size() && members[next].order <= q; ++next) {
        results.insert(viewOf(members[next].call->output(0)));
        member = true;
      }
      if (member) continue;
      std::set<const TensorView*> reads, writes;
      tensorsOf(flat[q], reads, writes);
      if (intersects(reads, results) || intersects(reads, moved_writes)) {
        moved.push_back(q);
        moved_reads.insert(reads.begin(), reads.end());
        moved_writes.insert(writes.begin(), writes.end());
        continue;
      }
      MF_CHECK(!intersects(writes, moved_reads) && !intersects(writes, results),
               "groupReductions: {} and {} are reduced in one call, but a statement between "
               "them writes what a use of the first's result reads; group reductions computed "
               "next to each other",
               viewOf(members.front().call->output(0))->toString(),
               viewOf(members.back().call->output(0))->toString());
    }
    for (size_t m = 1; m < members.size(); ++m)
      MF_CHECK(!moved_writes.count(viewOf(members[m].call->operand(CallOperand::In))),
               "groupReductions: {} reads what is computed from {}, so one call cannot reduce "
               "both",
               viewOf(members[m].call->output(0))->toString(),
               viewOf(members.front().call->output(0))->toString());
    return moved;
  }

  // One call at the last member's place, in its loops.
  void merge(const std::vector<Member>& members, Flattened& flat,
             const std::vector<size_t>& moved) {
    RuntimeCall* last = members.back().call;
    std::vector<Val*> ins, outs, reads, writes;
    RuntimeCall::Params params = last->params();
    params.member_combines.clear();
    Fusion& ir = kernel_.ir();
    for (const Member& m : members) {
      // A member in group loops of its own: in the last one's loop indices.
      std::unordered_map<Val*, Val*> rename;
      for (size_t l = 0; l < m.loops.size(); ++l)
        if (m.loops[l]->index() != members.back().loops[l]->index())
          rename[m.loops[l]->index()] = members.back().loops[l]->index();
      ins.push_back(renamedIndex(ir, m.call->operand(CallOperand::In), rename));
      ins.push_back(m.call->operand(CallOperand::Init));
      outs.push_back(renamedIndex(ir, m.call->output(0), rename));
      reads.push_back(renamed(ir, m.call->readPredicate(), rename));
      writes.push_back(renamed(ir, m.call->writePredicate(), rename));
      params.member_combines.push_back(m.call->params().combine);
    }
    params.combine = params.member_combines.front();
    // mf_blockAllReduceX -> mf_blockAllReduceTupleX (the dimension's letter last).
    std::string function = last->function();
    function.insert(function.size() - 1, "Tuple");
    auto* call = IrBuilder::createIn<RuntimeCall>(&ir, ins, outs, last->form(), function, params);
    call->setMemberPredicates(reads, writes);
    // Each call out of the scope holding it (or its group loops' innermost body), the new one
    // in the last one's place.
    for (const Member& m : members) {
      std::vector<Expr*>& body = m.loops.empty()
                                     ? flat.holders[m.order]->exprs()
                                     : const_cast<ForLoop*>(m.loops.back())->body().exprs();
      auto it = std::find(body.begin(), body.end(), static_cast<Expr*>(m.call));
      MF_ASSERT(it != body.end(), "groupReductionCalls: lost {}", m.call->toString());
      if (m.call == last) {
        *it = call;
        continue;
      }
      body.erase(it);
      // Group loops of its own, now empty, go.
      if (!m.loops.empty() && body.empty() && m.loops != members.back().loops) {
        std::vector<Expr*>& holder = flat.holders[m.order]->exprs();
        holder.erase(std::find(holder.begin(), holder.end(), flat.statements[m.order]));
      }
    }
    // The deferred statements after the call (or its group loops), in their order.
    Expr* after = members.back().loops.empty() ? call : flat.statements[members.back().order];
    std::vector<Expr*>& body = flat.holders[members.back().order]->exprs();
    for (size_t q : moved) {
      std::vector<Expr*>& from = flat.holders[q]->exprs();
      from.erase(std::find(from.begin(), from.end(), flat.statements[q]));
      body.insert(std::find(body.begin(), body.end(), after) + 1, flat.statements[q]);
      after = flat.statements[q];
    }
  }

  // The thread and block loops a moved call left empty.
  static void pruneEmptyLoops(Scope& s) {
    std::erase_if(s.exprs(), [](Expr* e) {
      auto* loop = dynamic_cast<ForLoop*>(e);
      if (loop == nullptr || loop->isSerial() || loop->parallelType() == ParallelType::Vectorize)
        return false;
      pruneEmptyLoops(loop->body());
      return loop->body().empty();
    });
  }

  Kernel& kernel_;
  std::map<int64_t, std::vector<TensorView*>> expected_;
};

}  // namespace

void groupReductionCalls(Kernel& kernel) {
  FusionGuard fg(&kernel.ir());
  Grouper(kernel).scope(kernel.body());
}

}  // namespace mf
