#!/usr/bin/env python3
"""Times a PyTorch eager scatter reference and its torch.compile on the layout op's benchmark
cases (back to back, as layout_op_bench times its kernels and the device copy), reads
minifuser's lines ("case FORM G M K us" on stdin, FORM copy for the copy) and prints the
ratios to the copy and to PyTorch.

The reference computes each element's swizzled position from the offsets (group by
searchsorted, docs/layout_op.md's formula) and scatters with index_put, so it does the same work as
the op: group search and scatter. Offsets follow the same rule as layout_op_bench (random
group sizes, seed-independent of ours: the time does not depend on the exact sizes)."""
import sys

import torch

from compare_pointwise import median_us



def positions(m, k, in_off, out_off):
    rows = torch.arange(m, device="cuda")
    e = torch.searchsorted(in_off, rows, right=True) - 1
    r = rows - in_off[e]
    kp = (k + 3) // 4 * 4
    base = out_off[e] * kp + (r // 128) * kp * 128 + (r % 32) * 16 + ((r % 128) // 32) * 4
    cols = torch.arange(k, device="cuda")
    return base[:, None] + (cols // 4) * 512 + cols % 4


def layout_op(inp, in_off, out_off, g):
    m, k = inp.shape
    kp = (k + 3) // 4 * 4
    out = torch.empty((m + 127 * g) * kp, dtype=inp.dtype, device="cuda")
    out[positions(m, k, in_off, out_off).reshape(-1)] = inp.reshape(-1)
    return out


def offsets(g, m):
    gen = torch.Generator().manual_seed(7)
    cuts = torch.sort(torch.cat([torch.tensor([0, m]), torch.randint(0, m + 1, (g - 1,), generator=gen)]))[0]
    sizes = cuts[1:] - cuts[:-1]
    in_off = cuts[:-1]
    padded = (sizes + 127) // 128 * 128
    out_off = torch.cat([torch.tensor([0]), torch.cumsum(padded, 0)[:-1]])
    return in_off.int().cuda(), out_off.int().cuda()


def main():
    ours = {}
    for line in sys.stdin:
        parts = line.split()
        if len(parts) == 6 and parts[0] == "case":
            ours.setdefault(tuple(int(x) for x in parts[2:5]), {})[parts[1]] = float(parts[5])
    compiled = torch.compile(layout_op)
    print(f"{'case':<22}{'form':>10}{'copy us':>9}{'minifuser us':>13}{'x copy':>8}{'GB/s':>7}"
          f"{'eager us':>10}{'compile us':>11}{'eager/ours':>11}{'compile/ours':>13}")
    for (g, m, k), forms in sorted(ours.items(), key=lambda kv: kv[0][1]):
        inp = torch.randint(0, 255, (m, k), dtype=torch.uint8, device="cuda")
        in_off, out_off = offsets(g, m)
        copy = forms.pop("copy")
        eager = median_us(lambda: layout_op(inp, in_off, out_off, g), iters=30, per_sample=20)
        comp = median_us(lambda: compiled(inp, in_off, out_off, g), iters=30, per_sample=20)
        for form, us in sorted(forms.items()):
            gbs = 2 * m * k / (us * 1e-6) / 1e9  # logical bytes read + written
            print(f"{f'G={g} M={m} K={k}':<22}{form:>10}{copy:>9.1f}{us:>13.1f}{us / copy:>8.2f}"
                  f"{gbs:>7.0f}{eager:>10.1f}{comp:>11.1f}{eager / us:>11.2f}{comp / us:>13.2f}")


if __name__ == "__main__":
    main()
