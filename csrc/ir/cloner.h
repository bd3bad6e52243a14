//! IrCloner: copies IR nodes into another fusion, memoizing old -> new, so shared nodes
//! stay shared. Used by Fusion's copy constructor and by segmentation/lowering.
#pragma once

#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/statement.h"

namespace mf {

class IrCloner {
 public:
  //! With `scalar_definitions`, cloning a scalar also clones the Expr defining it (and so
  //! its whole expression DAG): a partial copy (copySubgraph) needs every extent computable.
  explicit IrCloner(Fusion* to, bool scalar_definitions = false)
      : to_(to), scalar_definitions_(scalar_definitions) {}
  Fusion* to() const { return to_; }

  //! The clone of `s` (created on first request; a Val's members are cloned with it, its
  //! definition is not, except a scalar's with `scalar_definitions`: clone the Expr to
  //! connect it).
  Statement* clone(const Statement* s);
  template <typename T>
  T* clone(const T* s) {
    return s == nullptr ? nullptr : static_cast<T*>(clone(static_cast<const Statement*>(s)));
  }
  template <typename T>
  std::vector<T*> clone(const std::vector<T*>& v) {
    std::vector<T*> out;
    out.reserve(v.size());
    for (T* s : v) out.push_back(clone(s));
    return out;
  }
  //! Makes `to` the clone of `from` (a node built by hand, like a segment's input tensor).
  void registerClone(const Statement* from, Statement* to);
  const std::unordered_map<const Statement*, Statement*>& map() const { return map_; }

 private:
  Statement* cloneVal(const Val* v);
  Fusion* to_;
  bool scalar_definitions_;
  std::unordered_map<const Statement*, Statement*> map_;
  // Exprs being cloned: their outputs' definitions must not be cloned again.
  std::unordered_set<const Statement*> in_progress_;
};

}  // namespace mf
