// The op functions of minifuser._C.ops: every op of csrc/ops/*.h under nvFuser's Python name
// and argument names (nvfuser_direct's fd.ops). Operands may be Tensors, Scalars or Python
// numbers (made constants); dims may be an int or a list.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "ir/builder.h"
#include "ops/arith.h"
#include "ops/layout.h"
#include "ops/normalization.h"
#include "ops/quantization.h"
#include "ops/reduction.h"
#include "ops/resize.h"
#include "ops/shape.h"
#include "ops/tensor_factories.h"
#include "python/python_bindings.h"

namespace mf::python {

namespace {

using nb::arg;
constexpr auto reference = nb::rv_policy::reference;

TensorView* asTensor(nb::handle h, std::string_view op, std::string_view name) {
  auto* tv = dynamic_cast<TensorView*>(asVal(h, op, name));
  MF_CHECK(tv != nullptr, "fd.ops.{}: {} must be a Tensor, got {}", op, name, nb::repr(h).c_str());
  return tv;
}

TensorView* optionalTensor(nb::handle h, std::string_view op, std::string_view name) {
  return h.is_none() ? nullptr : asTensor(h, op, name);
}

// An int or a sequence of ints.
std::vector<int64_t> intList(nb::handle h) {
  if (PyLong_Check(h.ptr())) return {nb::cast<int64_t>(h)};
  return nb::cast<std::vector<int64_t>>(h);
}

// Sizes or indices: ints (Index constants) or Scalars.
std::vector<Val*> valList(nb::handle h, std::string_view op, std::string_view name) {
  std::vector<Val*> vals;
  for (nb::handle item : h) {
    if (PyLong_Check(item.ptr()) && !PyBool_Check(item.ptr()))
      vals.push_back(constInt(nb::cast<int64_t>(item)));
    else
      vals.push_back(asVal(item, op, name));
  }
  return vals;
}

// dims=None reduces every axis (sum's rule for an empty list).
std::vector<int64_t> reductionDims(nb::handle dims) {
  return dims.is_none() ? std::vector<int64_t>{} : intList(dims);
}

template <typename Result>
nb::tuple pair(const Result& r, TensorView* Result::*first, TensorView* Result::*second) {
  return nb::make_tuple(nb::cast(r.*first, reference), nb::cast(r.*second, reference));
}

void bindPointwise(nb::module_& ops) {
#define MF_BIND_UNARY(py_name, op_type)                                                     \
  ops.def(                                                                                  \
      py_name,                                                                              \
      [](nb::handle x) { return unaryOp(UnaryOpType::op_type, asVal(x, py_name, "arg")); }, \
      arg("arg"), reference);
  MF_BIND_UNARY("neg", Neg)
  MF_BIND_UNARY("abs", Abs)
  MF_BIND_UNARY("exp", Exp)
  MF_BIND_UNARY("log", Log)
  MF_BIND_UNARY("sqrt", Sqrt)
  MF_BIND_UNARY("rsqrt", Rsqrt)
  MF_BIND_UNARY("reciprocal", Reciprocal)
  MF_BIND_UNARY("tanh", Tanh)
  MF_BIND_UNARY("sigmoid", Sigmoid)
  MF_BIND_UNARY("relu", Relu)
  MF_BIND_UNARY("sin", Sin)
  MF_BIND_UNARY("cos", Cos)
  MF_BIND_UNARY("floor", Floor)
  MF_BIND_UNARY("ceil", Ceil)
  MF_BIND_UNARY("logical_not", LogicalNot)
#undef MF_BIND_UNARY

#define MF_BIND_BINARY(py_name, op_type)                                 \
  ops.def(                                                               \
      py_name,                                                           \
      [](nb::handle a, nb::handle b) {                                   \
        return binaryOp(BinaryOpType::op_type, asVal(a, py_name, "lhs"), \
                        asVal(b, py_name, "rhs"));                       \
      },                                                                 \
      arg("lhs"), arg("rhs"), reference);
  MF_BIND_BINARY("add", Add)
  MF_BIND_BINARY("sub", Sub)
  MF_BIND_BINARY("mul", Mul)
  MF_BIND_BINARY("div", Div)
  MF_BIND_BINARY("maximum", Maximum)
  MF_BIND_BINARY("minimum", Minimum)
  MF_BIND_BINARY("pow", Pow)
  MF_BIND_BINARY("eq", Eq)
  MF_BIND_BINARY("ne", Ne)
  MF_BIND_BINARY("lt", Lt)
  MF_BIND_BINARY("le", Le)
  MF_BIND_BINARY("gt", Gt)
  MF_BIND_BINARY("ge", Ge)
  MF_BIND_BINARY("logical_and", LogicalAnd)
  MF_BIND_BINARY("logical_or", LogicalOr)
#undef MF_BIND_BINARY

  ops.def(
      "where",
      [](nb::handle cond, nb::handle a, nb::handle b) {
        return where(asVal(cond, "where", "pred"), asVal(a, "where", "arg1"),
                     asVal(b, "where", "arg2"));
      },
      arg("pred"), arg("arg1"), arg("arg2"), reference);
  ops.def(
      "clamp",
      [](nb::handle x, nb::handle lo, nb::handle hi) {
        return clamp(asTensor(x, "clamp", "arg"), asVal(lo, "clamp", "min"),
                     asVal(hi, "clamp", "max"));
      },
      arg("arg"), arg("min"), arg("max"), reference);
  ops.def(
      "cast",
      [](nb::handle x, DataType dtype) { return castOp(dtype, asTensor(x, "cast", "arg")); },
      arg("arg"), arg("dtype"), reference);
  ops.def(
      "set", [](nb::handle x) { return set(asTensor(x, "set", "arg")); }, arg("arg"), reference);
  ops.def(
      "segment_set", [](nb::handle x) { return segment_set(asTensor(x, "segment_set", "arg")); },
      arg("arg"), reference);
}

void bindBroadcastAndShape(nb::module_& ops) {
  ops.def(
      "broadcast",
      [](nb::handle x, std::vector<bool> is_broadcast_dim) {
        return broadcast(asTensor(x, "broadcast", "arg"), is_broadcast_dim);
      },
      arg("arg"), arg("is_broadcast_dim"), reference);
  // nvFuser's broadcast_in_dim: input axis i becomes output axis broadcast_dims[i]; the other
  // output axes are new Broadcast axes, expanded to `shape` where it is not 1 (or -1).
  ops.def(
      "broadcast_in_dim",
      [](nb::handle x, nb::handle shape, std::vector<int64_t> broadcast_dims) {
        TensorView* tv = asTensor(x, "broadcast_in_dim", "arg");
        std::vector<Val*> sizes = valList(shape, "broadcast_in_dim", "shape");
        MF_CHECK(broadcast_dims.size() <= sizes.size(),
                 "fd.ops.broadcast_in_dim: {} broadcast_dims for an output of rank {}",
                 broadcast_dims.size(), sizes.size());
        std::vector<bool> is_broadcast(sizes.size(), true);
        for (int64_t d : broadcast_dims) {
          MF_CHECK(d >= 0 && d < static_cast<int64_t>(sizes.size()),
                   "fd.ops.broadcast_in_dim: broadcast dim {} is outside the output's rank {}", d,
                   sizes.size());
          is_broadcast[static_cast<size_t>(d)] = false;
        }
        TensorView* out = broadcast(tv, is_broadcast);
        return expand(out, sizes);
      },
      arg("arg"), arg("shape"), arg("broadcast_dims"), reference);
  ops.def(
      "reshape",
      [](nb::handle x, nb::handle new_shape) {
        return reshape(asTensor(x, "reshape", "arg"), valList(new_shape, "reshape", "new_shape"));
      },
      arg("arg"), arg("new_shape"), reference);
  ops.def(
      "flatten",
      [](nb::handle x, int64_t start_dim, int64_t end_dim) {
        return flatten(asTensor(x, "flatten", "arg"), start_dim, end_dim);
      },
      arg("arg"), arg("start_dim") = 0, arg("end_dim") = -1, reference);
  ops.def(
      "squeeze",
      [](nb::handle x, nb::handle dims) {
        return squeeze(asTensor(x, "squeeze", "arg"), intList(dims));
      },
      arg("arg"), arg("dims"), reference);
  ops.def(
      "unsqueeze",
      [](nb::handle x, int64_t dim) { return unsqueeze(asTensor(x, "unsqueeze", "arg"), dim); },
      arg("arg"), arg("dim"), reference);
  ops.def(
      "permute",
      [](nb::handle x, std::vector<int64_t> dims) {
        return permute(asTensor(x, "permute", "arg"), dims);
      },
      arg("arg"), arg("dims"), reference);
  ops.def(
      "transpose",
      [](nb::handle x, int64_t dim0, int64_t dim1) {
        return transpose(asTensor(x, "transpose", "arg"), dim0, dim1);
      },
      arg("arg"), arg("dim0"), arg("dim1"), reference);
  ops.def(
      "expand",
      [](nb::handle x, nb::handle shape) {
        return expand(asTensor(x, "expand", "arg"), valList(shape, "expand", "shape"));
      },
      arg("arg"), arg("shape"), reference);
  ops.def(
      "pad",
      [](nb::handle x, nb::handle pad_widths, nb::handle value) {
        return pad(asTensor(x, "pad", "arg"), valList(pad_widths, "pad", "pad_widths"),
                   value.is_none() ? nullptr : asVal(value, "pad", "value"));
      },
      arg("arg"), arg("pad_widths"), arg("value").none() = nb::none(), reference);
  ops.def(
      "slice",
      [](nb::handle x, nb::handle starts, nb::handle stops, nb::handle strides) {
        std::vector<Val*> lo = valList(starts, "slice", "start_indices");
        std::vector<Val*> hi = valList(stops, "slice", "end_indices");
        std::vector<Val*> step;
        if (!strides.is_none()) step = valList(strides, "slice", "strides");
        MF_CHECK(lo.size() == hi.size() && (step.empty() || step.size() == lo.size()),
                 "fd.ops.slice: {} start_indices, {} end_indices and {} strides; give one each "
                 "per axis",
                 lo.size(), hi.size(), step.size());
        std::vector<Slice> ranges;
        for (size_t i = 0; i < lo.size(); ++i)
          ranges.push_back({lo[i], hi[i], step.empty() ? nullptr : step[i]});
        return slice(asTensor(x, "slice", "arg"), ranges);
      },
      arg("arg"), arg("start_indices"), arg("end_indices"), arg("strides").none() = nb::none(),
      reference);
  ops.def(
      "cat",
      [](nb::handle tensors, int64_t dim) {
        std::vector<TensorView*> tvs;
        for (nb::handle t : tensors) tvs.push_back(asTensor(t, "cat", "tensors"));
        return cat(tvs, dim);
      },
      arg("tensors"), arg("dim") = 0, reference);
  ops.def(
      "full",
      [](nb::handle shape, nb::handle fill_value, DataType dtype) {
        return full(valList(shape, "full", "shape"), asVal(fill_value, "full", "fill_value"),
                    dtype);
      },
      arg("shape"), arg("fill_value"), arg("dtype"), reference);
}

void bindReductions(nb::module_& ops) {
#define MF_BIND_REDUCTION(py_name, fn)                                                 \
  ops.def(                                                                             \
      py_name,                                                                         \
      [](nb::handle x, nb::handle dims, bool keepdim, std::optional<DataType> dtype) { \
        return fn(asTensor(x, py_name, "arg"), reductionDims(dims), keepdim, dtype);   \
      },                                                                               \
      arg("arg"), arg("dims").none() = nb::none(), arg("keepdim") = false,             \
      arg("dtype").none() = nb::none(), reference);
  MF_BIND_REDUCTION("sum", sum)
  MF_BIND_REDUCTION("prod", prod)
  MF_BIND_REDUCTION("max", max)
  MF_BIND_REDUCTION("min", min)
#undef MF_BIND_REDUCTION
  ops.def(
      "mean",
      [](nb::handle x, nb::handle dims, bool keepdim) {
        return mean(asTensor(x, "mean", "arg"), reductionDims(dims), keepdim);
      },
      arg("arg"), arg("dims").none() = nb::none(), arg("keepdim") = false, reference);
  ops.def(
      "var",
      [](nb::handle x, nb::handle dims, int64_t correction, bool keepdim) {
        return variance(asTensor(x, "var", "arg"), reductionDims(dims), correction, keepdim);
      },
      arg("arg"), arg("dims").none() = nb::none(), arg("correction") = 1, arg("keepdim") = false,
      reference);
  ops.def(
      "var_mean",
      [](nb::handle x, nb::handle dims, int64_t correction, bool keepdim) {
        return pair(
            var_mean(asTensor(x, "var_mean", "arg"), reductionDims(dims), correction, keepdim),
            &VarMeanResult::var, &VarMeanResult::mean);
      },
      arg("arg"), arg("dims").none() = nb::none(), arg("correction") = 1, arg("keepdim") = false);
  ops.def(
      "std",
      [](nb::handle x, nb::handle dims, bool unbiased, bool keepdim) {
        return standard_deviation(asTensor(x, "std", "arg"), reductionDims(dims), unbiased,
                                  keepdim);
      },
      arg("arg"), arg("dims").none() = nb::none(), arg("unbiased") = true, arg("keepdim") = false,
      reference);
  ops.def(
      "softmax",
      [](nb::handle x, int64_t dim) { return softmax(asTensor(x, "softmax", "arg"), dim); },
      arg("arg"), arg("dim"), reference);
  ops.def(
      "log_softmax",
      [](nb::handle x, int64_t dim) { return log_softmax(asTensor(x, "log_softmax", "arg"), dim); },
      arg("arg"), arg("dim"), reference);
  ops.def(
      "layer_norm",
      [](nb::handle x, nb::handle norm_shape, nb::handle weight, nb::handle bias, nb::handle eps) {
        ForwardNormResult r =
            layer_norm(asTensor(x, "layer_norm", "arg"), intList(norm_shape),
                       optionalTensor(weight, "layer_norm", "weight"),
                       optionalTensor(bias, "layer_norm", "bias"), asVal(eps, "layer_norm", "eps"));
        return nb::make_tuple(nb::cast(r.output, reference), nb::cast(r.mean, reference),
                              nb::cast(r.invstd, reference));
      },
      arg("arg"), arg("norm_shape"), arg("weight").none() = nb::none(),
      arg("bias").none() = nb::none(), arg("eps") = 1e-5);
  ops.def(
      "rms_norm",
      [](nb::handle x, nb::handle norm_shape, nb::handle weight, nb::handle eps) {
        return pair(
            rms_norm(asTensor(x, "rms_norm", "arg"), intList(norm_shape),
                     optionalTensor(weight, "rms_norm", "weight"), asVal(eps, "rms_norm", "eps")),
            &ForwardRMSNormResult::output, &ForwardRMSNormResult::invstd);
      },
      arg("arg"), arg("norm_shape"), arg("weight").none() = nb::none(), arg("eps") = 1e-5);
}

void bindLayoutAndQuantization(nb::module_& ops) {
  ops.def(
      "preprocess_grouped_matmul_input_sf",
      [](nb::handle input, nb::handle input_offsets, nb::handle output_offsets) {
        constexpr std::string_view kOp = "preprocess_grouped_matmul_input_sf";
        return preprocessGroupedMatmulInputSf(asTensor(input, kOp, "input"),
                                              asTensor(input_offsets, kOp, "input_offsets"),
                                              asTensor(output_offsets, kOp, "output_offsets"));
      },
      arg("input"), arg("input_offsets"), arg("output_offsets"), reference);
  ops.def(
      "nv_block_quantize",
      [](nb::handle input, nb::handle global_scale, bool swizzle_block_scales, int64_t block_size,
         DataType dtype) {
        constexpr std::string_view kOp = "nv_block_quantize";
        return pair(blockQuantize(asTensor(input, kOp, "input"),
                                  optionalTensor(global_scale, kOp, "global_scale"), block_size,
                                  swizzle_block_scales, dtype),
                    &BlockQuantizationResults::quantized_tensor,
                    &BlockQuantizationResults::block_scales);
      },
      arg("input"), arg("global_scale").none() = nb::none(), arg("swizzle_block_scales") = false,
      arg("block_size") = 16, arg("dtype") = DataType::Float4_e2m1fn);
  auto grouped = [](nb::handle input, nb::handle input_offsets, nb::handle output_offsets,
                    nb::handle global_scale, int64_t block_size, DataType dtype) {
    constexpr std::string_view kOp = "nv_grouped_block_quantize";
    return pair(
        groupedBlockQuantize(
            asTensor(input, kOp, "input"), asTensor(input_offsets, kOp, "input_offsets"),
            asTensor(output_offsets, kOp, "output_offsets"), BlockScalingFactorLayout::Block128x4,
            optionalTensor(global_scale, kOp, "global_scale"), block_size, dtype),
        &BlockQuantizationResults::quantized_tensor, &BlockQuantizationResults::block_scales);
  };
  // nvfuser_direct's name, and the C++ one's.
  for (const char* name : {"nv_grouped_block_quantize", "grouped_block_quantize"})
    ops.def(name, grouped, arg("input"), arg("input_offsets"), arg("output_offsets"),
            arg("global_scale").none() = nb::none(), arg("block_size") = 16,
            arg("dtype") = DataType::Float4_e2m1fn);
}

}  // namespace

void bindOps(nb::module_& ops) {
  bindPointwise(ops);
  bindBroadcastAndShape(ops);
  bindReductions(ops);
  bindLayoutAndQuantization(ops);
}

}  // namespace mf::python
