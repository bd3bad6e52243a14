//! nvFuser's argument spellings: a fusion's inputs as tensors and plain numbers,
//! `KernelArgumentHolder args({t0, 2.0}); args.push(t1);`, accepted by
//! FusionExecutorCache::runFusionWithInputs, KernelExecutor::compile / run and
//! SchedulerRuntimeInfo beside minifuser's std::vector<Tensor> (scalars as 0-dim tensors).
#pragma once

#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

#include "tensor/tensor.h"

namespace mf {

class Fusion;

//! One argument: a tensor, or a plain number (double, int64_t, int, bool) that becomes the
//! 0-dim tensor of the scalar fusion input it meets, in that input's dtype.
class PolymorphicValue {
 public:
  PolymorphicValue(Tensor t) : tensor_(std::move(t)) {}
  PolymorphicValue(double v) : number_(v) {}
  PolymorphicValue(int64_t v) : number_(v) {}
  PolymorphicValue(int v) : number_(int64_t{v}) {}
  PolymorphicValue(bool v) : number_(v) {}

  bool isNumber() const { return number_.has_value(); }
  //! The tensor (a number: a 0-dim host tensor of its own type, Double / Int64 / Bool).
  Tensor toTensor(std::optional<DataType> dtype = std::nullopt) const;
  //! nvFuser's `arg.as<at::Tensor>()` reads as `arg.as<Tensor>()`.
  template <typename T>
  T as() const {
    static_assert(std::is_same_v<T, Tensor>, "PolymorphicValue::as: only Tensor");
    return toTensor();
  }

 private:
  Tensor tensor_;
  std::optional<ScalarValue> number_;
};

//! An ordered list of arguments, as nvFuser's: `{t0, 2.0}`, `push(t1)`, `push(3.0)`.
class KernelArgumentHolder {
 public:
  KernelArgumentHolder() = default;
  KernelArgumentHolder(std::initializer_list<PolymorphicValue> args) : args_(args) {}
  KernelArgumentHolder(const std::vector<Tensor>& tensors)
      : args_(tensors.begin(), tensors.end()) {}

  void push(PolymorphicValue v) { args_.push_back(std::move(v)); }
  size_t size() const { return args_.size(); }
  bool empty() const { return args_.empty(); }
  const PolymorphicValue& operator[](size_t i) const { return args_.at(i); }
  auto begin() const { return args_.begin(); }
  auto end() const { return args_.end(); }

  //! The tensors `fusion`'s inputs take: a number for scalar input i becomes a 0-dim tensor of
  //! that input's dtype (Int64 for Index). Counts and kinds are checked where the tensors
  //! are bound (tensor/arguments.h), with the usual messages.
  std::vector<Tensor> toTensors(const Fusion& fusion) const;

 private:
  std::vector<PolymorphicValue> args_;
};

//! The argument list of an entry point's nvFuser spelling: `{t0, 2.0}` picks it over the
//! std::vector<Tensor> overload, so `{t0, t1}` stays unambiguous.
using ArgumentList = std::initializer_list<PolymorphicValue>;

}  // namespace mf
