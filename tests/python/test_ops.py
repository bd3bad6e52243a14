"""Every op of fd.ops against numpy, on the CPU (numpy inputs; without a GPU the kernels are
still generated and compiled, and the CPU reference computes the outputs)."""

import numpy as np
import pytest
from conftest import randn

import minifuser
from minifuser import DataType, FusionDefinition

DTYPES = {np.dtype(np.float32): DataType.Float, np.dtype(np.float64): DataType.Double,
          np.dtype(np.float16): DataType.Half, np.dtype(np.int32): DataType.Int32,
          np.dtype(np.int64): DataType.Int64, np.dtype(np.bool_): DataType.Bool}
SHAPES = [(1, 7), (13, 31), (5, 1), (3, 129)]
TESTED = set()


def run(build, *inputs):
    """Defines one input per array, builds the outputs with build(fd, *tensors), runs."""
    with FusionDefinition() as fd:
        ts = [fd.define_tensor(shape=[-1] * x.ndim, contiguity=True, dtype=DTYPES[x.dtype])
              for x in inputs]
        outs = build(fd, *ts)
        for o in outs if isinstance(outs, (tuple, list)) else [outs]:
            fd.add_output(o)
    return fd.execute(list(inputs))


def check(name, build, expected, *inputs, rtol=1e-5, atol=1e-6):
    TESTED.add(name)
    got = run(build, *inputs)
    expected = expected if isinstance(expected, (tuple, list)) else [expected]
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == np.shape(e), (name, g.shape, np.shape(e))
        np.testing.assert_allclose(g, e, rtol=rtol, atol=atol, err_msg=name)


UNARY = {
    "neg": (np.negative, False), "abs": (np.abs, False), "exp": (np.exp, False),
    "log": (np.log, True), "sqrt": (np.sqrt, True), "rsqrt": (lambda x: 1 / np.sqrt(x), True),
    "reciprocal": (np.reciprocal, False), "tanh": (np.tanh, False),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), False),
    "relu": (lambda x: np.maximum(x, 0), False), "sin": (np.sin, False), "cos": (np.cos, False),
    "floor": (np.floor, False), "ceil": (np.ceil, False),
}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(rng, name, shape):
    fn, positive = UNARY[name]
    x = randn(rng, shape)
    if positive:
        x = np.abs(x)
    check(name, lambda fd, t: getattr(fd.ops, name)(t), fn(x), x, rtol=2e-6)


BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "maximum": np.maximum, "minimum": np.minimum, "pow": np.power,
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal,
}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(rng, name, shape):
    a, b = randn(rng, shape), randn(rng, shape)
    if name == "pow":
        a = np.abs(a)
    if name in ("eq", "ne"):
        b[::2] = a[::2]  # some equal pairs
    check(name, lambda fd, x, y: getattr(fd.ops, name)(x, y), BINARY[name](a, b), a, b, rtol=2e-6)


def test_binary_with_python_numbers_and_operators(rng):
    a, b = randn(rng, (7, 11)), randn(rng, (11,))  # b broadcasts implicitly (leading axis)
    check("operators", lambda fd, x, y: [x + y, x * 2.0, 3.0 - x, -x, abs(x), x / y, y ** 2.0],
          [a + b, a * 2, 3 - a, -a, np.abs(a), a / b, b ** 2], a, b, rtol=2e-6)


def test_logical(rng):
    a, b = rng.random((5, 17)) < 0.5, rng.random((5, 17)) < 0.5
    check("logical_and", lambda fd, x, y: fd.ops.logical_and(x, y), a & b, a, b)
    check("logical_or", lambda fd, x, y: fd.ops.logical_or(x, y), a | b, a, b)
    check("logical_not", lambda fd, x: fd.ops.logical_not(x), ~a, a)


def test_where_clamp_cast_set(rng):
    a, b = randn(rng, (13, 7)), randn(rng, (13, 7))
    check("where", lambda fd, x, y: fd.ops.where(fd.ops.gt(x, y), x, y), np.where(a > b, a, b),
          a, b)
    check("clamp", lambda fd, x: fd.ops.clamp(x, -0.5, 0.75), np.clip(a, -0.5, 0.75), a)
    check("cast", lambda fd, x: fd.ops.cast(x, DataType.Double), a.astype(np.float64), a)
    check("cast", lambda fd, x: fd.ops.cast(x, DataType.Half), a.astype(np.float16), a,
          rtol=1e-3)
    check("set", lambda fd, x: fd.ops.set(x), a, a)
    check("segment_set", lambda fd, x: fd.ops.exp(fd.ops.segment_set(fd.ops.neg(x))),
          np.exp(-a), a)


def test_broadcasts(rng):
    a, v = randn(rng, (5, 3)), randn(rng, (3,))
    check("broadcast", lambda fd, x, y: fd.ops.add(x, fd.ops.broadcast(y, [True, False])),
          a + v, a, v)
    check("broadcast_in_dim", lambda fd, y: fd.ops.broadcast_in_dim(y, [4, 3], [1]),
          np.broadcast_to(v, (4, 3)), v)
    check("broadcast_in_dim", lambda fd, x, y: fd.ops.add(
        x, fd.ops.broadcast_in_dim(y, [5, 3], [1])), a + v, a, v)
    col = randn(rng, (5,))
    check("expand", lambda fd, y: fd.ops.expand(fd.ops.broadcast(y, [False, True]), [5, 6]),
          np.broadcast_to(col[:, None], (5, 6)), col)


def test_shape_ops(rng):
    a = randn(rng, (6, 35))
    check("reshape", lambda fd, x: fd.ops.reshape(x, [2, 3, 5, 7]), a.reshape(2, 3, 5, 7), a)
    check("reshape", lambda fd, x: fd.ops.reshape(x, [-1, 5]), a.reshape(-1, 5), a)
    check("flatten", lambda fd, x: fd.ops.flatten(x), a.reshape(-1), a)
    check("permute", lambda fd, x: fd.ops.permute(x, [1, 0]), a.T, a)
    check("transpose", lambda fd, x: fd.ops.transpose(x, 0, 1), a.T, a)
    u = randn(rng, (7,))
    check("unsqueeze", lambda fd, x: fd.ops.unsqueeze(x, 0), u[None], u)
    check("squeeze", lambda fd, x: fd.ops.squeeze(fd.ops.unsqueeze(x, 1), [1]), u, u)


def test_squeeze_of_a_broadcast_input(rng):
    a = randn(rng, (1, 9))
    TESTED.add("squeeze")
    with FusionDefinition() as fd:
        t = fd.define_tensor(shape=[1, -1], contiguity=True)
        fd.add_output(fd.ops.squeeze(t, 0))
    np.testing.assert_array_equal(fd.execute([a])[0], a[0])


def test_resize_ops(rng):
    a, b = randn(rng, (5, 7)), randn(rng, (3, 7))
    check("pad", lambda fd, x: fd.ops.pad(x, [1, 2]), np.pad(a, ((0, 0), (1, 2))), a)
    check("pad", lambda fd, x: fd.ops.pad(x, [1, 2, 3, 0], 1.5),
          np.pad(a, ((3, 0), (1, 2)), constant_values=1.5), a)
    check("slice", lambda fd, x: fd.ops.slice(x, [1, 2], [4, 7]), a[1:4, 2:7], a)
    check("slice", lambda fd, x: fd.ops.slice(x, [0, 1], [5, 6], [1, 1]), a[:, 1:6], a)
    check("cat", lambda fd, x, y: fd.ops.cat([x, y], 0), np.concatenate([a, b]), a, b)
    check("cat", lambda fd, x, y: fd.ops.cat([x, x], dim=1), np.concatenate([a, a], 1), a, b)


def test_full(rng):
    a = randn(rng, (2, 3))
    check("full", lambda fd, x: fd.ops.add(x, fd.ops.full([2, 3], 1.25, DataType.Float)),
          a + 1.25, a)


@pytest.mark.parametrize("shape", [(1, 1), (13, 31), (4, 129)])
def test_reductions(rng, shape):
    a = randn(rng, shape)
    for name, fn in [("sum", np.sum), ("prod", np.prod), ("max", np.max), ("min", np.min)]:
        op = lambda fd, x, name=name: [getattr(fd.ops, name)(x, 1),  # noqa: E731
                                       getattr(fd.ops, name)(x, [0], keepdim=True),
                                       getattr(fd.ops, name)(x)]
        check(name, op, [fn(a, 1), fn(a, 0, keepdims=True), fn(a)], a, rtol=1e-4)
    ints = rng.integers(1, 50, size=shape).astype(np.int32)
    check("sum", lambda fd, x: fd.ops.sum(x, [1]), ints.sum(1).astype(np.int64), ints)
    check("sum", lambda fd, x: fd.ops.sum(x, [1], dtype=DataType.Double), a.sum(1, dtype=np.float64),
          a, rtol=1e-5)


@pytest.mark.parametrize("shape", [(3, 1), (13, 31), (2, 257)])
def test_normalizations(rng, shape):
    a = randn(rng, shape)
    n = shape[1]
    check("mean", lambda fd, x: fd.ops.mean(x, [1]), a.mean(1), a, rtol=1e-5)
    if n > 1:
        check("var", lambda fd, x: fd.ops.var(x, [1]), a.var(1, ddof=1), a, rtol=1e-4)
        check("std", lambda fd, x: fd.ops.std(x, [1]), a.std(1, ddof=1), a, rtol=1e-4)
    check("var_mean", lambda fd, x: fd.ops.var_mean(x, [1], correction=0),
          [a.var(1), a.mean(1)], a, rtol=1e-4, atol=1e-5)
    e = np.exp(a - a.max(1, keepdims=True))
    check("softmax", lambda fd, x: fd.ops.softmax(x, 1), e / e.sum(1, keepdims=True), a)
    check("log_softmax", lambda fd, x: fd.ops.log_softmax(x, -1),
          np.log(e / e.sum(1, keepdims=True)), a, rtol=1e-4, atol=1e-5)
    w, b = randn(rng, (n,)), randn(rng, (n,))
    mu, var = a.mean(1, keepdims=True), a.var(1, keepdims=True)
    inv = 1 / np.sqrt(var + 1e-5)
    check("layer_norm", lambda fd, x, y, z: fd.ops.layer_norm(x, [n], y, z, eps=1e-5),
          [(a - mu) * inv * w + b, mu, inv], a, w, b, rtol=1e-4, atol=1e-4)
    rinv = 1 / np.sqrt((a * a).mean(1, keepdims=True) + 1e-6)
    check("rms_norm", lambda fd, x, y: fd.ops.rms_norm(x, 1, y, 1e-6), [a * rinv * w, rinv],
          a, w, rtol=1e-4, atol=1e-4)


def test_every_op_is_tested():
    """Runs last in this file (pytest keeps the order): each op of fd.ops has a test here or
    in test_layout.py (the layout op and the block quantizations)."""
    bound = {n for n in dir(minifuser._C.ops) if not n.startswith("_")}
    layout = {"preprocess_grouped_matmul_input_sf", "nv_block_quantize",
              "nv_grouped_block_quantize", "grouped_block_quantize"}
    assert bound - layout - TESTED == set()
