"""GPU tests of the Python frontend (marker gpu; ctest python_gpu, label gpu): CUDA torch
tensors read in place and on torch's stream, non-contiguous views, the layout op and
grouped_block_quantize against torch re-implementations of nvFuser's reference formulas
(pytorch_nvfp4_quantize, linear_to_swizzled_128_4), written here from the formulas."""

import pytest

torch = pytest.importorskip("torch")

from minifuser import DataType, FusionDefinition  # noqa: E402

pytestmark = pytest.mark.gpu
E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]


def randn(*shape, dtype=torch.float32):
    x = torch.rand(*shape, device="cuda") * 4 - 2
    return torch.where(x == 0, torch.full_like(x, 0.5), x).to(dtype)


def bias_relu():
    with FusionDefinition() as fd:
        x = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)
        b = fd.define_tensor(shape=[-1], contiguity=True, dtype=DataType.Float)
        fd.add_output(fd.ops.relu(x + fd.ops.broadcast(b, [True, False])))
    return fd


def test_cuda_tensors_in_and_out():
    x, b = randn(257, 1031), randn(1031)
    fd = bias_relu()
    (out,) = fd.execute([x, b])
    assert isinstance(out, torch.Tensor) and out.is_cuda and out.dtype == torch.float32
    torch.testing.assert_close(out, torch.relu(x + b), rtol=0, atol=0)
    fd.execute([x, b])
    assert fd.kernels_compiled() == 1


@pytest.mark.parametrize("view", ["transpose", "offset_slice", "strided"])
def test_non_contiguous_views_without_contiguous(view):
    base = randn(300, 520)
    x = {"transpose": base.t()[:, :300], "offset_slice": base[7:200, 13:313],
         "strided": base[::3, ::2][:, :300]}[view]
    assert not x.is_contiguous()
    b = randn(x.shape[1])
    (out,) = bias_relu().execute([x, b])
    torch.testing.assert_close(out, torch.relu(x + b), rtol=0, atol=0)


def test_inputs_are_not_copied():
    """An output that views its input (a permute: no kernel) has the input's data pointer, so
    execute read the caller's memory itself; a kernel writing into it would show too."""
    x = randn(64, 96)[:, 8:72]
    with FusionDefinition() as fd:
        t = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)
        fd.add_output(fd.ops.permute(t, [1, 0]))
    (out,) = fd.execute([x])
    assert out.data_ptr() == x.data_ptr()
    torch.testing.assert_close(out, x.t(), rtol=0, atol=0)


def test_runs_on_torchs_current_stream():
    x, b = randn(4096, 4096), randn(4096)
    fd = bias_relu()
    fd.execute([x, b])
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        y = x * 3.0  # queued on `side`, read by the fusion after it in that stream's order
        (out,) = fd.execute([y, b])
        expected = torch.relu(y + b)
    side.synchronize()
    torch.testing.assert_close(out, expected, rtol=0, atol=0)


def swizzle_128_4(sf):
    """linear_to_swizzled_128_4's formula: pad [m, k] to 128-row, 4-column tiles (padding NaN
    here, to mask it), view (m/128, 4, 32, k/4, 4), swap axes 1 and 3."""
    m, k = sf.shape
    mp, kp = (m + 127) // 128 * 128, (k + 3) // 4 * 4
    padded = torch.full((mp, kp), float("nan"), device=sf.device)
    padded[:m, :k] = sf.float()
    return padded.reshape(mp // 128, 4, 32, kp // 4, 4).transpose(1, 3).reshape(mp, kp)


def grouped_layout(sf, sizes):
    """Each group's rows swizzled at its output offset (whole 128-row tiles)."""
    k = sf.shape[1]
    kp = (k + 3) // 4 * 4
    out = torch.full((sf.shape[0] + 127 * len(sizes), kp), float("nan"), device=sf.device)
    row = out_row = 0
    for n in sizes:
        tile = swizzle_128_4(sf[row:row + n])
        out[out_row:out_row + tile.shape[0]] = tile
        row, out_row = row + n, out_row + tile.shape[0]
    return out


def offsets(sizes):
    ins, outs, r, o = [], [], 0, 0
    for n in sizes:
        ins.append(r)
        outs.append(o)
        r, o = r + n, o + (n + 127) // 128 * 128
    return (torch.tensor(ins, dtype=torch.int32, device="cuda"),
            torch.tensor(outs, dtype=torch.int32, device="cuda"))


@pytest.mark.parametrize("sizes,k", [([1], 1), ([130, 1, 61], 13), ([8192 - 300, 300], 448)])
def test_layout_op_against_the_swizzle(sizes, k):
    m = sum(sizes)
    sf = randn(m, k)
    with FusionDefinition() as fd:
        x = fd.define_tensor(shape=[-1, -1], contiguity=True, dtype=DataType.Float)
        ino = fd.define_tensor(shape=[-1], contiguity=True, dtype=DataType.Int32)
        outo = fd.define_tensor(shape=[-1], contiguity=True, dtype=DataType.Int32)
        fd.add_output(fd.ops.preprocess_grouped_matmul_input_sf(x, ino, outo))
    (out,) = fd.execute([sf, *offsets(sizes)])
    want = grouped_layout(sf, sizes)
    assert out.shape == want.shape
    written = ~torch.isnan(want)
    torch.testing.assert_close(out[written], want[written], rtol=0, atol=0)


def e2m1_codes(v):
    """Nearest e2m1 value, ties to the even code, the sign bit kept."""
    table = torch.tensor(E2M1, device=v.device, dtype=torch.float64)
    cost = (v.abs().double()[..., None] - table).abs() + (torch.arange(8, device=v.device) & 1) * 1e-12
    return (cost.argmin(-1) | (torch.signbit(v).long() << 3)).to(torch.uint8)


def nvfp4_quantize(x, global_scale=1.0):
    """pytorch_nvfp4_quantize's formula, with the rounded scale as docs/numerics.md states:
    s = clamp(amax / 6 * gs, tiny, 448) -> e4m3; q = e2m1(clamp(x / (s8 / gs), -6, 6))."""
    blocks = x.float().reshape(x.shape[0], -1, 16)
    amax = blocks.abs().amax(-1)
    fp8 = torch.finfo(torch.float8_e4m3fn)
    s8 = torch.clamp(amax / 6.0 * global_scale, min=fp8.tiny, max=fp8.max).to(torch.float8_e4m3fn)
    d = s8.float() / global_scale
    q = e2m1_codes(torch.clamp(blocks / d[..., None], -6.0, 6.0)).reshape(x.shape[0], -1)
    return (q[:, 0::2] | (q[:, 1::2] << 4)), s8


@pytest.mark.parametrize("sizes,k", [([7], 16), ([130, 1, 61], 64), ([1000, 24], 7168)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_grouped_block_quantize_against_torch(sizes, k, dtype):
    m = sum(sizes)
    x = randn(m, k, dtype=dtype)
    with FusionDefinition() as fd:
        t = fd.define_tensor(shape=[-1, -1], contiguity=True,
                             dtype=DataType.Float if dtype == torch.float32 else DataType.BFloat16)
        ino = fd.define_tensor(shape=[-1], contiguity=True, dtype=DataType.Int32)
        outo = fd.define_tensor(shape=[-1], contiguity=True, dtype=DataType.Int32)
        q, scales = fd.ops.nv_grouped_block_quantize(t, ino, outo)
        fd.add_output(q)
        fd.add_output(scales)
    got_q, got_s = fd.execute([x, *offsets(sizes)])
    assert got_q.dtype == torch.float4_e2m1fn_x2 and got_s.dtype == torch.float8_e4m3fn
    want_q, want_s = nvfp4_quantize(x)
    assert torch.equal(got_q.view(torch.uint8), want_q)
    want_layout = grouped_layout(want_s.float(), sizes)
    written = ~torch.isnan(want_layout)
    torch.testing.assert_close(got_s.float()[written], want_layout[written], rtol=0, atol=0)
