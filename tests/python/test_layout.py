"""The layout op and the NVFP4 block quantizations on the CPU, against numpy written from
their formulas (docs/layout_op.md, docs/numerics.md). nvfp4.py holds the numpy versions; the
GPU tests (test_gpu.py) check the same against PyTorch."""

import numpy as np
import pytest
from conftest import randn
from nvfp4 import group_offsets, layout_positions, nvfp4_quantize

from minifuser import DataType, FusionDefinition

# (group sizes, K): one group, primes, a group of 1 row, K not a multiple of 4.
CASES = [([7], 4), ([130, 1, 61], 13), ([1], 1), ([200, 77], 64), ([3, 128, 5, 129], 6)]


def layout_fusion(dtype=DataType.Float, offsets_dtype=DataType.Int32):
    with FusionDefinition() as fd:
        x = fd.define_tensor(shape=[-1, -1], contiguity=True, dtype=dtype)
        ino = fd.define_tensor(shape=[-1], contiguity=True, dtype=offsets_dtype)
        outo = fd.define_tensor(shape=[-1], contiguity=True, dtype=offsets_dtype)
        fd.add_output(fd.ops.preprocess_grouped_matmul_input_sf(x, ino, outo))
    return fd


@pytest.mark.parametrize("sizes,k", CASES)
@pytest.mark.parametrize("offsets_dtype", [np.int32, np.int64])
def test_layout_op_matches_the_swizzle_formula(rng, sizes, k, offsets_dtype):
    m, g = sum(sizes), len(sizes)
    x = randn(rng, (m, k))
    in_off, out_off = (o.astype(offsets_dtype) for o in group_offsets(sizes))
    fd = layout_fusion(offsets_dtype=DataType.Int32 if offsets_dtype == np.int32
                       else DataType.Int64)
    (out,) = fd.execute([x, in_off, out_off])
    kp = (k + 3) // 4 * 4
    assert out.shape == (m + 127 * g, kp)  # the padded buffer
    flat = layout_positions(sizes, k)
    np.testing.assert_array_equal(out.reshape(-1)[flat.reshape(-1)], x.reshape(-1))
    (layout,) = fd.last_output_layouts()
    assert layout.index == 0 and tuple(layout.logical_shape) == (m, k)
    assert tuple(layout.allocation_shape) == out.shape
    assert layout.used_rows == out_off[-1] + (sizes[-1] + 127) // 128 * 128
    view = layout.logical_view(out)
    assert view.shape == (m, k) and np.shares_memory(view, out)


def test_block_quantize_matches_the_nvfp4_rule(rng):
    x = randn(rng, (5, 48)) * 3
    x[1, :16] = 1e-9  # a block whose scale clamps at 2^-6
    gs = np.array(0.75, dtype=np.float32)
    with FusionDefinition() as fd:
        t = fd.define_tensor(shape=[-1, -1], contiguity=True)
        s = fd.define_tensor(shape=[], dtype=DataType.Float)
        q, scales = fd.ops.nv_block_quantize(t, s)
        fd.add_output(q)
        fd.add_output(scales)
    got_q, got_s = fd.execute([x, gs])
    want_q, want_s = nvfp4_quantize(x, gs)
    assert got_q.dtype == np.uint8 and got_q.shape == (5, 24)  # float4, two per byte
    np.testing.assert_array_equal(got_s, want_s)
    np.testing.assert_array_equal(got_q, want_q)


@pytest.mark.parametrize("sizes,k", [([7], 16), ([130, 1, 61], 48), ([200, 77], 128)])
def test_grouped_block_quantize_writes_scales_in_the_layout(rng, sizes, k):
    m, g = sum(sizes), len(sizes)
    x = randn(rng, (m, k))
    in_off, out_off = group_offsets(sizes)
    with FusionDefinition() as fd:
        t = fd.define_tensor(shape=[-1, -1], contiguity=True)
        ino = fd.define_tensor(shape=[-1], contiguity=True, dtype=DataType.Int32)
        outo = fd.define_tensor(shape=[-1], contiguity=True, dtype=DataType.Int32)
        q, scales = fd.ops.grouped_block_quantize(t, ino, outo)
        fd.add_output(q)
        fd.add_output(scales)
    got_q, got_s = fd.execute([x, in_off, out_off])
    want_q, want_s = nvfp4_quantize(x, np.float32(1.0))
    np.testing.assert_array_equal(got_q, want_q)
    assert got_s.shape == (m + 127 * g, (k // 16 + 3) // 4 * 4)
    flat = layout_positions(sizes, k // 16)
    np.testing.assert_array_equal(got_s.reshape(-1)[flat.reshape(-1)], want_s.reshape(-1))
    assert [l.index for l in fd.last_output_layouts()] == [1]
