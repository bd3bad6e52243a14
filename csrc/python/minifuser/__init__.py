"""minifuser's Python frontend, in the shape of nvFuser's nvfuser_direct (docs/python.md).

    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], contiguity=True, dtype=DataType.Float)
        fd.add_output(fd.ops.relu(t0))
    outputs = fd.execute([x])   # numpy arrays or torch tensors, read in place

str(fd) is the definition as a Python script that rebuilds it (the calls, as they were made).
"""

import math
from collections import namedtuple

from ._C import (DataType, InternalError, Scalar, Tensor, UserError, Val, _Fusion, dump_help,
                 set_dump)
from ._C import ops as _ops

__all__ = ["FusionDefinition", "DataType", "Tensor", "Scalar", "UserError", "InternalError",
           "OutputLayout", "set_dump", "dump_help"]

# nvFuser's name of int64, an alias (DataType.Int is DataType.Int64).
setattr(DataType, "Int", DataType.Int64)
DataType._member_map_["Int"] = DataType.Int64

# Tensors of these dtypes travel as bytes (uint8): DLPack and numpy have no float8 / float4.
_BYTE_DTYPES = (DataType.Float8_e4m3fn, DataType.Float4_e2m1fn)
_active = []  # the FusionDefinitions whose `with` block is open, innermost last


class OutputLayout(namedtuple("OutputLayout",
                              "index logical_shape allocation_shape used_rows")):
    """A padded output (the layout op's): execute returns its whole buffer, of
    `allocation_shape`; `logical_view(buffer)` is the logical tensor over its first elements
    (as C++'s Tensor::withAllocation views it); `used_rows` are the rows holding groups."""

    def logical_view(self, buffer):
        n = math.prod(self.logical_shape)
        return buffer.reshape(-1)[:n].reshape(tuple(self.logical_shape))


def _fmt(x):
    if isinstance(x, Tensor):
        return f"T{x._id}"
    if isinstance(x, Val):
        return f"S{x._id}"
    if isinstance(x, DataType):
        return f"DataType.{x.name}"
    if isinstance(x, (list, tuple)):
        return "[" + ", ".join(_fmt(e) for e in x) + "]"
    if isinstance(x, float) and not math.isfinite(x):
        return f"float('{x}')"
    return repr(x)


class _Ops:
    """fd.ops: the functions of minifuser._C.ops, each call recorded for str(fd)."""

    def __init__(self, fd):
        self._fd = fd

    def __getattr__(self, name):
        fn = getattr(_ops, name)

        def op(*args, **kwargs):
            out = fn(*args, **kwargs)
            self._fd._record(f"fd.ops.{name}", args, kwargs, out)
            return out

        op.__doc__ = fn.__doc__
        setattr(self, name, op)  # later lookups skip __getattr__
        return op

    def __dir__(self):
        return [n for n in dir(_ops) if not n.startswith("_")]


class FusionDefinition:
    """Defines a fusion inside `with FusionDefinition() as fd:` and runs it with
    fd.execute(inputs); one FusionExecutorCache per definition, so a repeated execute reuses
    what the first compiled."""

    def __init__(self):
        self._fusion = _Fusion()
        self.ops = _Ops(self)
        self._lines = []
        self._n_inputs = 0
        self._n_outputs = 0
        self._byte_inputs = []  # (input index, DataType) of float8 / float4 inputs
        self._byte_outputs = []  # the same for outputs

    # -- definition ------------------------------------------------------------------------
    def __enter__(self):
        self._fusion.enter()
        _active.append(self)
        return self

    def __exit__(self, exc_type, exc, tb):
        _active.remove(self)
        self._fusion.exit()

    def _record(self, call, args, kwargs, out):
        text = ", ".join([_fmt(a) for a in args] + [f"{k}={_fmt(v)}" for k, v in kwargs.items()])
        lhs = "" if out is None else _fmt(out)[1:-1] if isinstance(out, tuple) else _fmt(out)
        self._lines.append(f"{lhs} = {call}({text})" if lhs else f"{call}({text})")

    def define_tensor(self, shape, contiguity=False, dtype=DataType.Float, is_cpu=False,
                      stride_order=None):
        """An input tensor: shape entries -1 (symbolic), 1 (broadcast) or a constant;
        contiguity a bool or one entry per axis (None for a broadcast axis); stride_order as
        nvFuser's (stride_order[i] ranks axis i's stride, larger is outer). is_cpu is
        accepted for nvFuser's signature; host or device is decided by the input."""
        t = self._fusion.define_tensor(list(shape), contiguity, dtype, stride_order)
        self._record("fd.define_tensor", (),
                     dict(shape=list(shape), contiguity=contiguity, dtype=dtype,
                          stride_order=stride_order), t)
        if dtype in _BYTE_DTYPES:
            self._byte_inputs.append((self._n_inputs, dtype))
        self._n_inputs += 1
        return t

    def define_scalar(self, value=None, dtype=None):
        """A constant (value given) or, with value None, a scalar input of `dtype` (default
        Double) given at execute as a Python number."""
        s = self._fusion.define_scalar(value, dtype)
        self._record("fd.define_scalar", (value,), {"dtype": dtype or s.dtype}, s)
        if value is None:
            self._n_inputs += 1
        return s

    def add_output(self, output):
        self._fusion.add_output(output)
        self._record("fd.add_output", (output,), {}, None)
        if output.dtype in _BYTE_DTYPES:
            self._byte_outputs.append((self._n_outputs, output.dtype))
        self._n_outputs += 1

    def __repr__(self):
        body = "\n".join("    " + line for line in self._lines) or "    pass"
        return ("from minifuser import FusionDefinition, DataType\n\n"
                "def nvfuser_fusion(fd : FusionDefinition) -> None :\n"
                f"{body}\n\n"
                "with FusionDefinition() as fd:\n"
                "    nvfuser_fusion(fd)\n")

    __str__ = __repr__

    # -- execution -------------------------------------------------------------------------
    def execute(self, inputs, *, device=None):
        """Runs the fusion on `inputs` (numpy arrays, torch tensors, Python numbers for scalar
        inputs), read in place. Returns torch tensors when an input is one (CUDA inputs: CUDA
        outputs, run on torch's current stream), else numpy arrays. float8 / float4 outputs
        are torch.float8_e4m3fn / float4_e2m1fn_x2 tensors, or uint8 numpy arrays. `device`
        is accepted for nvFuser's signature (minifuser runs on device 0)."""
        if self._byte_inputs:
            inputs = self._bytes_in(inputs)
        outputs = self._fusion.execute(inputs)
        if self._byte_outputs:
            self._bytes_out(outputs)
        return outputs

    def _bytes_in(self, inputs):
        inputs = list(inputs)
        for i, dtype in self._byte_inputs:
            x = inputs[i]
            if type(x).__module__.startswith("torch"):
                x = x.view(_torch().uint8)
            inputs[i] = (x, dtype)
        return inputs

    def _bytes_out(self, outputs):
        for i, dtype in self._byte_outputs:
            x = outputs[i]
            if type(x).__module__.startswith("torch"):
                torch = _torch()
                outputs[i] = x.view(torch.float8_e4m3fn if dtype == DataType.Float8_e4m3fn
                                    else torch.float4_e2m1fn_x2)

    # -- introspection ---------------------------------------------------------------------
    def fusion_ir(self):
        """The fusion's math, one line per expression (Fusion::mathString)."""
        return self._fusion.math()

    def last_cuda_code(self):
        """The CUDA of every kernel of the last execute (compiled with NVRTC even without a
        GPU)."""
        return self._fusion.last_cuda_code()

    def segments(self):
        """The last execute's segments: dicts of id, scheduler, inputs, outputs, exprs."""
        return self._fusion.segments()

    def scheduler_params(self):
        """The heuristics of each kernel of the last execute, as text."""
        return self._fusion.scheduler_params()

    def kernels_compiled(self):
        """Kernels this definition's FusionExecutorCache compiled so far."""
        return self._fusion.kernels_compiled()

    def runtimes(self):
        """Runtimes (input signatures with distinct heuristics) made so far."""
        return self._fusion.runtimes()

    def last_output_layouts(self):
        """The padded outputs of the last execute, as OutputLayouts."""
        return [OutputLayout(*l) for l in self._fusion.last_output_layouts()]


def _torch():
    import torch
    return torch


def _binary(name, reverse=False):
    def op(a, b):
        if not _active:
            raise UserError(f"Tensor operator '{name}': use it inside `with FusionDefinition()`")
        fn = getattr(_active[-1].ops, name)
        return fn(b, a) if reverse else fn(a, b)
    return op


def _unary(name):
    return lambda a: getattr(_active[-1].ops, name)(a)


for _cls in (Tensor, Scalar):
    for _name, _op in [("add", "add"), ("sub", "sub"), ("mul", "mul"), ("truediv", "div"),
                       ("pow", "pow"), ("lt", "lt"), ("le", "le"), ("gt", "gt"),
                       ("ge", "ge")]:
        setattr(_cls, f"__{_name}__", _binary(_op))
    for _name, _op in [("radd", "add"), ("rsub", "sub"), ("rmul", "mul"),
                       ("rtruediv", "div"), ("rpow", "pow")]:
        setattr(_cls, f"__{_name}__", _binary(_op, reverse=True))
    _cls.__neg__ = _unary("neg")
    _cls.__abs__ = _unary("abs")
