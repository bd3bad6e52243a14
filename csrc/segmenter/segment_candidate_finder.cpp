#include "segmenter/segment_candidate_finder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <set>
#include <unordered_map>

#include "ir/expr_evaluator.h"
#include "ir/exprs.h"
#include "ir/fusion.h"
#include "ir/op_traits.h"
#include "ir/subgraph.h"
#include "passes/passes.h"
#include "scheduler/registry.h"
#include "segmenter/alias_analysis.h"
#include "support/hash.h"
#include "support/options.h"
#include "tensor/arguments.h"

namespace mf {
namespace {

constexpr std::string_view kWho = "SegmentCandidateFinder::segment";

// The copy the segmentation owns, without the exprs whose results reach no output: a dead
// use of a tensor would make it a segment output that no scheduler was asked about.
std::unique_ptr<Fusion> liveCopy(const Fusion& fusion) {
  auto copy = std::make_unique<Fusion>(fusion);
  removeDeadExprs(*copy, {});
  return copy;
}

// A group while segmenting: indices into the topological expr list (sorted), forwarded
// exprs left out (they are added where used). Indices, not pointers, order everything, so
// the result does not depend on where the allocator put the IR.
struct Candidate {
  std::vector<int64_t> exprs;
  SchedulerType type = SchedulerType::None;
  bool alive = true;

  int64_t key() const { return exprs.front(); }
};

class Finder {
 public:
  Finder(const Fusion& fusion, const SchedulerRuntimeInfo& info,
         SegmentCandidateFinderOptions options)
      : segmented_(std::make_unique<SegmentedFusion>(liveCopy(fusion))),
        complete_(*segmented_->completeFusion()),
        info_(&complete_, info.inputsMetadata(), info.device()),
        options_(std::move(options)),
        exprs_(complete_.exprs()) {
    MF_CHECK(info.fusion() == &fusion, "{}: the run-time info is of another fusion", kWho);
    for (size_t i = 0; i < exprs_.size(); ++i) index_[exprs_[i]] = static_cast<int64_t>(i);
    findViews();
    findForwarded();
  }

  std::unique_ptr<SegmentedFusion> run() {
    // The outputs that are views of inputs first: one group, no kernel, reading only inputs.
    if (!aliased_.empty()) addViewGroup();
    // With a custom_should_merge_groups hook every merge asks it, taking the whole fusion
    // at once included: the shortcut would merge every expr without asking.
    if (std::find(in_rest_.begin(), in_rest_.end(), true) != in_rest_.end() &&
        (options_.custom_should_merge_groups || !wholeFusionAccepted())) {
      buildInitialGroups();
      mergeHintsWithProducers();
      mergeNeighbours();
      if (options_.run_final_merge) finalMerge();
      emitInRunOrder();
    }
    std::vector<Expr*> forwarded;
    for (size_t i = 0; i < exprs_.size(); ++i)
      if (forwarded_[i]) forwarded.push_back(exprs_[i]);
    segmented_->finalize(forwarded);
    dump();
    return std::move(segmented_);
  }

 private:
  bool logging() const { return isDumpEnabled(DumpOption::SegmenterLogging); }

  // The outputs that are views of inputs at these strides (segmenter/alias_analysis.h), and
  // the exprs the other outputs need ("the rest", segmented as usual). A view's chain the
  // rest needs too is copied into the rest's groups.
  void findViews() {
    for (const AliasedOutput& a : findAliasedOutputs(complete_, info_)) {
      aliased_.push_back(a.output);
      for (Expr* e : a.chain)
        if (std::find(view_exprs_.begin(), view_exprs_.end(), e) == view_exprs_.end())
          view_exprs_.push_back(e);
    }
    std::sort(view_exprs_.begin(), view_exprs_.end(),
              [&](Expr* a, Expr* b) { return index_.at(a) < index_.at(b); });
    in_rest_.assign(exprs_.size(), aliased_.empty());
    if (aliased_.empty()) return;
    std::vector<Val*> work;
    for (Val* out : complete_.outputs())
      if (!isAliased(out)) work.push_back(out);
    while (!work.empty()) {
      Expr* def = work.back()->definition();
      work.pop_back();
      if (def == nullptr || !index_.count(def) || in_rest_[index_.at(def)]) continue;
      in_rest_[index_.at(def)] = true;
      work.insert(work.end(), def->inputs().begin(), def->inputs().end());
    }
  }

  bool isAliased(const Val* v) const {
    return std::find(aliased_.begin(), aliased_.end(), v) != aliased_.end();
  }

  void addViewGroup() {
    if (logging())
      for (Val* out : aliased_)
        dumpStream() << fmt::format("segmenter: {} is a view of an input; no kernel\n",
                                    out->toInlineString());
    segmented_->addGroup(view_exprs_, SchedulerType::ExprEval, aliased_);
  }

  // The outputs of a group of the rest with `exprs`: nullopt (subgraphOutputs decides)
  // without views; with views, what the rest needs of it, not the views' tensors.
  std::optional<std::vector<Val*>> restOutputs(const std::vector<Expr*>& exprs) const {
    if (aliased_.empty()) return std::nullopt;
    std::vector<Val*> outputs;
    for (Val* out : subgraphOutputs(exprs)) {
      if (forwarded_[index_.at(out->definition())]) continue;
      bool needed = out->isFusionOutput() && !isAliased(out);
      for (Expr* use : out->uses())
        needed = needed || (index_.count(use) && in_rest_[index_.at(use)] &&
                            std::find(exprs.begin(), exprs.end(), use) == exprs.end());
      if (needed) outputs.push_back(out);
    }
    return outputs;
  }

  // Unary chains hanging off fusion inputs (a cast, a neg): an expr is forwarded when it is
  // a UnaryOp whose operand is a fusion input or a forwarded output used only by it, and
  // whose output is not a fusion output, a layout op's offsets (those must be segment
  // inputs) nor read by a squeeze of an Iteration axis (no kernel takes one: it is a view of
  // a segment input, not of a forwarded copy; squeezesIterationAxis). Its output then
  // acts like a fusion input; each group reading it gets a copy of the chain (finalize), so
  // the chain never becomes a segment of its own.
  void findForwarded() {
    forwarded_.assign(exprs_.size(), false);
    for (size_t i = 0; i < exprs_.size(); ++i) {
      auto* op = dynamic_cast<UnaryOp*>(exprs_[i]);
      if (op == nullptr || op->out()->isFusionOutput()) continue;
      const std::vector<Expr*>& uses = op->out()->uses();
      if (std::any_of(uses.begin(), uses.end(), squeezesIterationAxis)) continue;
      Val* in = op->in();
      Expr* def = in->definition();
      bool from_input = in->isFusionInput() ||
                        (def != nullptr && index_.count(def) && forwarded_[index_.at(def)]);
      if (!from_input || in->uses().size() != 1) continue;
      if (!isReadWhole(op->out())) forwarded_[i] = true;
    }
  }

  bool wholeFusionAccepted() {
    if (std::any_of(exprs_.begin(), exprs_.end(), isSegmentSet)) {
      if (logging()) dumpStream() << "segmenter: the fusion holds a segment_set; segmenting\n";
      return false;
    }
    // Beside views, the whole rest: the segment its exprs would form.
    std::vector<int64_t> rest;
    for (size_t i = 0; i < exprs_.size(); ++i)
      if (in_rest_[i] && !forwarded_[i]) rest.push_back(static_cast<int64_t>(i));
    HeuristicsProposal proposal =
        aliased_.empty() ? proposeHeuristics(&complete_, info_) : propose(rest);
    const char* whole = aliased_.empty() ? "the whole fusion" : "the rest beside the views";
    if (logging())
      dumpStream() << (proposal.accepted()
                           ? fmt::format("segmenter: {} is taken by {}\n", whole, proposal.type)
                           : fmt::format("segmenter: no scheduler takes {}:\n{}", whole,
                                         proposal.rejectionsString("  ")));
    if (!proposal.accepted()) return false;
    std::vector<Expr*> exprs = aliased_.empty() ? exprs_ : withForwarded(rest);
    std::optional<std::vector<Val*>> outputs = restOutputs(exprs);
    segmented_->addGroup(std::move(exprs), proposal.type, std::move(outputs));
    return true;
  }

  // The initial groups: each region between segment_sets a scheduler takes whole (one
  // question per region, not one per expr and merge), one group per expr of the rest; every
  // expr alone if the regions read each other in a cycle.
  void buildInitialGroups() {
    group_of_.assign(exprs_.size(), -1);
    for (const std::vector<int64_t>& region : hintRegions()) {
      HeuristicsProposal proposal = propose(region);
      if (logging())
        dumpStream() << fmt::format(
            "segmenter: the region {} between segment_sets is {}\n", labelOf(region),
            proposal.accepted() ? fmt::format("taken by {}", proposal.type) : std::string("split"));
      if (!proposal.accepted()) continue;
      for (int64_t i : region) group_of_[i] = static_cast<int64_t>(groups_.size());
      groups_.push_back(Candidate{region, proposal.type});
    }
    addSingleGroups();
    if (std::all_of(groups_.begin(), groups_.end(), [](auto& c) { return c.exprs.size() == 1; }) ||
        runOrder())
      return;
    if (logging()) dumpStream() << "segmenter: the regions read each other in a cycle\n";
    groups_.clear();
    group_of_.assign(exprs_.size(), -1);
    addSingleGroups();
  }

  // One group per expr of the rest not in a group yet, then every group in key order.
  void addSingleGroups() {
    for (size_t i = 0; i < exprs_.size(); ++i) {
      if (forwarded_[i] || !in_rest_[i] || group_of_[i] >= 0) continue;
      Candidate c;
      c.exprs = {static_cast<int64_t>(i)};
      HeuristicsProposal proposal = propose(c.exprs);
      if (!proposal.accepted() && isViewExpr(exprs_[i]) && aliasesAlone(c.exprs)) {
        // A shape op no kernel takes alone (a squeeze of a size-1 Iteration axis): a view
        // of its input (no kernel) unless a merge gives it a scheduler.
        proposal.type = SchedulerType::ExprEval;
      } else {
        MF_CHECK(proposal.accepted(), "segmenter: no scheduler takes `{}` alone:\n{}",
                 exprs_[i]->toString(), proposal.rejectionsString());
      }
      c.type = proposal.type;
      group_of_[i] = static_cast<int64_t>(groups_.size());
      groups_.push_back(std::move(c));
    }
    std::sort(groups_.begin(), groups_.end(),
              [](const Candidate& a, const Candidate& b) { return a.key() < b.key(); });
    for (size_t g = 0; g < groups_.size(); ++g)
      for (int64_t i : groups_[g].exprs) group_of_[i] = static_cast<int64_t>(g);
    consumers_.reset();
  }

  // The fusion's rest cut at its segment_sets (joined through every other tensor), sorted;
  // none without a segment_set or with a custom_should_merge_groups hook (it sees merges).
  std::vector<std::vector<int64_t>> hintRegions() const {
    if (options_.custom_should_merge_groups ||
        std::none_of(exprs_.begin(), exprs_.end(), isSegmentSet))
      return {};
    const auto n = static_cast<int64_t>(exprs_.size());
    std::vector<int64_t> parent(exprs_.size());
    std::iota(parent.begin(), parent.end(), 0);
    auto find = [&](int64_t i) {
      while (parent[i] != i) i = parent[i] = parent[parent[i]];
      return i;
    };
    auto own = [&](int64_t i) { return in_rest_[i] && !forwarded_[i]; };
    for (int64_t i = 0; i < n; ++i)
      for (Val* in : exprs_[i]->inputs())
        if (auto it = index_.find(in->definition());
            own(i) && it != index_.end() && own(it->second) && !isSegmentSet(it->first))
          parent[find(i)] = find(it->second);
    std::vector<std::vector<int64_t>> by_root(exprs_.size()), regions;
    for (int64_t i = 0; i < n; ++i)
      if (own(i)) by_root[find(i)].push_back(i);
    for (std::vector<int64_t>& members : by_root)
      if (!members.empty()) regions.push_back(std::move(members));
    return regions;
  }

  // A segment_set ends the segment of its producer: join them before anything else claims
  // the producer.
  void mergeHintsWithProducers() {
    for (size_t g = 0; g < groups_.size(); ++g) {
      Expr* e = exprs_[groups_[g].key()];
      if (!groups_[g].alive || !isSegmentSet(e) || groups_[g].exprs.size() != 1) continue;
      Expr* def = e->input(0)->definition();
      if (def == nullptr || !index_.count(def) || forwarded_[index_.at(def)]) continue;
      tryMerge(group_of_[index_.at(def)], static_cast<int64_t>(g));
    }
  }

  // Producer-consumer merges, from the first group in topological order on, until none is
  // accepted.
  void mergeNeighbours() {
    for (bool changed = true; changed;) {
      changed = false;
      for (int64_t g : aliveInKeyOrder()) {
        for (bool merged = true; merged && groups_[g].alive;) {
          const std::vector<int64_t> consumers = consumerLists()[g];  // the first merge wins
          merged = std::any_of(consumers.begin(), consumers.end(),
                               [&](int64_t c) { return tryMerge(g, c); });
          changed = changed || merged;
        }
      }
    }
  }

  // Every remaining pair, related or not, until none is accepted; a pair whose union (with
  // the groups between them) would hold a hint's boundary is skipped without a tryMerge.
  void finalMerge() {
    for (bool changed = true; changed;) {
      changed = false;
      const std::vector<int64_t> alive = aliveInKeyOrder();
      // reach[g][x]: a path leads from group g to x (filled from the last group back).
      std::vector<std::vector<bool>> reach(groups_.size(), std::vector<bool>(groups_.size()));
      for (auto g = alive.rbegin(); g != alive.rend(); ++g)
        for (int64_t c : consumerLists()[*g]) {
          reach[*g][c] = true;
          for (size_t x = 0; x < groups_.size(); ++x) reach[*g][x] = reach[*g][x] || reach[c][x];
        }
      std::vector<std::vector<int64_t>> readers(groups_.size());
      for (int64_t g : alive) readers[g] = hintReaders(g);
      for (size_t i = 0; i < alive.size() && !changed; ++i)
        for (size_t j = i + 1; j < alive.size() && !changed; ++j) {
          auto [a, b] = reach[alive[j]][alive[i]] ? std::pair(alive[j], alive[i])
                                                  : std::pair(alive[i], alive[j]);
          // Most often a's own segment_set is read on the way to b: no union to build.
          if (!logging() && reach[a][b] &&
              std::any_of(readers[a].begin(), readers[a].end(),
                          [&](int64_t c) { return c == b || reach[c][b]; }))
            continue;
          std::vector<int64_t> gs = {a, b};
          for (int64_t g : alive)
            if (reach[a][g] && reach[g][b]) gs.push_back(g);
          if (logging() || !hintInside(gs)) changed = tryMerge(alive[i], alive[j]);
        }
    }
  }

  std::vector<int64_t> aliveInKeyOrder() const {
    std::vector<int64_t> alive;
    for (size_t g = 0; g < groups_.size(); ++g)
      if (groups_[g].alive) alive.push_back(static_cast<int64_t>(g));
    std::sort(alive.begin(), alive.end(),
              [&](int64_t a, int64_t b) { return groups_[a].key() < groups_[b].key(); });
    return alive;
  }

  // The groups computing a tensor `g` reads, in key order (forwarded chains are copied,
  // not read).
  std::vector<int64_t> producersOf(int64_t g) const {
    std::set<std::pair<int64_t, int64_t>> found;  // (key, group)
    for (int64_t i : groups_[g].exprs)
      for (Val* in : exprs_[i]->inputs()) {
        Expr* def = in->definition();
        if (def == nullptr || !index_.count(def)) continue;
        int64_t p = group_of_[index_.at(def)];
        if (p >= 0 && p != g) found.emplace(groups_[p].key(), p);
      }
    std::vector<int64_t> out;
    for (const auto& [key, p] : found) out.push_back(p);
    return out;
  }

  // Per group (by index; empty for merged-away ones), its consumer groups. Kept until a
  // merge changes the groups.
  const std::vector<std::vector<int64_t>>& consumerLists() const {
    if (consumers_) return *consumers_;
    consumers_.emplace(groups_.size());
    for (int64_t c : aliveInKeyOrder())
      for (int64_t p : producersOf(c)) (*consumers_)[p].push_back(c);
    return *consumers_;
  }

  // The other groups reading a segment_set of group `g`.
  std::vector<int64_t> hintReaders(int64_t g) const {
    std::vector<int64_t> readers;
    for (int64_t i : groups_[g].exprs)
      for (Expr* use :
           isSegmentSet(exprs_[i]) ? exprs_[i]->output(0)->uses() : std::vector<Expr*>{})
        if (auto it = index_.find(use);
            it != index_.end() && group_of_[it->second] >= 0 && group_of_[it->second] != g)
          readers.push_back(group_of_[it->second]);
    return readers;
  }

  // Whether one of the groups `gs` reads a segment_set of another: every scheduler refuses
  // their union (commonScheduleRejectReason), and asking costs a copy of it.
  bool hintInside(const std::vector<int64_t>& gs) const {
    return std::any_of(gs.begin(), gs.end(), [&](int64_t p) {
      const std::vector<int64_t> readers = hintReaders(p);
      return std::find_first_of(readers.begin(), readers.end(), gs.begin(), gs.end()) !=
             readers.end();
    });
  }

  // The groups on a path from `from` to `to` (neither included), in key order: with the two
  // they form a convex set (no path leaves it and comes back), so merging them all makes no
  // cycle.
  std::vector<int64_t> groupsBetween(const std::vector<std::vector<int64_t>>& consumers,
                                     int64_t from, int64_t to) const {
    auto reachable = [&](int64_t start, const std::vector<std::vector<int64_t>>& edges) {
      std::vector<bool> seen(edges.size(), false);
      std::vector<int64_t> work = edges[start];
      while (!work.empty()) {
        int64_t g = work.back();
        work.pop_back();
        if (seen[g]) continue;
        seen[g] = true;
        work.insert(work.end(), edges[g].begin(), edges[g].end());
      }
      return seen;
    };
    std::vector<std::vector<int64_t>> producers(consumers.size());
    for (size_t p = 0; p < consumers.size(); ++p)
      for (int64_t c : consumers[p]) producers[c].push_back(static_cast<int64_t>(p));
    const std::vector<bool> after = reachable(from, consumers);
    const std::vector<bool> before = reachable(to, producers);
    std::vector<int64_t> mid;
    for (int64_t g : aliveInKeyOrder())
      if (g != from && g != to && after[g] && before[g]) mid.push_back(g);
    return mid;
  }

  std::string labelOf(const std::vector<int64_t>& indices) const {
    std::string s;
    for (int64_t i : indices)
      for (Val* out : exprs_[i]->outputs()) s += (s.empty() ? "" : ", ") + out->toInlineString();
    return "{" + s + "}";
  }

  bool tryMerge(int64_t a, int64_t b) {
    std::vector<int64_t> merged = groups_[a].exprs;
    merged.insert(merged.end(), groups_[b].exprs.begin(), groups_[b].exprs.end());
    std::sort(merged.begin(), merged.end());
    // Either order is the same union.
    auto key = std::minmax(groups_[a].exprs, groups_[b].exprs);
    if (refused_.count(key)) return false;
    const std::string what = fmt::format("segmenter: merge {} + {}", labelOf(groups_[a].exprs),
                                         labelOf(groups_[b].exprs));
    auto refuse = [&](const std::string& why) {
      refused_.insert(key);
      if (logging()) dumpStream() << what << ": refused, " << why;
      return false;
    };
    if (options_.custom_should_merge_groups &&
        !options_.custom_should_merge_groups(exprsOf(groups_[a].exprs), exprsOf(groups_[b].exprs)))
      return refuse("custom_should_merge_groups said no\n");
    const std::vector<std::vector<int64_t>>& consumers = consumerLists();
    // A path between them through other groups (those on it): the two alone would make a
    // cycle, so the merge takes those groups too (a normalization whose reduction sits between its
    // input's reader and its output's writer: {reshape, abs} + {div} through {max, broadcast}).
    std::vector<int64_t> mid;
    for (auto [from, to] : {std::pair(a, b), std::pair(b, a)})
      if (mid.empty()) mid = groupsBetween(consumers, from, to);
    std::string through;
    for (int64_t g : mid) {
      merged.insert(merged.end(), groups_[g].exprs.begin(), groups_[g].exprs.end());
      through += (through.empty() ? "" : " + ") + labelOf(groups_[g].exprs);
    }
    std::sort(merged.begin(), merged.end());
    if (!mid.empty()) through = fmt::format(" (with {} between them)", through);
    // Without logging (which prints each scheduler's reason), the common refusal is here.
    std::vector<int64_t> gs = mid;
    gs.insert(gs.end(), {a, b});
    if (!logging() && hintInside(gs)) return refuse("");
    HeuristicsProposal proposal = propose(merged);
    if (!proposal.accepted())
      return refuse(fmt::format("no scheduler takes the union{}:\n{}", through,
                                proposal.rejectionsString("  ")));
    if (logging())
      dumpStream() << what << through << ": accepted by " << toString(proposal.type) << "\n";
    for (int64_t g : mid) groups_[g].alive = false;
    groups_[b].alive = false;
    consumers_.reset();
    groups_[a].exprs = std::move(merged);
    groups_[a].type = proposal.type;
    for (int64_t i : groups_[a].exprs) group_of_[i] = a;
    return true;
  }

  std::vector<Expr*> exprsOf(const std::vector<int64_t>& indices) const {
    std::vector<Expr*> out;
    for (int64_t i : indices) out.push_back(exprs_[i]);
    return out;
  }

  // `own` plus the forwarded chains it reads, in topological order.
  std::vector<Expr*> withForwarded(const std::vector<int64_t>& own) const {
    std::set<int64_t> all(own.begin(), own.end());
    std::vector<int64_t> work(own);
    while (!work.empty()) {
      int64_t i = work.back();
      work.pop_back();
      for (Val* in : exprs_[i]->inputs()) {
        Expr* def = in->definition();
        if (def == nullptr || !index_.count(def)) continue;
        int64_t d = index_.at(def);
        if (forwarded_[d] && all.insert(d).second) work.push_back(d);
      }
    }
    return exprsOf(std::vector<int64_t>(all.begin(), all.end()));
  }

  // f(fusion, run-time info) of the segment `own` would form, at these sizes.
  template <typename F>
  auto onSegment(const std::vector<int64_t>& own, F&& f) {
    std::vector<Expr*> exprs = withForwarded(own);
    std::vector<Val*> outputs;
    if (std::optional<std::vector<Val*>> rest = restOutputs(exprs)) outputs = std::move(*rest);
    for (Val* out : aliased_.empty() ? subgraphOutputs(exprs) : std::vector<Val*>{})
      if (!forwarded_[index_.at(out->definition())]) outputs.push_back(out);
    SegmentSubfusion segment =
        makeSegmentSubfusion(complete_, exprs, subgraphInputs(exprs), outputs);
    SchedulerRuntimeInfo info(segment.fusion.get(),
                              segmentInputsMetadata(segment.original_inputs, info_),
                              info_.device());
    return f(segment.fusion.get(), info);
  }

  HeuristicsProposal propose(const std::vector<int64_t>& own) {
    return onSegment(
        own, [](Fusion* f, SchedulerRuntimeInfo& info) { return proposeHeuristics(f, info); });
  }

  // Whether the segment of `own` (one view expr) makes each of its outputs a view of its
  // input (alias_analysis.h), as an ExprEval group does.
  bool aliasesAlone(const std::vector<int64_t>& own) {
    return onSegment(own, [](Fusion* f, SchedulerRuntimeInfo& info) {
      return !f->outputs().empty() && findAliasedOutputs(*f, info).size() == f->outputs().size();
    });
  }

  // The groups in run order (Kahn's algorithm, the smallest key first among the ready
  // groups); nullopt when they read each other in a cycle.
  std::optional<std::vector<int64_t>> runOrder() const {
    const std::vector<std::vector<int64_t>>& consumers = consumerLists();
    const std::vector<int64_t> alive = aliveInKeyOrder();
    std::vector<int64_t> pending(groups_.size(), 0), order;
    for (int64_t g : alive)
      for (int64_t c : consumers[g]) ++pending[c];
    std::set<std::pair<int64_t, int64_t>> ready;  // (key, group)
    for (int64_t g : alive)
      if (pending[g] == 0) ready.emplace(groups_[g].key(), g);
    while (!ready.empty()) {
      const int64_t g = ready.begin()->second;
      ready.erase(ready.begin());
      order.push_back(g);
      for (int64_t c : consumers[g])
        if (--pending[c] == 0) ready.emplace(groups_[c].key(), c);
    }
    if (order.size() != alive.size()) return std::nullopt;
    return order;
  }

  void emitInRunOrder() {
    std::optional<std::vector<int64_t>> order = runOrder();
    MF_ASSERT(order.has_value(), "segmenter: the groups form a cycle");
    for (int64_t g : *order) {
      std::vector<Expr*> exprs = withForwarded(groups_[g].exprs);
      std::optional<std::vector<Val*>> outputs = restOutputs(exprs);
      segmented_->addGroup(std::move(exprs), groups_[g].type, std::move(outputs));
    }
  }

  void dump() const {
    if (isDumpEnabled(DumpOption::FusionSegments)) dumpStream() << segmented_->toString();
    if (!isDumpEnabled(DumpOption::FusionSegmentsGraph)) return;
    // Named by the segmentation's text: the same segmentation writes the same file.
    // A folder that cannot be written warns and skips the dump (writeDumpFile).
    const std::optional<std::string> dot =
        writeDumpFile(DumpOption::FusionSegmentsGraph,
                      fmt::format("fusion_segments_{:016x}.dot", hashBytes(segmented_->toString())),
                      segmented_->toDot());
    if (!dot) return;
    dumpStream() << "fusion_segments_graph: wrote " << *dot << "\n";
    const std::string base = dot->substr(0, dot->size() - 4);
    if (std::system("command -v dot > /dev/null 2>&1") == 0 &&
        std::system(fmt::format("dot -Tpng '{0}.dot' -o '{0}.png'", base).c_str()) == 0)
      dumpStream() << "fusion_segments_graph: wrote " << base << ".png\n";
  }

  std::unique_ptr<SegmentedFusion> segmented_;
  Fusion& complete_;
  SchedulerRuntimeInfo info_;
  SegmentCandidateFinderOptions options_;
  std::vector<Expr*> exprs_;  // the complete fusion's tensor exprs, topological
  std::unordered_map<const Expr*, int64_t> index_;
  std::vector<bool> forwarded_;
  std::vector<Val*> aliased_;      // outputs that are views of inputs, in output order
  std::vector<Expr*> view_exprs_;  // their chains, topological
  std::vector<bool> in_rest_;      // expr index -> needed by an output that is not a view
  std::vector<Candidate> groups_;
  std::vector<int64_t> group_of_;  // expr index -> group (-1: forwarded)
  mutable std::optional<std::vector<std::vector<int64_t>>> consumers_;  // consumerLists()
  // Merges refused once stay refused: the oracle and the hook see only the exprs, and a
  // cycle through another group never disappears when other groups merge.
  std::set<std::pair<std::vector<int64_t>, std::vector<int64_t>>> refused_;
};

}  // namespace

std::unique_ptr<SegmentedFusion> SegmentCandidateFinder::segment(
    const Fusion& fusion, const std::vector<Tensor>& inputs,
    SegmentCandidateFinderOptions options) {
  // The executors' input checks and messages (count, rank, dtype, sizes, contiguity, operand
  // extents), before anything reads the metadata.
  {
    ExpressionEvaluator ee;
    checkAndBindInputs(fusion, inputs, ee, kWho);
  }
  // The run-time info binds a non-const fusion; it is only read.
  SchedulerRuntimeInfo info(const_cast<Fusion*>(&fusion), inputs);
  return segment(fusion, info, std::move(options));
}

std::unique_ptr<SegmentedFusion> SegmentCandidateFinder::segment(
    const Fusion& fusion, const SchedulerRuntimeInfo& runtime_info,
    SegmentCandidateFinderOptions options) {
  verifyRunnable(fusion, kWho);
  return Finder(fusion, runtime_info, std::move(options)).run();
}

std::unique_ptr<SegmentedFusion> Fusion::segment(const KernelArgumentHolder& args) const {
  return SegmentCandidateFinder::segment(*this, args.toTensors(*this));
}

}  // namespace mf
