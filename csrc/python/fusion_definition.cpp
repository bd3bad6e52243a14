// PyFusion (minifuser._C._Fusion): the fusion a FusionDefinition builds, its inputs and
// outputs, and what its FusionExecutorCache ran (code, segments, heuristics); set_dump.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

#include <iostream>
#include <variant>

#include "executor/fusion_executor_cache.h"
#include "ir/builder.h"
#include "ops/tensor_factories.h"
#include "python/python_bindings.h"
#include "scheduler/heuristic_params.h"
#include "segmenter/segmented_fusion.h"
#include "support/options.h"

namespace mf::python {

PyFusion::PyFusion() : fusion_(std::make_unique<Fusion>()) {}
PyFusion::~PyFusion() = default;

void PyFusion::enter() {
  MF_CHECK(fusion_ != nullptr,
           "FusionDefinition: the fusion was executed; define a new FusionDefinition to build "
           "another");
  guard_.emplace(fusion_.get());
}

void PyFusion::exit() {
  guard_.reset();
}

Fusion* PyFusion::fusion() const {
  return fec_ ? fec_->fusion() : fusion_.get();
}

void PyFusion::addInput(Val* v) {
  MF_CHECK(fusion_ != nullptr, "FusionDefinition: inputs cannot be added after execute");
  fusion_->addInput(v);
}

void PyFusion::addOutput(Val* v) {
  MF_CHECK(fusion_ != nullptr, "FusionDefinition.add_output: the fusion was already executed");
  fusion_->addOutput(v);
}

FusionExecutorCache& PyFusion::cache(std::string_view what) {
  if (!fec_) {
    MF_CHECK(!guard_, "FusionDefinition.{}: still inside the `with` block; execute after it", what);
    MF_CHECK(!fusion_->outputs().empty(),
             "FusionDefinition.{}: the fusion has no outputs; call fd.add_output", what);
    fec_ = std::make_unique<FusionExecutorCache>(std::move(fusion_));
  }
  return *fec_;
}

const FusionExecutorCache& PyFusion::executed(std::string_view what) const {
  MF_CHECK(fec_ && fec_->getMostRecentKernelRuntime() != nullptr,
           "FusionDefinition.{}: nothing was executed yet; call fd.execute(inputs) first", what);
  return *fec_;
}

std::string PyFusion::lastCudaCode() const {
  return executed("last_cuda_code").getMostRecentCode();
}

nb::list PyFusion::segments() const {
  nb::list out;
  const SegmentedFusion* segmented =
      executed("segments").getMostRecentKernelRuntime()->fusionSegments();
  auto names = [](const std::vector<Val*>& vals) {
    std::vector<std::string> s;
    for (Val* v : vals) s.push_back(v->toString());
    return s;
  };
  for (SegmentedGroup* g : segmented->groups()) {
    std::vector<std::string> exprs;
    for (Expr* e : g->exprs()) exprs.push_back(e->toString());
    nb::dict d;
    d["id"] = g->id();
    d["scheduler"] = std::string(toString(g->schedulerType()));
    d["inputs"] = names(g->inputs());
    d["outputs"] = names(g->outputs());
    d["exprs"] = exprs;
    out.append(d);
  }
  return out;
}

std::vector<std::string> PyFusion::schedulerParams() const {
  std::vector<std::string> out;
  for (const HeuristicParams* p :
       executed("scheduler_params").getMostRecentKernelRuntime()->heuristics())
    out.push_back(p->toString());
  return out;
}

int64_t PyFusion::kernelsCompiled() const {
  return fec_ ? fec_->countKernelsCompiled() : 0;
}

int64_t PyFusion::runtimes() const {
  return fec_ ? fec_->countRuntimes() : 0;
}

namespace {

// A dump list set from Python, over the environment's (restored by set_dump(None)).
std::optional<OptionsGuard>& dumpOverride() {
  static std::optional<OptionsGuard> guard;
  return guard;
}

}  // namespace

void bindFusion(nb::module_& m) {
  using nb::arg;
  constexpr auto reference = nb::rv_policy::reference;
  using ContiguityArg = std::variant<bool, Contiguity>;

  nb::class_<PyFusion>(m, "_Fusion")
      .def(nb::init<>())
      .def("enter", &PyFusion::enter)
      .def("exit", &PyFusion::exit)
      .def(
          "define_tensor",
          [](PyFusion& self, std::vector<int64_t> shape, ContiguityArg contiguity, DataType dtype,
             std::optional<std::vector<int64_t>> stride_order) {
            TensorViewBuilder b;
            b.ndims(static_cast<int64_t>(shape.size())).shape(shape).dtype(dtype);
            if (auto* all = std::get_if<bool>(&contiguity))
              b.contiguity(*all);
            else
              b.contiguity(std::get<Contiguity>(contiguity));
            if (stride_order && !stride_order->empty()) b.strideOrder(*stride_order);
            TensorView* tv = b.build();
            self.addInput(tv);
            return tv;
          },
          arg("shape"), arg("contiguity") = false, arg("dtype") = DataType::Float,
          arg("stride_order").none() = nb::none(), reference)
      .def(
          "define_scalar",
          [](PyFusion& self, nb::handle value, std::optional<DataType> dtype) -> Val* {
            if (value.is_none()) {
              Val* v = newScalar(dtype.value_or(DataType::Double));
              self.addInput(v);
              return v;
            }
            Val* c = asVal(value, "define_scalar", "value");
            return dtype ? constValue(*c->constValue(), *dtype) : c;
          },
          arg("value").none() = nb::none(), arg("dtype").none() = nb::none(), reference)
      .def("add_output", &PyFusion::addOutput, arg("output"))
      .def("execute", &PyFusion::execute, arg("inputs"))
      .def("math", [](const PyFusion& self) { return self.fusion()->mathString(); })
      .def("last_cuda_code", &PyFusion::lastCudaCode)
      .def("segments", &PyFusion::segments)
      .def("scheduler_params", &PyFusion::schedulerParams)
      .def("kernels_compiled", &PyFusion::kernelsCompiled)
      .def("runtimes", &PyFusion::runtimes)
      .def("last_output_layouts", [](const PyFusion& self) {
        nb::list out;
        for (const OutputLayout& l : self.lastOutputLayouts())
          out.append(nb::make_tuple(l.index, l.logical_shape, l.allocation_shape, l.used_rows));
        return out;
      });

  m.def(
      "set_dump",
      [](std::optional<std::string> dump_list) {
        std::optional<OptionsGuard>& guard = dumpOverride();
        guard.reset();  // back to the environment's options
        if (!dump_list) return;
        std::vector<bool> dump = parseDumpList(*dump_list, std::cout);
        guard.emplace().get().dump = std::move(dump);
      },
      arg("dump_list").none(),
      "Enables MINIFUSER_DUMP options from Python ('cuda_kernel,fusion_segments'); None goes "
      "back to the environment's.");
  m.def("dump_help", &dumpHelp);
}

}  // namespace mf::python
