//! The IR's base classes. A Statement is owned by exactly one Fusion. A Val is a value with
//! a data type (scalar, IterDomain, TensorDomain, TensorView); an Expr computes output Vals
//! from input Vals. Vals know their definition and uses, so the graph is walkable both ways.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ir/dtype.h"
#include "ir/nodes.h"
#include "support/error.h"

namespace mf {

class Fusion;
class Expr;

//! A compile-time constant or an evaluated scalar.
using ScalarValue = std::variant<bool, int64_t, double>;
std::string toString(const ScalarValue& v);
int64_t asInt(const ScalarValue& v);
double asDouble(const ScalarValue& v);
bool asBool(const ScalarValue& v);
//! The dtype a plain number has (nvFuser's): Bool, Int64 or Double.
DataType dataTypeOf(const ScalarValue& v);

class Statement {
 public:
  virtual ~Statement() = default;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Fusion* fusion() const { return fusion_; }
  //! Stable number within its kind's counter (T3, iS5, i7); assigned at registration.
  int64_t name() const { return name_; }
  virtual bool isVal() const = 0;
  bool isExpr() const { return !isVal(); }

  template <typename T>
  bool isA() const {
    return dynamic_cast<const T*>(this) != nullptr;
  }
  template <typename T>
  T* as() {
    MF_ASSERT(isA<T>(), "{} is not of the requested class", toString());
    return static_cast<T*>(this);
  }
  template <typename T>
  const T* as() const {
    MF_ASSERT(isA<T>(), "{} is not of the requested class", toString());
    return static_cast<const T*>(this);
  }

  //! Full printed form (a TensorView with its domain, an Expr as one line).
  virtual std::string toString() const = 0;
  //! Short form used inside other printouts (T3, i7, 2.5, ceilDiv(i0, 4)).
  virtual std::string toInlineString() const { return toString(); }

 protected:
  explicit Statement(Fusion* fusion) : fusion_(fusion) {}

 private:
  friend class Fusion;
  Fusion* fusion_;
  int64_t name_ = -1;
};

class Val : public Statement {
 public:
  ValKind kind() const { return kind_; }
  DataType dtype() const { return dtype_; }
  //! nvFuser's spelling (its Val may have no dtype; every minifuser Val has one).
  std::optional<DataType> getDataType() const { return dtype_; }
  bool isVal() const final { return true; }

  Expr* definition() const { return definition_; }
  const std::vector<Expr*>& uses() const { return uses_; }
  bool isFusionInput() const;
  bool isFusionOutput() const;

  //! Scalars only: a constant value, if this is a constant.
  virtual std::optional<ScalarValue> constValue() const { return std::nullopt; }
  bool isConst() const { return constValue().has_value(); }
  std::optional<int64_t> constInt() const;

 protected:
  Val(Fusion* fusion, ValKind kind, DataType dtype)
      : Statement(fusion), kind_(kind), dtype_(dtype) {}

 private:
  friend class Expr;
  friend class Fusion;
  ValKind kind_;
  DataType dtype_;
  Expr* definition_ = nullptr;
  std::vector<Expr*> uses_;
};

//! The class name of an expr kind ("BinaryOp").
std::string_view toString(ExprKind kind);

class Expr : public Statement {
 public:
  ExprKind kind() const { return kind_; }
  bool isVal() const final { return false; }

  const std::vector<Val*>& inputs() const { return inputs_; }
  const std::vector<Val*>& outputs() const { return outputs_; }
  Val* input(size_t i) const { return inputs_.at(i); }
  Val* output(size_t i) const { return outputs_.at(i); }

  //! The class name ("BinaryOp").
  virtual std::string_view opName() const = 0;

  //! A copy of this expr in `fusion` with other operands and the same non-Val payload.
  //! Cloning and substitution rebuild every expr through this, whatever its class.
  virtual Expr* newObject(Fusion* fusion, std::vector<Val*> inputs,
                          std::vector<Val*> outputs) const = 0;

 protected:
  //! Wires this expr as the definition of `outputs` and a use of `inputs`.
  Expr(Fusion* fusion, ExprKind kind, std::vector<Val*> inputs, std::vector<Val*> outputs);

 private:
  friend class Fusion;
  ExprKind kind_;
  std::vector<Val*> inputs_;
  std::vector<Val*> outputs_;
};

//! True for kernel IR: the kinds of ir/nodes.h's kernel lists, and an Expr with a kernel-IR
//! operand (lowered math on TensorIndex values). A Fusion keeps these apart from its fusion
//! nodes (Fusion::kernelStatements()), so copying, printing and verifying never meet them.
bool isKernelIr(const Statement* s);

//! Defines `newObject` for an Expr class whose constructor is
//! `T(Fusion*, std::vector<Val*> inputs, std::vector<Val*> outputs, <payload of this>)`.
#define MF_DECLARE_EXPR(T)                                                             \
  std::string_view opName() const override {                                           \
    return #T;                                                                         \
  }                                                                                    \
  Expr* newObject(Fusion* fusion, std::vector<Val*> inputs, std::vector<Val*> outputs) \
      const override;

//! A scalar: a constant (has a value) or symbolic (bound at run time, or defined by an Expr).
class Scalar : public Val {
 public:
  Scalar(Fusion* fusion, DataType dtype, std::optional<ScalarValue> value = std::nullopt);
  //! A named scalar of generated code (threadIdx.x, T0.size[1]): printed by its name.
  Scalar(Fusion* fusion, DataType dtype, std::string code_name);
  const std::string& codeName() const { return code_name_; }
  std::optional<ScalarValue> constValue() const override { return value_; }
  std::string toString() const override;
  std::string toInlineString() const override;

 private:
  std::optional<ScalarValue> value_;
  std::string code_name_;
};

}  // namespace mf
