//! IterDomain: one axis of a tensor (extent, iteration type, parallelization), and the
//! Split and Merge exprs that derive new axes from old ones, so a schedule is plain IR.
#pragma once

#include <string_view>
#include <utility>

#include "ir/statement.h"

namespace mf {

enum class IterType { Iteration, Reduction, Broadcast, Symbolic };
enum class ParallelType { Serial, BIDx, BIDy, BIDz, TIDx, TIDy, TIDz, Vectorize, Unroll };

std::string_view toString(IterType t);
std::string_view toString(ParallelType t);
bool isThreadDim(ParallelType p);  //!< TIDx/y/z
bool isBlockDim(ParallelType p);   //!< BIDx/y/z

class IterDomain : public Val {
 public:
  IterDomain(Fusion* fusion, Val* extent, IterType iter_type = IterType::Iteration,
             ParallelType parallel_type = ParallelType::Serial);

  Val* extent() const { return extent_; }
  IterType iterType() const { return iter_type_; }
  ParallelType parallelType() const { return parallel_type_; }
  bool isBroadcast() const { return iter_type_ == IterType::Broadcast; }
  bool isReduction() const { return iter_type_ == IterType::Reduction; }
  bool isSymbolic() const { return iter_type_ == IterType::Symbolic; }
  bool isParallelized() const { return parallel_type_ != ParallelType::Serial; }

  //! Binds this axis to a hardware dimension (or marks it vectorized / unrolled).
  void parallelize(ParallelType p);
  //! A new, unconnected axis with the same extent and iteration type, serial.
  IterDomain* freshCopy() const;
  //! Changes the extent (used when building padded or concretized domains).
  void setExtent(Val* extent) { extent_ = extent; }

  //! Inner split: inner extent = factor, outer = ceilDiv(extent, factor). An outer split
  //! puts the factor on the outer axis instead.
  static std::pair<IterDomain*, IterDomain*> split(IterDomain* in, Val* factor, bool inner_split);
  //! One axis of extent outer * inner; outer's index varies slowest.
  static IterDomain* merge(IterDomain* outer, IterDomain* inner);

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

//! Whether consecutive indices of `id` are consecutive indices of `target`: `id` is `target`,
//! the inner output of a split of such an axis, or a merge whose inner input is one (what a
//! vector along `id` needs to be adjacent elements of `target`).
bool runsAlong(IterDomain* id, IterDomain* target);

}  // namespace mf
