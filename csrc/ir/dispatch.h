//! IrVisitor: one virtual handle() per node kind, generated from ir/nodes.h. A visitor
//! overrides the kinds it understands; any other kind reaching it is an internal error.
#pragma once

#include <string_view>

#include "ir/nodes.h"

namespace mf {

class Statement;

class IrVisitor {
 public:
  virtual ~IrVisitor() = default;
  //! Calls the handle() overload of `s`'s class.
  void dispatch(Statement* s);

#define MF_VISIT(T) virtual void handle(T* node);
  MF_FOR_ALL_VALS(MF_VISIT)
  MF_FOR_ALL_EXPRS(MF_VISIT)
#undef MF_VISIT

 protected:
  //! Called for a kind this visitor does not override.
  virtual void unhandled(Statement* s, std::string_view kind);
};

}  // namespace mf
