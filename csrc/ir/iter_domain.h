//! IterDomain: one axis of a tensor (extent, iteration type, parallelization), the builder
//! every IterDomain is made with, the Split, Merge and Resize exprs that derive new axes from
//! old ones (so a schedule is plain IR), and visitIdExpr, the one dispatch over those exprs.
#pragma once

#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

#include "ir/statement.h"

namespace mf {

enum class IterType { Iteration, Reduction, Broadcast, Symbolic };
//! Unswitch and Group (nvFuser's) lower as serial loops: an unswitched loop keeps a predicate
//! per element, and a Group axis after a block reduction's axes is the group its one runtime
//! call reduces, as any serial iteration axis there (docs/reductions.md).
enum class ParallelType {
  Serial,
  BIDx,
  BIDy,
  BIDz,
  TIDx,
  TIDy,
  TIDz,
  Vectorize,
  Unroll,
  Unswitch,
  Group
};

std::string_view toString(IterType t);
std::string_view toString(ParallelType t);
bool isThreadDim(ParallelType p);  //!< TIDx/y/z
bool isBlockDim(ParallelType p);   //!< BIDx/y/z

class IterDomain;

//! Makes every IterDomain (nvFuser's IterDomainBuilder): a new field is added here and in
//! IterDomain's constructor, and every copy carries it.
//!   IterDomainBuilder(extent).iterType(IterType::Broadcast).build()  a new axis
//!   IterDomainBuilder(id).extent(e).build(fusion)                   a copy of `id`, new extent
class IterDomainBuilder {
 public:
  //! A new axis of `extent`: Iteration, Serial.
  explicit IterDomainBuilder(Val* extent) : extent_(extent) {}
  //! A copy of every field of `id` (its parallel type included).
  explicit IterDomainBuilder(const IterDomain* id);

  IterDomainBuilder& extent(Val* extent) {
    extent_ = extent;
    return *this;
  }
  IterDomainBuilder& iterType(IterType iter_type) {
    iter_type_ = iter_type;
    return *this;
  }
  IterDomainBuilder& parallelType(ParallelType parallel_type) {
    parallel_type_ = parallel_type;
    return *this;
  }

  //! The axis, in the current fusion (FusionGuard).
  IterDomain* build() const;
  //! The axis, in `fusion` (a clone into another fusion).
  IterDomain* build(Fusion* fusion) const;

 private:
  friend class IterDomain;
  Val* extent_;
  IterType iter_type_ = IterType::Iteration;
  ParallelType parallel_type_ = ParallelType::Serial;
};

class IterDomain : public Val {
 public:
  //! Called by IterDomainBuilder::build (through IrBuilder); build axes with the builder.
  IterDomain(Fusion* fusion, const IterDomainBuilder& fields);

  Val* extent() const { return extent_; }
  IterType iterType() const { return iter_type_; }
  ParallelType parallelType() const { return parallel_type_; }
  ParallelType getParallelType() const { return parallel_type_; }  // nvFuser's spelling
  bool isBroadcast() const { return iter_type_ == IterType::Broadcast; }
  bool isReduction() const { return iter_type_ == IterType::Reduction; }
  bool isSymbolic() const { return iter_type_ == IterType::Symbolic; }
  bool isParallelized() const { return parallel_type_ != ParallelType::Serial; }

  //! Binds this axis to a hardware dimension (or marks it vectorized / unrolled).
  void parallelize(ParallelType p);
  //! A new, unconnected copy of this axis, serial (IterDomainBuilder(this), Serial).
  IterDomain* freshCopy() const;

  //! Inner split: inner extent = factor, outer = ceilDiv(extent, factor). An outer split
  //! puts the factor on the outer axis instead.
  static std::pair<IterDomain*, IterDomain*> split(IterDomain* in, Val* factor, bool inner_split);
  //! One axis of extent outer * inner; outer's index varies slowest.
  static IterDomain* merge(IterDomain* outer, IterDomain* inner);
  //! `in` widened by `left` elements before and `right` after (negative widths crop): out's
  //! extent is in + left + right and out's index i is in's index i - left. Without
  //! `iter_type`, out is Iteration when its extent is a constant (1 included: a slice to one
  //! element keeps a real axis of extent 1, which never broadcasts implicitly; nvFuser makes
  //! it a Broadcast) or both widths are constants summing to more than 1 (out > 1 then), and
  //! Symbolic otherwise: concretization decides (Broadcast when it is 1 at run time). `in`
  //! must not be a reduction axis.
  static IterDomain* resize(IterDomain* in, Val* left, Val* right,
                            std::optional<IterType> iter_type = std::nullopt);

  std::string toString() const override;
  std::string toInlineString() const override { return toString(); }

 private:
  Val* extent_;
  IterType iter_type_;
  ParallelType parallel_type_;
};

//! in -> (outer, inner). Inputs: {in, factor}; outputs: {outer, inner}.
class Split : public Expr {
 public:
  Split(Fusion* fusion, std::vector<Val*> inputs, std::vector<Val*> outputs, bool inner_split);
  MF_DECLARE_EXPR(Split)
  IterDomain* in() const { return input(0)->as<IterDomain>(); }
  Val* factor() const { return input(1); }
  IterDomain* outer() const { return output(0)->as<IterDomain>(); }
  IterDomain* inner() const { return output(1)->as<IterDomain>(); }
  bool innerSplit() const { return inner_split_; }
  std::string toString() const override;

 private:
  bool inner_split_;
};

//! (outer, inner) -> out. Inputs: {outer, inner}; outputs: {out}.
class Merge : public Expr {
 public:
  Merge(Fusion* fusion, std::vector<Val*> inputs, std::vector<Val*> outputs);
  MF_DECLARE_EXPR(Merge)
  IterDomain* outer() const { return input(0)->as<IterDomain>(); }
  IterDomain* inner() const { return input(1)->as<IterDomain>(); }
  IterDomain* out() const { return output(0)->as<IterDomain>(); }
  std::string toString() const override;
};

//! in -> out: out is `in` widened by left() elements before it and right() after it (pad,
//! slice and cat make these; negative widths crop). Inputs: {in, left, right}; outputs:
//! {out}. Index math: in = out - left (backward), out = in + left (forward); an out index
//! whose in index falls outside [0, in's extent) is padding.
class Resize : public Expr {
 public:
  Resize(Fusion* fusion, std::vector<Val*> inputs, std::vector<Val*> outputs);
  MF_DECLARE_EXPR(Resize)
  IterDomain* in() const { return input(0)->as<IterDomain>(); }
  Val* left() const { return input(1); }
  Val* right() const { return input(2); }
  IterDomain* out() const { return output(0)->as<IterDomain>(); }
  std::string toString() const override;
};

namespace detail {
template <typename... Fs>
struct IdExprHandlers : Fs... {
  using Fs::operator()...;
};
template <typename... Fs>
IdExprHandlers(Fs...) -> IdExprHandlers<Fs...>;
[[noreturn]] void unhandledIdExpr(const Expr* e);
}  // namespace detail

//! The one dispatch over the IterDomain exprs (ir/nodes.h's MF_FOR_ALL_ID_EXPRS): calls the
//! handler among `handlers` that takes `e`'s class and returns what it returns.
//!   visitIdExpr(id->definition(), [&](Split* s) { ... }, [&](Merge* m) { ... });
//! Every class needs a handler (one taking `const T*` for a `const Expr*`): a missing one is
//! a compile error, so a new IterDomain expr (Resize) cannot be missed. An `e` that is not
//! an IterDomain expr (or null) is an internal error "unhandled IterDomain expr <name>".
template <typename E, typename... Fs>
decltype(auto) visitIdExpr(E* e, Fs&&... handlers) {
  static_assert(std::is_same_v<std::remove_const_t<E>, Expr>, "visitIdExpr takes an Expr*");
  detail::IdExprHandlers handle{std::forward<Fs>(handlers)...};
  if (e != nullptr) {
    switch (e->kind()) {
#define MF_ID_EXPR_CASE(T)                                                                         \
  case ExprKind::T: {                                                                              \
    using Arg = std::conditional_t<std::is_const_v<E>, const T*, T*>;                              \
    static_assert(std::is_invocable_v<decltype(handle)&, Arg>, "visitIdExpr: no handler for " #T); \
    return handle(static_cast<Arg>(e));                                                            \
  }
      MF_FOR_ALL_ID_EXPRS(MF_ID_EXPR_CASE)
#undef MF_ID_EXPR_CASE
      default:
        break;
    }
  }
  detail::unhandledIdExpr(e);
}

//! Whether consecutive indices of `id` are consecutive indices of `target`: `id` is `target`,
//! the inner output of a split of such an axis, a merge whose inner input is one (or whose
//! inner input is a broadcast, extent 1, and outer input one), or a resize of one (what a
//! vector along `id` needs to be adjacent elements of `target`).
bool runsAlong(IterDomain* id, IterDomain* target);

}  // namespace mf
