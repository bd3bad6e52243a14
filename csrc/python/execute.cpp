// PyFusion::execute: Python arrays in, the FusionExecutorCache run, arrays out. Inputs are
// read in place through nanobind's ndarray (DLPack for PyTorch, the buffer protocol for
// numpy): a CUDA tensor becomes a borrowed device Tensor with its strides and offset, a numpy
// array a borrowed host Tensor; nothing is copied here. Outputs wrap minifuser's buffers, an
// owner capsule freeing them; they are PyTorch tensors when an input was one, else numpy
// arrays. CUDA work goes on PyTorch's current stream.
#include <nanobind/ndarray.h>

#include <iostream>

#include "cuda/driver.h"
#include "executor/fusion_executor_cache.h"
#include "python/python_bindings.h"

namespace mf::python {

namespace {

using Array = nb::ndarray<nb::ro>;

std::optional<DataType> dataTypeOf(nb::dlpack::dtype t) {
  using Code = nb::dlpack::dtype_code;
  if (t.lanes != 1) return std::nullopt;
  switch (static_cast<Code>(t.code)) {
    case Code::Float:
      if (t.bits == 16) return DataType::Half;
      if (t.bits == 32) return DataType::Float;
      if (t.bits == 64) return DataType::Double;
      return std::nullopt;
    case Code::Bfloat:
      return t.bits == 16 ? std::optional(DataType::BFloat16) : std::nullopt;
    case Code::Int:
      if (t.bits == 32) return DataType::Int32;
      if (t.bits == 64) return DataType::Int64;
      return std::nullopt;
    case Code::Bool:
      return DataType::Bool;
    default:
      return std::nullopt;
  }
}

// The DLPack dtype an output of `dtype` is returned as: float8 and float4 as bytes (uint8;
// float4 packed two per byte), which the Python layer views as PyTorch's float8/float4.
nb::dlpack::dtype dlpackOf(DataType dtype) {
  using Code = nb::dlpack::dtype_code;
  auto make = [](Code c, int bits) {
    return nb::dlpack::dtype{static_cast<uint8_t>(c), static_cast<uint8_t>(bits), 1};
  };
  switch (dtype) {
    case DataType::Bool:
      return make(Code::Bool, 8);
    case DataType::Int32:
      return make(Code::Int, 32);
    case DataType::Int64:
      return make(Code::Int, 64);
    case DataType::Half:
      return make(Code::Float, 16);
    case DataType::BFloat16:
      return make(Code::Bfloat, 16);
    case DataType::Float:
      return make(Code::Float, 32);
    case DataType::Double:
      return make(Code::Float, 64);
    default:  // Float8_e4m3fn, Float4_e2m1fn
      return make(Code::UInt, 8);
  }
}

// PyTorch's tensor type and current-stream getter, looked up once torch is imported (the
// module never imports it itself).
struct Torch {
  PyTypeObject* tensor_type = nullptr;
  nb::object raw_stream;  // torch._C._cuda_getCurrentRawStream(device) -> int

  bool isTensor(nb::handle h) {
    if (tensor_type == nullptr) {
      PyObject* loaded = PyDict_GetItemString(PyImport_GetModuleDict(), "torch");  // borrowed
      if (loaded == nullptr) return false;
      nb::handle torch(loaded);
      tensor_type = reinterpret_cast<PyTypeObject*>(torch.attr("Tensor").ptr());
      raw_stream = torch.attr("_C").attr("_cuda_getCurrentRawStream");
    }
    return PyObject_TypeCheck(h.ptr(), tensor_type);
  }
};

Torch& torch() {
  static Torch* t = new Torch();  // never destroyed: it holds Python objects past exit
  return *t;
}

// Keeps a Python object alive from C++ (a borrowed Tensor's owner); drops it under the GIL.
std::shared_ptr<const void> keepAlive(nb::handle h) {
  return std::shared_ptr<const void>(nb::borrow(h).release().ptr(), [](const void* p) {
    nb::gil_scoped_acquire gil;
    Py_DECREF(static_cast<PyObject*>(const_cast<void*>(p)));
  });
}

// A number for scalar input `v`, as the 0-dim tensor of its dtype.
Tensor scalarInput(nb::handle h, Val* v, size_t i) {
  ScalarValue value;
  if (PyBool_Check(h.ptr()))
    value = h.ptr() == Py_True;
  else if (PyLong_Check(h.ptr()))
    value = nb::cast<int64_t>(h);
  else if (PyFloat_Check(h.ptr()))
    value = nb::cast<double>(h);
  else
    MF_THROW("FusionDefinition.execute: input {} ({}) is a scalar input; got a {}", i,
             v->toString(), nb::type_name(h.type()).c_str());
  Tensor t = Tensor::empty({}, v->dtype());
  storeElementAt(static_cast<std::byte*>(t.rawData()), 0, v->dtype(), value);
  return t;
}

// An array or tensor for tensor input `v`, read in place. A pair (array of bytes, DataType)
// gives a float8 or float4 tensor PyTorch cannot export through DLPack (the Python layer
// makes it from torch.float8_e4m3fn / float4_e2m1fn_x2 tensors).
Tensor tensorInput(nb::handle h, Val* v, size_t i, bool& cuda) {
  nb::handle source = h;
  std::optional<DataType> dtype;
  if (PyTuple_Check(h.ptr()) && PyTuple_GET_SIZE(h.ptr()) == 2) {
    source = PyTuple_GET_ITEM(h.ptr(), 0);
    dtype = nb::cast<DataType>(nb::handle(PyTuple_GET_ITEM(h.ptr(), 1)));
  }
  Array a;
  MF_CHECK(nb::try_cast(source, a, /*convert=*/false),
           "FusionDefinition.execute: input {} ({}) must be a numpy array or a torch tensor, got "
           "a {}",
           i, v->toString(), nb::type_name(source.type()).c_str());
  if (!dtype) dtype = dataTypeOf(a.dtype());
  MF_CHECK(dtype.has_value(),
           "FusionDefinition.execute: input {} ({}) has a dtype minifuser does not support "
           "(DLPack code {}, {} bits)",
           i, v->toString(), a.dtype().code, a.dtype().bits);
  std::vector<int64_t> sizes(a.ndim()), strides(a.ndim());
  for (size_t d = 0; d < a.ndim(); ++d) {
    sizes[d] = static_cast<int64_t>(a.shape(d));
    strides[d] = a.stride(d);
    MF_CHECK(strides[d] >= 0 || sizes[d] <= 1,
             "FusionDefinition.execute: input {} ({}) has the negative stride {} on axis {}; "
             "minifuser reads views with strides >= 0 (pass a copy)",
             i, v->toString(), strides[d], d);
    if (sizes[d] <= 1) strides[d] = std::max<int64_t>(strides[d], 0);
  }
  if (*dtype == DataType::Float4_e2m1fn && !sizes.empty()) {
    // Bytes of two values each: the last axis (stride 1) holds twice as many values.
    MF_CHECK(strides.back() == 1 || sizes.back() == 1,
             "FusionDefinition.execute: the float4 input {} ({}) must be contiguous in its last "
             "axis",
             i, v->toString());
    sizes.back() *= 2;
    strides.back() = 1;
    for (size_t d = 0; d + 1 < sizes.size(); ++d) strides[d] *= 2;
  }
  void* data = const_cast<void*>(a.data());
  if (a.device_type() == nb::device::cpu::value)
    return Tensor::fromHostPointer(data, std::move(sizes), std::move(strides), *dtype,
                                   keepAlive(source));
  MF_CHECK(a.device_type() == nb::device::cuda::value && a.device_id() == 0,
           "FusionDefinition.execute: input {} ({}) is on device type {} id {}; minifuser runs on "
           "the host and on CUDA device 0",
           i, v->toString(), a.device_type(), a.device_id());
  cuda = true;
  return Tensor::fromDevicePointer(data, std::move(sizes), std::move(strides), *dtype,
                                   keepAlive(source));
}

// The layout op's output is returned as its padded buffer ([M + 127*G, ceil(K/4)*4]): its
// allocation has the logical rank, other shape and holds the logical elements first.
bool isPadded(const Tensor& t) {
  return t.dim() >= 2 && t.allocationSizes().size() == t.sizes().size() &&
         t.allocationSizes() != t.sizes() && t.isContiguous();
}

template <typename Framework>
nb::object wrapAs(Tensor t, const std::vector<int64_t>& shape,
                  const std::vector<int64_t>& strides) {
  std::vector<size_t> dims(shape.begin(), shape.end());
  void* data = t.dataPtr();
  const bool cuda = t.isCuda();
  nb::dlpack::dtype dtype = dlpackOf(t.dtype());
  nb::capsule owner(new Tensor(std::move(t)),
                    [](void* p) noexcept { delete static_cast<Tensor*>(p); });
  nb::ndarray<Framework> array(data, dims.size(), dims.data(), owner, strides.data(), dtype,
                               cuda ? nb::device::cuda::value : nb::device::cpu::value, 0);
  return nb::cast(array, nb::rv_policy::reference);
}

nb::object wrapOutput(Tensor t, bool as_torch, size_t index, std::vector<OutputLayout>& layouts) {
  std::vector<int64_t> shape = t.sizes();
  std::vector<int64_t> strides = t.strides();
  if (isPadded(t)) {
    layouts.push_back({static_cast<int64_t>(index), t.sizes(), t.allocationSizes(), t.usedRows()});
    shape = t.allocationSizes();
    strides.assign(shape.size(), 1);
    for (size_t d = shape.size() - 1; d > 0; --d) strides[d - 1] = strides[d] * shape[d];
  }
  if (t.dtype() == DataType::Float4_e2m1fn && !shape.empty()) {
    MF_CHECK(strides.back() == 1 && shape.back() % 2 == 0,
             "FusionDefinition.execute: output {} (float4) must be contiguous in an even last "
             "axis to be returned as bytes",
             index);
    shape.back() /= 2;
    for (size_t d = 0; d + 1 < strides.size(); ++d) strides[d] /= 2;
  }
  if (as_torch) return wrapAs<nb::pytorch>(std::move(t), shape, strides);
  return wrapAs<nb::numpy>(std::move(t), shape, strides);
}

}  // namespace

nb::list PyFusion::execute(nb::handle inputs) {
  FusionExecutorCache& fec = cache("execute");
  const std::vector<Val*>& fusion_inputs = fec.fusion()->inputs();
  const size_t n = static_cast<size_t>(nb::len(inputs));
  MF_CHECK(n == fusion_inputs.size(),
           "FusionDefinition.execute: the fusion takes {} inputs, got {}", fusion_inputs.size(), n);
  args_.clear();
  bool cuda = false;
  bool as_torch = false;
  size_t i = 0;
  for (nb::handle h : inputs) {
    Val* v = fusion_inputs[i];
    if (dynamic_cast<TensorView*>(v) != nullptr) {
      args_.push_back(tensorInput(h, v, i, cuda));
      as_torch = as_torch || torch().isTensor(PyTuple_Check(h.ptr()) ? h[0] : h);
    } else {
      args_.push_back(scalarInput(h, v, i));
    }
    ++i;
  }
  std::optional<uint64_t> stream;
  if (cuda && as_torch) stream = nb::cast<uint64_t>(torch().raw_stream(0));

  std::vector<Tensor> outs;
  {
    nb::gil_scoped_release no_gil;
    std::optional<cuda::StreamGuard> on_stream;
    if (stream) on_stream.emplace(*stream);
    outs = fec.runFusionWithInputs(args_);
  }
  args_.clear();
  std::cout.flush();  // dumps, before Python prints more
  layouts_.clear();
  nb::list result;
  for (size_t o = 0; o < outs.size(); ++o)
    result.append(wrapOutput(std::move(outs[o]), as_torch, o, layouts_));
  return result;
}

}  // namespace mf::python
