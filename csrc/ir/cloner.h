//! IrCloner: copies IR nodes into another fusion, memoizing old -> new, so shared nodes
//! stay shared. Used by Fusion's copy constructor and by segmentation/lowering.
#pragma once

#include <unordered_map>
#include <vector>

#include "ir/statement.h"

namespace mf {

class IrCloner {
 public:
  explicit IrCloner(Fusion* to) : to_(to) {}
  Fusion* to() const { return to_; }

  //! The clone of `s` (created on first request; a Val's members are cloned with it, its
  //! definition is not: clone the Expr to connect it).
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
  const std::unordered_map<const Statement*, Statement*>& map() const { return map_; }

 private:
  Statement* cloneVal(const Val* v);
  Fusion* to_;
  std::unordered_map<const Statement*, Statement*> map_;
};

}  // namespace mf
