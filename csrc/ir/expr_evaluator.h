//! ExpressionEvaluator: binds symbolic scalars (typically input extents from real shapes)
//! and evaluates any scalar expression over them, memoizing results.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>

#include "ir/statement.h"

namespace mf {

class Fusion;
class TensorView;

//! Public (<minifuser/minifuser.h>): tests bind the sizes they need and build a
//! DynamicTransformConcretizationInfo with it (ir/dynamic_transform.h).
class ExpressionEvaluator {
 public:
  //! Binds `v`. Rebinding to a different value is a UserError naming `v` (two inputs that
  //! share an extent but got different sizes).
  void bind(const Val* v, const ScalarValue& value);
  //! Binds the extents of `tv`'s logical domain to `sizes`; throws a UserError naming the
  //! tensor on a rank mismatch or a size that contradicts a constant or earlier binding.
  void bindTensorSizes(const TensorView* tv, std::span<const int64_t> sizes);

  //! Binds the extents not bound yet of `fusion`'s axes from the axes they are exactly
  //! mapped to (IdModel, IdMappingMode::Exact): binding tv0 and tv2 suffices for tv1 when
  //! `tv3 = tv1 + tv2` maps tv1's axes to tv2's. Only symbolic extents without a definition
  //! are bound; Symbolic axes (not concretized: they may become broadcasts) neither give nor
  //! take values. Repeats until nothing changes, as a binding can make a derived extent
  //! evaluable.
  void propagateBoundValuesThroughExactMaps(const Fusion& fusion);

  //! The value of `v`, or nullopt when it depends on something unbound.
  std::optional<ScalarValue> evaluate(const Val* v);
  //! The integer value of `v`; a UserError naming `what` if it cannot be evaluated.
  int64_t evaluateInt(const Val* v, std::string_view what);

 private:
  std::unordered_map<const Val*, ScalarValue> known_;
};

}  // namespace mf

namespace mf {
class Fusion;
//! Checks, with every input bound in `ee`, that the operands of each tensor expr agree on
//! their non-broadcast extents where the op says they must (operandExtentRule in
//! ir/op_traits.h; e.g. "add: T0 and T1 disagree on axis 1: 5 vs 7"). Throws mf::UserError.
void validateOperandExtents(const Fusion& fusion, ExpressionEvaluator& ee);
}  // namespace mf
