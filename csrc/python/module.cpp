// minifuser._C: the extension module behind the Python package `minifuser` (docs/python.md).
// This file binds the types (errors, DataType, IR values) and assembles the module.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include "ir/builder.h"
#include "ir/tensor_view.h"
#include "python/python_bindings.h"

namespace mf::python {

Val* asVal(nb::handle h, std::string_view op, std::string_view arg) {
  Val* v = nullptr;
  if (nb::try_cast<Val*>(h, v, /*convert=*/false) && v != nullptr) return v;
  if (PyBool_Check(h.ptr())) return constBool(h.ptr() == Py_True);
  if (PyLong_Check(h.ptr())) return constInt(nb::cast<int64_t>(h), DataType::Int64);
  if (PyFloat_Check(h.ptr())) return constFloat(nb::cast<double>(h));
  MF_THROW("fd.ops.{}: {} must be a Tensor, a Scalar or a Python number, got {}", op, arg,
           nb::repr(h).c_str());
}

void bindTypes(nb::module_& m) {
  nb::exception<UserError>(m, "UserError", PyExc_ValueError);
  nb::exception<InternalError>(m, "InternalError", PyExc_RuntimeError);

  nb::enum_<DataType> dtype(m, "DataType");
#define MF_BIND_DTYPE(e, name, bits) \
  if (DataType::e != DataType::Index) dtype.value(#e, DataType::e);
  MF_DATA_TYPES(MF_BIND_DTYPE)
#undef MF_BIND_DTYPE
  dtype.value("Index", DataType::Index);  // nvFuser's Int: an alias of Int64, made in __init__.py

  nb::class_<Val>(m, "Val")
      .def_prop_ro("dtype", [](const Val& v) { return v.dtype(); })
      .def_prop_ro("_id", [](const Val& v) { return v.name(); })
      .def("__repr__", [](const Val& v) { return v.toString(); });
  nb::class_<Scalar, Val>(m, "Scalar").def_prop_ro("value", [](const Scalar& s) -> nb::object {
    std::optional<ScalarValue> c = s.constValue();
    if (!c) return nb::none();
    return std::visit([](auto x) { return nb::cast(x); }, *c);
  });
  nb::class_<TensorView, Val>(m, "Tensor").def_prop_ro("ndim", [](const TensorView& tv) {
    int64_t n = 0;
    for (IterDomain* id : tv.getLogicalDomain()) n += id->isReduction() ? 0 : 1;
    return n;
  });
}

}  // namespace mf::python

NB_MODULE(_C, m) {
  m.doc() = "minifuser's C++ side; use the package: import minifuser (docs/python.md)";
  mf::python::bindTypes(m);
  nanobind::module_ ops = m.def_submodule("ops", "the ops of FusionDefinition.ops");
  mf::python::bindOps(ops);
  mf::python::bindFusion(m);
}
