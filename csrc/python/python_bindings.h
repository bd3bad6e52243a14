//! The C++ side of the Python module `minifuser` (docs/python.md), built with nanobind: the
//! fusion a FusionDefinition builds and runs (PyFusion), and the functions binding each part.
//! The Python package (csrc/python/minifuser/) wraps PyFusion in FusionDefinition and records
//! the definition calls for its repro script; nothing here knows of that.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/fusion.h"
#include "tensor/tensor.h"

namespace mf {
class FusionExecutorCache;
}

namespace mf::python {

namespace nb = nanobind;

//! A padded output of the last execute (the layout op's): its logical shape, the shape of
//! the buffer it is returned as, and the rows that hold groups (when known).
struct OutputLayout {
  int64_t index = 0;
  std::vector<int64_t> logical_shape;
  std::vector<int64_t> allocation_shape;
  std::optional<int64_t> used_rows;
};

//! One fusion under definition, then its FusionExecutorCache (made at the first execute,
//! which takes the fusion over: no definition call is allowed after it).
class PyFusion {
 public:
  PyFusion();
  ~PyFusion();

  //! Makes this fusion the one ops build into (FusionGuard), until exit().
  void enter();
  void exit();
  Fusion* fusion() const;
  void addInput(Val* v);
  void addOutput(Val* v);

  //! Runs the fusion on `inputs` (a sequence of arrays, tensors and numbers): execute.cpp.
  nb::list execute(nb::handle inputs);

  //! What the last execute ran: the CUDA of its kernels, its segments (dicts), the
  //! heuristics of each kernel; kernels compiled and runtimes made so far.
  std::string lastCudaCode() const;
  nb::list segments() const;
  std::vector<std::string> schedulerParams() const;
  int64_t kernelsCompiled() const;
  int64_t runtimes() const;
  const std::vector<OutputLayout>& lastOutputLayouts() const { return layouts_; }

 private:
  //! The cache, made at the first call (the fusion moves into it).
  FusionExecutorCache& cache(std::string_view what);
  const FusionExecutorCache& executed(std::string_view what) const;

  std::unique_ptr<Fusion> fusion_;
  std::unique_ptr<FusionExecutorCache> fec_;
  std::optional<FusionGuard> guard_;
  std::vector<Tensor> args_;           // execute's inputs, reused between calls
  std::vector<OutputLayout> layouts_;  // padded outputs of the last execute
};

//! minifuser.UserError (a ValueError) and InternalError, DataType, Val / Scalar / Tensor.
void bindTypes(nb::module_& m);
//! The op functions of minifuser._C.ops (FusionDefinition.ops).
void bindOps(nb::module_& ops);
//! PyFusion as minifuser._C._Fusion, define_tensor and define_scalar, set_dump.
void bindFusion(nb::module_& m);

//! `h` as an IR value: a Val, or a Python bool, int or float made a constant (Bool, Int64,
//! Double). Anything else is a UserError naming `op` and `arg`.
Val* asVal(nb::handle h, std::string_view op, std::string_view arg);

}  // namespace mf::python
