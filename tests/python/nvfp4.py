"""numpy versions of the layout op's positions (docs/layout_op.md) and of NVFP4 block
quantization (docs/numerics.md, "Block quantization"), written from the formulas."""

import numpy as np

E2M1 = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])


def group_offsets(sizes):
    """Each group's first row in the input, and in the padded output (whole 128-row tiles)."""
    sizes = np.array(sizes)
    in_off = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int32)
    padded = (sizes + 127) // 128 * 128
    out_off = np.concatenate([[0], np.cumsum(padded)[:-1]]).astype(np.int32)
    return in_off, out_off


def layout_positions(sizes, k):
    """[M, K]: the flat position in the padded buffer of each logical element:
    out_off*Kp + (r/128)*Kp*128 + (c/4)*512 + (r%32)*16 + ((r%128)/32)*4 + c%4."""
    in_off, out_off = group_offsets(sizes)
    kp = (k + 3) // 4 * 4
    rows = []
    for e, n in enumerate(sizes):
        r = np.arange(n)[:, None]
        c = np.arange(k)[None, :]
        rows.append(out_off[e] * kp + (r // 128) * kp * 128 + (c // 4) * 512 + (r % 32) * 16
                    + ((r % 128) // 32) * 4 + c % 4)
    return np.concatenate(rows)


def e4m3_code(s):
    """Positive normal floats in [2^-6, 448] to e4m3 codes, round to nearest even."""
    f, k = np.frexp(s.astype(np.float64))  # s = f * 2^k, f in [0.5, 1)
    m = np.rint((2 * f - 1) * 8)  # ties to even
    e = k - 1 + (m == 8)
    m = np.where(m == 8, 0, m)
    return (((e + 7) << 3) | m.astype(np.int64)).astype(np.uint8)


def e4m3_value(code):
    code = code.astype(np.int64)
    e, m = (code >> 3) & 0xF, code & 7
    return np.where(e == 0, m / 8 * 2.0 ** -6, (1 + m / 8) * 2.0 ** (e - 7)).astype(np.float32)


def e2m1_code(v):
    """[-6, 6] to e2m1 codes: nearest, ties to the even code; the sign bit kept."""
    dist = np.abs(np.abs(v.astype(np.float64))[..., None] - E2M1)
    cost = dist + (np.arange(8) & 1) * 1e-12  # a tie goes to the even code
    code = np.argmin(cost, axis=-1)
    return (code | (np.signbit(v) << 3)).astype(np.uint8)


def nvfp4_quantize(x, global_scale):
    """x [M, K] float32 -> (packed e2m1 bytes [M, K/2], e4m3 scale codes [M, K/16])."""
    gs = np.float32(global_scale)
    blocks = x.astype(np.float32).reshape(x.shape[0], -1, 16)
    amax = np.abs(blocks).max(-1)
    s = np.clip(amax / np.float32(6) * gs, np.float32(2.0 ** -6), np.float32(448))
    codes = e4m3_code(s)
    d = e4m3_value(codes) / gs
    q = e2m1_code(np.clip(blocks / d[..., None], np.float32(-6), np.float32(6)))
    q = q.reshape(x.shape[0], -1)
    return (q[:, 0::2] | (q[:, 1::2] << 4)).astype(np.uint8), codes
