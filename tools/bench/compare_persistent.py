#!/usr/bin/env python3
"""Times the persistent benchmark cases (bf16 softmax over the last axis and RMS norm of
[32Ki, 4Ki]) in PyTorch, eager and torch.compile, and a device-to-device copy of the same
bytes, reads minifuser's times from stdin (lines "case <name> <us> <bytes>" printed by
persistent_bench) and prints ratios. Times are taken as compare_pointwise.py takes them
(median_us). The copy moves the case's bytes (half read, half written): a single-pass kernel
can at best match it; torch.compile's softmax reads its input twice."""
import sys

import torch

from compare_pointwise import median_us

M, N = 32 * 1024, 4 * 1024
EPS = 1e-6


def softmax(x):
    return torch.softmax(x.float(), dim=-1).to(torch.bfloat16)


def rms_norm(x, w):
    v = x.float()
    return (v * torch.rsqrt(v.pow(2).mean(-1, keepdim=True) + EPS) * w.float()).to(torch.bfloat16)


def cases():
    x = torch.randn(M, N, device="cuda", dtype=torch.bfloat16)
    yield "softmax_bf16", softmax, (x,)
    yield "rms_norm_bf16", rms_norm, (x, torch.randn(N, device="cuda", dtype=torch.bfloat16))


def main():
    ours = {}
    for line in sys.stdin:
        parts = line.split()
        if len(parts) == 4 and parts[0] == "case":
            ours[parts[1]] = (float(parts[2]), int(parts[3]))
    print(f"{'case':<16}{'bytes MB':>9}{'copy us':>9}{'ours us':>9}{'ours GB/s':>10}"
          f"{'x copy':>8}{'eager us':>10}{'compile us':>11}{'compile/ours':>13}")
    for name, fn, args in cases():
        if name not in ours:
            continue
        us, nbytes = ours[name]
        src = torch.empty(nbytes // 2, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        copy = median_us(lambda: dst.copy_(src))
        eager = median_us(lambda: fn(*args))
        compiled = torch.compile(fn)
        comp = median_us(lambda: compiled(*args))
        del src, dst
        print(f"{name:<16}{nbytes / 1e6:>9.0f}{copy:>9.1f}{us:>9.1f}{nbytes / us / 1e3:>10.0f}"
              f"{copy / us:>8.2f}{eager:>10.1f}{comp:>11.1f}{comp / us:>13.2f}")


if __name__ == "__main__":
    main()
