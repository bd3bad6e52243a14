//! ScalarKeys: when two scalars of a lowered kernel are the same value in generated code.
//! hoistCommonScalars (lower/passes.h) declares a scalar used twice once per scope by this
//! identity, and codegen writes every later scalar with the key of a declared one by its
//! name, so the two agree by construction.
#pragma once

#include <string>
#include <unordered_map>

#include "lower/kernel_summary.h"

namespace mf {

class ScalarKeys {
 public:
  explicit ScalarKeys(const KernelSummary& summary);

  //! `T0.size[1]` for a symbolic logical extent of a tensor parameter, which generated code
  //! reads from the first parameter with that extent; null for any other value.
  const std::string* extentName(const Val* v) const;
  //! Computed in the kernel: not a constant, a fusion input, an extent a parameter names, or
  //! a named scalar (thread index, size, stride); a loop index has no definition.
  bool isCompound(const Val* v) const;
  //! Equal for two scalars exactly when generated code writes them the same way: the same
  //! constant as printed (an integer's value whatever its type, a float at its precision),
  //! the same leaf name, or the same op (with the types the code spells: a cast's, a float
  //! maximum's) on operands with equal keys. Two distinct Vals may share a key (T0.size[0]
  //! as a tensor's extent and as the size the predicates read).
  const std::string& key(const Val* v);

 private:
  std::string compute(const Val* v);
  //! An operand converted to `to`, as codegen writes a float maximum's operands.
  std::string operandKey(const Val* v, DataType to);

  std::unordered_map<const Val*, std::string> extent_names_;
  std::unordered_map<const Val*, std::string> keys_;
};

}  // namespace mf
