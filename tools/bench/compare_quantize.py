#!/usr/bin/env python3
"""Times PyTorch eager and torch.compile of NVFP4 grouped block quantization (the same
computation as groupedBlockQuantize, docs/numerics.md: amax per 16 values, the e4m3 scale,
the values divided by it, rounded to e2m1 and packed two per byte, the scales scattered into
the layout op's swizzled layout) on quantize_bench's cases, back to back as quantize_bench
times its kernel and the copy. Reads minifuser's lines ("quantize FORM G M K us") on stdin
and prints the ratios to the bytes-moved floor (M*K*2 bytes read, M*K/2 + M*K/16 written, at
the rate of the copy measured in the same run) and to PyTorch."""
import sys

import torch

from compare_layout_op import offsets, positions
from compare_pointwise import median_us


def e2m1_codes(v):
    a = v.abs()
    m = ((a > 0.25).to(torch.uint8) + (a >= 0.75) + (a > 1.25) + (a >= 1.75) + (a > 2.5)
         + (a >= 3.5) + (a > 5))
    return m | (torch.signbit(v).to(torch.uint8) << 3)


def quantize(x, gs, in_off, out_off, g):
    m, k = x.shape
    blocks = x.float().view(m, k // 16, 16)
    amax = blocks.abs().amax(dim=-1)
    s = torch.clamp(amax / 6 * gs, 2.0 ** -6, 448).to(torch.float8_e4m3fn)
    d = s.float() / gs
    q = torch.clamp(blocks / d[..., None], -6, 6)
    codes = e2m1_codes(q).view(m, k // 2, 2)
    packed = codes[..., 0] | (codes[..., 1] << 4)
    kb = k // 16
    kp = (kb + 3) // 4 * 4
    scales = torch.empty((m + 127 * g) * kp, dtype=torch.float8_e4m3fn, device="cuda")
    scales[positions(m, kb, in_off, out_off).reshape(-1)] = s.reshape(-1)
    return packed, scales


def main():
    ours = {}
    for line in sys.stdin:
        parts = line.split()
        if len(parts) == 6 and parts[0] == "quantize":
            ours.setdefault(tuple(int(x) for x in parts[2:5]), {})[parts[1]] = float(parts[5])
    compiled = torch.compile(quantize)
    print(f"{'case':<24}{'copy us':>9}{'floor us':>10}{'minifuser us':>13}{'x floor':>9}"
          f"{'eager us':>10}{'compile us':>11}{'eager/ours':>11}{'compile/ours':>13}")
    for (g, m, k), forms in sorted(ours.items(), key=lambda kv: kv[0][1]):
        x = torch.randn(m, k, dtype=torch.bfloat16, device="cuda")
        gs = torch.tensor(0.37, device="cuda")
        in_off, out_off = offsets(g, m)
        copy = forms["copy"]
        ours_us = forms["auto"]
        # The copy moves 2 * M*K*2 bytes; the op moves M*K*2 + M*K/2 + M*K/16.
        floor = copy * (m * k * 2 + m * k / 2 + m * k / 16) / (2 * m * k * 2)
        eager = median_us(lambda: quantize(x, gs, in_off, out_off, g), iters=30, per_sample=20)
        comp = median_us(lambda: compiled(x, gs, in_off, out_off, g), iters=30, per_sample=20)
        print(f"{f'G={g} M={m} K={k}':<24}{copy:>9.1f}{floor:>10.1f}{ours_us:>13.1f}"
              f"{ours_us / floor:>9.2f}{eager:>10.1f}{comp:>11.1f}{eager / ours_us:>11.2f}"
              f"{comp / ours_us:>13.2f}")


if __name__ == "__main__":
    main()
