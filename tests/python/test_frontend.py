"""FusionDefinition on the CPU: inputs read in place (strided, offset views), errors with their
messages, the repro script str(fd), caching, introspection and dumps."""

import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import randn

import minifuser
from minifuser import DataType, FusionDefinition


def exp_fusion(contiguity=False):
    with FusionDefinition() as fd:
        t = fd.define_tensor(shape=[-1, -1], contiguity=contiguity)
        fd.add_output(fd.ops.exp(t))
    return fd


def test_strided_and_offset_inputs_are_read_in_place(rng):
    big = randn(rng, (11, 13))
    fd = exp_fusion()
    for view in (big[1::2, 3::3], big[2:, 5:7], big.T, big[:1, :]):
        (out,) = fd.execute([view])
        np.testing.assert_allclose(out, np.exp(view), rtol=1e-6)


def test_an_output_viewing_an_input_shares_its_memory(rng):
    x = randn(rng, (5, 7))
    with FusionDefinition() as fd:
        t = fd.define_tensor(shape=[-1, -1])
        fd.add_output(fd.ops.permute(t, [1, 0]))
    (out,) = fd.execute([x])
    assert np.shares_memory(out, x)  # no kernel, no copy: the input itself, permuted
    np.testing.assert_array_equal(out, x.T)
    del x  # the output keeps the input's buffer alive
    assert out.sum() == out.T.sum()


def test_scalar_inputs_and_constants(rng):
    x = randn(rng, (3, 4))
    with FusionDefinition() as fd:
        t = fd.define_tensor(shape=[-1, -1], contiguity=True)
        alpha = fd.define_scalar(dtype=DataType.Double)
        n = fd.define_scalar(None, DataType.Int)
        two = fd.define_scalar(2.0)
        fd.add_output(fd.ops.add(fd.ops.mul(t, alpha), fd.ops.mul(n, two)))
    assert two.value == 2.0 and alpha.value is None
    (out,) = fd.execute([x, 0.5, 3])
    np.testing.assert_allclose(out, x * 0.5 + 6.0, rtol=1e-6)


# Each error the Python layer or the C++ side raises, with its message (mf::UserError's text).
ERRORS = [
    (lambda fd, x: fd.execute([x.astype(np.float64)]),
     "FusionExecutorCache: input 0 T0_g_float[iS0{i0}, iS1{i1}]: expected dtype float, got double"),
    (lambda fd, x: fd.execute([x[0]]),
     "FusionExecutorCache: input 0 T0_g_float[iS0{i0}, iS1{i1}]: expected rank 2, got a tensor of "
     "rank 1 [7]"),
    (lambda fd, x: fd.execute(["x"]),
     "FusionDefinition.execute: input 0 (T0_g_float[iS0{i0}, iS1{i1}]) must be a numpy array or "
     "a torch tensor, got a str"),
    (lambda fd, x: fd.execute([x, x]), "FusionDefinition.execute: the fusion takes 1 inputs, got 2"),
    (lambda fd, x: fd.execute([x[:, ::-1]]),
     "FusionDefinition.execute: input 0 (T0_g_float[iS0{i0}, iS1{i1}]) has the negative stride "
     "-1 on axis 1; minifuser reads views with strides >= 0 (pass a copy)"),
    (lambda fd, x: fd.execute([x.astype(np.uint16)]),
     "FusionDefinition.execute: input 0 (T0_g_float[iS0{i0}, iS1{i1}]) has a dtype minifuser "
     "does not support (DLPack code 1, 16 bits)"),
]


@pytest.mark.parametrize("call,message", ERRORS)
def test_execute_errors(rng, call, message):
    x = randn(rng, (5, 7))
    with pytest.raises(minifuser.UserError) as e:
        call(exp_fusion(), x)
    assert str(e.value) == message
    assert isinstance(e.value, ValueError)


def test_contiguity_is_checked_not_copied(rng):
    x = randn(rng, (5, 9))
    with pytest.raises(minifuser.UserError, match="axis 1 is declared contiguous, so its stride "
                                                  "must be 1, got 3"):
        exp_fusion(contiguity=True).execute([x[:, ::3]])


def test_definition_errors():
    with pytest.raises(ValueError, match=r"fd.ops.add: rhs must be a Tensor, a Scalar or a "
                                         r"Python number, got 'a'"):
        with FusionDefinition() as fd:
            fd.ops.add(fd.define_tensor(shape=[-1]), "a")
    with pytest.raises(ValueError, match=r"names axis 0 twice; it must be a permutation"):
        with FusionDefinition() as fd:
            fd.ops.permute(fd.define_tensor(shape=[-1, -1]), [0, 0])
    with pytest.raises(ValueError, match="the fusion has no outputs; call fd.add_output"):
        FusionDefinition().execute([])
    fd = exp_fusion()
    with pytest.raises(ValueError, match="the fusion was executed; define a new"):
        fd.execute([np.ones((2, 2), np.float32)])
        fd.__enter__()
    with pytest.raises(ValueError, match="use it inside `with FusionDefinition"):
        exp_fusion().ops  # noqa: B018
        minifuser.Tensor.__add__(None, 1.0)


def build_norm(fd):
    x = fd.define_tensor(shape=[-1, -1], contiguity=True, dtype=DataType.Float)
    w = fd.define_tensor(shape=[-1], contiguity=[True])
    eps = fd.define_scalar(1e-5, dtype=DataType.Double)
    y, mean, invstd = fd.ops.layer_norm(x, [1], w, None, eps)
    z = fd.ops.cast(fd.ops.relu(y * 2.0 - mean), DataType.Half)
    var, _ = fd.ops.var_mean(x, [1], correction=0, keepdim=True)
    fd.add_output(z)
    fd.add_output(fd.ops.sum(var, dims=[0, 1]))
    fd.add_output(fd.ops.pad(fd.ops.slice(x, [0, 1], [2, 3]), [1, 1], float("inf")))


def test_repr_is_a_script_that_rebuilds_the_fusion(rng):
    with FusionDefinition() as fd:
        build_norm(fd)
    script = str(fd)
    assert script.startswith("from minifuser import FusionDefinition, DataType\n")
    assert "    T14, T15, T16 = fd.ops.layer_norm(T0, [1], T1, None, S4)\n" in script
    namespace = {}
    exec(script, namespace)
    fd2 = namespace["fd"]
    assert fd2.fusion_ir() == fd.fusion_ir()
    assert str(fd2) == script
    inputs = [randn(rng, (6, 5)), randn(rng, (5,))]
    for a, b in zip(fd.execute(inputs), fd2.execute(inputs)):
        np.testing.assert_array_equal(a, b)


def test_repeated_execute_compiles_nothing_new(rng):
    fd = exp_fusion()
    assert fd.kernels_compiled() == 0
    fd.execute([randn(rng, (8, 9))])
    assert (fd.kernels_compiled(), fd.runtimes()) == (1, 1)
    for _ in range(3):
        fd.execute([randn(rng, (8, 9))])
    assert (fd.kernels_compiled(), fd.runtimes()) == (1, 1)


def test_introspection(rng):
    with FusionDefinition() as fd:
        t = fd.define_tensor(shape=[-1, -1], contiguity=True)
        u = fd.ops.segment_set(fd.ops.exp(t))
        fd.add_output(fd.ops.sum(u, [1]))
    with pytest.raises(ValueError, match="nothing was executed yet"):
        fd.last_cuda_code()
    fd.execute([randn(rng, (16, 33))])
    segments = fd.segments()
    assert [s["scheduler"] for s in segments] == ["pointwise", "reduction"]
    assert segments[0]["exprs"][0].endswith("= exp(T0)")
    assert segments[1]["outputs"][0].startswith("T3_g_float[iS6{i0}, rS7{i1}]")
    params = fd.scheduler_params()
    assert params[0].startswith("PointwiseParams(") and params[1].startswith("ReductionParams(")
    assert fd.last_cuda_code().count('extern "C" __global__') == 2


def test_set_dump_prints_from_cpp(rng, capfd):
    fd = exp_fusion()
    minifuser.set_dump("scheduler_params,cuda_kernel")
    try:
        fd.execute([randn(rng, (4, 4))])
    finally:
        minifuser.set_dump(None)
    out = capfd.readouterr().out
    assert "PointwiseParams(" in out and '__global__ void' in out
    exp_fusion().execute([randn(rng, (4, 5))])
    assert "PointwiseParams(" not in capfd.readouterr().out
    with pytest.raises(ValueError, match="MINIFUSER_DUMP: unknown option 'nope'; valid options"):
        minifuser.set_dump("nope")


def test_minifuser_dump_from_os_environ():
    """Set before the first FusionDefinition of the process, as nvFuser's NVFUSER_DUMP."""
    code = ("import os; os.environ['MINIFUSER_DUMP'] = 'fusion_segments'\n"
            "import numpy as np, minifuser\n"
            "with minifuser.FusionDefinition() as fd:\n"
            "    fd.add_output(fd.ops.neg(fd.define_tensor(shape=[-1])))\n"
            "fd.execute([np.ones(3, np.float32)])\n")
    env = dict(os.environ)
    env.pop("MINIFUSER_DUMP", None)
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    assert "group 0 (pointwise)" in run.stdout


def test_dtype_enum_has_nvfusers_names():
    for name in ("Float", "Double", "Half", "BFloat16", "Int", "Int32", "Bool",
                 "Float8_e4m3fn", "Float4_e2m1fn"):
        assert getattr(DataType, name).name in (name, "Int64")
    assert DataType.Int is DataType.Int64 and DataType["Int"] is DataType.Int64
