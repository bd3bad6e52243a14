#!/usr/bin/env python3
"""Times the reduction benchmark cases in PyTorch (eager and torch.compile) and the copy rate
of the same input bytes, reads minifuser's times from stdin (lines
"case <name> <us> <bytes> <heuristics>" printed by reduction_bench) and prints ratios.

Times are taken as compare_pointwise.py takes them (CUDA events around each call, back to
back after a warm-up, median of 100 calls). A reduction reads its input once and writes
little, so the bandwidth limit is a device-to-device copy of the input's bytes (read and
written): `x copy` is the copy's time over ours for the same bytes moved, counting the
copy's reads only (half its traffic), i.e. ours against the read rate the memory system
reaches in a copy."""
import sys

import torch

from compare_pointwise import median_us

M, N = 32 * 1024, 4 * 1024
BIG = 128 * 1024 * 1024


def cases():
    X = torch.randn(M, N, device="cuda")
    yield "sum_last_axis_fp32", (lambda a: a.sum(dim=1)), (X,)
    yield "sum_first_axis_fp32", (lambda a: a.sum(dim=0)), (X,)
    del X
    yield "sum_vector_fp32", (lambda a: a.sum()), (torch.randn(BIG, device="cuda"),)
    # The persistent cases (softmax, RMS norm of bf16 [32Ki, 4Ki]) join here with
    # InnerPersistent: bf16 X, torch.softmax(a, dim=-1) and a * rsqrt(mean(a^2) + eps) * w.


def main():
    ours = {}
    for line in sys.stdin:
        parts = line.split()
        if len(parts) >= 4 and parts[0] == "case":
            ours[parts[1]] = (float(parts[2]), int(parts[3]))
    print(f"{'case':<22}{'bytes MB':>9}{'copy us':>9}{'ours us':>9}{'ours GB/s':>10}"
          f"{'x copy':>8}{'eager us':>10}{'compile us':>11}{'compile/ours':>13}")
    for name, fn, args in cases():
        if name not in ours:
            continue
        us, nbytes = ours[name]
        # A copy of the input: it reads what the reduction reads (and writes as much again).
        src = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        copy = median_us(lambda: dst.copy_(src)) / 2
        eager = median_us(lambda: fn(*args))
        compiled = torch.compile(fn)
        comp = median_us(lambda: compiled(*args))
        del src, dst
        print(f"{name:<22}{nbytes / 1e6:>9.0f}{copy:>9.1f}{us:>9.1f}{nbytes / us / 1e3:>10.0f}"
              f"{copy / us:>8.2f}{eager:>10.1f}{comp:>11.1f}{comp / us:>13.2f}")


if __name__ == "__main__":
    main()
